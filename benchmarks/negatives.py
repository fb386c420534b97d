"""Benchmark: negatives at ratio 10:1 for the positive pairs of a large build.

A 10M-token build of the English corpus has on the order of 100k–300k distinct positive pairs. This script
makes a synthetic positive-pairs dataset of that size (numbers, dates, measures, money, decimals, ordinals,
letters, with their English readings; hash split 90/5/5), or uses an existing dataset directory (--dataset),
then times `run_negatives` and prints the figures.

    python benchmarks/negatives.py --pairs 200000 --ratio 10          # grammar on when installed
    python benchmarks/negatives.py --pairs 200000 --ratio 10 --no-grammar --workers 2
    python benchmarks/negatives.py --dataset /tmp/ds10m --ratio 10 --kinds synthetic,random
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from tnforge import datasets, schemas
from tnforge.generators import word_categories as wc
from tnforge.hashing import stable_hash64
from tnforge.manifest import mark_complete, write_manifest

_UNIT_READINGS = {"kg": "kilograms", "km": "kilometers", "m": "meters", "cm": "centimeters", "mi": "miles",
                  "lb": "pounds", "ft": "feet", "%": "percent", "GB": "gigabytes", "MHz": "megahertz"}
_CURRENCY = {"$": "dollars", "€": "euros", "£": "pounds"}


def spell(number: int) -> str:
    """English cardinal reading of 0 ≤ number < 10**12."""
    if number < 10:
        return wc.UNITS_WORDS[number]
    if number < 20:
        return wc.TEENS_WORDS[number - 10]
    if number < 100:
        tens, units = divmod(number, 10)
        return wc.TENS_WORDS[tens - 2] + (f" {wc.UNITS_WORDS[units]}" if units else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return f"{wc.UNITS_WORDS[hundreds]} hundred" + (f" {spell(rest)}" if rest else "")
    for power, name in ((10**9, "billion"), (10**6, "million"), (10**3, "thousand")):
        if number >= power:
            high, rest = divmod(number, power)
            return f"{spell(high)} {name}" + (f" {spell(rest)}" if rest else "")
    raise ValueError(number)


def _year(year: int) -> str:
    high, low = divmod(year, 100)
    if low == 0:
        return f"{spell(high)} hundred"
    return f"{spell(high)} {spell(low) if low >= 10 else 'o ' + spell(low)}"


def synthetic_pair(index: int) -> tuple[str, str, str]:
    """The index-th synthetic (class, before, after) pair: deterministic, varied, mostly distinct."""
    kind, value = index % 8, index // 8
    if kind == 0:
        return "CARDINAL", f"{value:,}", spell(value)
    if kind == 1:
        day, month, year = value % 28 + 1, value // 28 % 12, 1000 + value // 336 % 1100
        return "DATE", f"{day} {wc.MONTHS[month].title()} {year}", (
            f"the {wc.ordinal_word(spell(day).split()[-1]) if day < 20 else spell(day)} of {wc.MONTHS[month]} "
            f"{_year(year)}")
    if kind == 2:
        unit = sorted(_UNIT_READINGS)[value % len(_UNIT_READINGS)]
        amount = value // len(_UNIT_READINGS)
        return "MEASURE", f"{amount}{unit}", f"{spell(amount)} {_UNIT_READINGS[unit]}"
    if kind == 3:
        symbol = sorted(_CURRENCY)[value % 3]
        amount = value // 3
        return "MONEY", f"{symbol}{amount}", f"{spell(amount)} {_CURRENCY[symbol]}"
    if kind == 4:
        whole, frac = divmod(value, 100)
        digits = " ".join(wc.UNITS_WORDS[int(d)] for d in f"{frac:02d}")
        return "DECIMAL", f"{whole}.{frac:02d}", f"{spell(whole)} point {digits}"
    if kind == 5:
        words = spell(value + 1).split()
        ordinal = " ".join(words[:-1] + [wc.ordinal_word(words[-1])])
        return "ORDINAL", f"{value + 1}th", ordinal
    if kind == 6:
        letters = "".join(chr(ord("A") + (value // 26**i) % 26) for i in range(2 + value % 3))
        return "LETTERS", letters, " ".join(letters.lower())
    return "DIGIT", f"{value:05d}", " ".join(wc.UNITS_WORDS[int(d)] for d in f"{value:05d}")


def make_dataset(root: Path, pairs: int, shards: int) -> None:
    """Write `pairs` synthetic positive pairs (split 90/5/5 by hash) under root/positives."""
    rows: dict[str, dict[str, list]] = {s: {c: [] for c in schemas.POSITIVE_PAIRS.names} for s in schemas.SPLITS}
    for index in range(pairs):
        cls, before, after = synthetic_pair(index)
        bucket = stable_hash64("benchmark", before) % 100
        split = "train" if bucket < 90 else "dev" if bucket < 95 else "test"
        for name, value in zip(schemas.POSITIVE_PAIRS.names,
                               (stable_hash64(cls, before, after), split, cls, before, after, 1), strict=True):
            rows[split][name].append(value)
    for split, columns in rows.items():
        table = pa.table(columns, schema=schemas.POSITIVE_PAIRS)
        datasets.write_sharded(table, datasets.dataset_path(root, "positive_pairs", split), schemas.POSITIVE_PAIRS,
                               shards)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", help="an existing dataset directory (copied; the original is untouched)")
    parser.add_argument("--pairs", type=int, default=200_000, help="synthetic positive pairs (without --dataset)")
    parser.add_argument("--ratio", default="10")
    parser.add_argument("--kinds", default="synthetic,random")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--grammar", action=argparse.BooleanOptionalAction, default=None,
                        help="judge negatives with the covering grammar (default: when it is installed)")
    parser.add_argument("--units", type=int, help="work units (default: from the data)")
    parser.add_argument("--workers", type=int, default=0,
                        help="local worker processes (default 0: as `tnforge negatives`, one per unit up to the cores)")
    parser.add_argument("pipeline_args", nargs="*", help="Beam options, e.g. --direct_num_workers=2")
    args = parser.parse_args()

    from tnforge.pipelines.negative_units import auto_workers
    from tnforge.pipelines.negatives import run_negatives

    with tempfile.TemporaryDirectory(prefix="tnforge-neg-bench-") as temp:
        root = Path(temp) / "ds"
        started = time.perf_counter()
        if args.dataset:
            shutil.copytree(Path(args.dataset) / "positives", root / "positives")
            shutil.copy(Path(args.dataset) / "manifest.json", root / "manifest.json")
        else:
            make_dataset(root, args.pairs, args.shards)
            write_manifest(root, mark_complete({"benchmark": "negatives", "pairs": args.pairs}))
        prepared = time.perf_counter() - started
        positives = datasets.read_dataset(root, "positive_pairs", columns=["key"]).num_rows
        workers = args.workers or auto_workers(str(root), args.units, args.pipeline_args)
        started = time.perf_counter()
        section = run_negatives(
            str(root), args.kinds.split(","), None if args.ratio == "all" else float(args.ratio), None,
            args.grammar, 0, args.shards, args.pipeline_args, workers=workers, units=args.units,
        )
        elapsed = time.perf_counter() - started
    pairs = sum(n for split in section["counts"].values() for n in split.values())
    vocab = sum(n for split in section["vocab_counts"].values() for n in split.values())
    negatives = pairs - sum(split.get("positive", 0) for split in section["counts"].values())
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(json.dumps({
        "positives": positives,
        "ratio": args.ratio,
        "kinds": args.kinds,
        "grammar": section["grammar"],
        "licensed": section["licensed"],
        "distinct_inputs": section["work"]["inputs"],
        "units": section["work"]["units"],
        "workers": workers,
        "prepare_s": round(prepared, 1),
        "negatives_s": round(elapsed, 1),
        "peak_rss_mb": round(peak / 1024),
        "pairs_rows": pairs,
        "vocab_rows": vocab,
        "negatives_per_s": round(negatives / elapsed),
        "rows_per_s": round((pairs + vocab) / elapsed),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "counts": section["counts"],
    }, indent=2))


if __name__ == "__main__":
    main()
