"""Calibrating the tagger's class probabilities on dev (temperature scaling) and judging them (reliability).

The trees' probabilities are sharpened or softened by one temperature T, chosen to minimise the negative
log-likelihood of the dev tokens' gold classes: p_T(c) ∝ p(c)^(1/T). T > 1 means the trees were
over-confident. A reliability table (confidence bins: how often the most probable class was right) and its
expected calibration error say how far the probabilities are from frequencies, before and after; the
routing of raw text (`trainers.decoding.routing`) reads the calibrated probabilities.

Deterministic: T comes from a fixed grid refined by golden-section search, no random numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Smallest probability kept before taking logarithms.
_FLOOR = 1e-9
#: Temperatures searched (log-spaced grid, then refined between its best neighbours).
_GRID = np.exp(np.linspace(math.log(0.25), math.log(8.0), 41))
#: Confidence bins of the reliability table.
BINS = 10


def apply_temperature(probabilities: np.ndarray, temperature: float) -> np.ndarray:
    """(tokens × classes) probabilities raised to 1/T and renormalised (T = 1: unchanged)."""
    if temperature == 1.0 or not len(probabilities):
        return probabilities
    logs = np.log(np.clip(probabilities.astype(np.float64), _FLOOR, 1.0)) / temperature
    logs -= logs.max(axis=1, keepdims=True)
    scaled = np.exp(logs)
    return (scaled / scaled.sum(axis=1, keepdims=True)).astype(np.float32)


def negative_log_likelihood(probabilities: np.ndarray, labels: np.ndarray, temperature: float) -> float:
    """Mean negative log-likelihood of the gold `labels` (column indices) at temperature T."""
    scaled = apply_temperature(probabilities, temperature).astype(np.float64)
    picked = scaled[np.arange(len(labels)), labels]
    return float(-np.log(np.clip(picked, _FLOOR, 1.0)).mean())


def fit_temperature(probabilities: np.ndarray, labels: Sequence[int]) -> float:
    """The temperature minimising the dev negative log-likelihood (1.0 when there is nothing to fit)."""
    labels = np.asarray(labels, dtype=np.int64)
    if not len(labels):
        return 1.0
    losses = [negative_log_likelihood(probabilities, labels, float(t)) for t in _GRID]
    best = int(np.argmin(losses))
    low, high = math.log(_GRID[max(best - 1, 0)]), math.log(_GRID[min(best + 1, len(_GRID) - 1)])
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(30):  # golden-section search on log T between the best grid point's neighbours
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if negative_log_likelihood(probabilities, labels, math.exp(a)) <= \
                negative_log_likelihood(probabilities, labels, math.exp(b)):
            high = b
        else:
            low = a
    return round(math.exp((low + high) / 2), 4)


def reliability(probabilities: np.ndarray, labels: Sequence[int], bins: int = BINS) -> dict[str, Any]:
    """Reliability of the most probable class: per confidence bin (equal width over [0, 1]) the tokens, mean
    confidence and accuracy; the expected calibration error (bin-size-weighted |accuracy − confidence|)."""
    labels = np.asarray(labels, dtype=np.int64)
    if not len(labels):
        return {"tokens": 0, "ece": 0.0, "bins": []}
    confidence = probabilities.max(axis=1).astype(np.float64)
    right = probabilities.argmax(axis=1) == labels
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        inside = which == b
        n = int(inside.sum())
        if not n:
            continue
        mean_confidence, accuracy = float(confidence[inside].mean()), float(right[inside].mean())
        ece += n / len(labels) * abs(accuracy - mean_confidence)
        rows.append({"low": float(edges[b]), "high": float(edges[b + 1]), "tokens": n,
                     "confidence": mean_confidence, "accuracy": accuracy})
    return {"tokens": int(len(labels)), "ece": ece, "bins": rows}


def calibrate(probabilities: np.ndarray, labels: Sequence[int]) -> dict[str, Any]:
    """The temperature fitted on dev and the reliability before and after (what tagger.json records)."""
    temperature = fit_temperature(probabilities, labels)
    labels = np.asarray(labels, dtype=np.int64)
    return {"method": "temperature", "temperature": temperature, "dev_tokens": int(len(labels)),
            "nll_before": negative_log_likelihood(probabilities, labels, 1.0) if len(labels) else 0.0,
            "nll_after": negative_log_likelihood(probabilities, labels, temperature) if len(labels) else 0.0,
            "before": reliability(probabilities, labels),
            "after": reliability(apply_temperature(probabilities, temperature), labels)}


def reliability_markdown(calibration: dict[str, Any]) -> str:
    """The reliability tables (before and after) as Markdown, for the tagger's report."""
    lines = [f"## Calibration on dev (temperature scaling)\n\nT = {calibration['temperature']} fitted on "
             f"{calibration['dev_tokens']:,} dev tokens: negative log-likelihood {calibration['nll_before']:.4f} → "
             f"{calibration['nll_after']:.4f}, expected calibration error {calibration['before']['ece']:.4f} → "
             f"{calibration['after']['ece']:.4f}. Plot: reliability.png.\n",
             "| confidence bin | tokens (before) | accuracy / confidence (before) | tokens (after) | "
             "accuracy / confidence (after) |", "|---|---:|---:|---:|---:|"]
    before = {(b["low"], b["high"]): b for b in calibration["before"]["bins"]}
    after = {(b["low"], b["high"]): b for b in calibration["after"]["bins"]}
    for key in sorted(set(before) | set(after)):
        cells = []
        for table in (before, after):
            b = table.get(key)
            cells += ([str(b["tokens"]), f"{b['accuracy']:.2%} / {b['confidence']:.2%}"] if b else ["0", "–"])
        lines.append(f"| {key[0]:.1f}–{key[1]:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def reliability_plot(calibration: dict[str, Any], out: Any) -> Any:
    """The reliability diagram (accuracy against confidence per bin, before and after) as a PNG at `out`."""
    from tnforge.trainers.training.plots import _pyplot, save_figure

    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(5, 5))
    axis.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect calibration")
    for name, style in (("before", "o-"), ("after", "s-")):
        bins = calibration[name]["bins"]
        label = f"{name} (ECE {calibration[name]['ece']:.3f})" + (
            f", T = {calibration['temperature']}" if name == "after" else "")
        axis.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], style, label=label, ms=4)
    axis.set_xlabel("confidence of the most probable class")
    axis.set_ylabel("accuracy")
    axis.set_title(f"Tagger reliability on dev ({calibration['dev_tokens']:,} tokens)")
    axis.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    return save_figure(figure, out)
