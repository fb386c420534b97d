"""Benchmark: the normalizer as an API user sees it (`tnforge.Normalizer`), on one thread: one-sentence latency
(p50, p99; also for sentences of 18-22 tokens), batched sentences/s (`normalize_batch`), and how lower-cased text
without punctuation (as ASR writes it) reads compared with the written text. Writes
docs/results/normalizer-api.{md,json}.

Input: a dataset's test sentences (default: the shared sample, built here when missing), detokenized to raw text.
Each normalizer folder is given as NAME=DIR (window, sentence … families alike):

    python benchmarks/normalize.py --normalizer window=runs/en-normalizer --data out/en
    python benchmarks/normalize.py --normalizer window=runs/en-normalizer --normalizer sentence=runs/en-sentence-normalizer
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
#: Targets of issue #39 on a 2-core machine, one thread: family → (p50 ms for a 20-token sentence, sentences/s).
TARGETS = {"window": (15.0, 400.0), "sentence": (None, 40.0)}
_PUNCT = re.compile(r"[^\w\s$£€%'/:.-]|(?<!\d)[.:](?!\d)")


def gold(data: Path, split: str) -> list[tuple[str, str, int]]:
    """(raw text, gold spoken sentence in plain words as `normalize` writes them, tokens) of a split's sentences."""
    from tnforge.tokenizer import detokenize
    from tnforge.trainers.decoding.sentences import speech_words
    from tnforge.trainers.evaluation.raw_text import gold_sentences
    from tnforge.trainers.kernel.examples import example_files

    return [(detokenize(s.tokens), " ".join(w for w in map(speech_words, s.tokens, s.afters) if w), len(s.tokens))
            for s in gold_sentences(example_files(data, split), split)]


def asr_like(text: str) -> str:
    """Text as an ASR system writes it: lower case, no punctuation (the marks inside numbers, times, money and
    measures kept: "3.5", "4:45", "$20", "50%")."""
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


def words(text: str) -> str:
    """A spoken sentence for scoring case- and punctuation-free."""
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


def latency(normalizer, texts: list[str], rounds: int) -> dict:
    """p50/p99 milliseconds of `normalize` on one text at a time."""
    times = []
    for _ in range(rounds):
        for text in texts:
            started = time.perf_counter()
            normalizer.normalize(text)
            times.append(1000 * (time.perf_counter() - started))
    times.sort()
    return {"sentences": len(times), "p50_ms": round(statistics.median(times), 2),
            "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 2)}


def throughput(normalizer, texts: list[str], lines: int) -> dict:
    batch = (texts * (lines // max(len(texts), 1) + 1))[:lines]
    started = time.perf_counter()
    normalizer.normalize_batch(batch)
    seconds = time.perf_counter() - started
    return {"sentences": len(batch), "seconds": round(seconds, 2), "sentences_per_s": round(len(batch) / seconds, 1)}


def robustness(normalizer, sentences: list[tuple[str, str, int]]) -> dict:
    """Sentences read right (case and punctuation ignored) and WER, from written text and from ASR-like text."""
    from tnforge.trainers.evaluation.raw_text import word_errors

    figures = {}
    for name, make in (("written text", lambda t: t), ("lower case, no punctuation", asr_like)):
        spoken = normalizer.normalize_batch([make(text) for text, _, _ in sentences])
        right = sum(words(s) == words(g) for s, (_, g, _) in zip(spoken, sentences, strict=True))
        errors = sum(word_errors(words(g), words(s)) for s, (_, g, _) in zip(spoken, sentences, strict=True))
        total = sum(len(words(g).split()) for _, g, _ in sentences)
        figures[name] = {"sentences": len(sentences), "right": right, "sentence_accuracy": round(right / len(sentences), 4),
                         "wer": round(errors / max(total, 1), 4)}
    return figures


def markdown(report: dict) -> str:
    lines = ["# The normalizer from Python", "",
             f"Written by `benchmarks/normalize.py` on {report['date']}: {report['machine']}; load average at the "
             f"start {report['load_average'][0]:.1f}. One torch thread; {report['data']} ({report['split']} split, "
             f"{report['sentences']} sentences, raw text). Latency: `Normalizer.normalize` on one sentence at a time "
             "(warm); throughput: `normalize_batch` on the sentences repeated.", "",
             "| normalizer | family | p50 ms (all) | p99 ms (all) | p50 ms (18-22 tokens) | p99 ms (18-22 tokens) | "
             "batched sentences/s |", "|---|---|---:|---:|---:|---:|---:|"]
    for row in report["normalizers"]:
        lines.append(f"| {row['name']} | {row['family']} | {row['latency']['p50_ms']} | {row['latency']['p99_ms']} | "
                     f"{row['latency_20']['p50_ms']} | {row['latency_20']['p99_ms']} | "
                     f"{row['throughput']['sentences_per_s']} |")
    lines += ["", "## Lower-case text without punctuation", "",
              "The same sentences lower-cased with their punctuation removed (the marks inside numbers, times, "
              "money and measures kept), as an ASR system writes them, against the written text. Scored on words "
              "against the gold spoken sentence in plain words (URLs spelt as words, as `normalize` writes them): "
              "case and punctuation ignored.", "",
              "| normalizer | input | sentences right | WER |", "|---|---|---:|---:|"]
    for row in report["normalizers"]:
        for name, figures in row["robustness"].items():
            lines.append(f"| {row['name']} | {name} | {figures['sentence_accuracy']:.2%} ({figures['right']}/"
                         f"{figures['sentences']}) | {figures['wer']:.2%} |")
    lines += ["", "## Targets", "", "| target | measured | met |", "|---|---|---|"]
    lines += [f"| {t['target']} | {t['measured']} | {'yes' if t['met'] else 'no'} |" for t in report["targets"]]
    return "\n".join(lines) + "\n"


def targets(rows: list[dict]) -> list[dict]:
    found = []
    for row in rows:
        p50, rate = TARGETS.get(row["family_kind"], (None, None))
        if p50 is not None:
            found.append({"target": f"{row['name']}: p50 ≤ {p50:g} ms for a 20-token sentence",
                          "measured": f"{row['latency_20']['p50_ms']} ms", "met": row["latency_20"]["p50_ms"] <= p50})
        if rate is not None:
            found.append({"target": f"{row['name']}: ≥ {rate:g} sentences/s batched",
                          "measured": f"{row['throughput']['sentences_per_s']}",
                          "met": row["throughput"]["sentences_per_s"] >= rate})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--normalizer", action="append", required=True, help="NAME=DIR, a normalizer folder")
    parser.add_argument("--data", type=Path, default=None, help="dataset (default: the shared sample, built)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--sentences", type=int, default=2000, help="lines per throughput timing")
    parser.add_argument("--rounds", type=int, default=2, help="latency passes over the sentences")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    load = os.getloadavg()

    import torch

    from tnforge import Normalizer

    torch.set_num_threads(1)
    data = args.data or _shared_build()
    sentences = gold(data, args.split)
    texts = [text for text, _, _ in sentences]
    twenty = [text for text, _, n in sentences if 18 <= n <= 22]
    rows = []
    for item in args.normalizer:
        name, _, folder = item.partition("=")
        normalizer = Normalizer.load(folder, "cpu", threads=1)
        family = json.loads((Path(folder) / "normalizer.json").read_text(encoding="utf-8"))["model"]["family"]
        normalizer.normalize_batch(texts[:200])  # warm-up: grammar, caches
        row = {"name": name, "folder": folder, "family": family,
               "family_kind": "sentence" if family == "sentence" else "window",
               "latency": latency(normalizer, texts[:300], args.rounds),
               "latency_20": latency(normalizer, twenty[:300], args.rounds),
               "throughput": throughput(normalizer, texts, args.sentences),
               "robustness": robustness(normalizer, sentences)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    report = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": f"{os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, shared",
              "load_average": load, "data": str(data), "split": args.split, "sentences": len(sentences),
              "normalizers": rows, "targets": targets(rows)}
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in (("normalizer-api.json", json.dumps(report, indent=1) + "\n"),
                       ("normalizer-api.md", markdown(report))):
        temp = args.out / f".{name}.tmp"
        temp.write_text(text, encoding="utf-8")
        temp.replace(args.out / name)
    print(markdown(report))


def _shared_build() -> Path:
    """The shared sample built once under benchmarks' scratch folder."""
    import subprocess
    import sys

    sample = ROOT.parent / "shared" / "data" / "en_sample.tsv"
    out = ROOT / "build" / "benchmarks" / "en"
    if not (out / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "tnforge", "build", str(sample), "--out", str(out), "--overwrite"],
                       check=True)
    return out


if __name__ == "__main__":
    main()
