"""Benchmark raw-text handling on the shared English sample: the tokenizer's boundary precision / recall, and
the semiotic-class tagger (a) on the hash-split build's dev and test splits (`tnforge train tagger`
defaults) and (b) by k-fold cross-validation over every sentence, a steadier estimate than ~170 non-trivial
test tokens. Aims (issue #16): class accuracy ≥ 99.5% of all tokens and ≥ 99% of non-trivial tokens.
`--cv-sentences train+dev` leaves the build's test split out of the cross-validation: the figure features
and defaults are chosen on (docs/explanation/tagger.md), so test stays unseen until it is scored once.

    python benchmarks/tagger.py --work /tmp/tagger-bench
    python benchmarks/tagger.py --work /tmp/tagger-bench --folds 0      # skip cross-validation
    python benchmarks/tagger.py --work /tmp/tagger-bench --cv-sentences train+dev --skip-split
    python benchmarks/tagger.py --work /tmp/tagger-bench --cv-sentences train+dev --skip-split \\
        --train-fractions 0.125,0.25,0.5,0.75,1     # learning curve, power-law extrapolation to 1% error
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"


def corpus(path: Path) -> list[tuple[list[str], list[str], list[bool]]]:
    """(tokens, classes, trivial flags) of every sentence of a corpus file."""
    from tnforge.readers import read_corpus_file
    from tnforge.schemas import TRIVIAL_TARGETS
    from tnforge.token_blocks import TokenBlock

    sentences = []
    for item in read_corpus_file(str(path)):
        if isinstance(item, TokenBlock):
            befores, classes = item.befores.to_pylist(), item.classes.to_pylist()
            afters = item.afters.to_pylist()
            for a, b in zip(item.offsets[:-1], item.offsets[1:], strict=True):
                a, b = int(a), int(b)
                sentences.append((befores[a:b], classes[a:b], [x in TRIVIAL_TARGETS for x in afters[a:b]]))
    return sentences


def cross_validate(sentences: list, folds: int, threads: int, fractions: Sequence[float] = (1.0,)) -> dict:
    """Train on k-1 folds (a tenth of them held for early stopping), predict the k-th; pooled figures per
    training fraction: each fold's training sentences cut to the first fraction of a fixed order (a stable
    hash of the sentence), so every fraction is scored on the same held-out folds and larger fractions hold
    the smaller ones. The largest fraction's errors also say how the fold's training data holds their form.
    Early stopping leaves out the held tenth's tokens of classes the fold's training sentences lack
    (`fit_tagger`; counted per fold)."""
    from tnforge.hashing import stable_hash64
    from tnforge.trainers.evaluation.learning_curve import disagreement, form_classes, nested_subset
    from tnforge.trainers.tagger.metrics import class_metrics
    from tnforge.trainers.tagger.train import TaggerConfig, fit_tagger

    fold_of = [stable_hash64(" ".join(s[0]), seed=7) % folds for s in sentences]
    runs = {f: {"gold": [], "found": [], "trivial": [], "seconds": [], "train_tokens": [], "rounds": [],
                "left_out": []}
            for f in fractions}
    errors = []  # (form, gold, predicted, how the fold's training data holds the form, its classes there)
    for fold in range(folds):
        every = [s for s, f in zip(sentences, fold_of, strict=True) if f != fold]
        test = [s for s, f in zip(sentences, fold_of, strict=True) if f == fold]
        for fraction in fractions:
            train = [every[i] for i in nested_subset([" ".join(s[0]) for s in every], fraction)]
            stop = [s for s in train if stable_hash64(" ".join(s[0]), seed=8) % 10 == 0]
            fit = [s for s in train if stable_hash64(" ".join(s[0]), seed=8) % 10 != 0]
            started = time.monotonic()
            tagger = fit_tagger([s[0] for s in fit], [s[1] for s in fit], TaggerConfig(threads=threads),
                                ([s[0] for s in stop], [s[1] for s in stop]))
            run = runs[fraction]
            run["seconds"].append(time.monotonic() - started)
            run["train_tokens"].append(sum(len(s[0]) for s in train))
            run["rounds"].append(tagger.description["training"]["rounds"])
            run["left_out"].append(tagger.description["training"]["dev_tokens_left_out"])
            found = [p.cls for sentence in tagger.predict([s[0] for s in test]) for p in sentence]
            run["found"] += found
            run["gold"] += [c for s in test for c in s[1]]
            run["trivial"] += [t for s in test for t in s[2]]
            if fraction == max(fractions):
                table = form_classes([s[0] for s in train], [s[1] for s in train])
                tokens = [(w, c, t) for s in test for w, c, t in zip(*s, strict=True)]
                errors += [(w, c, p, disagreement(table, w, c), dict(table.get(w, {})))
                           for (w, c, t), p in zip(tokens, found, strict=True) if not t and c != p]
            print(f"fold {fold}, fraction {fraction:g}: {len(test)} sentences, {run['seconds'][-1]:.0f} s",
                  file=sys.stderr)
    result = {}
    for fraction, run in runs.items():
        metrics = class_metrics(run["gold"], run["found"], run["trivial"], sorted(set(run["gold"])))
        metrics.update({k: run[k] for k in ("train_tokens", "rounds", "left_out")})
        metrics["train_seconds"] = run["seconds"]
        result[fraction] = metrics
    result[max(fractions)]["non_trivial_error_forms"] = errors
    return result


def _tokens(n: float) -> str:
    """A token count for the report: exact below a million, else in millions (or more) to 3 figures."""
    if n == float("inf"):
        return "never (the fit does not fall)"
    return f"{n:,.0f}" if n < 1e6 else f"{n / 1e6:,.3g} million" if n < 1e12 else f"{n:.2g}"


def _fit_lines(fit: dict, points: int) -> list[str]:
    """The power-law fit and, when the error falls at every step, its extrapolation with the spread."""
    head = (f"Power-law fit of the non-trivial error rate (least squares in log-log, {points} points): "
            f"err = {fit['a']:.3g} · n^−{fit['b']:.3f}; ")
    if not fit["monotone"]:
        return [head + "the error does NOT fall with every larger fraction: no extrapolation (the fit is in the JSON)."]
    spread = [f["size"] for f in fit.get("leave_one_out", [])]
    parts = [f"Extrapolation (not a measurement): {fit['target']:.0%} error at n ≈ {_tokens(fit['size'])} training "
             "tokens"]
    if spread:
        parts.append(f"leaving one point out {_tokens(min(spread))} to {_tokens(max(spread))}")
    if "largest_three" in fit:
        parts.append(f"the three largest sizes alone (b = {fit['largest_three']['b']:.3f}) "
                     f"{_tokens(fit['largest_three']['size'])}")
    if "lower_ends" in fit:
        parts.append(f"fitted to the intervals' lower error ends {_tokens(fit['lower_ends']['size'])}")
    parts.append(f"to their upper error ends {_tokens(fit['upper_ends']['size'])}")
    return [head + "the error falls with every larger fraction.", "; ".join(parts) + "."]


def curve_report(curve: dict[float, dict], target: float = 0.01) -> tuple[str, dict]:
    """The learning curve as a Markdown table, the power-law fit of the non-trivial error rate against training
    tokens extrapolated to `target`, and the full-size errors' label disagreement; (text, JSON-ready dict)."""
    from collections import Counter

    from tnforge.trainers.evaluation.learning_curve import extrapolate
    from tnforge.trainers.evaluation.significance import wilson_interval

    rows, points = [], []
    lines = ["| training fraction | training tokens a fold (mean, with the early-stopping tenth) | errors, all tokens | "
             "accuracy, all tokens | non-trivial errors | non-trivial accuracy | 95% interval (Wilson) | "
             "early-stopping tokens left out (unseen classes) | rounds a fold | seconds (all folds) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for fraction, m in sorted(curve.items()):
        n, bad = m["non_trivial_tokens"], m["non_trivial_errors"]
        low, high = wilson_interval(n - bad, n)
        size = sum(m["train_tokens"]) / len(m["train_tokens"])
        rows.append({"fraction": fraction, "train_tokens": m["train_tokens"], "mean_train_tokens": size,
                     "tokens": m["tokens"], "errors": m["errors"], "accuracy": m["accuracy"],
                     "non_trivial_tokens": n, "non_trivial_errors": bad,
                     "non_trivial_accuracy": m["non_trivial_accuracy"], "non_trivial_interval": [low, high],
                     "rounds": m["rounds"], "left_out": m["left_out"], "train_seconds": m["train_seconds"]})
        points.append((size, bad / n, 1 - high, 1 - low))
        lines.append(f"| {fraction:g} | {size:,.0f} | {m['errors']} | {m['accuracy']:.2%} | {bad} of {n:,} | "
                     f"{m['non_trivial_accuracy']:.2%} | {low:.2%}–{high:.2%} | "
                     f"{sum(m['left_out'])} | {min(m['rounds'])}–{max(m['rounds'])} | "
                     f"{sum(m['train_seconds']):.0f} |")
    report: dict = {"curve": rows}
    if len(points) >= 2 and min(p[1] for p in points) > 0:
        fit = extrapolate(*[[p[i] for p in points] for i in range(4)], target=target)
        report["fit"] = fit
        lines += ["", *_fit_lines(fit, len(points))]
    errors = curve[max(curve)].get("non_trivial_error_forms", [])
    kinds = Counter(e[3] for e in errors)
    disagree = [e for e in errors if e[3] in ("gold and other", "other only")]
    memorised = sum(1 for e in disagree if e[2] in e[4])
    report["label_disagreement"] = {"errors": len(errors), "by_kind": dict(kinds),
                                    "predicted_a_training_class": memorised, "examples": disagree}
    lines += ["", f"Non-trivial errors at fraction {max(curve):g}: {len(errors)}; the form in the fold's training "
              f"sentences with another class (label disagreement): {len(disagree)} ({kinds['gold and other']} also "
              f"with the gold class, {kinds['other only']} never with it); seen only with the gold class "
              f"{kinds['gold only']}; unseen {kinds['unseen']}. {memorised} of the {len(disagree)} predicted a class "
              "the training sentences give that form.",
              "Examples (form, gold → predicted; its classes in the fold's training sentences): "
              + ("; ".join(f"`{w}` {c} → {p} ({held})" for w, c, p, _, held in disagree[:8]) or "none")]
    return "\n".join(lines) + "\n", report


def fractions_of(text: str) -> list[float]:
    """The sorted, distinct fractions of `--train-fractions`; exit with one line when one is not in (0, 1]."""
    try:
        fractions = sorted({float(f) for f in text.split(",")})
    except ValueError:
        sys.exit(f"--train-fractions {text!r}: not a comma-separated list of numbers")
    if not 0 < fractions[0] <= fractions[-1] <= 1:
        sys.exit(f"--train-fractions {text!r}: every fraction must be in (0, 1]")
    return fractions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-tagger"))
    parser.add_argument("--data", type=Path, default=SAMPLE, help="corpus TSV")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: none)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cv-sentences", choices=("all", "train+dev"), default="all",
                        help="cross-validate over every sentence, or all but the build's test split")
    parser.add_argument("--train-fractions", default="",
                        help="learning curve: comma-separated fractions of each fold's training sentences, e.g. "
                             "0.125,0.25,0.5,0.75,1 (a table, a power-law fit, JSON in --work)")
    parser.add_argument("--skip-split", action="store_true", help="skip training and scoring on the build's split")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: sample corpus not found")

    from tnforge.tokenizer import measure
    from tnforge.trainers.tagger.train import TaggerConfig, train_tagger

    print("tokenizer:", json.dumps(measure(str(args.data)), indent=1))
    data, run = args.work / "dataset", args.work / "run"
    if not (data / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "tnforge", "build", str(args.data), "--out", str(data), "--split", "hash"],
                       check=True, stdout=subprocess.DEVNULL)
    if not args.skip_split:
        report = train_tagger(TaggerConfig(data=str(data), out=str(run), threads=args.threads, overwrite=True))
        for name, m in (("dev", report.dev), ("test", report.test)):
            print(f"{name}: accuracy {m['accuracy']:.4%} ({m['errors']}/{m['tokens']}), non-trivial "
                  f"{m['non_trivial_accuracy']:.4%} ({m['non_trivial_errors']}/{m['non_trivial_tokens']}); "
                  f"training {report.seconds} s, {report.rounds} rounds")
    if args.folds:
        sentences = corpus(args.data)
        if args.cv_sentences == "train+dev":
            from tnforge.trainers.tagger.train import read_eval_sentences

            held = {tuple(tokens) for tokens in read_eval_sentences(data, "test")[0]}
            sentences = [s for s in sentences if tuple(s[0]) not in held]
        fractions = fractions_of(args.train_fractions) if args.train_fractions else [1.0]
        curve = cross_validate(sentences, args.folds, args.threads, fractions)
        m = curve[max(fractions)]
        print(f"{args.folds}-fold CV over {args.cv_sentences} ({len(sentences)} sentences): accuracy {m['accuracy']:.4%} ({m['errors']}/{m['tokens']}), non-trivial "
              f"{m['non_trivial_accuracy']:.4%} ({m['non_trivial_errors']}/{m['non_trivial_tokens']})")
        print(json.dumps({k: {"recall": round(v["recall"], 4), "precision": round(v["precision"], 4),
                              "support": v["support"]} for k, v in m["per_class"].items()}))
        print(json.dumps(m["confusion"]))
        if args.train_fractions:
            text, report = curve_report(curve)
            report.update({"folds": args.folds, "cv_sentences": args.cv_sentences, "sentences": len(sentences),
                           "data": str(args.data)})
            args.work.mkdir(parents=True, exist_ok=True)
            out = args.work / "learning_curve.json"
            tmp = out.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
            tmp.replace(out)
            print(f"\nLearning curve ({args.folds}-fold CV over {args.cv_sentences}; JSON: {out}):\n\n{text}")

if __name__ == "__main__":
    main()
