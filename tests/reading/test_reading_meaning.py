"""No unit, currency or magnitude the text does not make certain (issue #40): the project's meaning-critical
cases (`tests/data/meaning_cases.tsv`: codes such as 221B, A4, 4K, 5G beside real measures and amounts) read
by a real normalizer, every reading judged by the covering grammar (`tnforge.reading.meaning_cases`)."""

from __future__ import annotations

import pytest

from tests.support.paths import TEST_DATA

pytest.importorskip("torch")
pytest.importorskip("xgboost")
pytest.importorskip("pynini")

from tnforge import Normalizer  # noqa: E402
from tnforge.reading.meaning_cases import judge_cases, read_cases  # noqa: E402

CASES = TEST_DATA / "meaning_cases.tsv"


def test_no_meaning_error_on_the_projects_cases(safe_models):
    cases = read_cases(CASES)
    assert len(cases) >= 45 and sum(case.cls is None for case in cases) >= 25
    judged = judge_cases(Normalizer.load(safe_models[2], "cpu", threads=1), cases)
    errors = [(j.case.token, j.reading, j.route) for j in judged if j.verdict == "meaning error"]
    assert errors == []
    codes = {j.case.token: j for j in judged if j.case.cls is None}
    assert all(j.verdict == "adds nothing" for j in codes.values())


@pytest.mark.parametrize("token", ["221B", "12B", "4K", "5G"])
def test_an_unsure_code_is_read_without_the_unit_the_model_prefers(safe_models, token):
    """A tagger unsure between MEASURE (0.6) and LETTERS (0.4): the model, held to MEASURE's readings, says a
    unit ("two hundred twenty one byte") and LETTERS' one reading ("2 2 1 b") is a word it cannot spell, so
    weighing alone takes the unit; the readings disagree on it, so the token is read without it, and the
    route says so."""
    from tnforge.trainers.decoding.sentences import read_sentences, speech_words

    normalizer = Normalizer.load(safe_models[2], "cpu", threads=1)
    tokens = ["Room", token, "is", "here"]
    likely = [[(("PLAIN",), (1.0,)), (("MEASURE", "LETTERS"), (0.6, 0.4)), (("PLAIN",), (1.0,)), (("PLAIN",), (1.0,))]]
    [reading], _ = read_sentences(normalizer.loaded, [tokens], [["PLAIN", "MEASURE", "PLAIN", "PLAIN"]],
                                  [[1.0, 0.6, 1.0, 1.0]], normalizer.constraint, reading_words=normalizer.reading_words,
                                  likely=likely)
    from tnforge.grammars import licenses

    assert licenses(token, reading.readings[1], "LETTERS") and not any(ch.isdigit() for ch in
                                                                       speech_words(token, reading.readings[1]))
    assert "would say" in reading.routes[1] and "does not make certain: read without it" in reading.routes[1]


def test_a_bad_case_file_is_named_with_its_line(tmp_path):
    bad = tmp_path / "cases.tsv"
    bad.write_text("# cases\nOnly a sentence\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{bad}, line 2: expected sentence<TAB>token<TAB>class"):
        read_cases(bad)
