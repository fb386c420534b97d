"""Benchmark `tnforge build` and `tnforge negatives` on a ~10M-token corpus with realistic diversity.

The corpus is written in the real shard layout (`output-000NN-of-00100`, Google TSV with `<eos>` lines) from
the sentences of the shared English sample (../shared/data/en_sample.tsv), copied until about `--tokens`
tokens, with every number-class token (CARDINAL, ORDINAL, DECIMAL, MONEY, MEASURE, DATE, TIME, TELEPHONE,
DIGIT, FRACTION) re-drawn in each copy: a new value in the same shape with a reading in the style of its
gold reading (tnforge.grammars.redraw), from stable hashes of (seed, copy, sentence, token). So the corpus
has on the order of 100k+ distinct positive pairs, as a real 10M-token build does, instead of the sample's
few thousand replicated.

In one run it then times, each in a fresh process, `tnforge build` and `tnforge negatives` (ratio 10,
covering grammar on) and prints the distinct positive pairs, both wall times, their ratio and each step's
peak resident memory: of its largest process, and of all its processes together (driver and Beam workers,
sampled every 0.3 s; the 2 GB target is on the sum).

    python benchmarks/diverse_corpus.py                       # 10M tokens, 10 shards, seed 0
    python benchmarks/diverse_corpus.py --tokens 1000000 --keep /tmp/div1m
    python benchmarks/diverse_corpus.py --corpus-only --keep /tmp/div10m   # just write the corpus
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "en_sample.tsv"
#: Shard numbers used: nine training shards and one development shard of the standard split.
SHARDS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 90)
#: Runs a command and prints its own children's peak resident memory (KiB on Linux) as the last line.
_PEAK = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")


def read_sentences(path: Path) -> list[list[tuple[str, str, str]]]:
    """The sentences of a Google-TSV corpus file as lists of (class, before, after)."""
    sentences: list[list[tuple[str, str, str]]] = [[]]
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row and row[0] == "<eos>":
                sentences.append([])
            elif len(row) == 3:
                sentences[-1].append((row[0], row[1], row[2]))
    return [s for s in sentences if s]


def write_corpus(folder: Path, tokens: int, seed: int) -> tuple[list[Path], int, int]:
    """Write the re-drawn corpus; returns the shard paths, tokens written and tokens re-drawn."""
    from tnforge.grammars.grammar import Grammar
    from tnforge.grammars.redraw import REDRAWN, Redrawer

    sentences = read_sentences(SAMPLE)
    per_copy = sum(len(s) for s in sentences)
    copies = max(1, round(tokens / per_copy))
    redrawer = Redrawer(Grammar())
    paths = [folder / f"output-{index:05d}-of-00100" for index in SHARDS]
    handles = [open(p, "w", encoding="utf-8", newline="") for p in paths]
    written = redrawn = 0
    try:
        for copy in range(copies):
            handle = handles[copy * len(handles) // copies]
            lines = []
            for number, sentence in enumerate(sentences):
                for index, (cls, before, after) in enumerate(sentence):
                    if cls in REDRAWN:
                        new = redrawer.redraw(cls, before, after, seed, copy, number, index)
                        if new is not None:
                            before, after = new
                            redrawn += 1
                    lines.append(f"{cls}\t{before}\t{after}\n")
                lines.append("<eos>\t<eos>\n")
                written += len(sentence)
            handle.writelines(lines)
            if copy % 20 == 0:
                print(f"  copy {copy + 1}/{copies}: {written:,} tokens, {redrawn:,} re-drawn", flush=True)
    finally:
        for handle in handles:
            handle.close()
    return paths, written, redrawn


def tree_rss_mb(root: int) -> float:
    """Resident MB of the descendants of process `root` together (Linux /proc; 0 elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    total, todo = 0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")), 0)
    return total / 1024


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak resident MB of the largest process, and the largest sum of resident MB of the
    command and its worker processes (sampled every 0.3 s) of a command run in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", _PEAK, sys.executable, *command], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    summed = 0.0
    while process.poll() is None:
        summed = max(summed, tree_rss_mb(process.pid))
        time.sleep(0.3)
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - started
    if process.returncode:
        sys.exit(f"{' '.join(command[:3])} failed:\n{stderr[-3000:]}")
    peak = int(stdout.strip().splitlines()[-1]) / 1024
    return seconds, peak, max(summed, peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=0, help="seed of the re-drawn values")
    parser.add_argument("--ratio", default="10")
    parser.add_argument("--kinds", default="synthetic,random")
    parser.add_argument("--workers", type=int,
                        help="local workers of both commands (default: each command's own default)")
    parser.add_argument("--keep", help="write the corpus and dataset in this folder and keep them")
    parser.add_argument("--corpus-only", action="store_true", help="only write the corpus")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not SAMPLE.exists():
        sys.exit(f"{SAMPLE} not found: the benchmark needs ../shared/data")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tnforge-diverse-"))
    corpus = folder / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    paths, tokens, redrawn = write_corpus(corpus, args.tokens, args.seed)
    figures: dict[str, object] = {"tokens": tokens, "redrawn_tokens": redrawn, "shards": len(paths),
                                  "corpus_s": round(time.perf_counter() - started, 1)}
    print(f"corpus: {tokens:,} tokens ({redrawn:,} re-drawn) in {len(paths)} shards, "
          f"{figures['corpus_s']} s", flush=True)
    if args.corpus_only:
        return
    out = folder / "dataset"
    shutil.rmtree(out, ignore_errors=True)
    try:
        workers = ["--workers", str(args.workers)] if args.workers else []
        build_s, build_mb, build_sum = timed(["-m", "tnforge", "build", *map(str, paths), "--out", str(out), *workers])
        from tnforge import datasets

        positives = datasets.read_dataset(out, "positive_pairs", columns=["class"])
        classes = positives.column("class").to_pylist()
        negatives_s, negatives_mb, negatives_sum = timed(["-m", "tnforge", "negatives", str(out), "--kinds", args.kinds,
                                           "--ratio", args.ratio, "--grammar", *workers])
        figures.update({
            "distinct_positive_pairs": len(classes),
            "distinct_number_class_pairs": sum(c in ("CARDINAL", "ORDINAL", "DECIMAL", "MONEY", "MEASURE", "DATE",
                                                     "TIME", "TELEPHONE", "DIGIT", "FRACTION") for c in classes),
            "build_s": round(build_s, 1), "build_peak_mb": round(build_mb), "build_sum_mb": round(build_sum),
            "negatives_s": round(negatives_s, 1), "negatives_peak_mb": round(negatives_mb),
            "negatives_sum_mb": round(negatives_sum),
            "negatives_over_build": round(negatives_s / build_s, 2),
            "kinds": args.kinds, "ratio": args.ratio, "workers": args.workers,
        })
        print(f"distinct positive pairs: {figures['distinct_positive_pairs']:,} "
              f"({figures['distinct_number_class_pairs']:,} of number classes)")
        print(f"tnforge build:     {build_s:8.1f} s   peak {build_mb:,.0f} MB, all processes {build_sum:,.0f} MB")
        print(f"tnforge negatives: {negatives_s:8.1f} s   peak {negatives_mb:,.0f} MB, all processes "
              f"{negatives_sum:,.0f} MB   "
              f"(--kinds {args.kinds} --ratio {args.ratio} --grammar)")
        print(f"negatives / build: {negatives_s / build_s:.2f}")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
