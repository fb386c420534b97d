"""The grammars on data they were not written from: held-out real Kestrel readings and re-drawn tokens."""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("pynini")

from tests.support.paths import SHARED_DATA, TEST_DATA
from tnforge.gold_pairs import read_corpus_pairs  # noqa: E402
from tnforge.grammars.corruptions import corruptions  # noqa: E402
from tnforge.grammars.coverage import NUMBER_CLASSES, measure_coverage  # noqa: E402
from tnforge.grammars.grammar import Grammar  # noqa: E402
from tnforge.grammars.lattice import TokenReadings  # noqa: E402
from tnforge.grammars.redraw import REDRAWN, Redrawer  # noqa: E402

HELD_OUT = TEST_DATA / "kestrel_heldout_en.tsv"
SHARED_TSV = SHARED_DATA / "en_sample.tsv"


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Grammar:
    return Grammar(cache_dir=tmp_path_factory.mktemp("grammar-cache"))


@pytest.fixture(scope="module")
def sample_number_pairs() -> list[tuple[str, str, str, int]]:
    if not SHARED_TSV.exists():
        pytest.skip(f"{SHARED_TSV} not present")
    return [p for p in read_corpus_pairs(SHARED_TSV) if p[0] in REDRAWN]


def test_held_out_real_readings_are_licensed_and_corruptions_rejected(g: Grammar) -> None:
    pairs = read_corpus_pairs(HELD_OUT)
    assert sum(n for *_, n in pairs) >= 200 and {p[0] for p in pairs} >= {"DATE", "CARDINAL", "MEASURE", "TIME"}
    result = measure_coverage(pairs, g)
    for cls in NUMBER_CLASSES:
        if cls in result:
            assert result[cls].share >= 0.995, (cls, result[cls].misses)
    bad = [(b, x, c) for c, b, a, _ in pairs for _kind, x in corruptions(g, a)]
    accepted = [item for item, ok in zip(bad, g.licenses_batch(bad), strict=True) if ok]
    assert len(bad) > 1000 and len(accepted) / len(bad) <= 0.001, accepted[:10]


def test_redrawn_tokens_are_new_deterministic_and_licensed(g: Grammar, sample_number_pairs, tmp_path) -> None:
    pairs = sample_number_pairs[::7]
    first = [Redrawer(g).redraw(c, b, a, "test", 1) for c, b, a, _ in pairs]
    fresh = Grammar(cache_dir=tmp_path)  # a second grammar, with empty token caches
    again = [Redrawer(fresh).redraw(c, b, a, "test", 1) for c, b, a, _ in pairs]
    assert first == again
    drawn = [(new[0], new[1], c) for new, (c, _b, _a, _n) in zip(first, pairs, strict=True) if new]
    assert len(drawn) >= 0.95 * len(pairs)
    assert sum(new[0] != b for new, (_c, b, _a, _n) in zip(first, pairs, strict=True) if new) >= 0.8 * len(drawn)
    assert all(Grammar(cache_dir=tmp_path).licenses_batch(drawn))
    other = [Redrawer(g).redraw(c, b, a, "test", 2) for c, b, a, _ in pairs]
    assert sum(x != y for x, y in zip(first, other, strict=True)) >= 0.8 * len(pairs)
    by_shape = {c: (b, new[0]) for new, (c, b, _a, _n) in zip(first, pairs, strict=True) if new}
    before, after = by_shape["DATE"]
    assert any(ch.isdigit() for ch in after) and len(after.split()) == len(before.split())


def test_first_check_agrees_with_the_materialized_set(g: Grammar, sample_number_pairs) -> None:
    """The first check of a token walks its lattice (WordSet slots, offset NFA); later checks use the
    materialized set: both must give the same verdicts, for gold readings and for corruptions."""
    redrawer = Redrawer(g)
    checked = 0
    for cls, before, after, _ in sample_number_pairs[::3]:
        new = redrawer.redraw(cls, before, after, "agree")
        if new is None:
            continue
        token, reading = new
        candidates = [reading] + [x for _k, x in corruptions(g, reading)] + [after]
        lattice = g.lattice(token, cls)
        strings = TokenReadings(lattice).strings
        if strings is None:
            continue
        for candidate in candidates:
            assert (candidate in TokenReadings(lattice)) == (candidate in strings), (token, candidate)
            checked += 1
    assert checked > 1000


def test_licenses_batch_pauses_and_restores_the_collector(g: Grammar) -> None:
    assert gc.isenabled()
    assert g.licenses_batch([("3kg", "three kilograms", "MEASURE")]) == [True]
    assert gc.isenabled()
    gc.disable()
    try:
        g.licenses_batch([("3kg", "three kilograms", "MEASURE")])
        assert not gc.isenabled()
    finally:
        gc.enable()
