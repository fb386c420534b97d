"""The decoding contract every model family meets, in two parts (in the spirit of fairseq's encoder-decoder
interface and its generator): a **step decoder** (`StepDecoder`: encode, step, state `select`, special ids,
length limits — what beam search, top-k, the grammar mask and the dual-encoder constraints see) and a
**sentence reader** (`SentenceReader`: tokenized sentences → each token's reading, with `ReadOptions`). Window
families read sentences a window at a time (`decoding.sentences.read_windows`, their default); the sentence
family reads whole sentences. Nothing here names one family's network or its vocabulary's ids."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import torch

from tnforge.schemas.classes import COVERED
from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM, THRESHOLD

S = TypeVar("S", bound="Selectable")


@runtime_checkable
class Selectable(Protocol):
    """Per-row decoding state (encoder memory, recurrent state …): `select` keeps or repeats rows by index."""

    def select(self: S, index: torch.Tensor) -> S: ...


@runtime_checkable
class SpecialIds(Protocol):
    """The output vocabulary's special ids (any values: a family need not reserve 0–3)."""

    @property
    def pad_id(self) -> int: ...
    @property
    def unk_id(self) -> int: ...
    @property
    def bos_id(self) -> int: ...
    @property
    def eos_id(self) -> int: ...


@runtime_checkable
class OutputVocabulary(SpecialIds, Protocol):
    """What constraints need of an output vocabulary: text ↔ ids, each id's unit, which ids are special."""

    kind: str  # "word", "sentencepiece" …: how units join into text
    symbols: Sequence[str]  # the unit of each id (specials included, so ids line up)

    def __len__(self) -> int: ...
    def encode(self, text: str) -> list[int]: ...
    def decode(self, ids: Iterable[int]) -> str: ...
    @property
    def special_ids(self) -> frozenset[int]: ...


class InputBatch(Protocol):
    """Encoded inputs of some example rows: padded source ids [N, S], their lengths [N], the rows' columns."""

    source: torch.Tensor
    source_lengths: torch.Tensor
    rows: dict[str, list]

    def __len__(self) -> int: ...
    def to(self, device: torch.device) -> InputBatch: ...


@runtime_checkable
class StepDecoder(SpecialIds, Protocol):
    """What beam search needs of a loaded model: `encode` runs once per input; `step` advances any number of
    decoder rows (beam hypotheses) by one unit, from the previous output ids [N] to logits [N, output_size];
    beam search reorders rows with `select`. `batch` turns rows (their `input` windows, or whatever else the
    family reads) into inputs; `inputs` says which rows: "windows" (examples files: `decode`, `evaluate`) or
    "sentences" (raw text only: `normalize`, `decode --raw`, `evaluate --raw`)."""

    output_vocab: OutputVocabulary
    config: dict[str, Any]  # the training config it was trained with
    path: Path  # its checkpoint file
    device: torch.device
    inputs: str

    @property
    def output_size(self) -> int: ...
    @property
    def max_input_length(self) -> int: ...
    @property
    def max_output_length(self) -> int: ...

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[Selectable, Selectable]: ...
    def step(self, previous: torch.Tensor, state: Any, encoded: Any) -> tuple[torch.Tensor, Selectable]: ...
    def batch(self, rows: dict[str, list]) -> InputBatch: ...


@dataclass(frozen=True)
class ReadOptions:
    """How a sentence reader reads: the constraint, beam and batch, the threshold above which PLAIN/PUNCT
    tokens are read as written, the covering grammar's words (`reading_words`) and the classes it covers, a
    tagger's alternatives and likely classes per token, top-k and whether the grammar's one reading is taken
    (`decoding.sentences.read_sentences` says each in full)."""

    constraint: Any = None
    beam: int = BEAM
    batch_size: int = BATCH_SIZE
    threshold: float = THRESHOLD
    on_batch: Callable[[int], None] | None = None
    reading_words: Any = None
    alternatives: Sequence[Sequence[Sequence[str]]] | None = None
    covered: Collection[str] = COVERED
    top_k: int = 1
    grammar_readings: bool = True
    likely: Sequence[Sequence[tuple[tuple[str, ...], tuple[float, ...]]]] | None = None


@runtime_checkable
class SentenceReader(Protocol):
    """Tokenized sentences (with classes and their probabilities, when known) → each token's reading
    (`decoding.sentences.SentenceReading`) and the constraint's counts."""

    def read_sentences(self, sentences: Sequence[Sequence[str]], classes: Sequence[Sequence[str | None]] | None,
                       probabilities: Sequence[Sequence[float]] | None, options: ReadOptions) -> tuple[list, dict]: ...


@runtime_checkable
class DecodableModel(StepDecoder, SentenceReader, Protocol):
    """A model `--model` can decode with: a family's loaded model (e.g. `kernel.window.LoadedWindowModel`): a
    step decoder and a sentence reader."""
