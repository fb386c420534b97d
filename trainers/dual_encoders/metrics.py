"""Evaluation of a dual encoder on labelled pairs: accuracy, ROC AUC, and false-accept rate per negative type.

A false accept is a negative (a bad reading or word) scored ≥ the threshold; the false-reject rate is its
counterpart on positives. AUC is the Mann–Whitney statistic (ties count one half), so no sklearn is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tnforge.schemas import TRIVIAL_TARGETS


def roc_auc(labels: Sequence[int] | np.ndarray, scores: Sequence[float] | np.ndarray) -> float:
    """Area under the ROC curve; NaN when only one class is present."""
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    positives, negatives = int(labels.sum()), int((~labels).sum())
    if not positives or not negatives:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = scores[order]
    # Average ranks over ties.
    boundaries = np.flatnonzero(np.diff(sorted_scores)) + 1
    starts = np.concatenate([[0], boundaries])
    ends = np.concatenate([boundaries, [len(scores)]])
    for start, end in zip(starts, ends, strict=True):
        ranks[order[start:end]] = (start + end + 1) / 2.0
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def nontrivial_mask(befores: Sequence[str], outputs: Sequence[str], labels: Sequence[int]) -> np.ndarray:
    """Pairs that involve no trivial reading: the output is not `<self>`/`sil` and the input has no trivial
    positive (the pairs a dual encoder trained without trivial pairs is evaluated on)."""
    trivial_inputs = {b for b, o, label in zip(befores, outputs, labels, strict=True) if label and o in TRIVIAL_TARGETS}
    return np.array([o not in TRIVIAL_TARGETS and b not in trivial_inputs for b, o in zip(befores, outputs, strict=True)],
                    dtype=bool)


def pair_metrics(labels: Sequence[int], scores: Sequence[float], types: Sequence[str],
                 threshold: float = 0.5, classes: Sequence[str] | None = None,
                 nontrivial: np.ndarray | None = None) -> dict[str, Any]:
    """Accuracy, AUC, false-accept rate overall and per negative type (and AUC per class when given; and the
    AUC of the `nontrivial` pairs when a mask is given and some pairs are trivial)."""
    labels_a = np.asarray(labels).astype(bool)
    scores_a = np.asarray(scores, dtype=np.float64)
    types_a = np.asarray(types, dtype=object)
    accepted = scores_a >= threshold
    negatives = ~labels_a
    report: dict[str, Any] = {
        "count": int(len(labels_a)),
        "positives": int(labels_a.sum()),
        "negatives": int(negatives.sum()),
        "threshold": threshold,
        "accuracy": float((accepted == labels_a).mean()) if len(labels_a) else float("nan"),
        "auc": roc_auc(labels_a, scores_a),
        "false_accept": float(accepted[negatives].mean()) if negatives.any() else float("nan"),
        "false_reject": float((~accepted[labels_a]).mean()) if labels_a.any() else float("nan"),
        "per_type": [],
    }
    if nontrivial is not None and not nontrivial.all():
        report["nontrivial"] = {"count": int(nontrivial.sum()), "auc": roc_auc(labels_a[nontrivial], scores_a[nontrivial])}
    for name in sorted(set(types_a[negatives].tolist())):
        chosen = negatives & (types_a == name)
        both = chosen | labels_a
        report["per_type"].append({
            "type": name, "count": int(chosen.sum()), "false_accept": float(accepted[chosen].mean()),
            "auc_vs_positives": roc_auc(labels_a[both], scores_a[both]),
        })
    if classes is not None:
        classes_a = np.asarray(classes, dtype=object)
        report["per_class"] = []
        for name in sorted(set(classes_a.tolist())):
            chosen = classes_a == name
            report["per_class"].append({
                "class": name, "count": int(chosen.sum()), "auc": roc_auc(labels_a[chosen], scores_a[chosen]),
                "accuracy": float((accepted[chosen] == labels_a[chosen]).mean()),
            })
    return report


def evaluate_scorer(scorer: Any, befores: Sequence[str], outputs: Sequence[str], labels: Sequence[int],
                    types: Sequence[str], classes: Sequence[str] | None = None,
                    threshold: float = 0.5) -> dict[str, Any]:
    """Score (token, reading-or-word) pairs with a `DualEncoderScorer` and compute `pair_metrics`."""
    scores = scorer.score(list(befores), list(outputs)).numpy() if len(befores) else np.zeros(0)
    return pair_metrics(labels, scores, types, threshold, classes)


def to_markdown(report: dict[str, Any], title: str = "Dual encoder") -> str:
    """A short Markdown summary of `pair_metrics`."""
    lines = [f"## {title}", "",
             f"pairs {report['count']:,} ({report['positives']:,} positive, {report['negatives']:,} negative); "
             f"accuracy {100 * report['accuracy']:.2f}%, ROC AUC {report['auc']:.4f}, "
             f"false accepts {100 * report['false_accept']:.2f}%, false rejects {100 * report['false_reject']:.2f}%",
             *([f"non-trivial pairs only (no `<self>`/`sil` reading or input): {report['nontrivial']['count']:,}, "
                f"ROC AUC {report['nontrivial']['auc']:.4f}"] if "nontrivial" in report else []),
             "", "| negative type | count | false-accept rate | AUC vs positives |", "|---|---:|---:|---:|"]
    for row in report["per_type"]:
        lines.append(f"| {row['type']} | {row['count']:,} | {100 * row['false_accept']:.2f}% | "
                     f"{row['auc_vs_positives']:.4f} |")
    return "\n".join(lines) + "\n"
