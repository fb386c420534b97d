"""How well a tagger tells classes apart: accuracy (all tokens, non-trivial tokens), per-class precision /
recall / F1 and the confusion of gold and predicted classes, as a dict and as Markdown."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any


def class_metrics(gold: Sequence[str], predicted: Sequence[str], trivial: Sequence[bool] | None = None,
                  classes: Sequence[str] = ()) -> dict[str, Any]:
    """Accuracy, non-trivial accuracy (when `trivial` flags are given), per-class figures and confusions
    (gold → predicted → count, mistakes only) of predicted against gold classes."""
    pairs = Counter(zip(gold, predicted, strict=True))
    gold_counts, found_counts = Counter(gold), Counter(predicted)
    names = [c for c in classes if c in gold_counts or c in found_counts]
    names += sorted((set(gold_counts) | set(found_counts)) - set(names))
    per_class = {}
    for name in names:
        right = pairs[(name, name)]
        precision = right / found_counts[name] if found_counts[name] else 0.0
        recall = right / gold_counts[name] if gold_counts[name] else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[name] = {"precision": precision, "recall": recall, "f1": f1, "support": gold_counts[name],
                           "predicted": found_counts[name]}
    confusion: dict[str, dict[str, int]] = {}
    for (g, p), count in sorted(pairs.items()):
        if g != p:
            confusion.setdefault(g, {})[p] = count
    total = len(gold)
    result: dict[str, Any] = {
        "tokens": total, "accuracy": sum(pairs[(c, c)] for c in gold_counts) / total if total else 0.0,
        "errors": total - sum(pairs[(c, c)] for c in gold_counts), "per_class": per_class, "confusion": confusion,
    }
    if trivial is not None:
        hard = [(g, p) for g, p, t in zip(gold, predicted, trivial, strict=True) if not t]
        result["non_trivial_tokens"] = len(hard)
        result["non_trivial_accuracy"] = sum(g == p for g, p in hard) / len(hard) if hard else 0.0
        result["non_trivial_errors"] = sum(g != p for g, p in hard)
    return result


def markdown(metrics: dict[str, Any], title: str) -> str:
    """A Markdown report of `class_metrics`: headline figures, per-class table, confusions."""
    lines = [f"## {title}", "", f"- tokens: {metrics['tokens']}, accuracy {metrics['accuracy']:.4%} "
             f"({metrics['errors']} errors)"]
    if "non_trivial_accuracy" in metrics:
        lines.append(f"- non-trivial tokens: {metrics['non_trivial_tokens']}, class accuracy "
                     f"{metrics['non_trivial_accuracy']:.4%} ({metrics['non_trivial_errors']} errors)")
    lines += ["", "| class | support | predicted | precision | recall | F1 |", "|---|---:|---:|---:|---:|---:|"]
    for name, row in metrics["per_class"].items():
        lines.append(f"| {name} | {row['support']} | {row['predicted']} | {row['precision']:.4f} | "
                     f"{row['recall']:.4f} | {row['f1']:.4f} |")
    lines += ["", "Confusions (gold → predicted: count):", ""]
    mistakes = [(count, g, p) for g, row in metrics["confusion"].items() for p, count in row.items()]
    for count, g, p in sorted(mistakes, key=lambda m: (-m[0], m[1], m[2])):
        lines.append(f"- {g} → {p}: {count}")
    if not mistakes:
        lines.append("- none")
    return "\n".join(lines) + "\n"
