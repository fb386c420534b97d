"""The grammars on more real Kestrel data they were not written from (tests/data/kestrel_external_en.tsv,
kestrel_fresh_en.tsv, kestrel_round4_en.tsv, kestrel_round6_en.tsv, kestrel_round7_en.tsv, kestrel_units_en.tsv,
kestrel_indicative_en.tsv):
coverage per class and part of the split, and rejection of corruptions.

The floors are the figures reached (docs/grammars.md): the lexicon's studied half and held-out parts A and B were
all studied (B in round 3, after it was measured), and so was the indicative file; no token of
kestrel_fresh_en.tsv, kestrel_round4_en.tsv (rounds 4-5) or kestrel_round6_en.tsv (round 6) was missed, so none of
their halves was studied. A grammar change that licenses fewer real readings fails here."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

pytest.importorskip("pynini")

from kestrel_external import (  # noqa: E402
    ROUND7,
    external_pairs,
    fresh_pairs,
    indicative_pairs,
    kept_unit_rows,
    round4_batches,
    round4_pairs,
    round6_pairs,
    round7_pairs,
    split_of,
    unit_candidates,
    unit_part,
    unit_row_rule,
    unit_rows,
)

from tnforge.grammars.corruptions import corruptions  # noqa: E402
from tnforge.grammars.coverage import NUMBER_CLASSES, measure_coverage  # noqa: E402
from tnforge.grammars.grammar import Grammar  # noqa: E402

#: (part, class) → the share of the unit lexicon's rows licensed when these figures were recorded.
UNIT_FLOORS = {
    ("studied", "MEASURE"): 378 / 379, ("studied", "MONEY"): 432 / 433,
    ("held-out A", "MEASURE"): 170 / 171, ("held-out A", "MONEY"): 196 / 197,
    ("held-out B", "MEASURE"): 162 / 164, ("held-out B", "MONEY"): 248 / 250,
}


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Grammar:
    return Grammar(cache_dir=tmp_path_factory.mktemp("grammar-cache"))


def test_the_split_is_stable_and_about_half() -> None:
    rows = kept_unit_rows()
    parts = Counter(split_of(*r) for r in rows)
    assert parts == Counter(split_of(*r) for r in reversed(rows))
    assert 0.4 < parts["studied"] / len(rows) < 0.6
    assert {split_of(*p[:3]) for p in external_pairs()} == {"studied", "held-out"}


def test_the_fixed_filter_drops_source_artifacts_only() -> None:
    assert unit_row_rule("MEASURE", "in", "and a half inches") == "number fragment left in the reading"
    assert unit_row_rule("MONEY", "Rs crore", "twocrore rupees") == "number fragment left in the reading"
    assert unit_row_rule("MEASURE", "L", "micro liters") == "micro reading without a micro sign (lost by the source)"
    assert unit_row_rule("MONEY", "€", "million euros") == "scale of the reading does not match the symbol"
    assert unit_row_rule("MONEY", "AU$", "dollars and cents") == "minor unit (the amount had cents)"
    for row in [("MEASURE", "km/h", "kilometers per hour"), ("MONEY", "$ million", "million dollars"),
                ("MONEY", "USDm", "million united states dollars"), ("MONEY", "Rs  crore", "crore rupees")]:
        assert unit_row_rule(*row) is None, row
    assert len(kept_unit_rows()) >= 0.85 * len(unit_rows()) >= 1500


def test_unit_and_currency_readings_of_real_data_are_licensed(g: Grammar) -> None:
    assert unit_candidates("MONEY", "$ million", "million dollars")[0] == ("2$ million", "two million dollars", "MONEY")
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    misses = defaultdict(list)
    for row in kept_unit_rows():
        key = (unit_part(row), row[0])
        licensed = any(g.licenses_batch(unit_candidates(*row)))
        counts[key][0] += licensed
        counts[key][1] += 1
        if not licensed:
            misses[key].append(row)
    assert set(counts) == set(UNIT_FLOORS)
    for key, (licensed, total) in counts.items():
        assert total >= 150 and licensed / total >= UNIT_FLOORS[key] - 1e-9, (key, licensed, total, misses[key])


def _every_class_covered(pairs_of, g: Grammar, least: int) -> None:
    """Both parts hold at least `least` tokens, and ≥ 99.5% of each number class's readings are licensed."""
    for part in ("studied", "held-out"):
        pairs = pairs_of(part)
        assert sum(n for *_, n in pairs) >= least
        for cls, stats in measure_coverage(pairs, g).items():
            assert cls in NUMBER_CLASSES and stats.share >= 0.995, (part, cls, stats.misses)


def test_number_tokens_of_unseen_sentences_are_licensed(g: Grammar) -> None:
    _every_class_covered(external_pairs, g, 80)


def test_fresh_tokens_of_unseen_sentences_are_licensed(g: Grammar) -> None:
    """Round 2's file (sentences 4829-5046), split before it was measured; its held-out half was never studied."""
    assert {split_of(*p[:3]) for p in fresh_pairs()} == {"studied", "held-out"}
    _every_class_covered(fresh_pairs, g, 45)


def test_number_tokens_of_rounds_four_and_five_are_licensed(g: Grammar) -> None:
    """kestrel_round4_en.tsv: the rare classes of sentences 5229-6977 (round 4, batches 1-2), then every number
    class of the last sentences no file had taken (round 5, batches 3-4: 4809-4828, 5200-5228, 6978-7550, 4097-4099);
    each batch split before it was measured; no token was missed, so no half was studied (docs/grammars.md)."""
    batches = round4_batches()
    rows = [row for batch in batches for row in batch]
    assert [len(batch) for batch in batches] == [49, 16, 207, 1] and len(round4_pairs()) == len(rows) == 273
    assert all({split_of(*row) for row in batch} == {"studied", "held-out"} for batch in batches[:3])
    routine = {"CARDINAL", "DATE", "ORDINAL"}
    assert not {row[0] for batch in batches[:2] for row in batch} & routine
    assert {row[0] for row in batches[2]} >= routine | {"DECIMAL", "DIGIT", "MEASURE", "MONEY", "TELEPHONE"}
    written = {(cls, before) for cls, before, _ in rows}
    others = {(cls, before) for cls, before, *_ in external_pairs() + fresh_pairs() + indicative_pairs()}
    assert len(written) == len(rows) and not written & others  # no (class, written form) twice
    _every_class_covered(round4_pairs, g, 120)


def test_rare_class_tokens_of_other_wikipedia_text_are_licensed(g: Grammar) -> None:
    """kestrel_round6_en.tsv: rare-class rows of en_train (Kestrel on other Wikipedia text than the test file), fixed
    and split before they were measured; none was missed with main's grammars, so neither half was studied."""
    pairs = round6_pairs()
    assert len(pairs) == 391 and all(n == 1 for *_, n in pairs)
    classes = Counter(cls for cls, *_ in pairs)
    assert classes["MEASURE"] >= 140 and classes["DECIMAL"] >= 90 and classes["MONEY"] >= 55
    assert classes["TELEPHONE"] >= 45 and classes["DIGIT"] >= 25 and classes["TIME"] >= 19
    written = {(cls, before) for cls, before, *_ in pairs}
    others = {(cls, before) for cls, before, *_ in external_pairs() + fresh_pairs() + indicative_pairs() + round4_pairs()}
    assert len(written) == len(pairs) and not written & others
    assert Counter(split_of(*p[:3]) for p in pairs)["held-out"] >= 150
    _every_class_covered(round6_pairs, g, 150)


def test_round_six_holds_no_written_form_of_the_shared_sample(shared_tsv) -> None:
    lines = shared_tsv.read_text(encoding="utf-8").splitlines()
    sample = {line.split("\t")[1] for line in lines if line.count("\t") == 2}
    assert not {before for _, before, *_ in round6_pairs()} & sample


#: Round 7's rows left unlicensed after its widening (docs/grammars.md): a misspelt source reading ("fourty"; the
#: E-notation itself is now read), Kestrel dropping a trailing word (M, U.S.), and "m" read as minutes (left out: it would
#: make meters and minutes one symbol's readings).
ROUND7_MISSES = {("DECIMAL", "3.66E-49"), ("MEASURE", "7.62 mm M"), ("TELEPHONE", "527-28479 U.S."),
                 ("MEASURE", "57m")}


def test_docstring_examples_of_two_normalizers_are_licensed(g: Grammar) -> None:
    """kestrel_round7_en.tsv: en_train gold readings two normalizers' docstrings give (indicative), fixed and split
    before they were measured (main's grammars: 80/90, held-out halves 20/24 and 22/22); after round 7's widening
    only the four rows above stay unlicensed."""
    batches = round4_batches(ROUND7)
    assert [len(batch) for batch in batches] == [0, 51, 39] and len(round7_pairs()) == 90
    rows = [row for batch in batches for row in batch]
    written = {(cls, before) for cls, before, _ in rows}
    others = {(cls, before) for cls, before, *_ in external_pairs() + fresh_pairs() + indicative_pairs()
              + round4_pairs() + round6_pairs()}
    assert len(written) == len(rows) and not written & others
    assert all({split_of(*row) for row in batch} == {"studied", "held-out"} for batch in batches[1:])
    missed = {(cls, before) for cls, before, after in rows if not g.licenses(before, after, cls)}
    assert missed <= ROUND7_MISSES, missed - ROUND7_MISSES


def test_round_seven_holds_no_written_form_of_the_shared_sample(shared_tsv) -> None:
    lines = shared_tsv.read_text(encoding="utf-8").splitlines()
    sample = {line.split("\t")[1] for line in lines if line.count("\t") == 2}
    assert not {before for _, before, *_ in round7_pairs()} & sample


def test_rare_class_readings_of_a_second_source_are_licensed(g: Grammar) -> None:
    """TIME, TELEPHONE, FRACTION, MONEY, MEASURE readings from a competitor's self-tests (indicative: provenance
    unverified; measured at 92-100% per class before the round's last widening, 100% after, docs/grammars.md)."""
    result = measure_coverage(indicative_pairs(), g)
    assert set(result) == {"TIME", "TELEPHONE", "FRACTION", "MONEY", "MEASURE"}
    for cls, stats in result.items():
        assert stats.total >= 15 and stats.share == 1.0, (cls, stats.misses)


def test_round_two_conventions(g: Grammar) -> None:
    """The conventions widened from the lexicon's part B (docs/grammars.md), and what stays rejected."""
    for token, spoken, cls in [("2 kDa", "two kilodaltons", "MEASURE"), ("2 sq/km", "two square per kilometer",
                               "MEASURE"), ("5 megatons/year", "five mega tons per year", "MEASURE"),
                               ("2TWST", "two trillion samoan talas", "MONEY"), ("3M$US", "three million dollars",
                               "MONEY"), ("T$4 billion", "four billion pa", "MONEY"), ("6 billion tk",
                               "six billion takas", "MONEY")]:
        assert g.licenses(token, spoken, cls), token
    for token, spoken, cls in [("2 kDa", "two kilograms", "MEASURE"), ("2TWST", "two samoan talas", "MONEY"),
                               ("2TWST", "two billion samoan talas", "MONEY"), ("3M$US", "three dollars", "MONEY"),
                               ("6 billion tk", "six million takas", "MONEY")]:
        assert not g.licenses(token, spoken, cls), (token, spoken)


def test_corruptions_of_real_readings_are_rejected(g: Grammar) -> None:
    gold = [(c, b, a) for c, b, a, _ in external_pairs() + fresh_pairs() + indicative_pairs() + round4_pairs()
            + round6_pairs() + round7_pairs()]
    for row in kept_unit_rows()[::2]:
        found = [(cls, token, spoken) for token, spoken, cls in unit_candidates(*row) if g.licenses(token, spoken, cls)]
        gold += found[:1]
    bad = [(before, wrong, cls) for cls, before, after in gold for _kind, wrong in corruptions(g, after)]
    accepted = [item for item, ok in zip(bad, g.licenses_batch(bad), strict=True) if ok]
    assert len(bad) > 5000 and len(accepted) / len(bad) <= 0.001, accepted[:10]
