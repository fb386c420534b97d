"""Benchmark: what a new user gets — build the shared English sample with the build's defaults (hash split),
train the seq2seq normalizer with the trainer's defaults (its 12-minute budget on the CPU), evaluate on dev
and print the figures. Aim: ≥ 97% of all tokens, ≥ 85% of non-trivial tokens.

    python benchmarks/train_seq2seq.py --work /tmp/s2s-bench            # ≤ 12 minutes of training
    python benchmarks/train_seq2seq.py --work /tmp/s2s-bench --minutes 0 --threads 1   # no budget
    python benchmarks/train_seq2seq.py --work /tmp/s2s-bench --write-docs docs/results/seq2seq-defaults.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from train_throughput import machine

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"


def build(tsv: Path, out: Path) -> None:
    """`tnforge build` of the sample with its default hash split (90/5/5)."""
    if (out / "manifest.json").exists():
        print(f"using the dataset already built at {out}", file=sys.stderr)
        return
    command = [sys.executable, "-m", "tnforge", "build", str(tsv), "--out", str(out),
               "--split", "hash"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-seq2seq"))
    parser.add_argument("--data", type=Path, default=SAMPLE, help="corpus TSV to build from")
    parser.add_argument("--minutes", type=float, default=12.0, help="training budget (the trainer's default)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: torch default; 1 is fastest on a busy 2-core machine)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--write-docs", type=Path, help="write the results page (Markdown) here")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: sample corpus not found")

    import torch

    from tnforge.grammars import adapter
    from tnforge.trainers.evaluation.accuracy import evaluate, write_report
    from tnforge.trainers.evaluation.decoded import decode_predictions
    from tnforge.trainers.families import load
    from tnforge.trainers.kernel.examples import example_files
    from tnforge.trainers.seq2seq.train import Seq2SeqTrainConfig, train
    from tnforge.trainers.training.devices import resolve_device

    data, run = args.work / "dataset", args.work / "run"
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    build(args.data, data)
    print(f"build: {time.monotonic() - started:.1f} s", file=sys.stderr)
    config = Seq2SeqTrainConfig(data=str(data), out=str(run), device=args.device, max_minutes=args.minutes,
                         threads=args.threads, progress=sys.stderr.isatty())
    result = train(config, overwrite=True)  # the benchmark owns its work folder
    print(f"train: {result.steps} steps, {result.epochs} epochs, {result.seconds / 60:.1f} min ({result.stopped}); "
          f"torch threads {torch.get_num_threads()}", file=sys.stderr)

    _family, loaded = load(run, resolve_device(args.device), kind="decoder")
    files = example_files(data, "dev")
    predictions, decode_seconds, _ = decode_predictions(loaded, files, None, beam=args.beam)
    tokens = len(predictions)
    judge, note = adapter.judge(None)
    report = evaluate(predictions, batch_judge=judge)
    write_report(report, run / "eval-dev", title="seq2seq on the en_sample dev split")
    figures = {
        "train_minutes": round(result.seconds / 60, 2),
        "steps": result.steps,
        "epochs": result.epochs,
        "stopped": result.stopped,
        "dev_tokens": report["tokens"]["count"],
        "all_tokens_accuracy": round(report["tokens"]["accuracy"], 4),
        "nontrivial_tokens": report["nontrivial"]["count"],
        "nontrivial_accuracy": round(report["nontrivial"]["accuracy"], 4),
        "sentence_accuracy": round(report["sentences"]["accuracy"], 4),
        "decode_tokens_per_s_beam": round(tokens / decode_seconds, 1),
        "beam": args.beam,
        "grammar": note,
        "per_class": {r["class"]: [r["count"], round(r["accuracy"], 4)] for r in report["per_class"]},
    }
    print(json.dumps(figures, indent=2))
    aims = report["tokens"]["accuracy"] >= 0.97, report["nontrivial"]["accuracy"] >= 0.85
    print(f"aim ≥97% all tokens: {'met' if aims[0] else 'NOT met'}; "
          f"aim ≥85% non-trivial: {'met' if aims[1] else 'NOT met'}; report: {run / 'eval-dev'}")
    if args.write_docs:
        threads = torch.get_num_threads()
        conditions = (f"{machine(args.device)} ({threads} torch thread{'s' if threads != 1 else ''}); load average "
                      f"{load_before:.2f} before the build, {os.getloadavg()[0]:.2f} after the evaluation")
        args.write_docs.write_text(results_page(figures, report, args, conditions), encoding="utf-8")
        print(f"wrote {args.write_docs}", file=sys.stderr)


def results_page(figures: dict, report: dict, args: argparse.Namespace, conditions: str) -> str:
    """The results page: what `tnforge build` + `tnforge train seq2seq` with their defaults give on the sample."""
    today = datetime.date.today().isoformat()
    budget = f"{args.minutes:g}-minute budget" if args.minutes else "no time budget"
    lines = [
        "# The seq2seq normalizer with its defaults",
        "",
        f"Written by `benchmarks/train_seq2seq.py` on {today}: {conditions}.",
        "",
        f"What a new user gets on the shared sample (`{args.data.name}`): `tnforge build` with its defaults (hash "
        f"split 90/5/5), then `tnforge train seq2seq` with its defaults ({budget}, device {args.device}), "
        f"then the dev split decoded with beam {args.beam}; {figures['grammar']}.",
        "",
        f"Command: `python benchmarks/train_seq2seq.py {' '.join(sys.argv[1:])}`.",
        "",
        "| training | stopped by | dev tokens | all tokens | non-trivial tokens | sentences | decoding |",
        "|---|---|---:|---:|---:|---:|---:|",
        f"| {figures['train_minutes']:.1f} min, {figures['epochs']} epochs, {figures['steps']:,} steps | "
        f"{figures['stopped']} | {figures['dev_tokens']:,} | {100 * figures['all_tokens_accuracy']:.2f}% | "
        f"{100 * figures['nontrivial_accuracy']:.2f}% ({figures['nontrivial_tokens']}) | "
        f"{100 * figures['sentence_accuracy']:.2f}% | {figures['decode_tokens_per_s_beam']:,.0f} tokens/s |",
        "",
        "Per class (dev): errors are *recoverable* when the covering grammar licenses the wrong reading.",
        "",
        "| class | count | accuracy | errors | recoverable | unrecoverable |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in report["per_class"]:
        lines.append(f"| {row['class']} | {row['count']:,} | {100 * row['accuracy']:.2f}% | {row['errors']} | "
                     f"{row.get('recoverable', '–')} | {row.get('unrecoverable', '–')} |")
    lines += ["", "The dev split is small: one non-trivial token is "
              f"{100 / max(1, figures['nontrivial_tokens']):.2f} points of non-trivial accuracy. CPU runs with "
              "the same seed repeat exactly; the time depends on the machine's load.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
