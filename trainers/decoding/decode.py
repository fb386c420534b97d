"""Decoding datasets and windows with a trained model: top-k hypotheses as text and as Parquet rows, and
what the constraint did with each batch (its counts)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa
import torch

from tnforge import schemas
from tnforge.decode_units import DECODE_COLUMNS as DECODE_COLUMNS
from tnforge.decode_units import decode_columns
from tnforge.trainers.decoding.beam_search import beam_search
from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM
from tnforge.trainers.decoding.hooks import ConstraintBatch, Counts, DecodingConstraint
from tnforge.trainers.decoding.protocol import DecodableModel, InputBatch

Ranked = list[tuple[str, float]]


class DecodedBatch(NamedTuple):
    """One decoded batch: its example rows (columns as lists), ranked readings per row, constraint counts."""

    rows: dict[str, list]
    ranked: list[Ranked]
    counts: Counts


def autocast(device: torch.device) -> contextlib.AbstractContextManager:
    """Mixed precision on CUDA, nothing on CPU."""
    if device.type == "cuda":
        return torch.autocast(device_type="cuda", dtype=torch.float16)
    return contextlib.nullcontext()


def output_spans(rows: dict[str, list]) -> list[tuple[int, int]] | None:
    """The source token span of each row's output: `(i, i + 1)` for a window around token i (`token_index`);
    None when the rows do not say."""
    if "token_index" not in rows:
        return None
    return [(int(i), int(i) + 1) for i in rows["token_index"]]


def decode_batch(
    loaded: DecodableModel,
    batch: InputBatch,
    beam: int = BEAM,
    top_k: int = 1,
    constraint: DecodingConstraint | None = None,
    max_length: int | None = None,
) -> tuple[list[Ranked], Counts]:
    """The `top_k` distinct best readings (text, score) of each row of a batch, best first, and the counts of
    the batch's constraint (`{}` without one)."""
    vocab = loaded.output_vocab
    # Different piece sequences can spell the same text: keep spares so k distinct texts survive.
    spare = top_k * 2 if vocab.kind == "sentencepiece" else top_k
    per_batch = None
    if constraint is not None:
        rows = batch.rows
        per_batch = constraint.for_batch(ConstraintBatch(list(rows["input"]), rows.get("before"), rows.get("class"),
                                                         vocab, loaded.device, output_spans(rows)))
    batch = batch.to(loaded.device)
    with autocast(loaded.device):
        found = beam_search(loaded, batch.source, batch.source_lengths, beam=beam, keep=spare,
                            max_length=max_length, constraint=per_batch)
    results: list[Ranked] = []
    for hypotheses in found:
        ranked: Ranked = []
        seen: set[str] = set()
        for hypothesis in hypotheses:
            text = vocab.decode(hypothesis.ids)
            if text and text not in seen:
                seen.add(text)
                ranked.append((text, hypothesis.score))
            if len(ranked) == top_k:
                break
        results.append(ranked)
    return results, ({} if per_batch is None else dict(per_batch.counts))


def example_columns(files: Sequence[Path]) -> list[str]:
    """The decode columns present in the first file (`input` is required)."""
    return decode_columns(files)


def decode_rows(loaded: DecodableModel, rows: dict[str, list], beam: int = BEAM, top_k: int = 1,
                constraint: DecodingConstraint | None = None) -> pa.Table:
    """The HYPOTHESES rows of one decode batch of example rows (`tnforge.decode_units`): the one function that
    decodes a batch for `tnforge decode`, in one process or in a Beam worker."""
    ranked, _ = decode_batch(loaded, loaded.batch(rows), beam=beam, top_k=top_k, constraint=constraint)
    return hypotheses_table(rows, ranked)


def decode_files(
    loaded: DecodableModel,
    files: Sequence[Path],
    split: str | None = None,
    beam: int = BEAM,
    top_k: int = 1,
    batch_size: int = BATCH_SIZE,
    constraint: DecodingConstraint | None = None,
    on_batch: Callable[[int], None] | None = None,
    originals_only: bool = False,
) -> Iterator[DecodedBatch]:
    """Decode every row of examples files; yields (rows, ranked hypotheses, constraint counts) per batch.

    The batches are `tnforge.decode_units`' (as on Beam: `tnforge.pipelines.inference`). With `originals_only`,
    up-sampling copies (copy > 0) are skipped.
    """
    from tnforge.decode_units import batches_of

    columns = example_columns(files)
    if loaded.inputs != "windows":  # a family that reads whole sentences refuses examples files here
        raise ValueError(f"{loaded.path} reads whole sentences, not examples windows; use `evaluate --raw`, "
                         "`decode --raw` or `normalize`")
    for rows in batches_of(files, columns, split, batch_size, originals_only):
        ranked, counts = decode_batch(loaded, loaded.batch(rows), beam=beam, top_k=top_k, constraint=constraint)
        if on_batch:
            on_batch(len(rows["input"]))
        yield DecodedBatch(rows, ranked, counts)


def hypotheses_table(rows: dict[str, list], ranked: Sequence[Ranked]) -> pa.Table:
    """HYPOTHESES rows (key, class, before, input, gold, rank, hypothesis, score) for one decoded batch."""
    out: dict[str, list] = {name: [] for name in schemas.HYPOTHESES.names}
    count = len(rows["input"])
    keys = rows.get("key") or [0] * count
    for i in range(count):
        for rank, (text, score) in enumerate(ranked[i]):
            out["key"].append(keys[i])
            out["class"].append(rows["class"][i] if "class" in rows else None)
            out["before"].append(rows["before"][i] if "before" in rows else "")
            out["input"].append(rows["input"][i])
            out["gold"].append(rows["after"][i] if "after" in rows else None)
            out["rank"].append(rank)
            out["hypothesis"].append(text)
            out["score"].append(score)
    return pa.Table.from_pydict(out, schema=schemas.HYPOTHESES)


def decode_windows(loaded: DecodableModel, windows: Sequence[str], beam: int = BEAM, batch_size: int = BATCH_SIZE,
                   constraint: DecodingConstraint | None = None) -> list[str]:
    """The best reading of each window (`… <norm> token </norm> …`), in order."""
    readings: list[str] = []
    for start in range(0, len(windows), batch_size):
        chunk = list(windows[start: start + batch_size])
        batch = loaded.batch({"input": chunk})
        for ranked in decode_batch(loaded, batch, beam=beam, top_k=1, constraint=constraint)[0]:
            readings.append(ranked[0][0] if ranked else schemas.SELF)
    return readings
