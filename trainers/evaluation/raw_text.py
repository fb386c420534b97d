"""Evaluation from plain text: a split's sentences read as a user's text would be (raw text → tokenizer →
tagger → seq2seq) and with gold stages put back one at a time, so the cost of each predicted stage shows.

Rows (`stages`): raw text with every stage predicted; gold tokens with the tagger's classes; gold tokens and
gold classes (PLAIN/PUNCT read as written, the rest decoded); gold tokens and classes with every token
decoded (what `tnforge evaluate` measures). Each row: sentence accuracy (the spoken sentence exactly right),
word error rate against the gold spoken sentence, token accuracy over the sentences whose tokenization
agrees with the gold one, class accuracy, and meaning errors judged by the covering grammar
(`meaning_errors`: every token whose reading the grammar licenses for none of its gold class's readings,
per class, predicted class right or wrong, with its sentence; the count where the predicted class is right
and the grammar covers it apart)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tnforge.schemas.classes import COVERED
from tnforge.trainers.decoding.sentences import (
    SentenceReading,
    Tagged,
    read_sentences,
    tag_sentences,
)
from tnforge.trainers.evaluation.accuracy import BatchJudge, evaluate
from tnforge.trainers.evaluation.meaning_errors import meaning_errors, meaning_markdown

#: Row name → (tokens, classes, every token decoded): tokens "predicted" (tokenizer) or "gold"; classes
#: "predicted" (tagger), "gold" or "none".
TAGGED: dict[str, tuple[str, str, bool]] = {
    "raw text → tokenizer → tagger → seq2seq": ("predicted", "predicted", False),
    "gold tokens → tagger → seq2seq": ("gold", "predicted", False),
}
#: Without a tagger: raw text as `tnforge normalize` reads it without one (every token decoded, no class).
UNTAGGED: dict[str, tuple[str, str, bool]] = {
    "raw text → tokenizer → seq2seq (no tagger)": ("predicted", "none", True),
}
GOLD: dict[str, tuple[str, str, bool]] = {
    "gold tokens + gold classes → seq2seq": ("gold", "gold", False),
    "gold tokens + gold classes, every token decoded": ("gold", "gold", True),
}


def stages(tagged: bool) -> dict[str, tuple[str, str, bool]]:
    """The rows evaluated, in table order."""
    return {**(TAGGED if tagged else UNTAGGED), **GOLD}


@dataclass
class GoldSentence:
    """One sentence of a split: source, id, tokens, classes and readings (`after`)."""

    source: str
    sentence_id: int
    tokens: list[str]
    classes: list[str]
    afters: list[str]

    @property
    def spoken(self) -> str:
        from tnforge.trainers.decoding.text_tokenizer import spoken

        return spoken(self.tokens, self.afters)


def gold_sentences(files: Sequence[Path], split: str | None) -> list[GoldSentence]:
    """The split's sentences from examples files (originals only), in (source, sentence_id) order."""
    from tnforge.trainers.kernel.examples import iter_rows

    rows: dict[tuple[str, int], list[tuple[int, str, str, str]]] = {}
    columns = ["source", "sentence_id", "token_index", "class", "before", "after"]
    for batch in iter_rows(files, columns, split=split, max_copies=1):
        values = [batch.column(name).to_pylist() for name in columns]
        for source, sentence_id, index, cls, before, after in zip(*values, strict=True):
            rows.setdefault((source, sentence_id), []).append((index, cls, before, after))
    sentences = []
    for (source, sentence_id), tokens in sorted(rows.items()):
        tokens.sort()
        if [t[0] for t in tokens] != list(range(len(tokens))):
            raise ValueError(f"{source} sentence {sentence_id}: token indices are not 0..n-1 (a sampled split? "
                             "evaluate from plain text on dev or test)")
        sentences.append(GoldSentence(source, sentence_id, [t[2] for t in tokens], [t[1] for t in tokens],
                                      [t[3] for t in tokens]))
    return sentences


def word_errors(reference: str, hypothesis: str) -> int:
    """Word-level Levenshtein distance (substitutions, insertions, deletions)."""
    ref, hyp = reference.split(), hypothesis.split()
    previous = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, start=1):
        current = [i]
        for j, other in enumerate(hyp, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != other)))
        previous = current
    return previous[-1]


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def score(readings: Sequence[SentenceReading], gold: Sequence[GoldSentence], judge: BatchJudge | None = None,
          covered: frozenset[str] = COVERED) -> dict[str, Any]:
    """The figures of one row (see the module doc)."""
    sentences_right = words = edits = agreed = 0
    plain_words = plain_edits = 0  # over sentences without an ELECTRONIC token (spelt letter by letter)
    predictions: list[dict[str, Any]] = []
    wrong_sentences: list[dict[str, Any]] = []
    for reading, sentence in zip(readings, gold, strict=True):
        reference = sentence.spoken
        sentences_right += reading.spoken == reference
        count, wrong = len(reference.split()), word_errors(reference, reading.spoken)
        if reading.spoken != reference:
            wrong_sentences.append({"source": sentence.source, "sentence_id": sentence.sentence_id,
                                    "word_errors": wrong, "gold": reference, "spoken": reading.spoken})
        words += count
        edits += wrong
        if "ELECTRONIC" not in sentence.classes:
            plain_words += count
            plain_edits += wrong
        if reading.tokens != sentence.tokens:
            continue
        agreed += 1
        for i, token in enumerate(sentence.tokens):
            predictions.append({"key": len(predictions), "source": sentence.source, "sentence_id": sentence.sentence_id,
                                "class": sentence.classes[i], "predicted_class": reading.classes[i], "before": token,
                                "gold": sentence.afters[i], "prediction": reading.readings[i]})
    report = evaluate(predictions, batch_judge=judge)
    with_class = [p for p in predictions if p["predicted_class"] is not None]
    class_right = sum(p["predicted_class"] == p["class"] for p in with_class)
    nontrivial = [p for p in with_class if p["class"] not in ("PLAIN", "PUNCT")]
    row: dict[str, Any] = {
        "sentences": len(gold), "sentences_correct": sentences_right,
        "sentence_accuracy": _ratio(sentences_right, len(gold)),
        "words": words, "word_errors": edits, "wer": _ratio(edits, words),
        "wer_without_electronic": _ratio(plain_edits, plain_words),
        "tokenization_agrees": agreed, "tokens": report["tokens"], "nontrivial": report["nontrivial"],
        "per_class": report["per_class"],
        "class_accuracy": _ratio(class_right, len(with_class)) if with_class else None,
        "class_accuracy_nontrivial": (_ratio(sum(p["predicted_class"] == p["class"] for p in nontrivial),
                                             len(nontrivial)) if nontrivial else None),
        "decoded": sum(sum(r.decoded) for r in readings), "grammar_read": sum(sum(r.grammar) for r in readings),
        "errors": report["errors"], "judged": report["judged"], "wrong_sentences": wrong_sentences,
    }
    for error in row["errors"]:
        error["predicted_class"] = predictions[error["key"]]["predicted_class"]
    if judge is not None:  # meaning errors over every token the two tokenizations share (`meaning_errors`)
        found = meaning_errors(readings, gold, judge)
        row["unrecoverable"] = found["unrecoverable"]
        row["unrecoverable_class_right_covered"] = sum(
            1 for e in found["errors"] if e["predicted_class"] == e["class"] and e["class"] in covered)
        row["meaning_errors"] = found
    return row


def evaluate_raw(reader: Any, files: Sequence[Path], split: str | None, judge: BatchJudge | None = None,
                 tokenize: Callable[[str], list[str]] | None = None,
                 detokenize: Callable[[Sequence[str]], str] | None = None,
                 on_row: Callable[[str, dict[str, Any]], None] | None = None,
                 grammar_readings: bool = True) -> dict[str, Any]:
    """Every row of `stages` on the split's sentences, read by `reader` (a `tnforge.Normalizer`: its model,
    tagger, constraint, grammar and routing settings): {"rows": {name: figures}, "sentences": count}.
    `grammar_readings`: tokens the grammar has one reading for take it (`read_sentences`), except in the
    every-token-decoded row. The tagger's rows are routed by its likely classes at the reader's `confidence`
    (None: by its most probable class alone)."""
    loaded, tagger, constraint, reading_words = reader.loaded, reader.tagger, reader.constraint, reader.reading_words
    beam, batch_size, threshold, confidence = reader.beam, reader.batch_size, reader.threshold, reader.confidence
    from tnforge import tokenizer as corpus_tokenizer

    tokenize = tokenize or corpus_tokenizer.tokenize
    detokenize = detokenize or corpus_tokenizer.detokenize
    gold = gold_sentences(files, split)
    if not gold:
        from tnforge.trainers.evaluation.decoded import nothing_to_evaluate

        raise ValueError(nothing_to_evaluate(files, split))
    raw_tokens = [tokenize(detokenize(sentence.tokens)) for sentence in gold]
    rows: dict[str, Any] = {}
    tagged: dict[str, Tagged] = {}
    for name, (tokens_from, classes_from, every) in stages(tagger is not None).items():
        started = time.monotonic()
        tokens = raw_tokens if tokens_from == "predicted" else [s.tokens for s in gold]
        classes = probabilities = alternatives = likely = None
        if classes_from == "predicted":
            if tokens_from not in tagged:
                tagged[tokens_from] = tag_sentences(tagger, tokens, confidence or 0.0)
            classes, probabilities, alternatives, likely = tagged[tokens_from]
            likely = likely if confidence is not None else None
        elif classes_from == "gold":
            classes = [s.classes for s in gold]
        readings, _ = read_sentences(loaded, tokens, classes, probabilities, constraint, beam, batch_size,
                                     threshold=2.0 if every else threshold, reading_words=reading_words,
                                     alternatives=alternatives, grammar_readings=grammar_readings and not every,
                                     likely=likely)
        rows[name] = score(readings, gold, judge) | {"seconds": time.monotonic() - started}
        if on_row:
            on_row(name, rows[name])
    return {"sentences": len(gold), "rows": rows}


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def raw_markdown(result: dict[str, Any], title: str) -> str:
    """One table: a row per stage configuration, the cost of each predicted stage read down the columns."""
    lines = [f"# {title}", "",
             "| tokens, classes | sentences right | WER | WER w/o ELECTRONIC | tokenization agrees | token accuracy | non-trivial | "
             "class accuracy (non-trivial) | decoded (grammar's one reading) | unrecoverable (class right, covered) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, row in result["rows"].items():
        unrecoverable = (f"{row['unrecoverable']} ({row['unrecoverable_class_right_covered']})"
                         if "unrecoverable" in row else "not judged")
        classes = (f"{_percent(row['class_accuracy'])} ({_percent(row['class_accuracy_nontrivial'])})"
                   if row["class_accuracy"] is not None else "–")
        lines.append(
            f"| {name} | {_percent(row['sentence_accuracy'])} ({row['sentences_correct']}/{row['sentences']}) | "
            f"{_percent(row['wer'])} ({row['word_errors']}/{row['words']}) | {_percent(row['wer_without_electronic'])} | "
            f"{row['tokenization_agrees']}/{row['sentences']} | {_percent(row['tokens']['accuracy'])} | "
            f"{_percent(row['nontrivial']['accuracy'])} | {classes} | {row['decoded']} ({row.get('grammar_read', 0)}) | "
            f"{unrecoverable} |")
    for name, row in result["rows"].items():
        if "meaning_errors" in row and stages(True).get(name, ("gold", "gold"))[1] == "predicted" or (
                "meaning_errors" in row and name in UNTAGGED):
            lines += ["", meaning_markdown(row["meaning_errors"], name).rstrip("\n")]
    return "\n".join(lines) + "\n"


def write_raw_report(result: dict[str, Any], out: str | None, title: str) -> str:
    """The table as Markdown; with `out`, raw.md and raw.json (every figure and error, and every sentence read
    wrong beside its gold spoken form) written there too."""
    import json

    markdown = raw_markdown(result, title)
    if out:
        from tnforge.filesystems import write_text_files

        paths = write_text_files(out, {"raw.md": markdown, "raw.json": json.dumps(result, indent=2, default=str) + "\n"})
        markdown += "\nreport: " + ", ".join(str(p) for p in paths) + "\n"
    return markdown.rstrip("\n")
