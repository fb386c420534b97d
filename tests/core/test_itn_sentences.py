"""The reversed (ITN) data: spoken words as ASR writes them, each written token's span, class and form."""

from __future__ import annotations

from tnforge.itn_sentences import asr_words, itn_sentence, read_itn_corpus, score_words


def test_asr_words_drop_sil_case_punctuation_and_decode_letters() -> None:
    assert asr_words("five five five sil one two") == ["five", "five", "five", "one", "two"]
    assert asr_words("b_letter a_letter dot n_letter") == ["ba", "dot", "n"]
    assert asr_words("Don't, self-made!") == ["don't", "self", "made"]


def test_a_sentence_reads_back_token_by_token() -> None:
    sentence = itn_sentence(["It", "weighs", "3kg", "."], ["PLAIN", "PLAIN", "MEASURE", "PUNCT"],
                            ["<self>", "<self>", "three kilograms", "sil"])
    assert sentence.words == ("it", "weighs", "three", "kilograms")
    assert [(t.start, t.end, t.cls, t.written) for t in sentence.tokens] == [
        (0, 1, "PLAIN", "It"), (1, 2, "PLAIN", "weighs"), (2, 4, "MEASURE", "3kg"), (4, 4, "PUNCT", ".")]
    assert sentence.written == "It weighs 3kg ."


def test_the_bundled_corpus_reverses_with_contiguous_spans(bundled_tsv) -> None:
    sentences = read_itn_corpus(str(bundled_tsv))
    assert len(sentences) == 400
    first = sentences[0]
    measure = next(t for t in first.tokens if t.cls == "MEASURE")
    assert measure.written == "38.4 km²"
    assert first.words[measure.start:measure.end] == ("thirty", "eight", "point", "four", "square", "kilometers")
    for sentence in sentences:
        ends = [t.start for t in sentence.tokens[1:]] + [len(sentence.words)]
        assert all(t.end == nxt for t, nxt in zip(sentence.tokens, ends, strict=True))
        assert all(w == w.lower() and w != "sil" for w in sentence.words)


def test_scoring_ignores_case_and_punctuation_but_keeps_symbols() -> None:
    assert score_words("October 17, 2011.") == ["october", "17", "2011"]
    assert score_words("$3.50") == ["$3", "50"]
