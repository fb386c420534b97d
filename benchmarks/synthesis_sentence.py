"""The sentence family's half of `benchmarks/synthesis.py` (`--family sentence`): the sentence Transformer with
every feature (the best CPU configuration of docs/results/sentence-models.md) trained on the shared sample built
without and with `--synthesize` (whose train sentences then hold the synthesized tokens too), each for the same
number of epochs side by side (one torch thread each), and scored per class on the shared sample's test split and
on the bundled sample (every sentence of it, built as one test split): gold tokens and gold classes, every token
decoded by the model, without and with the covering grammar's mask. Writes its section of
docs/results/synthesis.md (the section from `HEADING` on) and its key in synthesis.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from synthesis import BUNDLED, RARE, SAMPLE, WHERE, cell, class_table, per_class, targets

HEADING = "## The sentence family"
ALL = "casing,position,class"
#: Decodings scored: name suffix → with the grammar's mask.
DECODINGS = {"": False, " + grammar": True}


def tnforge(*args: str, log: Path | None = None) -> subprocess.Popen:
    out = open(log, "w", encoding="utf-8") if log else subprocess.DEVNULL  # noqa: SIM115 (the process owns it)
    return subprocess.Popen(["nice", "-n", "19", sys.executable, "-m", "tnforge", *args], stdout=out,
                            stderr=subprocess.STDOUT)


def built(out: Path, *args: str) -> Path:
    if not (out / "manifest.json").exists() and tnforge("build", *args, "--out", str(out), "--overwrite").wait():
        sys.exit(f"the build of {out} failed")
    return out


def train(args: argparse.Namespace, data: dict[int, Path], runs: dict[int, Path]) -> None:
    """Every run not yet trained, side by side (one torch thread each), `args.epochs` epochs, no time limit."""
    training = [tnforge("train", "sentence", "--data", str(data[n]), "--out", str(runs[n]), "--arch", "transformer",
                        "--features", ALL, "--dev-limit", "100", "--eval-every", str(args.eval_every), "--epochs",
                        str(args.epochs), "--max-minutes", "0", "--threads", "1", "--device", "cpu", "--no-progress",
                        "--overwrite", log=args.work / f"train-{n}.log")
                for n in runs if not (runs[n] / "best.pt").exists()]
    if any(process.wait() for process in training):
        sys.exit("a training run failed")


def evaluate(run: str, data: str, split: str, grammar: bool, beam: int, out: str) -> dict:
    """One run on one split's sentences (gold tokens and classes, every token decoded; with the grammar's mask
    when `grammar`), scored by the shared raw-text scoring, cached in `out`."""
    if Path(out).exists():
        return json.loads(Path(out).read_text(encoding="utf-8"))
    import torch

    from tnforge.grammars import adapter
    from tnforge.trainers.decoding.constraint_sets import build_constraint
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.evaluation.raw_text import gold_sentences, score
    from tnforge.trainers.families import load
    from tnforge.trainers.kernel.examples import example_files

    torch.set_num_threads(1)
    _family, loaded = load(run, "cpu", kind="decoder")
    words, covered = adapter.reading_words() if grammar else (None, frozenset())
    constraint, _note = build_constraint(loaded, reading_words=words, covered=covered)
    gold = gold_sentences(example_files(data, split), split)
    readings, _ = read_sentences(loaded, [s.tokens for s in gold], [s.classes for s in gold], None, constraint, beam,
                                 threshold=2.0, reading_words=words, grammar_readings=False)
    judge, _note = adapter.judge(None)
    row = score(readings, gold, judge)
    row = {key: row[key] for key in ("sentences", "sentences_correct", "tokens", "nontrivial", "per_class", "errors",
                                     "unrecoverable", "tokenization_agrees")}
    Path(out).write_text(json.dumps(row), encoding="utf-8")
    return row


def run_summary(run: Path) -> dict:
    """Steps, epochs begun, minutes and the kept (best) checkpoint's step of a run (its metrics and last
    checkpoint)."""
    import torch

    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    state = torch.load(run / "checkpoint.pt", map_location="cpu", weights_only=False).get("training") or {}
    return {"steps": max(r.get("step", 0) for r in records), "epochs": 1 + max(r.get("epoch", 0) for r in records),
            "minutes": round(state.get("elapsed", 0.0) / 60, 1),
            "best_step": max((r["step"] for r in records if r.get("event") == "dev" and r.get("best")), default=None)}


def measure(args: argparse.Namespace, counts: list[int]) -> dict:
    """Build, train and score every count; results[count][decoding] in the shape `synthesis.page` reads."""
    bundled = built(args.work / "sentence-bundled", str(BUNDLED), "--split", "hash", "--split-ratios", "0,0,1")
    data = {n: built(args.work / f"sentence-data-{n}", str(SAMPLE), "--split", "hash",
                     *(["--synthesize", str(n), "--synthesize-below", str(args.below)] if n else []))
            for n in counts}
    runs = {n: args.work / f"sentence-run-{n}" for n in counts}
    train(args, data, runs)
    jobs = {(n, name, where): (str(runs[n]), str(data[n] if where == "test" else bundled), "test", grammar, args.beam,
                               str(runs[n] / f"eval-{where}{'-grammar' if grammar else ''}.json"))
            for n in counts for name, grammar in DECODINGS.items() for where, _title in WHERE}
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:  # one per core
        futures = {key: pool.submit(evaluate, *job) for key, job in jobs.items()}
        scored = {key: future.result() for key, future in futures.items()}
    results: dict = {}
    for n in counts:
        manifest = json.loads((data[n] / "manifest.json").read_text())
        synthesis = manifest.get("synthesis") or {}
        common = {"train_tokens": manifest["splits"]["train"]["tokens"], "run": run_summary(runs[n]),
                  "train_sentences": manifest["datasets"]["sentences"]["train"],
                  "synthesized_sentences": synthesis.get("sentences", 0),
                  "synthesized": synthesis.get("examples", {})}
        results[n] = {name: {**common, **{where: scored[(n, name, where)] for where, _ in WHERE}}
                      for name in DECODINGS}
    return results


def section(results: dict, counts: list[int], args: argparse.Namespace) -> list[str]:
    """The page's sentence-family section (Markdown lines)."""
    test_sentences = results[counts[0]][""]["test"]["sentences"]
    bundled_sentences = results[counts[0]][""]["bundled"]["sentences"]
    lines = [
        HEADING, "",
        f"The sentence Transformer with every feature (casing, position, class: the best CPU configuration of "
        f"[Sentence models](sentence-models.md)) trained on the shared sample built (hash split) with `--synthesize` "
        f"{', '.join(map(str, counts))} (0: off; with synthesis the train sentences also hold each synthesized "
        f"token in its sentence, source `SOURCE#synthesized-N`), each for **{args.epochs} epochs** (no time limit, "
        "so the machine's load does not change what a run gets; the run with synthesis reads more sentences per "
        f"epoch), two runs side by side with one torch thread each, dev evaluated every {args.eval_every} steps on "
        "100 dev sentences, the checkpoint with the most dev sentences right kept. A modest budget for a CPU: "
        "the figures compare without and with synthesis at the same budget, not what the model can reach.", "",
        f"Scored on the shared sample's test split ({test_sentences} sentences) and on the bundled sample (all "
        f"{bundled_sentences} of its sentences, built as one test split: every token, trivial ones too): gold "
        f"tokens and gold classes, every token decoded by the model (beam {args.beam}), without and with the "
        "covering grammar's mask per token span (“+ grammar”); errors judged by the covering grammar "
        "(unrecoverable: a reading the grammar licenses for none of the token's gold class's readings). The mask "
        "is the gold class's, so “+ grammar” rows show the model inside the grammar, not a tagger's pipeline "
        "([Sentence models](sentence-models.md) has that). No second "
        "seed was trained for this family: the window family's training-noise section above shows what "
        "reseeding alone does to these tests.", "",
        "| --synthesize | decoding | train sentences (synthesized) | epochs, steps (kept), minutes | bundled: sentences "
        "right | bundled: non-trivial | bundled: rare classes | bundled: errors (unrecoverable) | test: sentences "
        "right | test: non-trivial | test: errors (unrecoverable) |",
        "|---:|---|---:|---|---|---|---|---|---|---|---|",
    ]
    for n in counts:
        for name in DECODINGS:
            r = results[n][name]
            rare = [per_class(r["bundled"]).get(cls, (0, 0)) for cls in RARE]
            run = r["run"]
            lines.append(
                f"| {n or 'off'} | model{name} | {r['train_sentences']:,} ({r['synthesized_sentences']:,}) | "
                f"{run['epochs']}, {run['steps']} ({run['best_step']}), {run['minutes']:g} | "
                + " | ".join([
                    cell(r["bundled"]["sentences_correct"], r["bundled"]["sentences"]),
                    cell(r["bundled"]["nontrivial"]["correct"], r["bundled"]["nontrivial"]["count"]),
                    cell(sum(a for a, _ in rare), sum(b for _, b in rare)),
                    f"{len(r['bundled']['errors'])} ({r['bundled']['unrecoverable']})",
                    cell(r["test"]["sentences_correct"], r["test"]["sentences"]),
                    cell(r["test"]["nontrivial"]["correct"], r["test"]["nontrivial"]["count"]),
                    f"{len(r['test']['errors'])} ({r['test']['unrecoverable']})"]) + " |")
    for name in DECODINGS:
        lines += ["", f"Targets, model{name}, each count against off:",
                  *targets(counts, {n: results[n][name] for n in counts})[1:]]
    lines.append("")
    for name in DECODINGS:
        by_count = {n: results[n][name] for n in counts}
        for where, title in WHERE:
            lines += [f"### Model{name}, on {title}", "", *class_table(by_count, counts, where)]
    lines += ["Reproduce: `python benchmarks/synthesis.py --family sentence --work "
              f"/tmp/tnforge-bench-synthesis-sentence --counts {args.counts} --epochs {args.epochs} "
              "--write-docs docs/results/synthesis.md`.", ""]
    return lines


def write(results: dict, counts: list[int], args: argparse.Namespace, summary: dict) -> None:
    """Replace the page's sentence-family section (from `HEADING` on) and its key in the JSON beside it."""
    page = args.write_docs.read_text(encoding="utf-8") if args.write_docs.exists() else "# Synthesized examples\n"
    head = page.split(HEADING)[0].rstrip("\n")
    stamp = (f"`benchmarks/synthesis.py --family sentence`, {summary['date']}, on {summary['machine']}; load "
             f"average {summary['load_before']} before, {summary['load_after']} after.")
    lines = section(results, counts, args)
    args.write_docs.write_text("\n".join([head, "", lines[0], "", stamp, *lines[1:]]), encoding="utf-8")
    path = args.write_docs.with_suffix(".json")
    figures = json.loads(path.read_text()) if path.exists() else {}
    figures["sentence_family"] = {"summary": summary, "figures": {
        str(n): {f"model{name}": {where: {"nontrivial": r[where]["nontrivial"]["accuracy"],
                                          "sentences": r[where]["sentences_correct"],
                                          "unrecoverable": r[where]["unrecoverable"], "per_class": per_class(r[where])}
                                  for where, _ in WHERE} | {"run": r["run"]}
                 for name, r in results[n].items()} for n in counts}}
    path.write_text(json.dumps(figures, indent=1) + "\n")
