"""The adversarial iteration of Gokcen et al. (2019), which they called prohibitive with slow constrained decoding:

    round r: decode the training data for top-k hypotheses (with round r − 1's vocabulary filter, if any)
             → regenerate top-k negatives from them → retrain the vocabulary filter → evaluate decoding with it.

Every step arrives as an injected callable, so this module imports neither Beam (negatives) nor the CLI:
  decode_topk(round, previous_filter_run | None) → hypotheses path
  regenerate(round, hypotheses path)             → None (writes the dataset's pairs / vocab_pairs)
  retrain(round)                                 → the new filter's run directory
  evaluate(round, filter_run)                    → a row of figures (errors, unrecoverable, …)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DecodeTopK = Callable[[int, Path | None], Path]
Regenerate = Callable[[int, Path], None]
Retrain = Callable[[int], Path]
Evaluate = Callable[[int, Path], dict[str, Any]]


def adversarial_loop(rounds: int, decode_topk: DecodeTopK, regenerate: Regenerate, retrain: Retrain,
                     evaluate: Evaluate, on_round: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run `rounds` rounds; returns one row per round (its figures plus the seconds of each step)."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    rows: list[dict[str, Any]] = []
    previous: Path | None = None
    for round_index in range(1, rounds + 1):
        timings: dict[str, float] = {}
        started = time.monotonic()
        hypotheses = decode_topk(round_index, previous)
        timings["decode_s"] = time.monotonic() - started
        started = time.monotonic()
        regenerate(round_index, hypotheses)
        timings["negatives_s"] = time.monotonic() - started
        started = time.monotonic()
        run = retrain(round_index)
        timings["train_s"] = time.monotonic() - started
        started = time.monotonic()
        figures = evaluate(round_index, run)
        timings["evaluate_s"] = time.monotonic() - started
        row = {"round": round_index, "filter": str(run), "hypotheses": str(hypotheses), **figures, **timings}
        rows.append(row)
        if on_round is not None:
            on_round(row)
        previous = run
    return rows


def loop_markdown(rows: list[dict[str, Any]], title: str = "Adversarial loop") -> str:
    """One table row per round: the evaluation's figures and the time of each step."""
    lines = [f"# {title}", "",
             "| round | errors | error rate | unrecoverable | filter dev AUC | decode s | negatives s | train s | "
             "evaluate s |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        def cell(name: str, fmt: str = "{}", row: dict[str, Any] = row) -> str:
            value = row.get(name)
            return "" if value is None else fmt.format(value)

        lines.append(f"| {row['round']} | {cell('errors')} | {cell('error_rate', '{:.2%}')} | {cell('unrecoverable')} "
                     f"| {cell('filter_auc', '{:.4f}')} | {cell('decode_s', '{:.0f}')} | {cell('negatives_s', '{:.0f}')} "
                     f"| {cell('train_s', '{:.0f}')} | {cell('evaluate_s', '{:.0f}')} |")
    return "\n".join(lines) + "\n"
