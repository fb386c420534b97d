"""Benchmark: inverse text normalization by the grammar route (`tnforge.InverseNormalizer`), on one thread.

For each dataset (default: the shared sample `../shared/data/en_sample.tsv` and the bundled sample, each built
under build/benchmarks/ when missing) the conventions are learned from its train split and its test split is
turned around (`tnforge.itn_sentences`: spoken words as ASR writes them → the written sentence). Measured:
sentence accuracy and WER of the written output (scoring: `tnforge.reading.inverse_scoring`), per class,
meaning-changing errors as the gold class's grammar judges them, sentences/s on one thread (the first pass,
caches cold, and a second one). NeMo-text-processing's `InverseNormalizer` runs on the same spoken sentences
with the same scoring when its virtual environment exists (`--nemo-venv`, default build/nemo-venv: `python3.11
-m venv build/nemo-venv && build/nemo-venv/bin/pip install nemo-text-processing==1.2.0`). Writes
docs/results/inverse.{md,json}.

    python benchmarks/inverse.py
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
SHARED = ROOT.parent / "shared" / "data" / "en_sample.tsv"
#: Targets of issue #37 on the reversed shared test split.
TARGETS = {"sentence_accuracy": 0.95, "meaning_errors_class_right": 0, "sentences_per_s": 300.0}


def built(name: str, corpus: Path | None) -> Path:
    """A dataset built once under build/benchmarks/NAME (corpus None: the bundled sample)."""
    out = ROOT / "build" / "benchmarks" / name
    if not (out / "manifest.json").exists():
        command = [sys.executable, "-m", "tnforge", "build", *([str(corpus)] if corpus else []), "--out", str(out),
                   "--overwrite"]
        subprocess.run(command, check=True)
    return out


def nemo(venv: Path, spoken: list[str], timeout: int) -> dict | None:
    """NeMo's written sentences and seconds (after loading), or None when its venv is missing or fails."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        source, out = Path(scratch) / "in.txt", Path(scratch) / "out.txt"
        source.write_text("".join(line + "\n" for line in spoken), encoding="utf-8")
        cache = ROOT / "build" / "nemo-cache"
        cache.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        try:
            done = subprocess.run([str(python), str(Path(__file__).with_name("nemo_inverse_peer.py")), str(source),
                                   str(out), str(cache)], capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return None
        seconds = float(done.stderr.strip().splitlines()[-1].split()[-1])
        return {"written": out.read_text(encoding="utf-8").splitlines(), "seconds": seconds}


def measure(name: str, data: Path, split: str, venv: Path, timeout: int) -> dict:
    from tnforge import InverseNormalizer
    from tnforge.itn_sentences import read_itn
    from tnforge.reading.inverse_scoring import score_texts, score_tokens

    inverse = InverseNormalizer.learn(data)
    sentences = read_itn(data, split)
    gold = [s.written for s in sentences]
    started = time.perf_counter()
    predicted = [inverse.read_words(s.words) for s in sentences]
    cold = time.perf_counter() - started
    started = time.perf_counter()
    again = [inverse.read_words(s.words) for s in sentences]
    warm = time.perf_counter() - started
    assert again == predicted
    written = [" ".join(t.written for t in tokens) for tokens in predicted]
    row = {"name": name, "data": str(data), "split": split, "train_sentences": inverse.conventions.sentences,
           **score_texts(gold, written),
           "sentences_per_s": len(sentences) / max(cold, 1e-9), "sentences_per_s_warm": len(sentences) / max(warm, 1e-9),
           "classes": score_tokens(sentences, predicted, inverse.router.inversion.licenses_span),
           "wrong": [[s.spoken, g, w] for s, g, w in zip(sentences, gold, written, strict=True)
                     if score_texts([g], [w])["sentence_accuracy"] < 1][:12]}
    row["meaning_errors_class_right"] = sum(c["meaning_errors_class_right"] for c in row["classes"].values())
    row["meaning_errors"] = sum(c["meaning_errors"] for c in row["classes"].values())
    peer = nemo(venv, [s.spoken for s in sentences], timeout)
    if peer is not None:
        row["nemo"] = {**score_texts(gold, peer["written"]), "sentences_per_s": len(sentences) / max(peer["seconds"], 1e-9)}
    return row


def markdown(report: dict) -> str:
    lines = ["# Inverse text normalization: the grammar route", "",
             f"Measured {report['date']} on {report['machine']} (load average at start {report['load_average'][0]:.1f}), "
             "one thread, by `benchmarks/inverse.py`. Conventions learned from each dataset's train split; scored on "
             "its test split turned around (spoken words as ASR writes them → the written sentence).", "",
             "**Scoring.** Written texts are compared lower-cased, every punctuation character (Unicode category P) "
             "made a space, split on whitespace (`$`, `%`, `°` kept): a sentence is right when its words equal the "
             "gold's; WER is the word edit distance over the gold words. Per class, a gold token is right when a "
             "written token covers exactly its spoken span with the same words. A written form for exactly a gold "
             "token's span that differs from the gold is *meaning-changing* when the gold class's covering grammar "
             "does not read it as the span and it is not the spoken words themselves; *class right*: among tokens written in the gold class. NeMo-text-processing "
             "1.2.0's `InverseNormalizer` (lower-cased English grammars, its own virtual environment) reads the same "
             "spoken sentences and is scored the same way (sentence level only: it gives no spans).", "",
             "| data | sentences | sentence accuracy | WER | meaning-changing (class right / all) | sentences/s (cold / warm) "
             "| NeMo 1.2.0 accuracy | NeMo WER | NeMo sentences/s |", "|---|---|---|---|---|---|---|---|---|"]
    for row in report["datasets"]:
        peer = row.get("nemo")
        nemo_cells = (f"{peer['sentence_accuracy']:.1%} | {peer['wer']:.2%} | {peer['sentences_per_s']:,.0f}" if peer
                      else "not run | | ")
        lines.append(f"| {row['name']} ({row['split']}) | {row['sentences']} | {row['sentence_accuracy']:.1%} | "
                     f"{row['wer']:.2%} | {row['meaning_errors_class_right']} / {row['meaning_errors']} | "
                     f"{row['sentences_per_s']:,.0f} / {row['sentences_per_s_warm']:,.0f} | {nemo_cells} |")
    lines += ["", "## Targets (issue #37, the reversed shared test split)", "", "| target | measured | met |",
              "|---|---|---|"]
    for target in report["targets"]:
        lines.append(f"| {target['target']} | {target['measured']} | {'yes' if target['met'] else 'no'} |")
    for row in report["datasets"]:
        lines += ["", f"## Per class: {row['name']}", "",
                  "| class | tokens | right | written in the gold class | meaning-changing (class right / all) | examples |",
                  "|---|---|---|---|---|---|"]
        for cls, c in row["classes"].items():
            examples = "; ".join(c["examples"]).replace("|", "\\|")
            lines.append(f"| {cls} | {c['tokens']} | {c['right'] / c['tokens']:.1%} | {c['class_right'] / c['tokens']:.1%} "
                         f"| {c['meaning_errors_class_right']} / {c['meaning_errors']} | {examples} |")
        lines += ["", "Some sentences written wrong (spoken → gold | written):", ""]
        lines += [f"- `{spoken}` → `{gold}` | `{written}`" for spoken, gold, written in row["wrong"]]
    return "\n".join(lines) + "\n"


def targets(rows: list[dict]) -> list[dict]:
    shared = next((row for row in rows if row["name"] == "shared sample"), None)
    if shared is None:
        return []
    return [{"target": "sentence accuracy ≥ 95%", "measured": f"{shared['sentence_accuracy']:.1%}",
             "met": shared["sentence_accuracy"] >= TARGETS["sentence_accuracy"]},
            {"target": "0 meaning-changing errors where the class is right",
             "measured": str(shared["meaning_errors_class_right"]), "met": shared["meaning_errors_class_right"] == 0},
            {"target": "≥ 300 sentences/s on one thread (cold)", "measured": f"{shared['sentences_per_s']:,.0f}",
             "met": shared["sentences_per_s"] >= TARGETS["sentences_per_s"]}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="test")
    parser.add_argument("--nemo-venv", type=Path, default=ROOT / "build" / "nemo-venv")
    parser.add_argument("--nemo-timeout", type=int, default=900, help="seconds NeMo may take per dataset")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    load = os.getloadavg()
    datasets = [("bundled sample", built("bundled", None))]
    if SHARED.exists():
        datasets.insert(0, ("shared sample", built("en", SHARED)))
    rows = [measure(name, data, args.split, args.nemo_venv, args.nemo_timeout) for name, data in datasets]
    report = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": f"{os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, shared",
              "load_average": load, "datasets": rows, "targets": targets(rows)}
    from tnforge.filesystems import write_text_files

    write_text_files(args.out, {"inverse.json": json.dumps(report, indent=1, ensure_ascii=False) + "\n", "inverse.md": markdown(report)})
    print(markdown(report))


if __name__ == "__main__":
    main()
