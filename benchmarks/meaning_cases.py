"""Benchmark: meaning errors on the project's meaning-critical cases (`tests/data/meaning_cases.tsv`: codes such
as 221B, A4, 4K, 5G that could be read as a unit or a scale, beside real measures, amounts and times), read by
each normalizer given and judged by the covering grammar (`tnforge.reading.meaning_cases`). Writes
docs/results/meaning-cases.{md,json}. The target: 0 meaning errors with the README's normalizer (the bundled
sample's) and the shared sample's.

    python benchmarks/meaning_cases.py --normalizer bundled=runs/normalizer --normalizer shared=runs/en-normalizer

Make the two normalizers with the README's typical session (`runs/normalizer`) and the same commands on the
shared sample (`tnforge build ../shared/data/en_sample.tsv --out out/en`, then `train seq2seq`, `train tagger` and
`normalizer assemble` on `out/en`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "data" / "meaning_cases.tsv"
RESULTS = ROOT / "docs" / "results"


def markdown(report: dict) -> str:
    lines = ["# Meaning-critical cases", "",
             f"Written by `benchmarks/meaning_cases.py` on {report['date']}: {report['machine']}. "
             f"{report['cases']} cases from `tests/data/meaning_cases.tsv` ({report['codes']} codes no class makes "
             "a unit, currency or scale certain). A reading is right in meaning when the covering grammar licenses "
             "it for the case's class, or when it adds nothing: no unit, currency or scale word, and the token as "
             "written or a reading the grammar licenses in some class.", "",
             "| normalizer | licensed for the class | adds nothing | meaning errors |", "|---|---:|---:|---:|"]
    for name, row in report["normalizers"].items():
        counts = row["verdicts"]
        lines.append(f"| {name} (`{row['folder']}`) | {counts.get('licensed', 0)} | {counts.get('adds nothing', 0)} | "
                     f"**{counts.get('meaning error', 0)}** |")
    for name, row in report["normalizers"].items():
        lines += ["", f"## {name}", "", "| sentence | token | class | reading | verdict | route |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {c['sentence']} | {c['token']} | {c['class'] or '–'} | {c['reading']} | {c['verdict']} | "
                  f"{c['route']} |" for c in row["cases"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--normalizer", action="append", required=True, help="NAME=DIR, a normalizer folder")
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    from tnforge import Normalizer
    from tnforge.reading.meaning_cases import judge_cases, read_cases

    cases = read_cases(args.cases)
    report: dict = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
                    "machine": f"{os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}",
                    "cases": len(cases), "codes": sum(case.cls is None for case in cases), "normalizers": {}}
    for item in args.normalizer:
        name, _, folder = item.partition("=")
        judged = judge_cases(Normalizer.load(folder, "cpu", threads=1), cases)
        report["normalizers"][name] = {
            "folder": folder, "verdicts": dict(Counter(j.verdict for j in judged)),
            "cases": [{"sentence": j.case.sentence, "token": j.case.token, "class": j.case.cls,
                       "reading": j.reading, "verdict": j.verdict, "route": j.route.replace("|", "/")} for j in judged]}
        print(name, report["normalizers"][name]["verdicts"], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in (("meaning-cases.json", json.dumps(report, indent=1) + "\n"), ("meaning-cases.md", markdown(report))):
        temp = args.out / f".{name}.tmp"
        temp.write_text(text, encoding="utf-8")
        temp.replace(args.out / name)


if __name__ == "__main__":
    main()
