"""The model side of Beam's RunInference (`tnforge.pipelines.inference`): what a worker process loads once and
how it answers one element. Beam-free; the pipeline reaches this module by name, inside the worker, so building
the job graph never imports torch. Each function calls the code the single process calls
(`decoding.decode.decode_rows`, `normalize.Normalizer`), so both give the same bytes.
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
    from tnforge.trainers.devices import resolve_device
    from tnforge.trainers.families import load

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


def load_normalizer(model: str, device: str, threads: int, grammar: tuple[Any, frozenset[str], Any] | None,
                    beam: int, batch_size: int, corpus_letters: bool, confidence: float | None = None,
                    threshold: float | None = None) -> Any:
    """A `trainers.normalize.Normalizer` of an assembled normalizer run (`tnforge normalizer assemble`), with its
    grammar's (reading_words, covered, judge) when the run was assembled with one; `confidence` and `threshold`
    override the run's (None: keep them)."""
    import torch

    from tnforge.trainers.decoding.constraint_sets import build_constraint
    from tnforge.trainers.devices import resolve_device
    from tnforge.trainers.normalize import Normalizer
    from tnforge.trainers.normalizer_run import open_normalizer

    if threads:
        torch.set_num_threads(threads)
    parts = open_normalizer(model, resolve_device(device))
    reading_words, covered, judge = grammar if grammar is not None else (None, frozenset(), None)
    constraint, _note = build_constraint(parts.loaded, reading_words=reading_words, covered=covered)
    return Normalizer(parts.loaded, parts.tagger, constraint, beam, batch_size,
                      parts.threshold if threshold is None else threshold, reading_words, corpus_letters=corpus_letters,
                      confidence=parts.confidence if confidence is None else confidence, judge=judge)


def uses_grammar(model: str) -> bool:
    """Whether a normalizer run was assembled with the covering grammar."""
    from tnforge.trainers.normalizer_run import read_manifest

    return bool(read_manifest(model)["grammar"]["enabled"])


def normalize_chunk(normalizer: Any, first_line: int, texts: list[str]) -> dict[str, Any]:
    """One chunk of lines read: its spoken text (one line each) and what `normalize_file` counts of it
    (`unlicensed` with line numbers counted from `first_line`)."""
    import torch

    with torch.inference_mode():
        readings = normalizer(texts)
    return {"text": "".join(normalizer.text(reading) + "\n" for reading in readings),
            "sentences": len(readings), "tokens": sum(len(r.tokens) for r in readings),
            "decoded": sum(sum(r.decoded) for r in readings),
            "unlicensed": [[first_line + s, *rest] for s, *rest in normalizer.unlicensed(readings)],
            "checked": normalizer.judge is not None}


def normalized(totals: dict[str, Any] | None) -> Any:
    """`normalize_on_beam`'s counts as the single process's `trainers.normalize.Normalized` (for its summary);
    a dry run (None): nothing normalized."""
    from tnforge.trainers.normalize import Normalized

    if totals is None:
        return Normalized(0, 0, 0, 0.0)
    return Normalized(totals["sentences"], totals["tokens"], totals["decoded"], totals["seconds"],
                      tuple(tuple(row) for row in totals["unlicensed"]), not totals["checked"])


def text_lines(data: bytes, name: str) -> list[str]:
    """A text file's lines, as `tnforge normalize --file` reads them (UTF-8, one message naming a bad line)."""
    import io

    from tnforge.trainers.normalize import text_lines as lines

    return [line for line in lines(io.BytesIO(data), name) if line is not None]
