"""The decoding contract every model family meets (in the spirit of fairseq's encoder-decoder interface):
beam search, top-k, the grammar mask and the dual-encoder constraints are typed against these protocols,
never against one family's network or its vocabulary's ids."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import torch

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
class DecodableModel(SpecialIds, Protocol):
    """A model `--model` can decode with: a family's loaded model (e.g. `kernel.window.LoadedWindowModel`).

    `encode` runs once per input; `step` advances any number of decoder rows (beam hypotheses) by one unit,
    from the previous output ids [N] to logits [N, output_size]; beam search reorders rows with `select`.
    `batch` / `batches` turn example rows (their `input`, and whatever else the family reads) into inputs.
    """

    output_vocab: OutputVocabulary
    config: dict[str, Any]  # the training config it was trained with
    path: Path  # its checkpoint file
    device: torch.device

    @property
    def output_size(self) -> int: ...
    @property
    def max_input_length(self) -> int: ...
    @property
    def max_output_length(self) -> int: ...

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[Selectable, Selectable]: ...
    def step(self, previous: torch.Tensor, state: Any, encoded: Any) -> tuple[torch.Tensor, Selectable]: ...
    def batch(self, rows: dict[str, list]) -> InputBatch: ...
    def batches(self, files: Sequence[Any], batch_size: int, columns: Sequence[str],
                split: str | None = None) -> Iterator[InputBatch]: ...
