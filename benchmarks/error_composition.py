"""Benchmark: the constraints issue's error-composition aim, end to end on the shared English sample.

Builds the sample, trains the seq2seq normalizer, decodes the train and dev splits for top-k negatives,
generates negatives (synthetic, random, top-k; trivial pairs; grammar on), trains the sequence DE and two
vocabulary filters (class+global and top-k negatives), and runs `tnforge compare` on the held-out test
split (and, with --bundled, on the bundled sample as an out-of-distribution held-out set). Aim: ≥ 30% fewer
unrecoverable errors than the unconstrained model with total errors up by at most 5% (some DE
configuration); zero unrecoverable errors in the grammar's classes with the grammar constraint.

    python benchmarks/error_composition.py --work /tmp/ec              # ≈ 45 minutes on 2 CPU cores
    python benchmarks/error_composition.py --work /tmp/ec --bundled    # also the out-of-distribution check

Every step is skipped when its output is already in --work, so a run can be resumed or re-reported.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from tnforge.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"


def tnforge(*args: str) -> None:
    """Run one `tnforge` command, echoing it and its duration."""
    print("$ tnforge " + " ".join(args), file=sys.stderr, flush=True)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "tnforge", *args], check=True,
                   stdout=subprocess.DEVNULL)
    print(f"  ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)


def verdict(report: Path) -> list[str]:
    """Lines judging comparison.json against the aim."""
    result = json.loads((report / "comparison.json").read_text())
    lines = []
    for row in result["configurations"]:
        if row["configuration"] == result["baseline"] or row.get("unrecoverable_change") is None:
            continue
        name, errors, unrecoverable = row["configuration"], row["errors_change"] or 0.0, row["unrecoverable_change"]
        if "grammar" in name:
            met = row["unrecoverable_covered"] == 0
            lines.append(f"{name}: {row['unrecoverable_covered']} unrecoverable errors in covered classes "
                         f"(aim 0: {'met' if met else 'NOT met'})")
        else:
            met = unrecoverable <= -0.30 and errors <= 0.05
            lines.append(f"{name}: unrecoverable {100 * unrecoverable:+.1f}%, errors {100 * errors:+.1f}% "
                         f"(aim ≤ −30% / ≤ +5%: {'met' if met else 'NOT met'})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-error-composition"))
    parser.add_argument("--corpus", type=Path, default=SAMPLE, help="corpus to build and split (hash split)")
    parser.add_argument("--minutes", default="60", help="seq2seq training budget (early stopping ends it first here)")
    parser.add_argument("--lambda", dest="weight", default="5", help="constraint weight λ")
    parser.add_argument("--ratio", default="10", help="negatives per positive generated")
    parser.add_argument("--threads", default="1", help="torch CPU threads (1 is fastest on a busy machine)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--bundled", action="store_true",
                        help="also compare on the bundled sample corpus, built entirely as a test split")
    args = parser.parse_args()
    if not args.corpus.exists():
        sys.exit(f"{args.corpus}: corpus not found")
    work, data = args.work, args.work / "data"
    common = ("--threads", args.threads, "--device", args.device)
    if not (data / "manifest.json").exists():
        tnforge("build", str(args.corpus), "--out", str(data), "--overwrite")
    if not (work / "s2s" / "best.pt").exists():
        tnforge("train", "seq2seq", "--data", str(data), "--out", str(work / "s2s"), "--max-minutes", args.minutes,
                "--max-copies", "10", "--epochs", "1000", "--patience", "8", "--no-progress",
                *common)
    for split in ("train", "dev"):
        if not (work / "hyps" / split).exists():
            tnforge("decode", "--model", str(work / "s2s"), "--data", str(data), "--split", split, "--top-k", "10",
                    "--out", str(work / "hyps" / split), *common)
    if "negatives" not in read_manifest(data):
        tnforge("negatives", str(data), "--kinds", "synthetic,random,topk", "--ratio", args.ratio,
                "--topk-from", str(work / "hyps"))
    runs = {"seq-de": ("seq-de", "synthetic,random"), "voc-rand": ("voc-de", "class,global,unread"),
            "voc-topk": ("voc-de", "topk,unread")}
    for run, (command, negatives) in runs.items():
        if not (work / run / "best.pt").exists():
            tnforge("train", command, "--data", str(data), "--out", str(work / run), "--negatives", negatives,
                    "--no-progress", *common)
    held_out = {"test": (data, "test")}
    if args.bundled:
        bundled = work / "bundled"
        if not (bundled / "manifest.json").exists():
            tnforge("build", "--out", str(bundled), "--split", "hash", "--split-ratios", "0,0,1", "--overwrite")
        held_out["bundled"] = (bundled, "test")
    for name, (dataset, split) in held_out.items():
        report = work / f"compare-{name}"
        if not (report / "comparison.json").exists():
            tnforge("compare", "--model", str(work / "s2s"), "--data", str(dataset), "--split", split,
                    "--seq-de", str(work / "seq-de"), "--voc-de", f"random={work / 'voc-rand'}",
                    "--voc-de", f"topk={work / 'voc-topk'}", "--lambda", args.weight, "--report", str(report),
                    *common)
        print((report / "comparison.md").read_text())
        print("\n".join(verdict(report)) + "\n")


if __name__ == "__main__":
    main()
