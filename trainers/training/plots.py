"""Plots (matplotlib, Agg backend): training curves and per-class accuracy bars."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure: Any, out: str | os.PathLike) -> Path | str:
    """Save a matplotlib figure as a PNG at `out` (local, or remote such as gs://…), atomically, and close it;
    the path written (a Path for a local file)."""
    import io

    from tnforge.filesystems import is_remote, write_bytes

    image = io.BytesIO()
    figure.savefig(image, dpi=110, format="png")
    _pyplot().close(figure)
    write_bytes(out, image.getvalue())
    return str(out) if is_remote(out) else Path(out)


#: Dev accuracies a family may record: (metrics key, line style, legend).
ACCURACIES = (("dev_accuracy", "o-", "dev accuracy (all)"), ("dev_nontrivial_accuracy", "s-", "dev accuracy (non-trivial)"),
              ("dev_sentence_accuracy", "o-", "dev sentences right"), ("dev_token_accuracy", "s-", "dev tokens right"))


def plot_training(metrics: str | os.PathLike, out: str | os.PathLike) -> Path | None:
    """Train loss, dev loss and dev accuracy against steps from a metrics JSONL file; None if it is empty."""
    path = Path(metrics)
    if not path.exists():
        return None
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    train = [r for r in records if r.get("event") == "train"]
    dev = [r for r in records if r.get("event") == "dev" and "dev_loss" in r]  # none without dev examples
    if not train and not dev:
        return None
    plt = _pyplot()
    figure, (loss_axis, accuracy_axis) = plt.subplots(1, 2, figsize=(11, 4))
    if train:
        loss_axis.plot([r["step"] for r in train], [r["loss"] for r in train], label="train loss", lw=1)
    if dev:
        steps = [r["step"] for r in dev]
        loss_axis.plot(steps, [r["dev_loss"] for r in dev], "o-", label="dev loss")
        for key, style, label in ACCURACIES:  # those the family records
            if all(key in r for r in dev):
                accuracy_axis.plot(steps, [r[key] for r in dev], style, label=label)
    loss_axis.set_yscale("log")
    loss_axis.set_xlabel("step")
    loss_axis.set_ylabel("cross-entropy per output unit")
    loss_axis.legend()
    accuracy_axis.set_xlabel("step")
    accuracy_axis.set_ylabel("exact-match accuracy")
    accuracy_axis.set_ylim(0, 1.01)
    if dev:
        accuracy_axis.legend(loc="lower right")
    else:
        accuracy_axis.text(0.5, 0.5, "no dev examples", ha="center", va="center", transform=accuracy_axis.transAxes)
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    plt.close(figure)
    return Path(out)


def plot_per_class(per_class: Sequence[dict[str, Any]], out: str | os.PathLike, title: str = "") -> Path | str:
    """A bar chart of accuracy per semiotic class (count written on each bar), as a PNG file at `out` (local, or
    remote such as gs://…); the path written."""
    plt = _pyplot()
    rows = [r for r in per_class if r["count"]]
    figure, axis = plt.subplots(figsize=(max(6, 0.6 * len(rows) + 2), 4))
    bars = axis.bar([r["class"] for r in rows], [r["accuracy"] for r in rows], color="#4477aa")
    for bar, row in zip(bars, rows, strict=True):
        axis.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.01, str(row["count"]),
                  ha="center", va="bottom", fontsize=7)
    axis.set_ylim(0, 1.1)
    axis.set_ylabel("token accuracy")
    axis.set_title(title or "accuracy per semiotic class (n on bars)")
    axis.tick_params(axis="x", labelrotation=60, labelsize=8)
    figure.tight_layout()
    return save_figure(figure, out)
