"""How the corpus reads the kinds of token raw-text normalization still gets wrong
(`trainers.evaluation.reading_evidence`), counted on the shared and the bundled samples."""

from __future__ import annotations

from tnforge.trainers.evaluation.reading_evidence import KINDS, kind_counts

ALL_CAPITALS, _, TITLE, _, ROMAN_AFTER_NAME, _, ROMAN_NUMBERED, *_ = (kind for kind, _ in KINDS)


def corpus_sentences(path) -> tuple[list[list[str]], list[list[str]]]:
    """Tokens and gold classes of every sentence of a corpus file."""
    from tnforge.readers import read_corpus_file
    from tnforge.token_blocks import TokenBlock

    tokens, classes = [], []
    for item in read_corpus_file(str(path)):
        if isinstance(item, TokenBlock):
            befores, labels = item.befores.to_pylist(), item.classes.to_pylist()
            for start, end in zip(item.offsets[:-1], item.offsets[1:], strict=True):
                tokens.append(befores[int(start):int(end)])
                classes.append(labels[int(start):int(end)])
    return tokens, classes


def test_kinds_follow_the_written_form_and_the_word_before():
    counts = {c.kind: c for c in kind_counts([["Henry", "VIII", "met", "NASA"], ["World", "War", "II"],
                                               ["the", "VIII", "Fuu"]],
                                              [["PLAIN", "ORDINAL", "PLAIN", "LETTERS"], ["PLAIN", "PLAIN", "CARDINAL"],
                                               ["PLAIN", "CARDINAL", "PLAIN"]])}
    assert counts[ROMAN_AFTER_NAME].classes == {"ORDINAL": 1}  # "War II" is the rule's, "the VIII" after no name
    assert counts[ROMAN_NUMBERED].classes == {"CARDINAL": 1}
    assert counts[ALL_CAPITALS].forms["VIII"] == {"ORDINAL": 1, "CARDINAL": 1}
    assert [form for form, _ in counts[ALL_CAPITALS].disputed_forms] == ["VIII"]
    assert counts[ALL_CAPITALS].as_dict()["floor_of_errors"] == 2  # VIII twice and NASA: best one class gets 1
    # Weighted as a tagger trains (rare classes count more), the majority can change.
    assert list(counts[ALL_CAPITALS].as_dict({"LETTERS": 3.0})["weighted"].items())[0] == ("LETTERS", 3.0)


def test_the_corpus_reads_the_remaining_kinds_more_than_one_way(shared_tsv, bundled_tsv):
    """The shared sample reads all-capital words both as words and spelt out, and Roman numerals after a name
    mostly as cardinals where the bundled sample reads them as ordinals; the tagger's War/Part rule is never
    disputed. Every count adds up over the written forms."""
    shared = {c.kind: c for c in kind_counts(*corpus_sentences(shared_tsv))}
    bundled = {c.kind: c for c in kind_counts(*corpus_sentences(bundled_tsv))}
    for found in (shared, bundled):
        for counts in found.values():
            assert sum(sum(c.values()) for c in counts.forms.values()) == counts.tokens
            assert all(len(c) > 1 for _, c in counts.disputed_forms)
    capitals = shared[ALL_CAPITALS].classes
    assert capitals["LETTERS"] >= 100 and capitals["PLAIN"] >= 50
    assert shared[TITLE].classes.most_common(1)[0][0] == "PLAIN" and shared[TITLE].classes["LETTERS"] > 0
    assert shared[ROMAN_AFTER_NAME].classes.most_common(1)[0][0] == "CARDINAL"
    assert bundled[ROMAN_AFTER_NAME].classes.most_common(1)[0][0] == "ORDINAL"
    assert set(shared[ROMAN_NUMBERED].classes) == set(bundled[ROMAN_NUMBERED].classes) == {"CARDINAL"}
    # Unknown Title-case words are PLAIN mostly, yet LETTERS once weighted 18 to 1 as the tagger trains.
    unknown = shared["Title case, 2–5 letters, in no pronouncing dictionary"]
    assert unknown.classes.most_common(1)[0][0] == "PLAIN"
    assert next(iter(unknown.weighted({"PLAIN": 1.0, "LETTERS": 18.4, "VERBATIM": 20.0}))) == "LETTERS"
