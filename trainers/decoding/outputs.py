"""What decoding a dataset with a trained seq2seq model produces: predictions, evaluations, hypotheses files.

`decode_predictions` is the one decode → predictions loop (evaluate, compare, the λ sweep, the loop,
benchmarks); `write_hypotheses` writes the top-k hypotheses as Parquet parts or as one file.
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
from tnforge.trainers.decoding.hooks import Counts, merge_counts
from tnforge.trainers.evaluation.accuracy import BatchJudge

if TYPE_CHECKING:
    from tnforge.trainers.decoding.protocol import DecodableModel

Predictions = list[dict[str, Any]]
OnBatch = Callable[[int], None]
#: (label, tokens to decode) → a context manager giving a progress bar with `.update(tokens)`.
Progress = Callable[[str, int], AbstractContextManager[Any]]


def original_tokens(files: Sequence[Path], split: str | None) -> int:
    """Tokens `decode_predictions` decodes: the originals (no up-sampling copies) of the split."""
    from tnforge.trainers.seq2seq.data import count_rows

    return count_rows(files, split, max_copies=1)


def decode_predictions(loaded: DecodableModel, files: Sequence[Path], split: str | None, constraint: Any = None,
                       beam: int = BEAM, batch_size: int = BATCH_SIZE,
                       on_batch: OnBatch | None = None) -> tuple[Predictions, float, Counts]:
    """Best reading of every original (non-copy) example, as evaluation predictions, the seconds taken, and the
    constraint's counts summed over the batches."""
    from tnforge.trainers.decoding.decode import decode_files
    from tnforge.trainers.evaluation.accuracy import predictions_from_rows

    predictions: Predictions = []
    counts: Counts = {}
    started = time.monotonic()
    for rows, ranked, batch_counts in decode_files(loaded, files, split=split, beam=beam, top_k=1,
                                                   batch_size=batch_size, constraint=constraint, on_batch=on_batch,
                                                   originals_only=True):
        if "after" not in rows:
            raise ValueError("the examples have no 'after' column: nothing to compare with")
        predictions += predictions_from_rows(rows, [r[0][0] if r else "" for r in ranked])
        counts = merge_counts(counts, batch_counts)
    return predictions, time.monotonic() - started, counts


def decode_with_progress(loaded: DecodableModel, files: Sequence[Path], split: str | None, constraint: Any = None,
                         beam: int = BEAM, batch_size: int = BATCH_SIZE, progress: Progress | None = None,
                         label: str = "decode", total: int | None = None) -> tuple[Predictions, float, Counts]:
    """`decode_predictions` under a progress bar labelled `label` (`total`: the split's original tokens,
    counted when not given; count once when decoding the same split several times)."""
    if progress is None:
        return decode_predictions(loaded, files, split, constraint, beam, batch_size)
    total = original_tokens(files, split) if total is None else total
    with progress(label, total) as bar:
        return decode_predictions(loaded, files, split, constraint, beam, batch_size, on_batch=bar.update)


def evaluate_decoding(loaded: DecodableModel, files: Sequence[Path], split: str | None, constraint: Any = None,
                      judge: BatchJudge | None = None, beam: int = BEAM, batch_size: int = BATCH_SIZE, progress: Progress | None = None,
                      label: str = "evaluate", total: int | None = None) -> dict[str, Any]:
    """Decode the split's originals and evaluate the best readings (`trainers.evaluation.evaluate`), errors
    judged by the covering grammar's batch `judge` when given."""
    from tnforge.trainers.evaluation.accuracy import evaluate

    total = require_examples(files, split) if total is None else total
    predictions, _, _ = decode_with_progress(loaded, files, split, constraint, beam, batch_size, progress, label, total)
    return evaluate(predictions, batch_judge=judge)


def evaluate_readings(files: Sequence[Path], split: str | None, readings: dict[int, str],
                      judge: BatchJudge | None = None) -> dict[str, Any]:
    """`evaluate_decoding` of readings decoded elsewhere (key → best reading; on Beam:
    `tnforge.pipelines.inference.best_readings_on_beam`), the predictions in the order one process makes them."""
    from tnforge.decode_units import batches_of
    from tnforge.trainers.decoding.decode import example_columns
    from tnforge.trainers.evaluation.accuracy import evaluate, predictions_from_rows

    predictions: Predictions = []
    for rows in batches_of(files, example_columns(files), split, BATCH_SIZE, originals_only=True):
        if "after" not in rows:
            raise ValueError("the examples have no 'after' column: nothing to compare with")
        predictions += predictions_from_rows(rows, [readings.get(key, "") for key in rows["key"]])
    return evaluate(predictions, batch_judge=judge)


def nothing_to_evaluate(files: Sequence[Path], split: str | None) -> str:
    """The one line for a split without examples (a build with `--split none` has only train)."""
    where = f"{Path(str(files[0])).parent}: " if files else ""
    return f"{where}the {split or 'given'} split has no examples: nothing to evaluate (a build with --split none?)"


def require_examples(files: Sequence[Path], split: str | None) -> int:
    """The split's original tokens (`original_tokens`); none is an error, before anything is decoded."""
    total = original_tokens(files, split)
    if not total:
        raise ValueError(nothing_to_evaluate(files, split))
    return total


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

