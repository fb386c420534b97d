"""The runs behind `compare` and `sweep-lambda`: decode one split under every constraint configuration (or
every λ) and report on the predictions. The covering-grammar judge arrives as a callable; progress and
per-run notes go to optional callbacks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tnforge.schemas.classes import COVERED
from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM
from tnforge.trainers.decoding.outputs import Progress
from tnforge.trainers.evaluation.accuracy import BatchJudge
from tnforge.trainers.evaluation.comparison import (
    compare_configurations,
    plot_sweep,
    sweep_markdown,
    sweep_rows,
)
from tnforge.trainers.evaluation.decoded import Predictions, decode_with_progress, require_examples

if TYPE_CHECKING:
    from tnforge.trainers.decoding.protocol import DecodableModel

#: (label, tokens decoded, seconds) after each decode.
OnDecoded = Callable[[str, int, float], None]


def run_comparison(loaded: DecodableModel, files: Sequence[Path], split: str | None, configurations: Mapping[str, Any],
                   judge: BatchJudge | None = None, covered: Collection[str] = COVERED, beam: int = BEAM,
                   batch_size: int = BATCH_SIZE, progress: Progress | None = None,
                   on_decoded: OnDecoded | None = None) -> dict[str, Any]:
    """Decode the split under each configuration (name → constraint or None; "none" is the baseline) and
    compare them (`compare_configurations`), with decoding seconds and, for "+grammar", the grammar inputs
    constrained and left free."""
    runs: dict[str, Predictions] = {}
    seconds: dict[str, float] = {}
    grammar_inputs: dict[str, int] = {}
    total = require_examples(files, split)
    for name, constraint in configurations.items():
        runs[name], seconds[name], counts = decode_with_progress(loaded, files, split, constraint, beam, batch_size,
                                                                 progress, name, total)
        if on_decoded:
            on_decoded(name, len(runs[name]), seconds[name])
        if name == "+grammar" and constraint is not None:
            grammar_inputs = {"constrained": counts.get("grammar_constrained", 0),
                              "unconstrained": counts.get("grammar_unconstrained", 0)}
    result = compare_configurations(runs, judge, covered, baseline="none", seconds=seconds)
    if grammar_inputs:
        result["grammar_inputs"] = grammar_inputs
    return result


def run_sweep(loaded: DecodableModel, files: Sequence[Path], split: str | None, weights: Sequence[float],
              seq_de: str | None = None, voc_de: str | None = None, judge: BatchJudge | None = None,
              beam: int = BEAM, batch_size: int = BATCH_SIZE, progress: Progress | None = None,
              on_decoded: OnDecoded | None = None) -> list[dict[str, Any]]:
    """Decode the split with the dual-encoder constraints at each λ (λ = 0: unconstrained); `sweep_rows`."""
    from tnforge.trainers.decoding.constraint_sets import build_constraint

    if not seq_de and not voc_de:
        raise ValueError("give a sequence and/or a vocabulary dual encoder: there is nothing to weigh")
    results: dict[float, Predictions] = {}
    total = require_examples(files, split)
    for weight in weights:
        constraint, note = build_constraint(loaded, seq_de, voc_de, weight=weight)
        results[weight], seconds, _ = decode_with_progress(loaded, files, split, constraint if weight else None, beam,
                                                        batch_size, progress, f"λ={weight:g}", total)
        if on_decoded:
            on_decoded(f"λ={weight:g} ({note})", len(results[weight]), seconds)
    return sweep_rows(results, judge)


def write_sweep(rows: Sequence[dict[str, Any]], out: str | os.PathLike, title: str) -> tuple[str, list[Path]]:
    """Write sweep.md, sweep.json and sweep.png into the folder `out`; returns the Markdown and the paths."""
    from tnforge.filesystems import join, write_text_files
    from tnforge.trainers.decoding.class_weights import chosen_per_class

    markdown = sweep_markdown(rows, title) + (
        f"\nλ per class: `--lambda {chosen_per_class(rows)}` (the default: the fewest errors over every token; "
        "a class's own λ only where it makes strictly fewer errors, then unrecoverable ones, in that class).\n")
    paths = write_text_files(out, {"sweep.md": markdown, "sweep.json": json.dumps(rows, indent=2) + "\n"})
    paths.append(plot_sweep(rows, join(out, "sweep.png"), title))
    return markdown, paths
