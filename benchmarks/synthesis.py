"""Benchmark: grammar-synthesized examples for rare classes (`tnforge build --synthesize N`), measured.

The shared English sample is built (hash split) with each `--synthesize` count (0: off), the window seq2seq is
trained on each with the trainer's defaults and the same budget (two runs at a time side by side, one torch
thread each, so the machine's load falls on them alike), and each model is evaluated per class, errors judged by the covering
grammar, on the shared sample's test split and on the bundled sample (tnforge/data/sample.tsv: other sentences of
the corpus, built with `--split none`: every non-trivial token, the trivial ones as the build samples them).
Rare classes: below `--synthesize-below`
train tokens in the shared sample's train split.

    python benchmarks/synthesis.py --work /tmp/tnforge-bench-synthesis --counts 0,300 --minutes 15
    python benchmarks/synthesis.py --work /tmp/tnforge-bench-synthesis --write-docs docs/results/synthesis.md

A count's build and run are reused when WORK has them (delete WORK to measure again).

`--family sentence` measures the sentence family the same way (`synthesis_sentence`: the sentence Transformer
with every feature, a fixed number of epochs, without and with the grammar's mask) and writes its own section of
the page, leaving the window family's as it is (and the window family's run keeps the sentence section):

    python benchmarks/synthesis.py --family sentence --work /tmp/tnforge-bench-synthesis-sentence --counts 0,300 \
        --epochs 15 --write-docs docs/results/synthesis.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from train_throughput import machine

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"
BUNDLED = ROOT / "tnforge" / "data" / "sample.tsv"
RARE = ("MONEY", "TELEPHONE", "ELECTRONIC", "FRACTION", "DIGIT", "TIME", "MEASURE", "DECIMAL", "ORDINAL", "ADDRESS")
#: The key of the second run without synthesis (another seed), beside the counts.
NOISE = "noise"


def tnforge(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "tnforge", *args], check=True, stdout=subprocess.DEVNULL)


def built(out: Path, *args: str) -> Path:
    if not (out / "manifest.json").exists():
        tnforge("build", *args, "--out", str(out), "--overwrite")
    return out


def evaluate(run: Path, data: Path, split: str, report: Path) -> dict:
    if not (report / "report.json").exists():
        tnforge("evaluate", "--model", str(run), "--data", str(data), "--split", split, "--threads", "1",
                "--device", "cpu", "--report", str(report))
    return json.loads((report / "report.json").read_text())


def wilson(right: int, count: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    if not count:
        return 0.0, 1.0
    p, z = right / count, 1.96
    centre = (p + z * z / (2 * count)) / (1 + z * z / count)
    half = z * math.sqrt(p * (1 - p) / count + z * z / (4 * count * count)) / (1 + z * z / count)
    return max(0.0, centre - half), min(1.0, centre + half)


def per_class(report: dict) -> dict[str, tuple[int, int]]:
    return {row["class"]: (row["correct"], row["count"]) for row in report["per_class"]}


def paired(off: dict, on: dict, cls: str | None) -> tuple[int, int, float]:
    """(tokens `off` got wrong and `on` right, the reverse, McNemar's exact p) over the same tokens (by key),
    of one class (None: every class)."""
    from tnforge.trainers.evaluation.significance import mcnemar_exact

    def wrong(report: dict) -> set:
        return {e["key"] for e in report["errors"] if cls is None or e["class"] == cls}

    a, b = wrong(off), wrong(on)
    fixed, broken = len(a - b), len(b - a)
    return fixed, broken, mcnemar_exact(fixed, broken)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-synthesis"))
    parser.add_argument("--counts", default="0,300", help="--synthesize counts to compare (0: off)")
    parser.add_argument("--below", type=int, default=100, help="--synthesize-below")
    parser.add_argument("--minutes", type=float, default=15.0, help="training budget of each run")
    parser.add_argument("--epochs", type=int, default=0,
                        help="train each run this many epochs instead, whatever the machine's load (0: --minutes)")
    parser.add_argument("--noise-seed", type=int, default=14,
                        help="seed of a second run without synthesis (the trainer's default is 13): what the same "
                             "tests say between two trainings on the same data (0: none)")
    parser.add_argument("--plus", type=Path, help="another corpus (e.g. ../shared/data/proteno_en/train.tsv): the "
                        "sample plus it built without and with the largest count and --defer-to-first, trained and "
                        "scored the same way")
    parser.add_argument("--plus-epochs", type=int, default=5, help="epochs of each --plus run")
    parser.add_argument("--write-docs", type=Path, help="write the results page (Markdown) here")
    parser.add_argument("--family", choices=("window", "sentence"), default="window",
                        help="the window seq2seq, or the sentence Transformer (its own section of the page)")
    parser.add_argument("--eval-every", type=int, default=300, help="--family sentence: steps between dev evaluations")
    parser.add_argument("--beam", type=int, default=4, help="--family sentence: beam width when scoring")
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    args.work.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    if args.family == "sentence":
        sentence_family(args, counts, load_before)
        return
    bundled = built(args.work / "bundled", str(BUNDLED), "--split", "none")
    data = {n: built(args.work / f"data-{n}", str(SAMPLE), "--split", "hash",
                     *(["--synthesize", str(n), "--synthesize-below", str(args.below)] if n else []))
            for n in counts}
    runs: dict = {n: args.work / f"run-{n}" for n in counts}
    seeds: dict = {n: None for n in counts}
    if args.noise_seed and 0 in counts:
        runs[NOISE], seeds[NOISE] = args.work / f"run-0-seed{args.noise_seed}", args.noise_seed
    missing = [n for n in runs if not (runs[n] / "best.pt").exists()]
    budget = (["--epochs", str(args.epochs), "--max-minutes", "0"] if args.epochs
              else ["--max-minutes", str(args.minutes)])
    for pair in (missing[i:i + 2] for i in range(0, len(missing), 2)):  # two at a time: one per core
        training = [subprocess.Popen([sys.executable, "-m", "tnforge", "train", "seq2seq", "--data",
                                      str(data[0 if n == NOISE else n]), "--out", str(runs[n]), *budget,
                                      "--threads", "1", "--device", "cpu", "--no-progress",
                                      "--overwrite", *(["--seed", str(seeds[n])] if seeds[n] else [])],
                                     stdout=subprocess.DEVNULL)
                    for n in pair]
        if any(process.wait() for process in training):
            sys.exit("a training run failed")
    noise = ({where: evaluate(runs[NOISE], data[0] if where == "test" else bundled, "test" if where == "test"
                              else "train", runs[NOISE] / f"eval-{where}") for where in ("test", "bundled")}
             if NOISE in runs else None)
    results = {}
    for n in counts:
        manifest = json.loads((data[n] / "manifest.json").read_text())
        results[n] = {
            "train_tokens": manifest["splits"]["train"]["tokens"],
            "synthesized": (manifest.get("synthesis") or {}).get("examples", {}),
            "conventions": (manifest.get("synthesis") or {}).get("conventions", {}),
            "test": evaluate(runs[n], data[n], "test", runs[n] / "eval-test"),
            "bundled": evaluate(runs[n], bundled, "train", runs[n] / "eval-bundled"),
            "steps": [json.loads(line) for line in (runs[n] / "metrics.jsonl").read_text().splitlines()][-1].get("step"),
        }
        for where in ("test", "bundled"):
            report = results[n][where]
            print(json.dumps({"count": n, "on": where, "accuracy": report["tokens"]["accuracy"],
                              "nontrivial": report["nontrivial"]["accuracy"],
                              "unrecoverable": report.get("unrecoverable"), "errors": len(report["errors"])}))
    plus = plus_corpus(args, max(counts), data[counts[0]], bundled) if args.plus else None
    summary = {"machine": machine("cpu"), "date": datetime.date.today().isoformat(),
               "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
               "settings": {k: str(v) for k, v in vars(args).items()}, "counts": counts}
    if args.write_docs:
        from synthesis_sentence import HEADING

        old = args.write_docs.read_text(encoding="utf-8") if args.write_docs.exists() else ""
        sentence = "\n" + HEADING + old.partition(HEADING)[2] if HEADING in old else ""  # the sentence family's stays
        args.write_docs.write_text(page(summary, results, args, noise, plus) + sentence, encoding="utf-8")
        path = args.write_docs.with_suffix(".json")
        sentence = {key: value for key, value in (json.loads(path.read_text()) if path.exists() else {}).items()
                    if key == "sentence_family"}  # the sentence family's figures stay
        path.write_text(json.dumps(
            {"summary": summary, "figures": {str(n): figures(r) for n, r in results.items()},
             "plus": {n: figures(r) for n, r in (plus or {}).items()}, **sentence}, indent=1) + "\n")


def sentence_family(args: argparse.Namespace, counts: list[int], load_before: float) -> None:
    """`--family sentence`: measure (`synthesis_sentence.measure`), print, and write the page's section."""
    import synthesis_sentence

    if not args.epochs:
        sys.exit("--family sentence trains a fixed number of epochs: give --epochs")
    results = synthesis_sentence.measure(args, counts)
    for n in counts:
        for name, result in results[n].items():
            for where, _title in WHERE:
                row = result[where]
                print(json.dumps({"count": n, "decoding": f"model{name}", "on": where,
                                  "sentences_right": row["sentences_correct"], "nontrivial": row["nontrivial"]["accuracy"],
                                  "unrecoverable": row["unrecoverable"], "errors": len(row["errors"])}))
    summary = {"machine": machine("cpu"), "date": datetime.date.today().isoformat(),
               "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
               "settings": {k: str(v) for k, v in vars(args).items()}, "counts": counts}
    if args.write_docs:
        synthesis_sentence.write(results, counts, args, summary)


def figures(result: dict) -> dict:
    """A run's headline figures on both sets, for the JSON beside the page."""
    return {w: {"accuracy": result[w]["tokens"]["accuracy"], "nontrivial": result[w]["nontrivial"]["accuracy"],
                "unrecoverable": result[w].get("unrecoverable"), "per_class": per_class(result[w])}
            for w in ("test", "bundled")}


#: The --plus builds of the sample and the other corpus: name → (synthesis on, --defer-to-first), in page order.
PLUS = {"+ corpus": (False, False), "+ corpus, deferred": (False, True), "+ corpus, synthesis": (True, False),
        "+ corpus, synthesis, deferred": (True, True)}
#: Paired comparisons of the --plus section: (what it tells, from, to).
PLUS_PAIRS = (("+ corpus vs alone", None, "+ corpus"), ("deferred vs not", "+ corpus", "+ corpus, deferred"),
              ("synthesis vs not", "+ corpus", "+ corpus, synthesis"),
              ("deferred vs not, with synthesis", "+ corpus, synthesis", "+ corpus, synthesis, deferred"))


def plus_corpus(args: argparse.Namespace, count: int, sample: Path, bundled: Path) -> dict:
    """The sample plus `args.plus` built (hash split) without and with `--synthesize count` and
    `--defer-to-first`, trained side by side for `args.plus_epochs` epochs each, evaluated on the sample's own
    test split (as `sample`, the sample built alone, has it: the same sentences, windows and keys) and on the
    bundled sample."""
    data, runs = {}, {}
    for name, (synthesis, defer) in PLUS.items():
        tag = f"{count if synthesis else 0}{'-deferred' if defer else ''}"
        data[name] = built(args.work / f"plus-{tag}", str(SAMPLE), str(args.plus), "--split", "hash",
                           *(["--synthesize", str(count), "--synthesize-below", str(args.below)] if synthesis else []),
                           *(["--defer-to-first"] if defer else []))
        runs[name] = args.work / f"plus-run-{tag}-{args.plus_epochs}epochs"
    training = [subprocess.Popen([sys.executable, "-m", "tnforge", "train", "seq2seq", "--data", str(data[n]), "--out",
                                  str(runs[n]), "--epochs", str(args.plus_epochs), "--max-minutes", "0", "--threads",
                                  "1", "--device", "cpu", "--no-progress", "--overwrite"], stdout=subprocess.DEVNULL)
                for n in data if not (runs[n] / "best.pt").exists()]
    if any(process.wait() for process in training):
        sys.exit("a training run failed")
    out = {}
    for n in data:
        manifest = json.loads((data[n] / "manifest.json").read_text())
        out[n] = {"test": evaluate(runs[n], sample, "test", runs[n] / "eval-test"),
                  "bundled": evaluate(runs[n], bundled, "train", runs[n] / "eval-bundled"),
                  "train_tokens": manifest["splits"]["train"]["tokens"],
                  "deferred": (manifest.get("deference") or {}).get("deferred", {}),
                  "steps": [json.loads(line) for line in (runs[n] / "metrics.jsonl").read_text().splitlines()][-1].get(
                      "step")}
    return out


def plus_lines(results: dict, plus: dict, args: argparse.Namespace) -> list[str]:
    """The sample alone, then with the other corpus: without and with synthesis, without and with the sample's
    conventions leading (`--defer-to-first`), per class on both sets."""
    count = max(results)
    rows = {None: results[min(results)], **plus}
    deferred = plus["+ corpus, deferred"]["deferred"]
    out = ["## The sample plus another corpus", "",
           f"The shared sample plus `{args.plus.name}` ({args.plus.parent.name}: classes inferred at build time), "
           f"built (hash split) without and with `--synthesize {count}`, and without and with `--defer-to-first` "
           "(the sample leads: a train token of the other corpus whose written form the sample's train split reads, "
           "but never as this token is read, is left out of the examples; it stays as context), each trained "
           f"{args.plus_epochs} epochs side by side (one torch thread each) and scored on the sample's own test split "
           "(the sample's sentences keep their split: the hash is of each file's sentences) and on the bundled "
           "sample. The sample alone: the run without synthesis above.", "",
           f"Deferred to the sample: {sum(deferred.values()):,} train tokens of the other corpus ("
           + ", ".join(f"{cls} {n:,}" for cls, n in sorted(deferred.items())) + ").", ""]
    for where, title in (("bundled", "the bundled sample"), ("test", "the shared sample's test split")):
        out += [f"### On {title}", "", "| class | sample alone | " + " | ".join(f"sample {n}" for n in PLUS) + " | "
                + " | ".join(f"{label}: fixed / broken, p" for label, _, _ in PLUS_PAIRS) + " |",
                "|---|---|" + "---|" * (len(PLUS) + len(PLUS_PAIRS))]
        for cls in sorted(per_class(results[min(results)][where])):
            cells = [cell(*per_class(r[where]).get(cls, (0, 0))) for r in rows.values()]
            tests = [paired(rows[a][where], rows[b][where], cls) for _, a, b in PLUS_PAIRS]
            out.append(f"| {'**' + cls + '**' if cls in RARE else cls} | " + " | ".join(cells) + " | "
                       + " | ".join(f"{f} / {b}, {p:.3g}" for f, b, p in tests) + " |")
        nontrivial = [(r[where]["nontrivial"]["correct"], r[where]["nontrivial"]["count"]) for r in rows.values()]
        out += ["", "- non-trivial tokens: " + "; ".join(f"{name or 'sample alone'}: {cell(*c)}" for name, c in zip(
            rows, nontrivial, strict=True)), ""]
    out += ["Training steps reached: " + "; ".join(f"{n}: {plus[n]['steps']}" for n in plus) + ".", ""]
    return out


def budget(args: argparse.Namespace) -> str:
    """Each run's training budget, in words."""
    return (f"{args.epochs} epochs (the same passes over its train split whatever the machine's load)" if args.epochs
            else f"{args.minutes:g} minutes")


def cell(right: int, count: int) -> str:
    if not count:
        return "–"
    low, high = wilson(right, count)
    return f"{right}/{count} ({right / count:.0%}; {low:.0%}–{high:.0%})"


def targets(counts: list[int], results: dict) -> list[str]:
    """The issue's targets, for each count against off: rare classes right ≥ 70% on the bundled sample,
    non-trivial accuracy up ≥ 5 points there, no class worse beyond noise on either set."""
    base, out = counts[0], ["Targets, each count against off:", ""]
    for n in counts[1:]:
        r, o = results[n], results[base]
        rare = per_class(r["bundled"])
        met = [cls for cls in RARE if cls in rare and rare[cls][0] >= 0.7 * rare[cls][1]]
        gain = r["bundled"]["nontrivial"]["accuracy"] - o["bundled"]["nontrivial"]["accuracy"]
        worse = [f"{cls} on {where} ({f} fixed / {b} broken, p {p:.2g})"
                 for where in ("bundled", "test") for cls in sorted(per_class(o[where]))
                 for f, b, p in [paired(o[where], r[where], cls)] if b > f and p < 0.05]
        out.append(f"- **{n}**: rare classes right ≥ 70% on the bundled sample: {', '.join(met) or 'none'} of "
                   f"{len([c for c in RARE if c in rare])}; bundled non-trivial accuracy {100 * gain:+.1f} points (target "
                   f"+5 points: {'met' if gain >= 0.05 else 'not met'}); classes worse beyond noise: "
                   f"{'; '.join(worse) or 'none'}.")
    return out


def noise_lines(results: dict, noise: dict, seed: int) -> list[str]:
    """What the same paired tests say between two trainings without synthesis (seeds 13 and `seed`): classes
    "worse beyond noise" there are training noise, not synthesis."""
    out = ["## Training noise", "",
           f"The same data without synthesis trained twice (seed 13, the trainer's default, and seed {seed}); "
           "fixed / broken: tokens the first run read wrong and the second right, and the reverse (McNemar's exact p).",
           "", "| class | test: fixed / broken, p | bundled: fixed / broken, p |", "|---|---|---|"]
    base = results[0]
    classes = sorted(set(per_class(base["test"])) | set(per_class(base["bundled"])))
    for cls in [None, *classes]:
        cells = ["{} / {}, {:.3g}".format(*paired(base[where], noise[where], cls)) for where in ("test", "bundled")]
        out.append(f"| {cls or 'every token'} | {cells[0]} | {cells[1]} |")
    flagged = [f"{cls} on {where}" for where in ("bundled", "test") for cls in classes
               for f, b, p in [paired(base[where], noise[where], cls)] if b > f and p < 0.05]
    out += ["", "Classes the test calls worse beyond noise between the two seeds: "
            f"{', '.join(flagged) or 'none'}.", ""]
    return out


#: The two sets every model is scored on: key in the results, title.
WHERE = (("bundled", "the bundled sample"), ("test", "the shared sample's test split"))


def class_table(results: dict, counts: list[int], where: str) -> list[str]:
    """Per class on one set (`where`): right/count for each count, fixed / broken and McNemar's p against off;
    then every token, the non-trivial ones, and the errors (unrecoverable)."""
    base, others = counts[0], [n for n in counts if n]
    heads = " | ".join(f"--synthesize {n}" if n else "off" for n in counts) + "".join(
        f" | {n} vs off: fixed / broken, p" for n in others)
    lines = [f"| class | train tokens | {heads} |", "|---|---:|" + "---|" * (len(counts) + len(others))]
    classes = [c for c in RARE if c in per_class(results[base][where])]
    classes += sorted(set(per_class(results[base][where])) - set(RARE))
    for cls in classes:
        row = [per_class(results[n][where]).get(cls, (0, 0)) for n in counts]
        tests = [paired(results[base][where], results[n][where], cls) for n in others]
        lines.append(f"| {'**' + cls + '**' if cls in RARE else cls} | {results[base]['train_tokens'].get(cls, 0)} | "
                     + " | ".join(cell(*r) for r in row)
                     + "".join(f" | {f} / {b}, {p:.3g}" for f, b, p in tests) + " |")
    lines += ["", "Rare classes in bold. Fixed / broken: tokens the model without synthesis read wrong and the "
              "one with it right, and the reverse; p: McNemar's exact test on them (a class is worse beyond "
              "noise when it breaks more than it fixes with p < 0.05).", ""]
    for label, key in (("all tokens", "tokens"), ("non-trivial tokens", "nontrivial")):
        values = [cell(results[n][where][key]["correct"], results[n][where][key]["count"]) for n in counts]
        lines.append(f"- {label}: " + "; ".join(f"{'off' if n == 0 else n}: {v}" for n, v in zip(counts, values, strict=True)))
    lines.append("- every token, fixed / broken against off: " + "; ".join(
        "{}: {} / {}, p {:.3g}".format(n, *paired(results[base][where], results[n][where], None)) for n in others))
    lines.append("- errors (unrecoverable): " + "; ".join(
        f"{'off' if n == 0 else n}: {len(results[n][where]['errors'])} ({results[n][where].get('unrecoverable')})"
        for n in counts))
    return [*lines, ""]


def page(summary: dict, results: dict, args: argparse.Namespace, noise: dict | None = None,
         plus: dict | None = None) -> str:
    counts = summary["counts"]
    base = counts[0]
    lines = [
        "# Grammar-synthesized examples for rare classes", "",
        f"`benchmarks/synthesis.py`, {summary['date']}, on {summary['machine']}; load average {summary['load_before']} "
        f"before, {summary['load_after']} after.", "",
        f"The shared English sample built (hash split) with `--synthesize` {', '.join(map(str, counts))} (0: off; "
        f"rare: below {args.below} train tokens), the window seq2seq trained on each with the trainer's defaults for "
        f"{budget(args)} (two runs at a time side by side, one torch thread each), evaluated with `tnforge evaluate` "
        "(errors judged by the covering grammar) on the shared sample's test split and on the bundled sample "
        "(`tnforge/data/sample.tsv`: other sentences of the corpus, built with `--split none`: every non-trivial token, "
        "the trivial ones as the build samples them). Cells: right/count "
        "(accuracy; its 95% Wilson interval).", "",
        "## Learning curve", "",
        "| --synthesize | examples placed | bundled: non-trivial | bundled: rare classes | bundled: errors "
        "(unrecoverable) | test: all tokens | test: non-trivial | test: errors (unrecoverable) | train steps |",
        "|---:|---:|---|---|---|---|---|---|---:|",
    ]
    for n in counts:
        r = results[n]
        rare = [per_class(r["bundled"]).get(cls, (0, 0)) for cls in RARE]
        nontrivial = (r["bundled"]["nontrivial"]["correct"], r["bundled"]["nontrivial"]["count"])
        test_all = (r["test"]["tokens"]["correct"], r["test"]["tokens"]["count"])
        test_nontrivial = (r["test"]["nontrivial"]["correct"], r["test"]["nontrivial"]["count"])
        lines.append(f"| {n or 'off'} | {sum(r['synthesized'].values()):,} | {cell(*nontrivial)} | "
                     f"{cell(sum(a for a, _ in rare), sum(b for _, b in rare))} | {len(r['bundled']['errors'])} "
                     f"({r['bundled'].get('unrecoverable')}) | {cell(*test_all)} | {cell(*test_nontrivial)} | "
                     f"{len(r['test']['errors'])} ({r['test'].get('unrecoverable')}) | {r['steps']} |")
    lines += ["", *targets(counts, results), ""]
    if noise is not None:
        lines += noise_lines(results, noise, args.noise_seed)
    lines += ["## Rare classes", ""]
    for where, title in WHERE:
        lines += [f"### On {title}", "", *class_table(results, counts, where)]
    if plus is not None:
        lines += plus_lines(results, plus, args)
    lines += ["## What was synthesized and learned", "", "| class | train tokens | "
              + " | ".join(f"placed ({n})" for n in counts if n) + " | strongest convention words (log-odds) |",
              "|---|---:|" + "---:|" * len([n for n in counts if n]) + "---|"]
    top = max(counts)
    for cls in sorted(results[top]["synthesized"]):
        words = ", ".join(f"{w} {v:+.1f}" for w, v in results[top]["conventions"].get(cls, {}).get("strongest_words", []))
        lines.append(f"| {cls} | {results[base]['train_tokens'].get(cls, 0)} | "
                     + " | ".join(str(results[n]["synthesized"].get(cls, 0)) for n in counts if n) + f" | {words} |")
    lines += ["", "Training steps reached: " + "; ".join(f"{'off' if n == 0 else n}: {results[n]['steps']}"
                                                        for n in counts) + ".", "",
              "Reproduce: `python benchmarks/synthesis.py --work /tmp/tnforge-bench-synthesis "
              f"--counts {args.counts} {'--epochs ' + str(args.epochs) if args.epochs else '--minutes ' + format(args.minutes, 'g')} "
              + (f"--plus {args.plus} --plus-epochs {args.plus_epochs} " if args.plus else "")
              + "--write-docs docs/results/synthesis.md`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
