"""What decoding a dataset writes: the top-k hypotheses as Parquet parts or as one file (`write_hypotheses`),
and the progress-bar type the decoding commands share. Decoding for evaluation (predictions judged against
gold) is `trainers.evaluation.decoded`: evaluation imports decoding, never the other way round.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM, TOP_K

if TYPE_CHECKING:
    from tnforge.trainers.decoding.protocol import DecodableModel

#: (label, tokens to decode) → a context manager giving a progress bar with `.update(tokens)`.
Progress = Callable[[str, int], AbstractContextManager[Any]]


@dataclass(frozen=True)
class HypothesesWritten:
    """What `write_hypotheses` wrote: inputs decoded, hypothesis rows, Parquet files, seconds."""

    inputs: int
    rows: int
    files: int
    seconds: float

    @property
    def inputs_per_second(self) -> float:
        return self.inputs / max(self.seconds, 1e-9)

    def describe(self, out: str, beam: int, top_k: int, device: object, note: str) -> str:
        """One line for `tnforge decode`: what was written where, how fast, with which settings."""
        return (f"decoded {self.inputs:,} inputs → {self.rows:,} hypotheses in {self.files} file(s) at {out} "
                f"({self.inputs_per_second:,.0f} inputs/s, beam {beam}, top-k {top_k}, {device}, {note})")


@contextmanager
def interrupt_says_lazily(message: Callable[[], str]) -> Iterator[None]:
    """`errors.interrupt_says` with the message made when Ctrl-C comes (it counts what was done by then)."""
    from tnforge.errors import interrupt_says

    try:
        yield
    except KeyboardInterrupt:
        with interrupt_says(message()):
            raise


def write_hypotheses(loaded: DecodableModel, files: Sequence[Path], out: str | os.PathLike, split: str | None = None,
                     beam: int = BEAM, top_k: int = TOP_K, batch_size: int = BATCH_SIZE, copies: bool = False,
                     rows_per_file: int = 1_000_000, constraint: Any = None,
                     progress: Progress | None = None) -> HypothesesWritten:
    """Decode examples files and write their top-k hypotheses (schema `hypotheses`), in one process.

    `out` ending in `.parquet` is one file (replaced atomically); otherwise a new folder of shards of about
    `rows_per_file` rows each, committed by its `_hypotheses.json` written last (`tnforge.hypotheses`; a folder
    that already holds hypotheses is refused); local or remote (gs://…); nothing when there is nothing to decode. The batches are those of
    `tnforge.decode_units` and each is decoded by `decode.decode_rows`, as on Beam
    (`tnforge.pipelines.inference`), so the bytes are the same. Up-sampling copies only with `copies`.
    """
    import pyarrow as pa

    from tnforge import hypotheses, schemas
    from tnforge.datasets import write_shard, write_sharded
    from tnforge.decode_units import batches_of, count_inputs, row_bound
    from tnforge.trainers.decoding.decode import decode_rows, example_columns

    out = str(out)
    single = out.endswith(".parquet")
    if not single:
        hypotheses.refuse_existing(out)
    columns = example_columns(files)
    started = time.monotonic()
    total = count_inputs(files, split, originals_only=not copies)
    tables: list[pa.Table] = []
    shown = progress("decode", total) if progress else nullcontext()
    done = 0

    def said() -> str:  # what Ctrl-C leaves: counted when it comes
        return f"interrupted after {done:,} of {total:,} inputs; nothing was written to {out}"

    with shown as bar, interrupt_says_lazily(said):
        for rows in batches_of(files, columns, split, batch_size, originals_only=not copies):
            tables.append(decode_rows(loaded, rows, beam, top_k, constraint))
            done += len(rows["input"])
            if bar is not None:
                bar.update(len(rows["input"]))
        table = pa.concat_tables(tables) if tables else schemas.HYPOTHESES.empty_table()
        if not total:
            parts = 0
        elif single:
            write_shard(table, out, schemas.HYPOTHESES)
            parts = 1
        else:
            parts = hypotheses.shard_count(row_bound(files), top_k, rows_per_file)
            write_sharded(table, out, schemas.HYPOTHESES, parts)
            hypotheses.write_marker(out, hypotheses.settings(split, beam, top_k, copies, total))
    return HypothesesWritten(total, table.num_rows, parts, time.monotonic() - started)

