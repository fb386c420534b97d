"""Number grammars induced from the 300 minimal numbers (Gorman & Sproat 2016): per language, exact and
read-back accuracy on 1,000 Appendix-A numbers (seed 28), compile time and verbalizations per second.
Writes docs/results/number-grammars.md (machine and date included).

    python benchmarks/number_grammars.py [--out docs/results/number-grammars.md]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import tempfile
import time
from pathlib import Path

from num2words import num2words

from tnforge.grammars.induction import induce, load
from tnforge.grammars.induction.examples import Example
from tnforge.grammars.induction.sampling import draw_numbers
from tnforge.grammars.induction.store import save

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "numbers"
LANGS = ["en", "de", "fr", "es", "nl", "ru"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="docs/results/number-grammars.md")
    args = parser.parse_args()
    minimal = [int(n) for n in (DATA / "minimal.txt").read_text().split()]
    test = draw_numbers(1000, seed=28, exclude=minimal)
    other = [int(n) for n in (DATA / "random-trn.txt").read_text().split() if int(n) not in set(test)]
    rows = []
    with tempfile.TemporaryDirectory() as root:
        for lang in LANGS:
            examples = [Example(n, num2words(n, lang=lang), f"minimal:{i}") for i, n in enumerate(minimal, 1)]
            reference = {n: num2words(n, lang=lang) for n in test}
            for lm_name, lm in (("300 examples", []), ("+ number names of 8,9xx other numbers", [num2words(n, lang=lang) for n in other])):
                rules, report = induce(examples, lang, lm)
                out = Path(root) / f"{lang}{len(lm)}"
                save(rules, report, examples, out, len(lm))
                grammar = load(out)
                exact = sum(grammar.say(n) == reference[n] for n in test)
                read = sum(grammar.read(grammar.say(n)) == n for n in test)
                fresh = load(out)
                started = time.perf_counter()
                for n in test:
                    fresh.say(n)
                rate = len(test) / (time.perf_counter() - started)
                rows.append(f"| {lang} | {lm_name} | {exact / 10:.1f}% | {read / 10:.1f}% | "
                            f"{grammar.manifest['compile_seconds']:.2f} s | {rate:,.0f} |")
    text = ["# Induced number grammars (`benchmarks/number_grammars.py`)", "",
            f"{datetime.date.today()}, {platform.node()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} CPUs (shared; load average {os.getloadavg()[0]:.1f}); num2words 0.5.14 as the reference; "
            "1,000 test numbers below 10^9 drawn by Appendix A (seed 28), none a training example.", "",
            "| language | allomorph model trained on | exact match | read back | compile | verbalizations/s (cold) |",
            "|---|---|---|---|---|---|", *rows, ""]
    Path(args.out).write_text("\n".join(text), encoding="utf-8")
    print("\n".join(text))


if __name__ == "__main__":
    main()
