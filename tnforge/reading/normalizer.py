"""`tnforge.Normalizer`: a trained normalizer loaded once and read with all day.

`Normalizer.load(path)` takes an assembled normalizer (`tnforge normalizer assemble`, or `Normalizer.save`): its
model (any registered decoder family), its calibrated tagger and its routing settings, every part checked
against its sha256; the covering grammar is attached inside `load`, so every token is read within the
readings the grammar licenses for its likely classes. A bare model run is refused in one line saying what to
add — unless a tagger is given (the grammar is then attached too), or `guard=False` asks for an unguarded
reader explicitly, which is recorded (`guarded`) and warned once (`UnguardedWarning`).

Concurrency: one loaded normalizer may be shared by any number of threads. Each call reads under the
normalizer's lock (the grammar's caches and the model's decoding state are not thread-safe), so calls from
several threads are answered one after another, each exactly as alone; to use more cores, batch
(`normalize_batch`) or load one normalizer per process (as Beam workers do).

Memory: `normalize_stream` reads an endless iterator chunk by chunk, holding one chunk's sentences; the
grammar keeps a bounded cache of token readings.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tnforge.reading.explanation import TokenReading
from tnforge.reading.streams import CHUNK, chunks
from tnforge.schemas import SELF, SIL

if TYPE_CHECKING:
    from tnforge.reading.lexicon import Entry
    from tnforge.trainers.decoding.sentences import SentenceReading

Punctuation = Literal["drop", "keep"]


class UnguardedWarning(UserWarning):
    """A normalizer was loaded without the covering grammar: nothing guards its readings' meaning."""


@dataclass
class Sources:
    """Where a loaded normalizer's parts came from: what `Normalizer.save` copies and describes."""

    model: Path  # the decoder checkpoint file
    tagger: Path | None  # the tagger run folder
    manifest: dict[str, Any] | None = None  # the normalizer.json it was loaded from (None: assembled now)
    root: Path | None = None  # the normalizer folder it was loaded from


@dataclass
class Normalizer:
    """A loaded normalizer and its reading settings (see the module doc); build it with `Normalizer.load`."""

    loaded: Any  # the decoder model (`trainers.decoding.protocol.DecodableModel`)
    tagger: Any = None
    constraint: Any = None  # the decoding constraint: the grammar mask, dual encoders
    reading_words: Any = None  # the covering grammar as the decoder sees it (None: unguarded)
    judge: Any = None  # the grammar's batch judge, counting readings it licenses for no class read in
    beam: int = 5
    batch_size: int = 256
    threshold: float = 0.9
    confidence: float | None = 0.99
    top_k: int = 1
    corpus_letters: bool = False
    punctuation: Punctuation = "drop"
    lexicon: dict[str, Entry] = field(default_factory=dict)
    grammar_version: str | None = None
    grammar_language: str = "en"  # the covering grammar's language (normalizers saved before it was recorded: en)
    covered: frozenset[str] = frozenset()  # the classes the grammar covers
    constraint_note: str = "unconstrained"  # what constrains the decoding, in words
    sources: Sources | None = None
    family: str | None = None  # the model's family (seq2seq, dnc, sentence …)
    notes: list[str] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    _warned: bool = field(default=False, init=False, repr=False, compare=False)  # unguarded, and said so

    # --- loading ----------------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | os.PathLike, device: str = "auto", threads: int = 0, *, tagger: str | os.PathLike |
             None = None, guard: bool = True, punctuation: Punctuation = "drop", lexicon: str | os.PathLike |
             None = None, force_lexicon: bool = False, beam: int | None = None, batch_size: int | None = None,
             confidence: float | None = None, threshold: float | None = None, top_k: int = 1,
             corpus_letters: bool = False, seq_de: str | None = None, voc_de: str | None = None,
             weight: float | None = None) -> Normalizer:
        """Load a normalizer folder (or a decoder model run with `tagger`) onto `device` ("auto", "cpu",
        "cuda:N"), torch and the tagger using `threads` CPU threads (0: their defaults, every core; 1 is
        fastest for one sentence at a time and on a machine whose cores other work shares).

        `guard=False` reads without the covering grammar (warned once, `guarded` is False): the one way to an
        unguarded reader. `punctuation="keep"` keeps the written marks in the spoken text (for prosody).
        `lexicon`: a TSV of written → reading overrides (`reading.lexicon`; unlicensed ones refused unless
        `force_lexicon`). `confidence`/`threshold`: the routing settings (default: the normalizer's).
        `seq_de`/`voc_de`: dual-encoder runs rescoring the model's readings, weighed by `weight` (λ).
        ValueError or FileNotFoundError, in one line, for anything that is not what it should be."""
        from tnforge.reading.assembly import bare_model_refusal, is_normalizer
        from tnforge.trainers.decoding import defaults
        from tnforge.trainers.decoding.constraint_sets import WEIGHT

        if punctuation not in ("drop", "keep"):
            raise ValueError(f"punctuation must be 'drop' or 'keep', not {punctuation!r}")
        _set_threads(threads)
        device_ = _device(device)
        normalizer = cls._from_folder(path, device_, tagger) if is_normalizer(path) else \
            cls._from_runs(path, tagger, device_, guard, bare_model_refusal)
        if normalizer.tagger is not None:
            normalizer.tagger.use_threads(threads)
        if guard and normalizer.grammar_version is None and normalizer.sources and normalizer.sources.manifest:
            raise ValueError(f"{path} was assembled without the covering grammar (--no-grammar): nothing guards its "
                             "readings' meaning; load it with guard=False (--unguarded) to read it anyway")
        if guard:
            normalizer._attach_grammar(path)
        else:
            normalizer._warn_unguarded(path)
        normalizer.beam = defaults.BEAM if beam is None else beam
        normalizer.batch_size = defaults.BATCH_SIZE if batch_size is None else batch_size
        if confidence is not None:
            normalizer.confidence = confidence
        if threshold is not None:
            normalizer.threshold = threshold
        normalizer.top_k, normalizer.corpus_letters, normalizer.punctuation = top_k, corpus_letters, punctuation
        normalizer._build_constraint(seq_de, voc_de, WEIGHT if weight is None else weight)
        if lexicon is not None:
            from tnforge.reading.lexicon import read_lexicon

            normalizer.lexicon = read_lexicon(lexicon, normalizer.judge, force_lexicon)
        return normalizer

    @classmethod
    def _from_folder(cls, path: str | os.PathLike, device: Any, tagger: Any) -> Normalizer:
        from tnforge.reading.assembly import MODEL_FILE, TAGGER_DIR, open_normalizer

        if tagger is not None:
            raise ValueError(f"{path} is a normalizer: it has its own tagger and grammar (drop the tagger)")
        parts = open_normalizer(path, device)
        root = Path(path)
        sources = Sources(root / MODEL_FILE, root / TAGGER_DIR, parts.manifest, root)  # hashed once, in open_normalizer
        return cls(parts.loaded, parts.tagger, family=sources.manifest["model"]["family"], confidence=parts.confidence, threshold=parts.threshold,
                   grammar_version=parts.grammar_version, sources=sources,
                   grammar_language=str(parts.manifest["grammar"].get("language") or "en"))

    @classmethod
    def _from_runs(cls, path: str | os.PathLike, tagger: str | os.PathLike | None, device: Any, guard: bool,
                   refusal: Any) -> Normalizer:
        from tnforge.trainers.decoding.defaults import CONFIDENCE, THRESHOLD
        from tnforge.trainers.families import load
        from tnforge.trainers.tagger import load_tagger
        from tnforge.trainers.training.checkpoints import checkpoint_file

        family, loaded = load(path, device, kind="decoder")  # another kind: WrongKind, a ValueError
        if guard and tagger is None:
            raise ValueError(refusal(os.fspath(path)))
        tagged = load_tagger(tagger) if tagger is not None else None
        tagger_dir = None if tagger is None else (Path(tagger) if Path(tagger).is_dir() else Path(tagger).parent)
        return cls(loaded, tagged, family=family.name, confidence=CONFIDENCE if tagged is not None and guard else None, threshold=THRESHOLD,
                   sources=Sources(checkpoint_file(path), tagger_dir))

    def _attach_grammar(self, path: str | os.PathLike) -> None:
        """The covering grammar as the decoder's mask and one readings, and its judge; a note when the grammar
        installed now is not the one the normalizer was assembled with."""
        from tnforge.grammars import adapter
        from tnforge.reading.assembly import grammar_note

        try:
            assembled_in = self.grammar_language if self.sources is not None and self.sources.manifest else None
            if assembled_in is not None and adapter.language() != assembled_in:  # the language it was assembled in
                adapter.use_language(assembled_in)
            self.reading_words, self.covered = adapter.reading_words()
            self.judge = adapter.judge(True)[0]
            now = adapter.version()
        except (adapter.GrammarUnavailable, ValueError) as error:
            raise ValueError(f"{path}: {error}") from error
        if self.grammar_version is not None and (note := grammar_note(path, self.grammar_version, now)):
            self.notes.append(note)
        self.grammar_version, self.grammar_language = now, adapter.language()

    def _warn_unguarded(self, path: str | os.PathLike) -> None:
        self.reading_words = self.judge = None
        self.covered = frozenset()
        self.grammar_version = None
        message = (f"{path}: read without the covering grammar (guard=False): nothing guards the readings' "
                   "meaning")
        self.notes.append(message)
        self._warned = True
        warnings.warn(message, UnguardedWarning, stacklevel=3)

    def _build_constraint(self, seq_de: str | None, voc_de: str | None, weight: float) -> None:
        from tnforge.trainers.decoding.constraint_sets import build_constraint

        self.constraint, self.constraint_note = build_constraint(
            self.loaded, seq_de, voc_de, self.reading_words, self.covered, weight)

    # --- what it is ---------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        where = self.sources.root or self.sources.model if self.sources else None
        return (f"Normalizer({str(where)!r}, family={self.family!r}, device={str(self.loaded.device)!r}, "
                f"guarded={self.guarded}, punctuation={self.punctuation!r}, lexicon={len(self.lexicon)} entries)")

    @property
    def guarded(self) -> bool:
        """Whether the covering grammar guards the readings (False only when loaded with guard=False)."""
        return self.reading_words is not None

    @property
    def device(self) -> Any:
        return self.loaded.device

    # --- reading ------------------------------------------------------------------------------------------
    def read_batch(self, texts: Sequence[str], on_batch: Any = None,
                   counts: dict[str, int] | None = None) -> list[SentenceReading]:
        """Each text read token by token (`trainers.decoding.sentences.SentenceReading`: tokens, classes,
        readings as the corpus writes them, routes, top-k hypotheses), lexicon entries applied. `counts`, when
        given, gains the decoder's counts (sentence models' span mismatches …)."""
        from tnforge.trainers.decoding.sentences import normalize_texts

        if not self.guarded and not self._warned:  # built without `load`: say it once
            self._warned = True
            warnings.warn("a Normalizer without the covering grammar: nothing guards the readings' meaning (load "
                          "with Normalizer.load to attach it)", UnguardedWarning, stacklevel=2)
        with self._lock:
            readings = normalize_texts(self.loaded, list(texts), self.tagger, self.constraint, self.beam,
                                       self.batch_size, self.threshold, on_batch=on_batch,
                                       reading_words=self.reading_words, top_k=self.top_k,
                                       confidence=self.confidence, counts=counts)
        if self.lexicon:
            for reading in readings:
                self._apply_lexicon(reading)
        return readings

    def _apply_lexicon(self, reading: SentenceReading) -> None:
        for t, token in enumerate(reading.tokens):
            entry = self.lexicon.get(token)
            if entry is None:
                continue
            reading.readings[t] = entry.reading
            reading.hypotheses[t] = [(entry.reading, 0.0)]
            reading.decoded[t] = False
            if reading.grammar:
                reading.grammar[t] = False
            if reading.read_in and entry.cls is not None:
                reading.read_in[t] = entry.cls
            reading.routes[t] = f"lexicon, line {entry.line}" + (" (forced: the grammar does not license it)"
                                                                  if entry.forced else "")

    def spoken(self, reading: SentenceReading) -> str:
        """The spoken sentence of one reading: plain words (the corpus's spelling with `corpus_letters`), the
        written punctuation kept with `punctuation="keep"`."""
        if self.punctuation == "keep":
            return _with_punctuation(reading, self.corpus_letters)
        return reading.spoken if self.corpus_letters else reading.speech

    def normalize(self, text: str) -> str:
        """The spoken form of one text."""
        if not isinstance(text, str):
            raise TypeError(f"normalize takes a str, not {type(text).__name__}")
        return self.normalize_batch([text])[0]

    def normalize_batch(self, texts: Sequence[str], batch_size: int | None = None) -> list[str]:
        """The spoken form of each text, in order; `batch_size`: inputs the model decodes together (default:
        the normalizer's). Read `CHUNK` texts at a time."""
        if isinstance(texts, str):
            raise TypeError("normalize_batch takes a list of texts (for one text: normalize)")
        settings = self if batch_size is None else self._with(batch_size=batch_size)
        return [line for start in range(0, len(texts), CHUNK)
                for line in map(settings.spoken, settings.read_batch(texts[start: start + CHUNK]))]

    def normalize_stream(self, texts: Iterable[str], chunk: int = CHUNK) -> Iterator[str]:
        """The spoken form of each text of an iterable of any length (a file, a socket's lines), in order,
        holding `chunk` texts at a time."""

        for part in chunks(texts, chunk):
            yield from map(self.spoken, self.read_batch(part))

    def explain(self, text: str) -> list[TokenReading]:
        """Each token of `text`: its character span in `text`, class and probability, reading, and why."""
        from tnforge.tokenizer import token_spans
        from tnforge.trainers.decoding.sentences import speech_words

        [reading] = self.read_batch([text])
        spans = token_spans(text)
        if [text[a:b] for a, b in spans] != reading.tokens:  # one tokenizer: never expected
            raise RuntimeError("the tokens read are not the tokenizer's spans of the text")
        tokens = []
        for t, (start, end) in enumerate(spans):
            corpus = reading.readings[t]
            words = corpus if self.corpus_letters and corpus not in (SELF, SIL) else speech_words(reading.tokens[t],
                                                                                                 corpus)
            tokens.append(TokenReading(reading.tokens[t], start, end, reading.classes[t], reading.probabilities[t],
                                       words, corpus, _source(reading, t), reading.routes[t] if reading.routes
                                       else ""))
        return tokens

    def unlicensed(self, readings: Sequence[SentenceReading]) -> list[tuple[int, str, str | None, str]]:
        """(sentence index, token, class read in, reading) of every token the model decoded into a reading the
        grammar licenses for none of the classes it was read in, and of every covered-class token left as
        written; [] without the grammar (`guarded` False: nothing was checked)."""
        if self.judge is None:
            return []
        from tnforge.schemas.classes import union_parts

        items, where = [], []
        for s, reading in enumerate(readings):
            for t, token in enumerate(reading.tokens):
                read_in = reading.read_in[t] if reading.read_in else reading.classes[t]
                as_written = not reading.decoded[t] and reading.readings[t] == SELF and read_in not in (None, "PLAIN")
                if (reading.decoded[t] or as_written) and token not in self.lexicon:
                    parts = union_parts(read_in) or (None,)
                    items += [(token, reading.readings[t], part) for part in parts]
                    where.append((s, token, read_in, reading.readings[t], len(parts)))
        verdicts = iter(self.judge(items) if items else [])
        found = []
        for s, token, read_in, text, parts in where:
            if not any([next(verdicts) is True for _ in range(parts)]):
                found.append((s, token, read_in, text))
        return found

    def _with(self, **changes: Any) -> Normalizer:
        """A copy sharing the loaded parts and the lock, with other settings."""
        from dataclasses import replace

        copy = replace(self, **changes)
        copy._lock, copy._warned = self._lock, self._warned
        return copy

    # --- saving -------------------------------------------------------------------------------------------
    def save(self, out: str | os.PathLike, overwrite: bool = False) -> tuple[Path, list[str]]:
        """Write this normalizer as a folder (`normalizer.json`, `model/`, `tagger/`, `MODEL_CARD.md`): the one
        way to write one; (folder, notes for the user). Needs a tagger; a normalizer loaded with guard=False is
        saved without the grammar (and loads only with guard=False)."""
        from tnforge.reading.assembly import assemble
        from tnforge.reading.card import write_card

        if self.sources is None or self.sources.tagger is None:
            raise ValueError("a normalizer needs a tagger: load the model with tagger=… to save it")
        if self.sources.root is not None and Path(out).resolve() == self.sources.root.resolve():
            raise ValueError(f"{out}: the normalizer's own parts are there: save it to another folder")
        written, notes = assemble(self.sources.model, self.sources.tagger, out, self.grammar_version,
                                  self.confidence if self.confidence is not None else 0.0, self.threshold,
                                  overwrite, card=lambda root, manifest: write_card(
                                      root, manifest, getattr(self.tagger, "description", {}) or {}),
                                  grammar_language=self.grammar_language)
        return written, notes


def _source(reading: SentenceReading, t: int) -> str:
    route = reading.routes[t] if reading.routes else ""
    if route.startswith("lexicon"):
        return "lexicon, forced" if "forced" in route else "lexicon"
    if reading.decoded[t]:
        return "model"
    if reading.grammar and reading.grammar[t]:
        return "grammar"
    return "as written"


def _with_punctuation(reading: SentenceReading, corpus_letters: bool) -> str:
    """The spoken sentence with each silent punctuation mark kept where it was written ("three dollars, then")."""
    from tnforge.tokenizer import detokenize
    from tnforge.trainers.decoding.sentences import speech_words

    pieces = []
    for token, corpus in zip(reading.tokens, reading.readings, strict=True):
        if corpus == SIL and not any(ch.isalnum() for ch in token):
            pieces.append(token)
        elif corpus_letters and corpus not in (SELF, SIL):
            pieces.append(corpus)
        elif words := speech_words(token, corpus):
            pieces.append(words)
    return detokenize(pieces)


def _set_threads(threads: int) -> None:
    if threads:
        import torch

        torch.set_num_threads(threads)


def _device(name: str) -> Any:
    from tnforge.trainers.training.devices import resolve_device

    return resolve_device(name)
