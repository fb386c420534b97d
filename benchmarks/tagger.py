"""Benchmark raw-text handling on the shared English sample: the tokenizer's boundary precision / recall, and
the semiotic-class tagger (a) on the hash-split build's dev and test splits (`tnforge train tagger`
defaults) and (b) by k-fold cross-validation over every sentence, a steadier estimate than ~170 non-trivial
test tokens. Aims (issue #16): class accuracy ≥ 99.5% of all tokens and ≥ 99% of non-trivial tokens.
`--cv-sentences train+dev` leaves the build's test split out of the cross-validation: the figure features
and defaults are chosen on (docs/training.md), so test stays unseen until it is scored once.

    python benchmarks/tagger.py --work /tmp/tagger-bench
    python benchmarks/tagger.py --work /tmp/tagger-bench --folds 0      # skip cross-validation
    python benchmarks/tagger.py --work /tmp/tagger-bench --cv-sentences train+dev --skip-split
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
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


def cross_validate(sentences: list, folds: int, threads: int) -> dict:
    """Train on k-1 folds (a tenth of them held for early stopping), predict the k-th; pooled figures."""
    from tnforge.hashing import stable_hash64
    from tnforge.trainers.tagger.metrics import class_metrics
    from tnforge.trainers.tagger.train import TaggerConfig, fit_tagger

    fold_of = [stable_hash64(" ".join(s[0]), seed=7) % folds for s in sentences]
    gold, found, trivial, seconds = [], [], [], []
    for fold in range(folds):
        train = [s for s, f in zip(sentences, fold_of, strict=True) if f != fold]
        stop = [s for s in train if stable_hash64(" ".join(s[0]), seed=8) % 10 == 0]
        fit = [s for s in train if stable_hash64(" ".join(s[0]), seed=8) % 10 != 0]
        test = [s for s, f in zip(sentences, fold_of, strict=True) if f == fold]
        started = time.monotonic()
        tagger = fit_tagger([s[0] for s in fit], [s[1] for s in fit], TaggerConfig(threads=threads),
                            ([s[0] for s in stop], [s[1] for s in stop]))
        seconds.append(time.monotonic() - started)
        found += [p.cls for sentence in tagger.predict([s[0] for s in test]) for p in sentence]
        gold += [c for s in test for c in s[1]]
        trivial += [t for s in test for t in s[2]]
        print(f"fold {fold}: {len(test)} sentences, {seconds[-1]:.0f} s", file=sys.stderr)
    metrics = class_metrics(gold, found, trivial, sorted(set(gold)))
    metrics["train_seconds"] = seconds
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-tagger"))
    parser.add_argument("--data", type=Path, default=SAMPLE, help="corpus TSV")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: none)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cv-sentences", choices=("all", "train+dev"), default="all",
                        help="cross-validate over every sentence, or all but the build's test split")
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
        m = cross_validate(sentences, args.folds, args.threads)
        print(f"{args.folds}-fold CV over {args.cv_sentences} ({len(sentences)} sentences): accuracy {m['accuracy']:.4%} ({m['errors']}/{m['tokens']}), non-trivial "
              f"{m['non_trivial_accuracy']:.4%} ({m['non_trivial_errors']}/{m['non_trivial_tokens']})")
        print(json.dumps({k: {"recall": round(v["recall"], 4), "precision": round(v["precision"], 4),
                              "support": v["support"]} for k, v in m["per_class"].items()}))
        print(json.dumps(m["confusion"]))


if __name__ == "__main__":
    main()
