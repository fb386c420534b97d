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
    """Decode examples files and write their top-k hypotheses (schema `hypotheses`).

    `out` ending in `.parquet` is one file; otherwise a folder of `part-NNNNN.parquet` files of about
    `rows_per_file` rows each (parts of an earlier run beyond this run's are removed); local or remote
    (gs://…). Up-sampling copies are decoded only with `copies`. Nothing is written when there is nothing
    to decode.
    """
    import pyarrow as pa

    from tnforge import schemas
    from tnforge.datasets import write_shard
    from tnforge.filesystems import join, list_files, name_of, remove
    from tnforge.trainers.decoding.decode import decode_files, hypotheses_table
    from tnforge.trainers.seq2seq.data import count_rows

    out = str(out)
    single = out.endswith(".parquet")
    pending: list[pa.Table] = []
    pending_rows = written_rows = inputs = parts = 0
    started = time.monotonic()

    def flush() -> None:
        nonlocal pending, pending_rows, parts
        path = out if single else join(out, f"part-{parts:05d}.parquet")
        write_shard(pa.concat_tables(pending), path, schemas.HYPOTHESES)
        parts += 1
        pending, pending_rows = [], 0

    total = count_rows(files, split, max_copies=0 if copies else 1)
    shown = progress("decode", total) if progress else nullcontext()

    def said() -> str:  # what Ctrl-C leaves: counted when it comes
        return f"interrupted after {inputs:,} of {total:,} inputs; " + (
            f"{out} holds {written_rows - pending_rows:,} of their hypotheses ({parts} part file(s)), not the rest: "
            "decode again to finish" if parts and not single else f"nothing was written to {out}")

    with shown as bar, interrupt_says_lazily(said):
        for rows, ranked, _ in decode_files(loaded, files, split=split, beam=beam, top_k=top_k, batch_size=batch_size,
                                         on_batch=bar.update if bar is not None else None,
                                         originals_only=not copies, constraint=constraint):
            table = hypotheses_table(rows, ranked)
            pending.append(table)
            pending_rows += table.num_rows
            written_rows += table.num_rows
            inputs += len(ranked)
            if not single and pending_rows >= rows_per_file:
                flush()
        if pending:
            flush()
    if not single:  # parts an earlier, longer run left: the folder holds this run's hypotheses only
        for path in list_files(out, "part-*.parquet"):
            if name_of(path) >= f"part-{parts:05d}.parquet":
                remove(path)
    return HypothesesWritten(inputs, written_rows, parts, time.monotonic() - started)
