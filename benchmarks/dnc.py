"""Benchmark: Pramanik & Hussain's (2018) two claims, measured on held-out data (issue #27).

Claim 1: the memory-augmented seq2seq (DNC) makes fewer unacceptable errors than an LSTM seq2seq on the
same data. Claim 2: up-sampling rare MEASURE units and large CARDINALs removes most of them.

Builds the shared English sample twice with explicit sampling options (with up-sampling: copies capped at
25% of train; without: `--max-copy-share 0`) and the bundled sample entirely as a test split (an
out-of-distribution held-out set); trains the LSTM window seq2seq (`--size small`) and the DNC (`--preset
laptop`) on each build with the same budget (`--epochs`, no wall-clock limit: fair on a busy machine),
batch, seed and learning rate; decodes the shared sample's test split and the bundled sample greedily (the
paper's decoding), judges errors with the covering grammar (unrecoverable: the grammar does not license
the wrong reading), runs McNemar tests between pairs, and writes docs/results/dnc.md and dnc.json.

    python benchmarks/dnc.py --work /tmp/dnc-bench                 # ≈ 40 minutes on 2 busy CPU cores
    python benchmarks/dnc.py --work /tmp/dnc-bench --report-only   # re-write the results from --work

Every step is skipped when its output is already in --work, so a run can be resumed or re-reported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"
#: The build's sampling options, explicit (the defaults may change): only --max-copy-share differs.
BUILD = ("--split", "hash", "--split-ratios", "0.9,0.05,0.05", "--trivial-fraction", "0.1",
         "--measure-min-count", "100", "--cardinal-min-value", "1000000", "--cardinal-target", "10000",
         "--max-copies-per-token", "100", "--seed", "0", "--window", "3")
SAMPLINGS = {"up": "0.25", "none": "0"}
MODELS = {"lstm": ("seq2seq", "--size", "small"), "dnc": ("dnc", "--preset", "laptop")}
#: The paper's up-sampled groups.
RARE = ("MEASURE", "CARDINAL")


def tnforge(*args: str, log: Path | None = None) -> None:
    """Run one `tnforge` command (its stderr to `log`), echoing it and its duration."""
    print("$ tnforge " + " ".join(args), file=sys.stderr, flush=True)
    started = time.monotonic()
    with open(log or os.devnull, "w") as err:
        subprocess.run([sys.executable, "-m", "tnforge", *args], check=True, stdout=err, stderr=err)
    print(f"  ({time.monotonic() - started:.0f} s) tnforge {' '.join(args[:2])}", file=sys.stderr, flush=True)


def build(corpus: Path, work: Path) -> dict[str, Path]:
    data = {}
    for name, share in SAMPLINGS.items():
        data[name] = work / f"en-{name}"
        if not (data[name] / "manifest.json").exists():
            tnforge("build", str(corpus), "--out", str(data[name]), *BUILD, "--max-copy-share", share, "--overwrite")
    data["bundled"] = work / "bundled"
    if not (data["bundled"] / "manifest.json").exists():
        tnforge("build", "--out", str(data["bundled"]), "--split", "hash", "--split-ratios", "0,0,1", "--overwrite")
    return data


def train_all(data: dict[str, Path], work: Path, args: argparse.Namespace) -> None:
    jobs = []
    for model, (command, *size) in MODELS.items():
        for sampling in SAMPLINGS:
            run = work / f"{model}-{sampling}"
            if (run / "done").exists():
                continue
            jobs.append((run, ("train", command, "--data", str(data[sampling]), "--out", str(run), *size,
                               "--epochs", str(args.epochs), "--max-minutes", "0", "--patience", "100",
                               "--batch-size", "64", "--seed", "13", "--dev-limit", str(args.dev_limit),
                               "--threads", str(args.threads), "--device", "cpu", "--no-progress", "--overwrite")))

    def one(job: tuple[Path, tuple[str, ...]]) -> None:
        run, command = job
        tnforge(*command, log=work / f"{run.name}.log")
        (run / "done").write_text("")

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, sorted(jobs, key=lambda job: not job[0].name.startswith("dnc"))))
    longer = work / f"dnc-up-{args.longer}"
    if args.longer and not (longer / "done").exists():  # the DNC's learning curve past the shared budget
        shutil.copytree(work / "dnc-up", longer, dirs_exist_ok=True)
        tnforge("train", "dnc", "--data", str(data["up"]), "--out", str(longer), "--resume", "--epochs",
                str(args.longer), "--patience", "6", "--max-minutes", "0", "--threads", str(args.threads), "--device", "cpu",
                "--no-progress", log=work / f"{longer.name}.log")
        (longer / "done").write_text("")


def evaluate_run(run: Path, data: Path, split: str, out: Path, beam: int) -> dict:
    """Greedy (or beam) decoding of `split`, judged with the covering grammar; cached in `out`."""
    if out.exists():
        return json.loads(out.read_text())
    from tnforge.grammars import adapter
    from tnforge.trainers import families
    from tnforge.trainers.evaluation.accuracy import evaluate, is_correct
    from tnforge.trainers.evaluation.decoded import decode_predictions
    from tnforge.trainers.kernel.examples import example_files

    _family, loaded = families.load(run, "cpu", kind="decoder")
    predictions, seconds, _ = decode_predictions(loaded, example_files(data, split), None, beam=beam)
    predictions.sort(key=lambda p: p["key"])
    judge, note = adapter.judge(None)
    report = evaluate(predictions, batch_judge=judge)
    unrecoverable = {e["key"] for e in report["errors"] if e["recoverable"] is False}
    result = {"report": {k: v for k, v in report.items() if k != "errors"}, "grammar": note,
              "decode_seconds": seconds, "tokens_per_s": len(predictions) / max(seconds, 1e-9),
              "correct": [is_correct(p["before"], p["gold"], p["prediction"]) for p in predictions],
              "unrecoverable": [p["key"] in unrecoverable for p in predictions],
              "keys": [p["key"] for p in predictions], "classes": [p["class"] for p in predictions]}
    out.write_text(json.dumps(result))
    return result


def run_facts(run: Path) -> dict:
    """Training figures of a run: steps, seconds, its dev learning curve (non-trivial accuracy per eval)."""
    from tnforge.trainers.training.checkpoints import LAST, read_payload

    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    dev = [m for m in metrics if m["event"] == "dev"]
    elapsed = read_payload(run / LAST, "cpu")["training"]["elapsed"]  # the training loop, dev evaluations included
    return {"steps": dev[-1]["step"], "train_seconds": elapsed,
            "curve": [(m["epoch"], round(m["dev_nontrivial_accuracy"], 4)) for m in dev],
            "best_dev_nontrivial": max(m["dev_nontrivial_accuracy"] for m in dev)}


def _pct(value: float) -> str:
    return f"{100 * value:.2f}%"


def _class_cell(report: dict, cls: str) -> str:
    row = next((r for r in report["per_class"] if r["class"] == cls), None)
    return "–" if row is None else f"{row['errors']} ({row.get('unrecoverable', '?')})"


def _unrecoverable_test(a: dict, b: dict) -> tuple[int, int, float]:
    """Tokens with an unrecoverable error from A only, from B only, and the sign test's p."""
    from tnforge.trainers.evaluation.significance import sign_test

    only_a = sum(x and not y for x, y in zip(a["unrecoverable"], b["unrecoverable"], strict=True))
    only_b = sum(y and not x for x, y in zip(a["unrecoverable"], b["unrecoverable"], strict=True))
    return only_a, only_b, sign_test(only_a, only_b)


def _machine() -> str:
    import platform

    import torch

    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    return (f"{model}, {os.cpu_count()} cores (shared with other jobs), torch {torch.__version__} "
            f"({torch.get_num_threads()} threads here; runs used --threads 1), Python {platform.python_version()}")


def claim_verdicts(results: dict) -> list[str]:
    """Plain verdicts on the two claims and on the accuracy target, from the measured figures."""
    lines = []
    for held_out, runs in results["held_out"].items():
        compared = [(f"lstm-{s}", f"dnc-{s}", f"up-sampling {s}") for s in SAMPLINGS]
        compared += [("lstm-up", name, f"{name}: the DNC trained longer") for name in runs if name.count("-") == 2]
        for lstm_name, dnc_name, label in compared:
            lstm, dnc = runs[lstm_name], runs[dnc_name]
            only_lstm, only_dnc, p = _unrecoverable_test(lstm, dnc)
            u_lstm, u_dnc = lstm["report"]["unrecoverable"], dnc["report"]["unrecoverable"]
            verdict = ("supported" if u_dnc < u_lstm and p < 0.05 else
                       "fewer, but not significantly (p ≥ 0.05)" if u_dnc < u_lstm else "not supported")
            lines.append(f"- Claim 1 ({held_out}, {label}): DNC {u_dnc} vs LSTM {u_lstm} "
                         f"unrecoverable errors ({only_dnc} tokens only the DNC gets unrecoverably wrong, "
                         f"{only_lstm} only the LSTM; sign test p = {p:.3g}): **{verdict}**.")
    for held_out, runs in results["held_out"].items():
        for model in MODELS:
            up, none = runs[f"{model}-up"]["report"], runs[f"{model}-none"]["report"]

            def rare(report: dict) -> tuple[int, int]:
                rows = [r for r in report["per_class"] if r["class"] in RARE]
                return sum(r["errors"] for r in rows), sum(r.get("unrecoverable", 0) for r in rows)

            (e_up, u_up), (e_none, u_none) = rare(up), rare(none)
            verdict = ("nothing to remove: no unrecoverable error without up-sampling" if u_none == 0 else
                       "supported" if u_up <= u_none / 2 else
                       "fewer, but not most of them" if u_up < u_none else "not supported")
            lines.append(f"- Claim 2 ({held_out}, {model.upper()}): MEASURE + CARDINAL errors (unrecoverable) "
                         f"{e_none} ({u_none}) without up-sampling → {e_up} ({u_up}) with it: **{verdict}**.")
    runs = results["held_out"]["en test"]
    for lstm_name, dnc_name, label in compared:
        gap = runs[lstm_name]["report"]["nontrivial"]["accuracy"] - runs[dnc_name]["report"]["nontrivial"]["accuracy"]
        lines.append(f"- Target (en test, {label}): the DNC's non-trivial accuracy is "
                     f"{100 * gap:.2f} points {'below' if gap >= 0 else 'above'} the LSTM's: "
                     f"**{'met' if gap <= 0.02 else 'NOT met'}** (aim: within 2 points).")
    return lines


def to_markdown(results: dict, args: argparse.Namespace) -> str:
    names = list(results["runs"])
    out = ["# The memory-augmented seq2seq (DNC) vs the LSTM window seq2seq", "",
           f"Written by `benchmarks/dnc.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
           f"{_machine()}.", "",
           f"Data: the shared English sample built twice with `{' '.join(BUILD)}` and `--max-copy-share 0.25` "
           "(up-sampling on: up) or `--max-copy-share 0` (none); held out: its test split, and the bundled "
           "sample built entirely as a test split (out of distribution). Training: the same budget for every run, "
           f"{args.epochs} epochs (no wall-clock limit), batch 64, Adam 2e-3, seed 13, dev evaluation on "
           f"the first {args.dev_limit} dev rows (in whole batches of 256) after each epoch, best dev weights "
           "kept; LSTM `--size small`, DNC "
           f"`--preset laptop`. Decoding: beam {args.beam} ({'greedy, as in the paper' if args.beam == 1 else 'beam'})."
           " Errors are judged by the covering grammar: unrecoverable = the grammar does not license the "
           "wrong reading (a constrained decoder could not have avoided it by masking).", ""]
    for held_out, runs in results["held_out"].items():
        out += [f"## {held_out}", "", "| run | tokens | non-trivial | errors | unrecoverable | MEASURE err (unrec) "
                "| CARDINAL err (unrec) | train min | steps | decode tokens/s |", "|---" * 10 + "|"]
        for name in names:
            r, facts = runs[name]["report"], results["runs"][name]
            minutes = f"{facts['train_seconds'] / 60:.1f}" if facts["train_seconds"] else "?"
            out.append(f"| {name} | {_pct(r['tokens']['accuracy'])} | {_pct(r['nontrivial']['accuracy'])} "
                       f"({r['nontrivial']['count']}) | {r['tokens']['count'] - r['tokens']['correct']} "
                       f"| {r.get('unrecoverable', '?')} | {_class_cell(r, 'MEASURE')} | {_class_cell(r, 'CARDINAL')} "
                       f"| {minutes} | {facts['steps']} | {runs[name]['tokens_per_s']:.0f} |")
        classes = sorted({row["class"] for name in names for row in runs[name]["report"]["per_class"]})
        out += ["", "Errors (unrecoverable) per class:", "", "| class | tokens | " + " | ".join(names) + " |",
                "|---" * (len(names) + 2) + "|"]
        for cls in classes:
            count = next(r["count"] for r in runs[names[0]]["report"]["per_class"] if r["class"] == cls)
            out.append(f"| {cls} | {count} | " + " | ".join(_class_cell(runs[n]["report"], cls) for n in names) + " |")
        out += ["", "Paired tests on the same tokens (McNemar on correctness; sign test on unrecoverable errors):", "",
                "| A vs B | only A right | only B right | McNemar p | only A unrecoverable | only B unrecoverable | "
                "sign p |", "|---" * 7 + "|"]
        from tnforge.trainers.evaluation.significance import paired_test

        pairs = [(f"lstm-{s}", f"dnc-{s}") for s in SAMPLINGS] + [(f"{m}-none", f"{m}-up") for m in MODELS]
        pairs += [("lstm-up", name) for name in names[len(MODELS) * len(SAMPLINGS):]]
        for a, b in pairs:
            test = paired_test(runs[a]["correct"], runs[b]["correct"])
            only_a, only_b, p = _unrecoverable_test(runs[a], runs[b])
            out.append(f"| {a} vs {b} | {test['only_a_correct']} | {test['only_b_correct']} | {test['p_exact']:.3g} "
                       f"| {only_a} | {only_b} | {p:.3g} |")
        out.append("")
    longest = max((results["runs"][name]["curve"] for name in names), key=len)
    out += ["## Learning curves (dev non-trivial accuracy after each epoch)", "",
            "| run | " + " | ".join(str(e) for e, _ in longest) + " |", "|---" * (1 + len(longest)) + "|"]
    for name in names:
        curve = [f"{100 * v:.1f}" for _, v in results["runs"][name]["curve"]]
        out.append(f"| {name} | " + " | ".join(curve + [""] * (len(longest) - len(curve))) + " |")
    out += ["", "## Verdicts", "", *claim_verdicts(results), ""]
    return "\n".join(out)


def write_results(results: dict, args: argparse.Namespace, folder: Path) -> None:
    """docs/results/dnc.md (the tables and verdicts) and dnc.json (the figures, without per-token lists)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dnc.md").write_text(to_markdown(results, args), encoding="utf-8")
    slim = {"runs": results["runs"], "held_out": {h: {n: {k: v for k, v in r.items()
                                                           if k not in ("correct", "unrecoverable", "keys", "classes")}
                                                       for n, r in runs.items()}
                                               for h, runs in results["held_out"].items()}}
    (folder / "dnc.json").write_text(json.dumps(slim, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {folder / 'dnc.md'} and {folder / 'dnc.json'}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-dnc"))
    parser.add_argument("--corpus", type=Path, default=SAMPLE)
    parser.add_argument("--epochs", type=int, default=15, help="the training budget of every run")
    parser.add_argument("--dev-limit", type=int, default=800, help="dev rows per evaluation")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads per run")
    parser.add_argument("--jobs", type=int, default=2, help="runs trained at once")
    parser.add_argument("--beam", type=int, default=1, help="beam width (1: greedy, as in the paper)")
    parser.add_argument("--results", type=Path, default=ROOT / "docs" / "results")
    parser.add_argument("--longer", type=int, default=30,
                        help="also resume the up-sampled DNC to at most this many epochs, early stopping after 6 "
                             "evaluations without a better dev accuracy (0: no)")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    if not args.corpus.exists():
        sys.exit(f"{args.corpus}: corpus not found")
    args.work.mkdir(parents=True, exist_ok=True)
    data = build(args.corpus, args.work)
    if not args.report_only:
        train_all(data, args.work, args)
    results: dict = {"runs": {}, "held_out": {}}
    names = [f"{m}-{s}" for s in SAMPLINGS for m in MODELS] + ([f"dnc-up-{args.longer}"] if args.longer else [])
    for name in names:
        results["runs"][name] = run_facts(args.work / name)
        for held_out, (folder, split) in {"en test": (data["up"], "test"), "bundled": (data["bundled"], "test")}.items():
            out = args.work / "eval" / f"{name}-{held_out.replace(' ', '-')}.json"
            out.parent.mkdir(exist_ok=True)
            results["held_out"].setdefault(held_out, {})[name] = evaluate_run(args.work / name, folder, split, out,
                                                                              args.beam)
    write_results(results, args, args.results)


if __name__ == "__main__":
    main()
