"""Benchmark: the Gokcen, Zhang & Sproat (2019) recipe done fully on one window seq2seq, measured beside their
Table 2: dual encoders trained on the model's own top-k, λ one for all and λ per class (chosen on dev by
`tnforge sweep-lambda`), and the vocabulary filter after adversarial `loop` rounds.

Steps (each skipped when WORK has its output; every one a `tnforge` command):
 1. `decode --split train --top-k 5` with the model → its top-k hypotheses;
 2. `negatives --kinds synthetic,random,topk --topk-from …` → a pairs folder;
 3. `train voc-de` on the random negatives (class, global) and on the top-k ones; `train seq-de` on all;
 4. `sweep-lambda` on dev with the sequence DE and the top-k filter → λ per class (`chosen_per_class`);
 5. `loop --rounds R` → the vocabulary filter of the last round;
 6. `compare` on the shared sample's test split and on the bundled sample (other sentences of the corpus,
    `--split none`), at λ = 5 and at the λ per class: errors, recoverable and unrecoverable (covering grammar),
    McNemar against no constraint;
 7. `decode --top-k 5` on both: the errors whose gold reading is in the model's beam at all — the most a
    constraint that rescores the beam (a DE) can fix, per class.

    python benchmarks/dual_encoder_recipe.py --model RUN --data DATA --work /tmp/tnforge-bench-de-recipe \\
        --write-docs docs/results/dual-encoders.md

RUN: a window seq2seq trained on DATA (the shared sample built with the default hash split), e.g. the run
`benchmarks/synthesis.py` trains without synthesis.
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
BUNDLED = ROOT / "tnforge" / "data" / "sample.tsv"
#: Gokcen et al. (2019), Table 2, as issue #38 quotes it: change against the model without a constraint.
PAPER = {"+vocDE[random]": ("−13%", "+10%"), "+seqDE": ("−9%", "−2%")}
TARGET = -0.30  # issue #38: unrecoverable errors down ≥ 30% with total errors not up, at the chosen λ


def tnforge(*args: str, log: Path) -> float:
    """Run a tnforge command (its output appended to `log`); the seconds it took."""
    started = time.monotonic()
    with log.open("a", encoding="utf-8") as out:
        out.write("$ tnforge " + " ".join(args) + "\n")
        out.flush()
        subprocess.run([sys.executable, "-m", "tnforge", *args], check=True, stdout=out, stderr=subprocess.STDOUT)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="window seq2seq run trained on --data")
    parser.add_argument("--data", type=Path, required=True, help="its dataset (hash split)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-de-recipe"))
    parser.add_argument("--de-minutes", type=float, default=5.0, help="training budget of each dual encoder")
    parser.add_argument("--rounds", type=int, default=2, help="adversarial loop rounds")
    parser.add_argument("--loop-epochs", type=int, default=5, help="epochs of each loop round's filter")
    parser.add_argument("--lambdas", default="0,1,2,5,10,20", help="λ swept on dev")
    parser.add_argument("--write-docs", type=Path, help="write the results page (Markdown) here (and .json)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    work, model, data = args.work, str(args.model), str(args.data)
    work.mkdir(parents=True, exist_ok=True)
    log = work / "commands.log"
    timings = work / "seconds.json"  # each step's seconds, kept across runs that skip finished steps
    seconds: dict[str, float] = json.loads(timings.read_text()) if timings.exists() else {}
    runtime = ["--device", "cpu", "--threads", "1"]

    def step(name: str, done: Path, *command: str) -> None:
        if not done.exists():
            seconds[name] = tnforge(*command, log=log)
            timings.write_text(json.dumps(seconds, indent=1) + "\n")

    bundled = work / "bundled"
    step("build bundled", bundled / "manifest.json", "build", str(BUNDLED), "--split", "none", "--out", str(bundled),
         "--overwrite")
    step("decode top-k", work / "hyp-train", "decode", "--model", model, "--data", data, "--split", "train",
         "--top-k", "5", "--out", str(work / "hyp-train"), *runtime)
    pairs = work / "pairs"
    step("negatives", pairs / "manifest.json", "negatives", data, "--kinds", "synthetic,random,topk", "--topk-from",
         str(work / "hyp-train"), "--out", str(pairs))
    des = {"voc-random": ("voc-de", "class,global"), "voc-topk": ("voc-de", "topk"), "seq": ("seq-de", "")}
    for name, (command, negatives) in des.items():
        step(f"train {name}", work / name / "best.pt", "train", command, "--data", str(pairs), "--out",
             str(work / name), "--max-minutes", str(args.de_minutes), "--overwrite",
             *(["--negatives", negatives] if negatives else []), *runtime)
    step("sweep", work / "sweep" / "sweep.json", "sweep-lambda", "--model", model, "--data", data, "--split", "dev",
         "--seq-de", str(work / "seq"), "--voc-de", str(work / "voc-topk"), "--lambdas", args.lambdas, "--out",
         str(work / "sweep"), *runtime)
    from tnforge.trainers.decoding.class_weights import chosen_per_class

    sweep = json.loads((work / "sweep" / "sweep.json").read_text())
    per_class = chosen_per_class(sweep)
    loop = work / "loop"
    last_filter = loop / f"round-{args.rounds}" / "voc-de"
    step("loop", last_filter / "best.pt", "loop", "--model", model, "--data", data, "--rounds", str(args.rounds),
         "--epochs", str(args.loop_epochs), "--out", str(loop), *runtime)
    reports: dict[str, dict] = {}
    for where, dataset, split in (("test", data, "test"), ("bundled", str(bundled), "train")):
        for label, weight in (("5", "5"), ("per class", str(per_class))):
            out = work / f"compare-{where}-{'class' if label != '5' else '5'}"
            step(f"compare {where} λ {label}", out / "comparison.json", "compare", "--model", model, "--data",
                 dataset, "--split", split, "--seq-de", str(work / "seq"), "--voc-de", f"random={work / 'voc-random'}",
                 "--voc-de", f"topk={work / 'voc-topk'}", "--voc-de", f"loop={last_filter}", "--lambda", weight,
                 "--report", str(out), *runtime)
            reports[f"{where}|{label}"] = json.loads((out / "comparison.json").read_text())
    bounds = {}
    for where, dataset, split in (("test", data, "test"), ("bundled", str(bundled), "train")):
        out = work / f"hyp-{where}"
        step(f"decode top-k {where}", out, "decode", "--model", model, "--data", dataset, "--split", split,
             "--top-k", "5", "--out", str(out), *runtime)
        bounds[where] = beam_bound(out)
    summary = {"machine": machine("cpu"), "date": datetime.date.today().isoformat(), "model": model, "data": data,
               "settings": {k: str(v) for k, v in vars(args).items()}, "lambda_per_class": str(per_class),
               "seconds": seconds, "sweep": sweep, "beam_bound": bounds, "best": best_dev(args.model),
               "synthesized": (json.loads((args.data / "manifest.json").read_text()).get("synthesis") or {}).get(
                   "examples", {})}
    if args.write_docs:
        from tnforge.filesystems import write_text_files

        write_text_files(args.write_docs.parent, {
            args.write_docs.name: page(summary, reports, args),
            args.write_docs.with_suffix(".json").name: json.dumps({"summary": summary, "reports": reports},
                                                                   indent=1, default=str) + "\n"})
    print(page(summary, reports, args))


def best_dev(run: Path) -> str:
    """The run's best dev figures, in words."""
    events = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    best = [e for e in events if e.get("event") == "dev" and e.get("best")][-1]
    return (f"best dev at step {best['step']}: {best['dev_accuracy']:.2%} of tokens, "
            f"{best['dev_nontrivial_accuracy']:.2%} of non-trivial ones")


def beam_bound(hypotheses: Path) -> dict[str, list[int]]:
    """Per class (and "all"): [errors of the top hypothesis, those whose gold reading is among the top-k]."""
    import pyarrow.dataset as ds

    from tnforge.trainers.evaluation.accuracy import is_correct

    table = ds.dataset(str(hypotheses)).to_table(columns=["key", "class", "before", "gold", "rank", "hypothesis"])
    found: dict[int, list] = {}
    for key, cls, before, gold, rank, hypothesis in zip(*(table.column(c).to_pylist() for c in table.column_names),
                                                        strict=True):
        entry = found.setdefault(key, [cls, False, False])
        right = is_correct(before, gold, hypothesis)
        entry[1] |= rank == 0 and right
        entry[2] |= right
    out: dict[str, list[int]] = {}
    for cls, top, anywhere in found.values():
        for name in ("all", cls):
            counts = out.setdefault(name, [0, 0])
            counts[0] += not top
            counts[1] += (not top) and anywhere
    return dict(sorted(out.items()))


def change(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.0f}%"


def table(report: dict) -> list[str]:
    lines = ["| configuration | errors | Δ errors | recoverable | unrecoverable | Δ unrecoverable | McNemar vs none "
             "(only none right / only this right, p) | paper (Δ unrecoverable, Δ errors) |",
             "|---|---:|---:|---:|---:|---:|---|---|"]
    for row in report["configurations"]:
        test = row.get("vs_baseline")
        p = f"{test['only_a_correct']} / {test['only_b_correct']}, {test['p_exact']:.2g}" if test else "—"
        paper = PAPER.get(row["configuration"])
        lines.append(f"| {row['configuration']} | {row['errors']} | {change(row['errors_change'])} | "
                     f"{row.get('recoverable', '')} | {row.get('unrecoverable', '')} | "
                     f"{change(row.get('unrecoverable_change'))} | {p} | {', '.join(paper) if paper else ''} |")
    return lines


def verdicts(reports: dict, bounds: dict) -> list[str]:
    """The target, per data and λ: the dual-encoder configurations (no grammar mask) with unrecoverable errors
    down ≥ 30% and errors not up; and the most any rescoring could fix (the gold reading in the beam)."""
    out = []
    for key, report in reports.items():
        where, label = key.split("|")
        des = [row for row in report["configurations"] if row["configuration"] != "none"
               and "grammar" not in row["configuration"]]
        met = [row["configuration"] for row in des
               if (row.get("unrecoverable_change") or 0) <= TARGET and (row.get("errors_change") or 0) <= 0]
        best = min(des, key=lambda row: (row.get("unrecoverable_change") or 0, row["errors_change"] or 0))
        errors, in_beam = bounds[where]["all"]
        out.append(f"- {where}, λ {label}: {', '.join(met) or 'no dual-encoder configuration'} "
                   f"{'meets' if len(met) <= 1 else 'meet'} it; the most: {best['configuration']} (unrecoverable "
                   f"{change(best.get('unrecoverable_change'))}, errors {change(best['errors_change'])}); of the "
                   f"model's {errors} errors, {in_beam} have the gold reading in its beam (the most a DE can fix).")
    return out


def page(summary: dict, reports: dict, args: argparse.Namespace) -> str:
    synthesized = summary.get("synthesized")
    lines = [
        f"# Dual encoders on the {'synthesis' if synthesized else 'default'} model: the recipe beside Gokcen et al.'s "
        "Table 2", "",
        f"`benchmarks/dual_encoder_recipe.py`, {summary['date']}, on {summary['machine']}.", "",
        f"The model: `{summary['model']}` (the window seq2seq trained on `{summary['data']}`; {summary['best']}). "
        + (f"Its dataset was built with grammar-synthesized examples for the rare classes ({sum(synthesized.values()):,}: "
           + ", ".join(f"{cls} {n:,}" for cls, n in sorted(synthesized.items())) + "): they are in the train split "
           "its top-k was decoded on and their pairs in the positives, so every kind of negative below covers the "
           "rare classes too (*synthesized negatives*). " if synthesized else "")
        + "Its top-k (k = 5) on "
        "the train split gave the top-k negatives; `tnforge negatives --kinds synthetic,random,topk` wrote the pairs; "
        f"each dual encoder trained {args.de_minutes:g} minutes (`random`: the vocabulary filter on class and global "
        "negatives; `topk`: on the top-k ones; the sequence DE on all); `loop`: the vocabulary filter after "
        f"{args.rounds} adversarial rounds ({args.loop_epochs} epochs each; each round decodes with the previous "
        "round's filter, so the constraint is used in training). λ per class: chosen on dev by `tnforge "
        f"sweep-lambda` (λ {args.lambdas}) with the sequence DE and the top-k filter: `--lambda "
        f"{summary['lambda_per_class']}`. Errors judged by the covering grammar: an error is unrecoverable when "
        "the grammar does not license the reading.", "",
        f"Target (issue #38): unrecoverable errors down ≥ {-100 * TARGET:.0f}% with total errors not up, at the "
        "chosen λ. `+grammar`: the covering grammar's mask for the class the dataset gives each token (the gold "
        "class), not a dual encoder: an upper reference, not a candidate for the target.", "",
        *verdicts(reports, summary["beam_bound"]), ""]
    for key, report in reports.items():
        where, label = key.split("|")
        title = "the shared sample's test split" if where == "test" else "the bundled sample (other sentences)"
        lines += [f"## On {title}, λ {label}", "", *table(report), ""]
    lines += ["The paper's column: the changes issue #38 quotes from Gokcen et al. (2019), Table 2, on their model "
              "and data (not this sample).", "", "## What a dual encoder can fix: the gold reading in the beam", "",
              "A DE rescores the hypotheses the beam search finds (STOP for the sequence DE, each word for the "
              "filter): an error whose gold reading is not among them stays, whatever λ. Errors of the model's top "
              "hypothesis, and those with the gold reading among its top 5 (beam 5):", "",
              "| class | test: errors | test: gold in the beam | bundled: errors | bundled: gold in the beam |",
              "|---|---:|---:|---:|---:|"]
    bound = summary["beam_bound"]
    for cls in sorted(set(bound["test"]) | set(bound["bundled"]), key=lambda c: (c != "all", c)):
        cells = [bound[where].get(cls, [0, 0]) for where in ("test", "bundled")]
        if any(errors for errors, _ in cells):
            lines.append(f"| {cls if cls != 'all' else '**every class**'} | {cells[0][0]} | {cells[0][1]} | "
                         f"{cells[1][0]} | {cells[1][1]} |")
    lines += ["", "## The sweep on dev", "",
              "| λ | errors | unrecoverable |", "|---:|---:|---:|"]
    lines += [f"| {row['lambda']:g} | {row['errors']} | {row.get('unrecoverable')} |" for row in summary["sweep"]]
    if summary["seconds"]:
        lines += ["", "Seconds per step (those this work folder timed): "
                  + "; ".join(f"{k} {v:.0f}" for k, v in summary["seconds"].items()) + "."]
    lines += ["",
              f"Reproduce: `python benchmarks/dual_encoder_recipe.py --model RUN --data DATA --de-minutes "
              f"{args.de_minutes:g} --rounds {args.rounds} --loop-epochs {args.loop_epochs} --lambdas {args.lambdas} "
              f"--write-docs {args.write_docs}` (RUN, DATA: the model and its dataset named above).", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
