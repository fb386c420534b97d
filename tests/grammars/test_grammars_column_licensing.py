"""The grammar's check on Arrow columns (`grammars/columns.py`, the negatives' judge) gives `licenses`'s verdicts."""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

pytest.importorskip("pynini")

from tnforge import grammars  # noqa: E402
from tnforge.generators.licensing import Licenser  # noqa: E402
from tnforge.gold_pairs import read_corpus_pairs  # noqa: E402
from tnforge.grammars import adapter  # noqa: E402
from tnforge.grammars.columns import NEEDS_NORMALIZING, licenses_columns, normalized  # noqa: E402
from tnforge.grammars.grammar import Grammar, normalize_reading  # noqa: E402


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Grammar:
    return Grammar(cache_dir=tmp_path_factory.mktemp("grammar-cache"))


def _items(shared_tsv) -> list[tuple[str, str, str | None]]:
    """Real (before, reading, class) triples of the shared sample: each gold reading, readings of other inputs of
    the class, a word dropped, a word of the reading doubled, the words reversed, whitespace and letter
    encodings, `<self>`, empty readings, class-less items, a token with too many readings to list."""
    pairs = [(cls, before, after) for cls, before, after, _ in read_corpus_pairs(shared_tsv)]
    items: list[tuple[str, str, str | None]] = []
    for index, (cls, before, after) in enumerate(pairs[:6000]):
        other = pairs[(index * 7919) % len(pairs)][2]
        words = after.split()
        items += [(before, after, cls), (before, other, cls), (before, f" {after}  ", cls),
                  (before, " ".join(words[:-1]), cls), (before, "<self>", cls), (before, " ".join(words[::-1]), cls),
                  (before, " ".join(words + words[-1:]), cls), (before, after.replace(" ", "\u00a0"), cls)]
        if index % 50 == 0:
            items += [(before, after, None), (before, other, None)]
    items += [("0" * 12, " ".join(["o"] * 12), "DIGIT"), ("0" * 12, " ".join(["zero"] * 12), "DIGIT"),
              ("0" * 12, " ".join(["zero"] * 11), "DIGIT"), ("abc.com", "a_letter b_letter c_letter dot c o m", "ELECTRONIC"),
              ("ten", "ten", "PLAIN"), ("ten", "<self>", "PLAIN"), ("ten", "", "PLAIN"), ("3", "  ", "CARDINAL")]
    return items


def _columns(items):
    befores, readings, classes = zip(*items, strict=True)
    return pa.array(befores, pa.string()), pa.array(readings, pa.string()), pa.array(classes, pa.string())


@pytest.mark.parametrize("dense", [True, False], ids=["dense table", "hash set"])
def test_columns_give_the_grammars_verdicts(g, shared_tsv, monkeypatch, dense):
    if not dense:  # the (token, word) lookup of a chunk too large for the dense table
        monkeypatch.setattr("tnforge.grammars.columns.DENSE_PAIRS", 0)
    items = _items(shared_tsv)
    expected = [g.licenses(*item) for item in items]
    g.clear_cache()
    verdicts = licenses_columns(g, *_columns(items))
    assert verdicts.dtype == bool and verdicts.tolist() == expected
    assert 0.05 < sum(expected) / len(items) < 0.95  # both verdicts occur, often
    # Asked again with the tokens' readings cached (and in another order): the same verdicts.
    order = np.random.default_rng(0).permutation(len(items))
    again = licenses_columns(g, *_columns([items[i] for i in order]))
    assert again.tolist() == [expected[i] for i in order]
    assert licenses_columns(g, *(pa.array([], pa.string()),) * 3).tolist() == []
    chunked = [pa.chunked_array([column[:100], column[100:300]]) for column in _columns(items[:300])]
    assert licenses_columns(g, *chunked).tolist() == expected[:300]  # chunked columns too


def test_the_normalization_shortcut_finds_every_reading_it_may_change():
    """`NEEDS_NORMALIZING` matches every character `str.split()` treats as whitespace (so a reading it does not
    match is already normalized), and `normalized` equals `normalize_reading` on tricky readings."""
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace() and chr(c) != " "]
    flagged = pc.match_substring_regex(pa.array([f"a{c}b" for c in spaces]), NEEDS_NORMALIZING)
    assert all(flagged.to_pylist())
    others = [chr(c) for c in range(0x21, 0x3100) if not chr(c).isspace() and not 0xD800 <= c < 0xE000]
    assert not any(pc.match_substring_regex(pa.array([f"a{c}b c" for c in others]), NEEDS_NORMALIZING).to_pylist())
    readings = ["three", " three", "three ", "three  four", "a\tb", "a\u3000b", "x_letter y", "", "a b c", "é ü"]
    assert normalized(pa.array(readings)).to_pylist() == [normalize_reading(r) for r in readings]


def test_the_licenser_judges_columns_with_the_process_grammar(shared_tsv):
    items = _items(shared_tsv)[:3000]
    judge = Licenser()
    expected = judge(items)
    judge.forget()
    assert judge.columns(*_columns(items)).tolist() == expected
    judge.forget()
    assert grammars.licenses_columns(*_columns(items)).tolist() == expected


def test_columns_fall_back_to_a_grammar_without_them(monkeypatch):
    """A grammar module offering only `licenses_batch` still answers `columns` (through triples)."""

    class Fake:
        @staticmethod
        def licenses_batch(items):
            return [reading.startswith("ok") for _, reading, _ in items]

    judge = adapter.Licenser(Fake())
    columns = _columns([("1", "ok one", "CARDINAL"), ("1", "no", "CARDINAL"), ("2", "ok", "DIGIT")])
    assert judge.columns(*columns).tolist() == [True, False, True]
