"""The grammars on more real Kestrel data they were not written from (tests/data/kestrel_external_en.tsv,
kestrel_fresh_en.tsv, kestrel_round4_en.tsv, kestrel_round7_en.tsv; sources and licences in tests/data/README.md):
coverage per class and part of the split, and rejection of corruptions.

The floors are the figures reached (docs/grammars.md in git history): no token of kestrel_fresh_en.tsv or kestrel_round4_en.tsv
(rounds 4-5) was missed, so none of their halves was studied. A grammar change that licenses fewer real readings fails
here."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("pynini")

from tests.support.kestrel_external import (  # noqa: E402
    ROUND7,
    external_pairs,
    fresh_pairs,
    round4_batches,
    round4_pairs,
    round7_pairs,
    split_of,
)
from tnforge.grammars.corruptions import corruptions  # noqa: E402
from tnforge.grammars.coverage import NUMBER_CLASSES, measure_coverage  # noqa: E402
from tnforge.grammars.grammar import Grammar  # noqa: E402


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Grammar:
    return Grammar(cache_dir=tmp_path_factory.mktemp("grammar-cache"))


def test_the_split_is_stable_and_about_half() -> None:
    rows = [p[:3] for p in external_pairs() + fresh_pairs() + round4_pairs() + round7_pairs()]
    parts = Counter(split_of(*r) for r in rows)
    assert parts == Counter(split_of(*r) for r in reversed(rows))
    assert 0.4 < parts["studied"] / len(rows) < 0.6
    assert {split_of(*p[:3]) for p in external_pairs()} == {"studied", "held-out"}


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
    each batch split before it was measured; no token was missed, so no half was studied (docs/grammars.md in git history)."""
    batches = round4_batches()
    rows = [row for batch in batches for row in batch]
    assert [len(batch) for batch in batches] == [49, 16, 207, 1] and len(round4_pairs()) == len(rows) == 273
    assert all({split_of(*row) for row in batch} == {"studied", "held-out"} for batch in batches[:3])
    routine = {"CARDINAL", "DATE", "ORDINAL"}
    assert not {row[0] for batch in batches[:2] for row in batch} & routine
    assert {row[0] for row in batches[2]} >= routine | {"DECIMAL", "DIGIT", "MEASURE", "MONEY", "TELEPHONE"}
    written = {(cls, before) for cls, before, _ in rows}
    others = {(cls, before) for cls, before, *_ in external_pairs() + fresh_pairs()}
    assert len(written) == len(rows) and not written & others  # no (class, written form) twice
    _every_class_covered(round4_pairs, g, 120)


#: Round 7's rows left unlicensed after its widening (docs/grammars.md in git history): a misspelt source reading ("fourty"; the
#: E-notation itself is now read), Kestrel dropping a trailing word (M, U.S.), and "m" read as minutes (left out: it would
#: make meters and minutes one symbol's readings).
ROUND7_MISSES = {("DECIMAL", "3.66E-49"), ("MEASURE", "7.62 mm M"), ("TELEPHONE", "527-28479 U.S."),
                 ("MEASURE", "57m")}


def test_docstring_examples_of_two_normalizers_are_licensed(g: Grammar) -> None:
    """kestrel_round7_en.tsv: en_train gold readings a normalizer's docstrings give (indicative), fixed and split
    before they were measured (main's grammars: 41/51, held-out half 20/24); after round 7's widening only the four
    rows above stay unlicensed."""
    batches = round4_batches(ROUND7)
    assert [len(batch) for batch in batches] == [0, 51] and len(round7_pairs()) == 51
    rows = [row for batch in batches for row in batch]
    written = {(cls, before) for cls, before, _ in rows}
    others = {(cls, before) for cls, before, *_ in external_pairs() + fresh_pairs() + round4_pairs()}
    assert len(written) == len(rows) and not written & others
    assert all({split_of(*row) for row in batch} == {"studied", "held-out"} for batch in batches[1:])
    missed = {(cls, before) for cls, before, after in rows if not g.licenses(before, after, cls)}
    assert missed <= ROUND7_MISSES, missed - ROUND7_MISSES


def test_round_seven_holds_no_written_form_of_the_shared_sample(shared_tsv) -> None:
    lines = shared_tsv.read_text(encoding="utf-8").splitlines()
    sample = {line.split("\t")[1] for line in lines if line.count("\t") == 2}
    assert not {before for _, before, *_ in round7_pairs()} & sample


def test_round_two_conventions(g: Grammar) -> None:
    """The conventions widened in round 3 (docs/grammars.md in git history), and what stays rejected. The unit lexicon they were
    first seen in was dropped from the project (no licence, tests/data/README.md); these tokens pin the grammars."""
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
    gold = [(c, b, a) for c, b, a, _ in external_pairs() + fresh_pairs() + round4_pairs() + round7_pairs()]
    bad = [(before, wrong, cls) for cls, before, after in gold for _kind, wrong in corruptions(g, after)]
    accepted = [item for item, ok in zip(bad, g.licenses_batch(bad), strict=True) if ok]
    assert len(bad) > 5000 and len(accepted) / len(bad) <= 0.001, accepted[:10]
