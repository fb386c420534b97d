"""Decoding for evaluation: every original example of a split decoded to its best reading and judged against
its gold reading. `decode_predictions` is the one decode → predictions loop (evaluate, compare, the λ sweep,
the loop, benchmarks)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM
from tnforge.trainers.decoding.hooks import Counts, merge_counts
from tnforge.trainers.decoding.outputs import Progress
from tnforge.trainers.evaluation.accuracy import BatchJudge

if TYPE_CHECKING:
    from tnforge.trainers.decoding.protocol import DecodableModel

Predictions = list[dict[str, Any]]
OnBatch = Callable[[int], None]


def original_tokens(files: Sequence[Path], split: str | None) -> int:
    """Tokens `decode_predictions` decodes: the originals (no up-sampling copies) of the split."""
    from tnforge.trainers.kernel.examples import count_rows

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
