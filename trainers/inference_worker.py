"""The model side of `decode` on Beam's RunInference (`tnforge.pipelines.inference`): what a worker process
loads once and how it decodes one batch. Beam-free; the pipeline reaches this module by name, inside the worker,
so building the job graph never imports torch. It calls the code the single process calls
(`decoding.decode.decode_rows`), so both give the same bytes. (`normalize` on Beam reads through the library's
`tnforge.Normalizer`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa


@dataclass
class Decoder:
    """A loaded decoder model and its decoding constraint (an object Beam's shared handle can refer to)."""

    loaded: Any
    constraint: Any


def load_decoder(model: str, device: str, threads: int, seq_de: str | None, voc_de: str | None,
                 grammar: tuple[Any, frozenset[str]] | None, weight: float) -> Decoder:
    """The loaded decoder model of any registered family and its decoding constraint (or None) on `device` ("auto": a
    GPU when this worker has one); `grammar`: the covering grammar's (reading_words, covered classes)."""
    import torch

    from tnforge.trainers.decoding.constraint_sets import build_constraint
    from tnforge.trainers.families import load
    from tnforge.trainers.training.devices import resolve_device

    if threads:
        torch.set_num_threads(threads)
    _family, loaded = load(model, resolve_device(device), kind="decoder")
    reading_words, covered = grammar if grammar is not None else (None, frozenset())
    constraint, _note = build_constraint(loaded, seq_de, voc_de, reading_words, covered, weight)
    return Decoder(loaded, constraint)


def decode_batch_table(model: Decoder, rows: dict[str, list], beam: int, top_k: int) -> pa.Table:
    """The HYPOTHESES rows of one decode batch (`tnforge.decode_units`)."""
    import torch

    from tnforge.trainers.decoding.decode import decode_rows

    with torch.inference_mode():
        return decode_rows(model.loaded, rows, beam, top_k, model.constraint)
