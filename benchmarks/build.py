"""Benchmark `tnforge build` on the two layouts of a ~10M-token corpus (the Kaggle size), against plain pyarrow reading.

The corpus is the shared English sample replicated: (csv) ../shared/data/en_sample.csv with fresh sentence ids
over several Kaggle-CSV files, split by a stable hash; (tsv) ../shared/data/en_sample.tsv over the corpus's own 100
shards `output-000NN-of-00100`, split by shard number (the standard split). Both are made the same way every time.
It times `tnforge build` end to end on the local runner (a child process, so its peak memory is measured alone),
then reads the CSV files with pyarrow.csv and prints times, tokens per second, peak memory and their ratio. With
`--shards auto,8` it builds with each shard count in turn (auto: the default, chosen from the input size), each
layout and setting `--repeat` times round-robin (runs back to back, so a shared machine's load touches all
alike); `--baseline PYTHON` also times the tnforge another interpreter has installed (an earlier version), in
the same round-robin; `--write-docs` writes the results page (medians, machine, date, load).

    python benchmarks/build.py                                   # both layouts, 10M tokens
    python benchmarks/build.py --layouts tsv --shards auto,4 --repeat 3
    python benchmarks/build.py --repeat 4 --write-docs docs/results/build.md
    python benchmarks/build.py --negatives synthetic,random --ratio 10   # also time the negatives step
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "en_sample.csv"
#: The same sample in the corpus's own format (`CLASS<TAB>before<TAB>after`, `<eos><TAB><eos>` after each sentence).
SAMPLE_TSV = SAMPLE.with_suffix(".tsv")


def make_corpus(folder: Path, tokens: int, files: int) -> tuple[list[Path], int]:
    """Replicate the sample with fresh sentence ids until about `tokens` tokens, over `files` files."""
    with open(SAMPLE, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    sentences: list[list[list[str]]] = []
    for row in rows:
        if not sentences or sentences[-1][0][0] != row[0]:
            sentences.append([])
        sentences[-1].append(row)
    copies = max(1, round(tokens / len(rows)))
    paths = [folder / f"kaggle-{i:02d}-of-{files:02d}.csv" for i in range(files)]
    writers = [csv.writer(open(p, "w", newline="", encoding="utf-8"), quoting=csv.QUOTE_NONNUMERIC) for p in paths]
    for writer in writers:
        writer.writerow(["sentence_id", "token_id", "class", "before", "after"])
    sentence_id = 0
    total = 0
    for copy in range(copies):
        writer = writers[copy * files // copies]
        for sentence in sentences:
            for _, token_id, cls, before, after in sentence:
                writer.writerow([sentence_id, int(token_id), cls, before, after])
            sentence_id += 1
            total += len(sentence)
    del writers
    return paths, total


def make_tsv_corpus(folder: Path, tokens: int, files: int = 100) -> tuple[list[Path], int]:
    """Replicate the TSV sample until about `tokens` tokens, over the corpus's own `files` shards
    (`output-000NN-of-00100`: the standard split by shard number); shard i holds copies ⌈i·copies/files⌉ up to
    ⌈(i+1)·copies/files⌉ (the last shard, test and excluded lines, holds two or three copies)."""
    text = SAMPLE_TSV.read_bytes()
    sample_tokens = sum(1 for line in text.splitlines() if line and not line.startswith(b"<eos>"))
    copies = max(1, round(tokens / sample_tokens))
    paths = [folder / f"output-{i:05d}-of-{files:05d}" for i in range(files)]
    for index, path in enumerate(paths):
        first, stop = -(-index * copies // files), -(-(index + 1) * copies // files)
        path.write_bytes(text * (stop - first))
    return paths, copies * sample_tokens


def time_build(paths: list[Path], out: Path, extra: list[str], python: str = sys.executable) -> tuple[float, float]:
    """Seconds and peak resident MB of `tnforge build` in a child process (this child's own peak), run by
    `python` from a neutral folder (so that the tnforge it has installed is the one run)."""
    start = time.perf_counter()
    command = [python, "-m", "tnforge", "build", *map(str, paths), "--out", str(out), "--overwrite", *extra]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=out.parent)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "CPU")
    return f"{cpu}, {os.cpu_count()} cores"


#: What each layout is, for the results page.
LAYOUTS = {
    "csv": "Kaggle CSV files (hash split)",
    "tsv": "TSV shards named like the corpus's, `output-000NN-of-00100` (standard split by shard number)",
}


def results_page(rows: list[dict], corpora: dict[str, dict], repeat: int, loads: list[float]) -> str:
    """The results page: one row per layout, code and shard setting, medians of the repeats."""
    made = "; ".join(f"{layout}: {c['tokens']:,} tokens in {len(c['paths'])} {LAYOUTS[layout]}, {c['size_mb']:.0f} MB"
                     for layout, c in corpora.items())
    baseline = next((row["code"] for row in rows if row["code"] != "this"), None)
    lines = ["# Build speed and memory", "",
             f"Written by `benchmarks/build.py` on {datetime.date.today().isoformat()}: {machine()}, shared with "
             f"other jobs (load average {min(loads):.1f}–{max(loads):.1f} during the runs). The shared English sample "
             f"replicated, in each layout: {made}. `tnforge build` on the local runner, one worker; each "
             f"row run {repeat} times round-robin with the others, medians shown (peak: the build process's maximum "
             "resident memory); code `this`: this checkout" + (
                 f", `{baseline}`: the tnforge of commit {baseline}, on the same inputs" if baseline else "") + ".", "",
             "| layout | code | shards | build (s) | tokens/s | peak memory (MB) | runs (s) | runs (MB) |",
             "|---|---|---|---:|---:|---:|---|---|"]
    for row in rows:
        seconds, peaks, tokens = row["seconds"], row["peaks"], corpora[row["layout"]]["tokens"]
        lines.append(f"| {row['layout']} | {row['code']} | {row['label']} | {statistics.median(seconds):.1f} | "
                     f"{tokens / statistics.median(seconds):,.0f} | {statistics.median(peaks):,.0f} | "
                     f"{', '.join(f'{x:.1f}' for x in seconds)} | {', '.join(f'{x:,.0f}' for x in peaks)} |")
    return "\n".join(lines) + "\n"


def time_pyarrow(paths: list[Path]) -> float:
    """Seconds to read the same files with pyarrow.csv."""
    import pyarrow.csv as pacsv

    start = time.perf_counter()
    for path in paths:
        pacsv.read_csv(path)
    return time.perf_counter() - start


def make_layout(layout: str, folder: Path, tokens: int, files: int) -> dict:
    """Make one layout's corpus under folder/layout: its paths, tokens and size in MB."""
    where = folder / layout
    where.mkdir(parents=True, exist_ok=True)
    paths, total = make_corpus(where, tokens, files) if layout == "csv" else make_tsv_corpus(where, tokens)
    return {"paths": paths, "tokens": total, "size_mb": sum(p.stat().st_size for p in paths) / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=10_000_000)
    parser.add_argument("--layouts", default="csv,tsv", help="corpus layouts, comma-separated: csv, tsv")
    parser.add_argument("--files", type=int, default=8, help="Kaggle CSV files of the csv layout (tsv: 100 shards)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--negatives", default="", help="also generate negatives of these kinds")
    parser.add_argument("--ratio", default="10")
    parser.add_argument("--keep", help="keep the corpus and output in this folder")
    parser.add_argument("--shards", default="auto", help="shard counts to build with, comma-separated (auto: default)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each setting, round-robin")
    parser.add_argument("--baseline", help="also time the tnforge this Python has installed (an earlier version)")
    parser.add_argument("--baseline-commit", default="baseline", help="the commit --baseline's tnforge was installed from")
    parser.add_argument("--write-docs", type=Path, help="write the results page (markdown) here")
    args = parser.parse_args()
    if not SAMPLE.exists():
        sys.exit(f"{SAMPLE} not found: the benchmark needs ../shared/data")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tnforge-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    corpora = {layout: make_layout(layout, folder, args.tokens, args.files) for layout in args.layouts.split(",")}
    for layout, corpus in corpora.items():
        print(f"{layout} corpus: {corpus['tokens']:,} tokens in {len(corpus['paths'])} files, "
              f"{corpus['size_mb']:.0f} MB", flush=True)
    extra = ["--workers", str(args.workers)]
    codes = {"this": sys.executable, **({args.baseline_commit: args.baseline} if args.baseline else {})}
    rows = [{"layout": layout, "code": code, "setting": s, "label": s, "seconds": [], "peaks": []}
            for layout in corpora for code in codes for s in args.shards.split(",")]
    loads = []
    out = folder / "out"
    for _ in range(args.repeat):
        for row in rows:
            loads.append(os.getloadavg()[0])
            corpus = corpora[row["layout"]]
            shards = [] if row["setting"] == "auto" else ["--shards", row["setting"]]
            build_s, peak_mb = time_build(corpus["paths"], out, extra + shards, codes[row["code"]])
            if row["setting"] == "auto":
                row["label"] = f"auto ({json.loads((out / 'manifest.json').read_text())['config']['shards']})"
            row["seconds"].append(build_s)
            row["peaks"].append(peak_mb)
            print(f"tnforge build ({row['layout']}, {row['code']}, shards {row['label']}):  {build_s:7.1f} s  "
                  f"{corpus['tokens'] / build_s:12,.0f} tokens/s  peak {peak_mb:,.0f} MB  (load {loads[-1]:.1f})",
                  flush=True)
    if args.write_docs:
        args.write_docs.parent.mkdir(parents=True, exist_ok=True)
        args.write_docs.write_text(results_page(rows, corpora, args.repeat, loads), encoding="utf-8")
    if args.negatives:
        start = time.perf_counter()
        command = [sys.executable, "-m", "tnforge", "negatives", str(out), "--kinds", args.negatives,
                   "--ratio", args.ratio]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        neg_s = time.perf_counter() - start
        print(f"negatives ({args.negatives}, ratio {args.ratio}) on the last dataset built: {neg_s:7.1f} s "
              f"= {100 * neg_s / build_s:.0f}% of its build (target ≤ 100%)", flush=True)
    if "csv" in corpora:
        csv_rows = [r for r in rows if r["layout"] == "csv" and r["code"] == "this"]
        build_s = statistics.median(csv_rows[0]["seconds"])
        read_s = time_pyarrow(corpora["csv"]["paths"])
        print(f"pyarrow read (csv):   {read_s:7.1f} s  {corpora['csv']['tokens'] / read_s:12,.0f} tokens/s")
        print(f"ratio build / read: {build_s / read_s:.1f}x; target ≤ 60 s and ≤ 600 MB for 10M tokens")
    if not args.keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
