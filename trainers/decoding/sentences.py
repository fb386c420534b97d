"""Raw text → spoken text: tokens (the corpus-style tokenizer) → classes (a tagger, optional) → one reading per
token → the spoken sentence. Tokens the tagger calls PLAIN or PUNCT with a probability of at least
`threshold` are read as the corpus reads them (`<self>`, `sil`) without the seq2seq; every other token is
decoded by the seq2seq from its context window, many sentences' tokens batched together (sorted by window
length), its predicted class reaching the decoding constraint (the covering grammar's mask by class) — unless
the grammar commits to one reading of it in that class (`reading_words.reading`: a URL spelt as the corpus
spells it, a LETTERS token, a British spelling the corpus writes American, a number with one reading), which
is used as is. Without classes every token is decoded, as `tnforge normalize` always did."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tnforge.abbreviations import abbreviation_reading
from tnforge.letter_spelling import decode_letters
from tnforge.schemas import SELF, SIL
from tnforge.schemas.classes import COVERED, union_class, union_parts
from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM, CONFIDENCE, THRESHOLD
from tnforge.trainers.decoding.hooks import Counts, DecodingConstraint, merge_counts
from tnforge.trainers.decoding.protocol import DecodableModel, OutputVocabulary, ReadOptions, StepDecoder
from tnforge.trainers.decoding.routing import (
    adds_nothing,
    likely_classes,
    meaning_at_stake,
    spellable,
    sure_why,
    union_route,
    weigh_by_class,
)
from tnforge.trainers.decoding.text_tokenizer import spoken
from tnforge.windows import window_input

#: What a confidently tagged trivial class reads as, the corpus's way (PUNCT is never spoken).
READ_AS_WRITTEN: dict[str, str] = {"PLAIN": SELF, "PUNCT": SIL}

OnBatch = Callable[[int], None]
ReadingWords = Callable[[str, str | None], Collection[tuple[str, ...]]]


@dataclass
class SentenceReading:
    """One sentence read: its tokens, their classes (None: unknown) and class probabilities, each token's
    reading as the corpus writes it (`<self>`, `sil` or words), whether the seq2seq decoded it and whether
    it is the grammar's one reading (`grammar`)."""

    tokens: list[str]
    classes: list[str | None]
    probabilities: list[float]
    readings: list[str]
    decoded: list[bool]
    hypotheses: list[list[tuple[str, float]]] = field(default_factory=list)  # top-k (text, score) per token
    grammar: list[bool] = field(default_factory=list)  # read by the grammar's one reading (not the seq2seq)
    routes: list[str] = field(default_factory=list)  # why each token was read as it was (`routing`)
    read_in: list[str | None] = field(default_factory=list)  # the class, or union of classes, it was read in

    @property
    def spoken(self) -> str:
        """The spoken sentence as the corpus writes it (`<self>` → the token, `sil` → nothing)."""
        return spoken(self.tokens, self.readings)

    @property
    def speech(self) -> str:
        """The spoken sentence in plain words: the corpus's letter-by-letter spelling of URLs
        (`b_letter a_letter t_letter t_letter l_letter e_letter dot n_letter e_letter t_letter`) as the words
        a speech engine says ("battle dot net"), and without the corpus's pause marker `sil` inside readings
        ("five five five sil one two three" → "five five five one two three"), as punctuation is left out."""
        return " ".join(words for words in map(speech_words, self.tokens, self.readings) if words)


def speech_words(token: str, reading: str) -> str:
    """One token's reading in plain words: `<self>` → the token, `sil` → "", the corpus's letter-by-letter
    spelling as words, a digit spelt on its own as its word, without the pause marker `sil` inside readings."""
    if reading == SELF:
        return token
    if reading == SIL:
        return ""
    return " ".join(DIGIT_WORDS.get(word, word) for word in decode_letters(reading).split() if word != SIL)


#: A digit spelt on its own in a reading (the grammar's LETTERS reading of "221B" is "2 2 1 b") as a speech
#: engine says it.
DIGIT_WORDS = dict(zip("0123456789", ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                      "nine"), strict=True))


def read_as_written(token: str, cls: str | None, probability: float, threshold: float,
                    reading_words: ReadingWords | None = None) -> str | None:
    """The reading of a token that skips the seq2seq (`<self>`, `sil`), or None when it needs decoding: its
    class is not PLAIN/PUNCT, its probability is below `threshold`, or (given the covering grammar's
    `reading_words`) the grammar knows a PLAIN reading other than the token itself ("centre" → "center")."""
    if cls not in READ_AS_WRITTEN or probability < threshold:
        return None
    if cls == "PLAIN" and reading_words is not None:
        readings = {" ".join(words) for words in reading_words(token, cls)}
        if readings - {SELF, token, token.lower()}:
            return None
    return READ_AS_WRITTEN[cls]


def grammar_reading(reading_words: ReadingWords | None, token: str, cls: str | None) -> str | None:
    """The one reading the covering grammar commits to for a token in a class (`reading_words.reading`, as
    `tnforge.grammars.adapter.GrammarWords` has it), or None: no grammar, no class, or the model's choice."""
    find = getattr(reading_words, "reading", None)
    return find(token, cls) if callable(find) and cls is not None else None


def unspellable_reading(reading_words: ReadingWords | None, token: str, cls: str | None, vocab: OutputVocabulary,
                       covered: Collection[str] = COVERED) -> str | None:
    """A covering-grammar reading for a token of a covered class whose every licensed reading has a word the
    model's output `vocab` lacks ("235s" → "two thirty fives" when "fives" was never a target word), so that
    the constraint cannot hold it: the shortest such reading (fewest words, then alphabetical). None when there
    is no grammar, the class is not covered, the grammar has no reading, or the model can spell one."""
    if reading_words is None or cls not in covered:
        return None
    readings = list(reading_words(token, cls))
    return shortest_reading(readings) if readings and not spellable(readings, vocab) else None


def shortest_reading(readings: Collection[tuple[str, ...]]) -> str:
    """The shortest of licensed readings (fewest words, then alphabetical), as one string."""
    return " ".join(min(readings, key=lambda words: (len(words), words)))


def read_sentences(
    loaded: DecodableModel,
    sentences: Sequence[Sequence[str]],
    classes: Sequence[Sequence[str | None]] | None = None,
    probabilities: Sequence[Sequence[float]] | None = None,
    constraint: DecodingConstraint | None = None,
    beam: int = BEAM,
    batch_size: int = BATCH_SIZE,
    threshold: float = THRESHOLD,
    on_batch: OnBatch | None = None,
    reading_words: ReadingWords | None = None,
    alternatives: Sequence[Sequence[Sequence[str]]] | None = None,
    covered: Collection[str] = COVERED,
    top_k: int = 1,
    grammar_readings: bool = True,
    likely: Sequence[Sequence[tuple[tuple[str, ...], tuple[float, ...]]]] | None = None,
) -> tuple[list[SentenceReading], Counts]:
    """Read tokenized sentences: each token's reading and the constraint's counts summed over the batches.

    `classes` (gold, or a tagger's) go to the constraint with each decoded token; `probabilities` (default
    1.0 each) decide, with `threshold`, which PLAIN/PUNCT tokens skip the seq2seq (threshold > 1: none;
    `reading_words`, the covering grammar, sends PLAIN tokens it reads otherwise to the seq2seq, and moves a
    token whose class it has no reading for to the first of its `alternatives` it has — `decoding_class`;
    with `grammar_readings`, a token it has one reading for in its class takes it — `grammar_reading` — and
    so does a token none of whose readings the model can spell — `unspellable_reading`).

    `likely` (a tagger's likely classes and their probabilities per token, `routing.likely_classes`) routes
    confidence-aware: a token with several likely classes is read within their union (`routing.union_route`),
    and a token of a covered class none of whose readings the model can spell is left as written rather than
    decoded without the grammar. Each token's route is in `SentenceReading.routes`.
    The model reads them through its sentence reader (`decoding.protocol.SentenceReader`): a window family
    with `read_windows` below, the sentence family a whole sentence at a time (its routing is by the first
    class: `likely` is not used there).
    """
    options = ReadOptions(constraint, beam, batch_size, threshold, on_batch, reading_words, alternatives, covered,
                          top_k, grammar_readings, likely)
    return loaded.read_sentences(sentences, classes, probabilities, options)


def read_windows(loaded: StepDecoder, sentences: Sequence[Sequence[str]],
                 classes: Sequence[Sequence[str | None]] | None, probabilities: Sequence[Sequence[float]] | None,
                 options: ReadOptions) -> tuple[list[SentenceReading], Counts]:
    """The window families' sentence reader (`read_sentences`): each token that needs the model is decoded
    from its window, the rest are read as written or by the grammar's one reading."""
    constraint, beam, batch_size, threshold = options.constraint, options.beam, options.batch_size, options.threshold
    on_batch, reading_words, alternatives, covered = (options.on_batch, options.reading_words, options.alternatives,
                                                       options.covered)
    top_k, grammar_readings, likely = options.top_k, options.grammar_readings, options.likely
    from tnforge.trainers.decoding.decode import decode_batch

    token_lists = [list(tokens) for tokens in sentences]
    class_lists = [list(c) for c in classes] if classes is not None else [[None] * len(t) for t in token_lists]
    probs = ([list(p) for p in probabilities] if probabilities is not None
             else [[1.0] * len(t) for t in token_lists])
    results = [SentenceReading(tokens, cls, prob, [""] * len(tokens), [False] * len(tokens), [[] for _ in tokens],
                               [False] * len(tokens), [""] * len(tokens), list(cls))
               for tokens, cls, prob in zip(token_lists, class_lists, probs, strict=True)]
    pending: list[tuple[int, int, str, str | None]] = []  # (sentence, token, window, decoding key) to decode
    parts: list[tuple[int, int, str, str | None]] = []  # the same, of one class's part of a union
    #: the likely classes and their probabilities of each token read within several classes, and each class's
    #: candidates (the beam's readings within it, with their log-probabilities)
    unions: dict[tuple[int, int], tuple[tuple[str, ...], tuple[float, ...], dict[str, list[tuple[str, float]]],
                                    dict[str, str]]] = {}
    for s, result in enumerate(results):
        if len(result.classes) != len(result.tokens) or len(result.probabilities) != len(result.tokens):
            raise ValueError(f"sentence {s}: {len(result.tokens)} tokens but {len(result.classes)} classes and "
                             f"{len(result.probabilities)} probabilities")
        for t, (cls, probability) in enumerate(zip(result.classes, result.probabilities, strict=True)):
            token = result.tokens[t]
            classes_here, shares = likely[s][t] if likely is not None else ((cls,), (probability,))
            if meaning_at_stake(classes_here):  # the tagger is unsure: read within the union of its likely classes
                fixed, keys, scored, result.routes[t] = union_route(token, classes_here, shares, reading_words,
                                                                    loaded.output_vocab)
                result.read_in[t] = union_class(classes_here)
                if fixed is not None:  # their one reading (the grammar's: `=`), or left as written
                    result.readings[t], result.hypotheses[t], result.grammar[t] = fixed, [(fixed, 0.0)], fixed != SELF
                elif reading_words is None:
                    pending.append((s, t, window_input(result.tokens, t), keys[0]))
                else:
                    unions[(s, t)] = (classes_here, shares, {}, dict(scored))
                    parts += [(s, t, window_input(result.tokens, t), key) for key in keys]
                continue
            expanded = abbreviation_reading(result.tokens, t) if cls == "PLAIN" and grammar_readings else None
            if expanded is not None and (reading_words is None or tuple(expanded[0].split()) in reading_words(token, cls)):
                result.readings[t], result.hypotheses[t], result.grammar[t] = expanded[0], [(expanded[0], 0.0)], True
                result.routes[t] = f"PLAIN {probability:.2f}: {expanded[1]}"
                continue
            written = read_as_written(token, cls, probability, threshold, reading_words)
            if written is not None:
                result.readings[t] = written
                result.hypotheses[t] = [(written, 0.0)]
                result.routes[t] = sure_why(cls, probability, False, False, written, False)
                continue
            others = alternatives[s][t] if alternatives is not None else ()
            cls = result.classes[t] = result.read_in[t] = decoding_class(token, cls, others, reading_words, covered)
            readings = reading_words(token, cls) if reading_words is not None and cls in covered else ()
            usable = bool(readings) and spellable(readings, loaded.output_vocab)
            fixed = None
            if grammar_readings:
                fixed = grammar_reading(reading_words, token, cls) or (
                    shortest_reading(readings) if readings and not usable else None)
            if fixed is not None:  # the grammar's one reading, or its shortest when the model can spell none
                result.readings[t], result.hypotheses[t], result.grammar[t] = fixed, [(fixed, 0.0)], True
                result.routes[t] = sure_why(cls, probability, False, True, fixed, False)
            elif likely is not None and reading_words is not None and cls in covered and not usable:
                result.readings[t] = SELF  # routed safely: never an unlicensed reading of a covered class
                result.hypotheses[t] = [(SELF, 0.0)]
                result.routes[t] = sure_why(cls, probability, False, False, "", False)
            else:
                guarded = bool(usable) and constraint is not None
                result.routes[t] = sure_why(cls, probability, True, False, "", guarded)
                pending.append((s, t, window_input(result.tokens, t), cls))
    counts: Counts = {}
    # A union's parts keep the beam's every reading: its class's probability is shared among them (weigh_by_class).
    for items, keep in ((pending, top_k), (parts, max(top_k, beam))):
        items.sort(key=lambda item: len(item[2]))  # stable: equal lengths keep sentence order
        for start in range(0, len(items), batch_size):
            chunk = items[start: start + batch_size]
            rows = {"input": [window for _, _, window, _ in chunk],
                    "before": [results[s].tokens[t] for s, t, _, _ in chunk],
                    "class": [key for _, _, _, key in chunk],
                    "token_index": [t for _, t, _, _ in chunk]}
            ranked, batch_counts = decode_batch(loaded, loaded.batch(rows), beam=beam, top_k=keep,
                                                constraint=constraint)
            counts = merge_counts(counts, batch_counts)
            for (s, t, _, key), hypotheses in zip(chunk, ranked, strict=True):
                results[s].decoded[t] = True
                if (s, t) in unions:  # one class's part of a union: weighed once every part is decoded
                    unions[(s, t)][2][union_parts(key)[0]] = list(hypotheses)
                    continue
                results[s].readings[t] = hypotheses[0][0] if hypotheses else SELF
                results[s].hypotheses[t] = list(hypotheses)
            if on_batch:
                on_batch(len(chunk))
    meaning = getattr(reading_words, "meaning", None)
    for (s, t), (classes_here, shares, candidates, unspellable) in unions.items():
        ranked_here, why = adds_nothing(weigh_by_class(candidates, classes_here, shares, unspellable),
                                        results[s].tokens[t], meaning)
        ranked_here = ranked_here[:top_k]
        results[s].readings[t] = ranked_here[0][0] if ranked_here else SELF
        results[s].hypotheses[t] = ranked_here
        results[s].routes[t] += why
    return results, counts


class Tagged(NamedTuple):
    """A tagger's view of tokenized sentences: each token's class, its probability, the runner-up classes
    (most probable first, up to `ALTERNATIVES`), and its likely classes with their probabilities
    (`routing.likely_classes` at the confidence asked for)."""

    classes: list[list[str]]
    probabilities: list[list[float]]
    alternatives: list[list[tuple[str, ...]]]
    likely: list[list[tuple[tuple[str, ...], tuple[float, ...]]]]


#: Runner-up classes kept per token (tried, in order, when the grammar has no reading for the best one).
ALTERNATIVES = 3


def tag_sentences(tagger: Any, sentences: Sequence[Sequence[str]], confidence: float = CONFIDENCE) -> Tagged:
    """A tagger's class and probability for every token (`Tagger.predict`, its rules included), the runner-up
    classes and the likely classes at `confidence` (from the probabilities `Tagger.tag` returns with them; a
    class a rule decides is the token's one likely class)."""
    import numpy as np

    tagged = Tagged([], [], [], [])
    if not sentences:
        return tagged
    token_lists = [list(tokens) for tokens in sentences]
    predicted, probs = tagger.tag(token_lists)  # the booster runs once per batch
    order = np.argsort(-probs, axis=1, kind="stable")[:, : ALTERNATIVES + 1]
    names = tagger.classes
    row = 0
    for predictions in predicted:
        tagged.classes.append([p.cls for p in predictions])
        tagged.probabilities.append([float(p.probability) for p in predictions])
        tagged.alternatives.append([tuple(names[j] for j in order[row + i] if names[j] != p.cls)[:ALTERNATIVES]
                                    for i, p in enumerate(predictions)])
        tagged.likely.append([likely_classes(probs[row + i], names, confidence)
                              if p.probability < confidence and p.cls == names[int(order[row + i, 0])]
                              else ((p.cls,), (float(p.probability),)) for i, p in enumerate(predictions)])
        row += len(predictions)
    return tagged


def decoding_class(token: str, cls: str | None, alternatives: Sequence[str], reading_words: ReadingWords | None,
                   covered: Collection[str]) -> str | None:
    """The class a decoded token is constrained by: its predicted class, unless the grammar has no reading of
    the token in that (covered) class — then the first runner-up it has readings in (else the class)."""
    if reading_words is None or cls not in covered or reading_words(token, cls):
        return cls
    for other in alternatives:
        if other in covered and reading_words(token, other):
            return other
    return cls


def normalize_texts(
    loaded: DecodableModel,
    texts: Sequence[str],
    tagger: Any = None,
    constraint: DecodingConstraint | None = None,
    beam: int = BEAM,
    batch_size: int = BATCH_SIZE,
    threshold: float = THRESHOLD,
    tokenize: Callable[[str], list[str]] | None = None,
    on_batch: OnBatch | None = None,
    reading_words: ReadingWords | None = None,
    top_k: int = 1,
    confidence: float | None = CONFIDENCE,
    counts: Counts | None = None,
) -> list[SentenceReading]:
    """Read raw sentences: tokenize each, tag them (with `tagger`; else every token is decoded, classless),
    decode what needs the seq2seq; routed by the tagger's likely classes at `confidence` (None: by its most
    probable class alone, as before routing). `counts`, when given, gains the decoder's counts (span
    mismatches of sentence models …)."""
    if tokenize is None:
        from tnforge.trainers.decoding.text_tokenizer import tokenize
    sentences = [tokenize(text) for text in texts]
    classes = probabilities = alternatives = likely = None
    if tagger is not None:
        classes, probabilities, alternatives, likely = tag_sentences(tagger, sentences, confidence or 0.0)
    readings, found = read_sentences(loaded, sentences, classes, probabilities, constraint, beam, batch_size,
                                     threshold, on_batch, reading_words, alternatives, top_k=top_k,
                                     likely=likely if confidence is not None else None)
    if counts is not None:
        counts.update(merge_counts(counts, found))
    return readings


#: The marks of `reading_table` beside a token's reading, and the legend line that explains them.
MARKS = {"*": "decoded by the model", "=": "the grammar's one reading"}


def reading_table(reading: SentenceReading, corpus_letters: bool = False, spoken_text: str | None = None) -> str:
    """Each token beside its class (with the tagger's probability), its reading and why it was read so (its
    route), one a line, then a legend of the marks used (`MARKS`: `*` the model decoded it, `=` the grammar's one
    reading), a blank line and the spoken sentence. Readings spelt letter by letter are shown as plain words unless
    `corpus_letters`."""
    width = max((len(t) for t in reading.tokens), default=0)
    texts = [text if corpus_letters else decode_letters(text) for text in reading.readings]
    reading_width = max((len(t) for t in texts), default=0)
    rows = []
    fixed = reading.grammar or [False] * len(reading.tokens)
    routes = reading.routes or [""] * len(reading.tokens)
    for token, cls, probability, text, decoded, by_grammar, why in zip(
            reading.tokens, reading.classes, reading.probabilities, texts, reading.decoded, fixed, routes, strict=True):
        tag = "" if cls is None else f"{cls} {probability:.2f}"
        mark = "*" if decoded else "=" if by_grammar else " "
        why = f"  ({why})" if why else ""
        rows.append(f"{token:<{width}}  {tag:<16}{mark} {text:<{reading_width}}{why}".rstrip() if cls is not None
                    else f"{token:<{width}}  {text:<{reading_width}}{why}".rstrip())
    used = {mark for decoded, by_grammar in zip(reading.decoded, fixed, strict=True)
            for mark, on in (("*", decoded), ("=", by_grammar and not decoded)) if on}
    legend = ["   ".join(f"{mark} {meaning}" for mark, meaning in MARKS.items() if mark in used)] if used else []
    if spoken_text is None:
        spoken_text = reading.spoken if corpus_letters else reading.speech
    return "\n".join([*rows, *legend, "", spoken_text])
