"""Benchmark: how raw text's rarer number forms reach the seq2seq, on real Kestrel tokens outside the shared
sample (the token files of issue #15, `tests/support/kestrel_external.py`'s `real_tokens`: the second half of the standard
test file and other Wikipedia text; every (class, written form) once). Each token is written into a carrier sentence ("It was
X here.") and read the way `tnforge normalize` reads raw text. Per class and per half of the fixed split of
issue #15 (`split_of`: "studied" / "held-out"):

* whole: the tokenizer keeps the token as one token, as the corpus did;
* routed: whole, and the tagger (rules included) gives it the corpus's class — the class that drives the
  covering-grammar constraint, so that the reading is one the grammar licenses for the right class;
* spoken (with `--model`): the spoken sentence is exactly "It was GOLD here" — this also needs the seq2seq to
  choose the corpus's reading among the licensed ones, so it measures the model as much as the routing.

    python benchmarks/raw_forms.py --tagger runs/tagger
    python benchmarks/raw_forms.py --tagger runs/tagger --model runs/s2s --out /tmp/raw-forms.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests package (tests/support)
CARRIER = "It was {} here."


def measure(tokens: list[tuple[str, str, str]], tagger, normalizer=None) -> dict[str, dict[str, int]]:
    """Counts per (class, part): n, whole, routed and (with a normalizer) spoken."""
    from tests.support.kestrel_external import split_of
    from tnforge.tokenizer import tokenize
    from tnforge.trainers.decoding.sentences import tag_sentences

    texts = [CARRIER.format(written) for _, written, _ in tokens]
    sentences = [tokenize(text) for text in texts]
    tagged = tag_sentences(tagger, sentences)
    spoken = [reading.spoken for reading in normalizer.read_batch(texts)] if normalizer is not None else None
    counts: dict[str, dict[str, int]] = defaultdict(Counter)
    for i, (cls, written, reading) in enumerate(tokens):
        for key in (f"{cls}|{split_of(cls, written)}", f"{cls}|all", f"all|{split_of(cls, written)}", "all|all"):
            row = counts[key]
            row["n"] += 1
            whole = written in sentences[i]
            row["whole"] += whole
            row["routed"] += whole and tagged.classes[i][sentences[i].index(written)] == cls
            if spoken is not None:
                row["spoken"] += spoken[i] == CARRIER.format(reading).rstrip(".")
    return counts


def markdown(counts: dict[str, dict[str, int]], spoken: bool) -> str:
    """One row per class (held-out half, then all), shares with their counts."""
    columns = ["whole", "routed", *(["spoken"] if spoken else [])]
    lines = ["| class | " + " | ".join(f"{c}, held-out | {c}, all" for c in columns) + " |",
             "|---|" + "---:|" * (2 * len(columns))]
    classes = sorted({key.split("|")[0] for key in counts} - {"all"}) + ["all"]
    for cls in classes:
        cells = []
        for column in columns:
            for part in ("held-out", "all"):
                row = counts.get(f"{cls}|{part}", Counter())
                cells.append(f"{row[column] / row['n']:.1%} ({row[column]}/{row['n']})" if row["n"] else "–")
        lines.append(f"| {cls} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tagger", type=Path, required=True, help="a `tnforge train tagger` run")
    parser.add_argument("--model", type=Path, help="a seq2seq run: also read each sentence (grammar constraint on)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the counts as JSON here")
    args = parser.parse_args()

    from tnforge.trainers.tagger import load_tagger

    tagger = load_tagger(args.tagger)
    normalizer = None
    if args.model is not None:
        from tnforge import Normalizer

        normalizer = Normalizer.load(args.model, "cpu", args.threads, tagger=args.tagger)
    from tests.support.kestrel_external import real_tokens

    counts = measure(real_tokens(), tagger, normalizer)
    print(markdown(counts, normalizer is not None))
    if args.out:
        args.out.write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
