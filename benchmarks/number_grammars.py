"""Number grammars induced from the 300 minimal numbers (Gorman & Sproat 2016): per language, exact and
read-back accuracy on 1,000 Appendix-A numbers (seed 28), compile time and verbalizations per second; and
the window seq2seq trained on the same 300 pairs and on the 9,000 random-trn numbers, tested on the same
1,000 (the paper's Tables 3 and 6; `number_seq2seq.py`, runs cached in docs/results/number-seq2seq.json).
Writes docs/results/number-grammars.md (machine and date included).

    python benchmarks/number_grammars.py [--out docs/results/number-grammars.md]
    python benchmarks/number_grammars.py --seq2seq en,ru --seq2seq-minutes 3 --threads 1   # 4 runs of 3 min
    python benchmarks/number_grammars.py --seq2seq ""                                      # grammars only
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
from number_seq2seq import run_all, table

from tnforge.grammars.induction import induce, load
from tnforge.grammars.induction.examples import Example
from tnforge.grammars.induction.sampling import draw_numbers
from tnforge.grammars.induction.store import save

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "numbers"
SHARED_SAMPLE, BUNDLED_SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv", ROOT / "tnforge" / "data" / "sample.tsv"
LANGS = ["en", "de", "fr", "es", "nl", "ru"]


def covering_lines(induced: Path) -> list[str]:
    """The induced English grammar (300 examples) as the CARDINAL/ORDINAL covering grammar against the
    hand-written one, on every CARDINAL/ORDINAL gold reading of the shared and the bundled sample."""
    from tnforge.gold_pairs import read_gold_pairs
    from tnforge.grammars.grammar import Grammar
    from tnforge.grammars.induced_cardinals import compare

    hand, lines = Grammar(), ["## The induced English cardinals as the covering grammar", "",
                              "Gold readings licensed by the hand-written grammar and by the grammar induced from "
                              "the 300 English examples (`tnforge.grammars.induced_cardinals`), with examples of "
                              "where they differ:", ""]
    induced_grammar = Grammar(cardinal_grammar=induced)
    for name, sample in (("../shared/data/en_sample.tsv", SHARED_SAMPLE), ("tnforge/data/sample.tsv", BUNDLED_SAMPLE)):
        if not sample.exists():
            lines.append(f"* {name}: not found")
            continue
        result = compare(read_gold_pairs(sample, ("CARDINAL", "ORDINAL")), hand, induced_grammar)
        lines += [f"* {name}, {stats.line(cls)}" for cls, stats in result.items()]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="docs/results/number-grammars.md")
    parser.add_argument("--seq2seq", default=",".join(LANGS), help="languages to train the seq2seq on ('' none)")
    parser.add_argument("--seq2seq-minutes", type=float, default=3.0, help="wall-clock budget of each training run")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads of each training run")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "tnforge-number-seq2seq")
    parser.add_argument("--cache", type=Path, default=Path("docs/results/number-seq2seq.json"))
    args = parser.parse_args()
    unknown = sorted(set(filter(None, args.seq2seq.split(","))) - set(LANGS))
    if unknown:
        parser.error(f"--seq2seq: no such language {', '.join(unknown)} (one of {', '.join(LANGS)})")
    minimal = [int(n) for n in (DATA / "minimal.txt").read_text().split()]
    test = draw_numbers(1000, seed=28, exclude=minimal)
    other = [int(n) for n in (DATA / "random-trn.txt").read_text().split() if int(n) not in set(test)]
    rows, grammar_exact = [], {}
    with tempfile.TemporaryDirectory() as root:
        for lang in LANGS:
            examples = [Example(n, num2words(n, lang=lang), f"minimal:{i}") for i, n in enumerate(minimal, 1)]
            reference = {n: num2words(n, lang=lang) for n in test}
            for lm_name, lm in (("300 examples", []), (f"+ number names of {len(other):,} other numbers",
                                                       [num2words(n, lang=lang) for n in other])):
                rules, report = induce(examples, lang, lm)
                out = Path(root) / f"{lang}{len(lm)}"
                save(rules, report, examples, out, len(lm))
                grammar = load(out)
                exact = sum(grammar.say(n) == reference[n] for n in test)
                grammar_exact[lang] = (*grammar_exact.get(lang, ()), exact / 10)
                read = sum(grammar.read(grammar.say(n)) == n for n in test)
                fresh = load(out)
                started = time.perf_counter()
                for n in test:
                    fresh.say(n)
                rate = len(test) / (time.perf_counter() - started)
                rows.append(f"| {lang} | {lm_name} | {exact / 10:.1f}% | {read / 10:.1f}% | "
                            f"{grammar.manifest['compile_seconds']:.2f} s | {rate:,.0f} |")
        covering = covering_lines(Path(root) / "en0")
    text = ["# Induced number grammars (`benchmarks/number_grammars.py`)", "",
            f"{datetime.date.today()}, {platform.node()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} CPUs (shared; load average {os.getloadavg()[0]:.1f}); num2words 0.5.14 as the reference; "
            "1,000 test numbers below 10^9 drawn by Appendix A (seed 28), none a training example.", "",
            "| language | allomorph model trained on | exact match | read back | compile | verbalizations/s (cold) |",
            "|---|---|---|---|---|---|", *rows, "", *covering, ""]
    langs = list(dict.fromkeys(filter(None, args.seq2seq.split(","))))
    if langs:
        sets = {"minimal": minimal, "random-trn": other}
        results = run_all(langs, sets, test, lambda n, lang: num2words(n, lang=lang), args.work, args.cache,
                          args.seq2seq_minutes, args.threads)
        text += ["## Against the window seq2seq (the paper's Tables 3 and 6)", "",
                 f"The project's window seq2seq (`tnforge.trainers.seq2seq`, default CPU network, characters of "
                 f"`<norm> N </norm>` in, words out), trained on CPU for {args.seq2seq_minutes:g} minutes with "
                 f"{args.threads} torch thread(s) per run, no dev split (the last weights), beam 5; on the 300 "
                 f"minimal pairs and on the {len(other):,} random-trn pairs that are not test numbers (the largest "
                 f"{max(other):,}; {sum(n > max(other) for n in test)} test numbers are larger); tested on the "
                 "same 1,000 numbers. The paper's RNNs: under 0.1% from 300 examples, 9,000–28,000 needed to "
                 "approach the grammars.", "", *table(results, grammar_exact, args.seq2seq_minutes, args.threads), ""]
    Path(args.out).write_text("\n".join(text), encoding="utf-8")
    print("\n".join(text))


if __name__ == "__main__":
    main()
