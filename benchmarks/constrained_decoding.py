"""Benchmark: decoding time with each constraint against unconstrained decoding (target ≤ 1.5×), and the
error composition (unrecoverable errors, total errors) on a held-out split.

Needs a trained seq2seq model (benchmarks/train_seq2seq.py) and dual encoders (benchmarks/dual_encoders.py):

    python benchmarks/constrained_decoding.py --model /tmp/s2s/run --data /tmp/s2s/dataset \\
        --seq-de /tmp/de/sequence-de --voc-de /tmp/de/vocabulary-de --split test
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--seq-de", default=None)
    parser.add_argument("--voc-de", default=None)
    parser.add_argument("--split", default="test")
    parser.add_argument("--lambda", dest="weight", type=float, default=5.0)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    parser.add_argument("--repeats", type=int, default=2, help="timed decodes per configuration (best kept)")
    parser.add_argument("--out", type=Path, default=None, help="folder for comparison.md/json")
    args = parser.parse_args()

    import torch

    from tnforge.grammars import adapter
    from tnforge.trainers.decoding.constraint_sets import build_constraint
    from tnforge.trainers.evaluation.comparison import compare_configurations, to_markdown
    from tnforge.trainers.evaluation.decoded import decode_predictions
    from tnforge.trainers.families import load
    from tnforge.trainers.kernel.examples import example_files

    torch.set_num_threads(args.threads)
    _family, loaded = load(args.model, args.device, kind="decoder")
    files = example_files(args.data, args.split)
    reading_words, covered = adapter.reading_words()
    grammar = {"reading_words": reading_words, "covered": covered}
    options = {"none": {}, "+grammar": grammar}
    if args.seq_de:
        options["+seqDE"] = {"seq_de": args.seq_de}
    if args.voc_de:
        options["+vocDE"] = {"voc_de": args.voc_de}
    if args.seq_de and args.voc_de:
        options["+seqDE+vocDE"] = {"seq_de": args.seq_de, "voc_de": args.voc_de}
        options["+seqDE+vocDE+grammar"] = {"seq_de": args.seq_de, "voc_de": args.voc_de, **grammar}
    runs, seconds = {}, {}
    for name, chosen in options.items():
        constraint, _ = build_constraint(loaded, weight=args.weight, **chosen)
        best = None
        for _ in range(args.repeats):  # the first run also warms the grammar's caches
            predictions, took, _counts = decode_predictions(loaded, files, args.split, constraint, args.beam, args.batch_size)
            best = took if best is None else min(best, took)
        runs[name], seconds[name] = predictions, best
        print(f"{name}: {len(predictions):,} tokens in {best:.2f} s ({best / seconds['none']:.2f}× unconstrained)",
              file=sys.stderr)
    judge, note = adapter.judge(None)
    report = compare_configurations(runs, judge, covered, baseline="none", seconds=seconds)
    report["slowdown"] = {name: seconds[name] / seconds["none"] for name in seconds}
    print(to_markdown(report, f"Constrained decoding on {args.data} ({args.split}, λ={args.weight:g})"))
    print("slowdown vs unconstrained: " + ", ".join(f"{k} {v:.2f}×" for k, v in report["slowdown"].items()))
    print(note)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "comparison.md").write_text(to_markdown(report, "Constrained decoding"), encoding="utf-8")
        (args.out / "comparison.json").write_text(json.dumps(report, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
