"""The grammar's batch check (each token asked several times has its readings listed once) gives `licenses`'s
verdicts, and the adapter's judge is that batch check."""

from __future__ import annotations

import pytest

pytest.importorskip("pynini")

from tnforge import grammars  # noqa: E402
from tnforge.gold_pairs import read_corpus_pairs  # noqa: E402
from tnforge.grammars import adapter  # noqa: E402
from tnforge.grammars import grammar as grammar_module  # noqa: E402
from tnforge.grammars.grammar import Grammar  # noqa: E402


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Grammar:
    return Grammar(cache_dir=tmp_path_factory.mktemp("grammar-cache"))


def _items(shared_tsv) -> list[tuple[str, str, str | None]]:
    """Real (before, reading, class) triples of the shared sample: each gold reading, readings of other inputs
    of the class (mostly unlicensed, some licensed), edits of it, whitespace and letter encodings, `<self>`,
    a class-less item, and tokens asked once."""
    pairs = [(cls, before, after) for cls, before, after, _ in read_corpus_pairs(shared_tsv)]
    items: list[tuple[str, str, str | None]] = []
    for index, (cls, before, after) in enumerate(pairs[:6000]):
        other = pairs[(index * 7919) % len(pairs)][2]
        items += [(before, after, cls), (before, other, cls), (before, f" {after}  ", cls),
                  (before, " ".join(after.split()[:-1]), cls), (before, "<self>", cls)]
        if index % 50 == 0:
            items.append((before, after, None))
    items += [("0" * 12, " ".join(["o"] * 12), "DIGIT"), ("0" * 12, " ".join(["zero"] * 12), "DIGIT"),
              ("abc.com", "a_letter b_letter c_letter dot c o m", "ELECTRONIC"), ("ten", "ten", "PLAIN")]
    return items


def test_batch_gives_the_grammars_verdicts(g, shared_tsv):
    items = _items(shared_tsv)
    expected = [g.licenses(*item) for item in items]
    g.clear_cache()
    assert g.licenses_batch(items) == expected
    assert 0 < sum(expected) < len(items)  # both verdicts occur
    g.clear_cache()
    assert g.licenses_batch([("3kg", "three kilograms", "MEASURE")] * 2 + [("3kg", "three kilometers", "MEASURE")]) \
        == [True, True, False]


def test_licenser_asks_the_grammars_batch(g, monkeypatch):
    """The adapter's judge answers with the process grammar's `licenses_batch`."""

    class Strict(Grammar):
        def __init__(self, base: Grammar) -> None:
            self.__dict__.update(base.__dict__)

        def licenses_batch(self, items):
            return [False for _ in items]

    strict = Strict(g)
    monkeypatch.setattr(grammar_module, "_default", strict)
    items = [("3kg", "three kilograms", "MEASURE")] * 3
    assert grammars.get_grammar() is strict
    assert adapter.licenser()(items) == [False, False, False]
