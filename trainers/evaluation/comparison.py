"""What the constraints buy: several decoding configurations compared on the same tokens in one report.

For each configuration (no constraint, +seqDE, +vocDE, +grammar, combinations): error count and rate,
recoverable / unrecoverable errors (judged by an injected covering-grammar judge: `(before, reading, cls)`
triples → verdicts; this module imports no grammar library), unrecoverable errors in the grammar's covered
classes, decoding time, and a paired McNemar test against the baseline (the paper's Table 1). Also the
λ sweep: error rate per class against λ, as a table and a plot.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from tnforge.trainers.decoding.class_weights import Weight, as_json
from tnforge.trainers.evaluation.accuracy import BatchJudge, evaluate, is_correct
from tnforge.trainers.evaluation.significance import paired_test

Predictions = list[dict[str, Any]]


def _correct(predictions: Predictions) -> list[bool]:
    return [is_correct(p["before"], p["gold"], p["prediction"]) for p in predictions]


def _aligned(baseline: Predictions, other: Predictions, name: str) -> None:
    if len(baseline) != len(other):
        raise ValueError(f"configuration {name!r} has {len(other)} predictions, the baseline {len(baseline)}")
    for a, b in zip(baseline, other, strict=True):
        if a.get("key") != b.get("key") or a["before"] != b["before"]:
            raise ValueError(f"configuration {name!r} decoded the tokens in another order (key {b.get('key')})")


def compare_configurations(
    runs: Mapping[str, Predictions],
    judge: BatchJudge | None = None,
    covered: Collection[str] = (),
    baseline: str | None = None,
    seconds: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Compare configurations decoded on the same tokens; `baseline` (default: the first) is the reference."""
    if not runs:
        raise ValueError("no configurations to compare")
    names = list(runs)
    baseline = baseline or names[0]
    base = runs[baseline]
    base_correct = _correct(base)
    covered = frozenset(covered)
    rows = []
    per_class: dict[str, dict[str, Any]] = {}
    for name in names:
        predictions = runs[name]
        _aligned(base, predictions, name)
        result = evaluate(predictions, batch_judge=judge)
        errors = result["errors"]
        row: dict[str, Any] = {
            "configuration": name, "tokens": result["tokens"]["count"], "errors": len(errors),
            "error_rate": len(errors) / max(result["tokens"]["count"], 1),
            "nontrivial_errors": result["nontrivial"]["count"] - result["nontrivial"]["correct"],
            "seconds": (seconds or {}).get(name),
        }
        if result["judged"]:
            row["recoverable"] = result["recoverable"]
            row["unrecoverable"] = result["unrecoverable"]
            row["unjudged"] = sum(1 for e in errors if e["recoverable"] is None)
            row["unrecoverable_covered"] = sum(1 for e in errors
                                               if e["recoverable"] is False and e["class"] in covered)
        if name != baseline:
            row["vs_baseline"] = paired_test(base_correct, _correct(predictions))
        rows.append(row)
        per_class[name] = {c["class"]: c for c in result["per_class"]}
    base_row = rows[names.index(baseline)]
    for row in rows:
        row["errors_change"] = _change(row["errors"], base_row["errors"])
        if "unrecoverable" in row:
            row["unrecoverable_change"] = _change(row["unrecoverable"], base_row["unrecoverable"])
    return {"baseline": baseline, "judged": judge is not None, "covered_classes": sorted(covered),
            "configurations": rows, "per_class": per_class}


def _change(value: int, reference: int) -> float | None:
    return (value - reference) / reference if reference else None


def _fmt_change(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.1f}%"


def _fmt_p(test: dict[str, Any] | None) -> str:
    if not test:
        return "—"
    return f"{test['only_a_correct']}/{test['only_b_correct']}, p={test['p_exact']:.3g}"


def to_markdown(report: dict[str, Any], title: str = "Constrained decoding") -> str:
    """The comparison as Markdown: one row per configuration, then error counts per class."""
    judged = report["judged"]
    header = "| configuration | tokens | errors | error rate | Δ errors |"
    rule = "|---|---:|---:|---:|---:|"
    if judged:
        header += " recoverable | unrecoverable | Δ unrecoverable | unrecoverable (covered classes) |"
        rule += "---:|---:|---:|---:|"
    header += " McNemar vs baseline (only base right / only this right, exact p) | seconds |"
    rule += "---|---:|"
    lines = [f"# {title}", "", f"Baseline: `{report['baseline']}`.", "", header, rule]
    for row in report["configurations"]:
        line = (f"| {row['configuration']} | {row['tokens']:,} | {row['errors']:,} | "
                f"{100 * row['error_rate']:.2f}% | {_fmt_change(row['errors_change'])} |")
        if judged:
            line += (f" {row['recoverable']:,} | {row['unrecoverable']:,} | "
                     f"{_fmt_change(row['unrecoverable_change'])} | {row['unrecoverable_covered']:,} |")
        seconds = row.get("seconds")
        line += f" {_fmt_p(row.get('vs_baseline'))} | {'' if seconds is None else f'{seconds:.1f}'} |"
        lines.append(line)
    coverage = report.get("grammar_inputs")
    if coverage:
        lines += ["", f"Grammar constraint: {coverage['constrained']:,} inputs of covered classes constrained, "
                      f"{coverage['unconstrained']:,} left free (no licensed reading spellable in the model's output "
                      "vocabulary within its maximum length): their errors can stay unrecoverable."]
    names = [row["configuration"] for row in report["configurations"]]
    classes = sorted({c for table in report["per_class"].values() for c in table})
    lines += ["", "## Errors per class", "", "| class | " + " | ".join(names) + " |",
              "|---|" + "---:|" * len(names)]
    for cls in classes:
        cells = []
        for name in names:
            entry = report["per_class"][name].get(cls)
            if entry is None:
                cells.append("")
            elif judged:
                cells.append(f"{entry['errors']} ({entry['unrecoverable']} unrec.)")
            else:
                cells.append(str(entry["errors"]))
        lines.append(f"| {cls} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_comparison(report: dict[str, Any], out: str | os.PathLike, title: str = "Constrained decoding") -> list[Path]:
    """Write comparison.md and comparison.json into the folder `out`."""
    from tnforge.filesystems import write_text_files

    return write_text_files(out, {"comparison.md": to_markdown(report, title),
                                  "comparison.json": json.dumps(report, indent=2, default=str) + "\n"})


def publish_comparison(report: dict[str, Any], out: str | os.PathLike, model: object, data: str, split: str,
                       weight: Weight, beam: int) -> tuple[str, list[Path]]:
    """Record the run's settings in `report`, write it (see `write_comparison`) under its title; returns the
    Markdown and the paths."""
    report.update({"model": str(model), "data": data, "split": split, "lambda": as_json(weight), "beam": beam})
    title = f"Constrained decoding of {model} on {data} ({split}, λ={weight:g})"
    return to_markdown(report, title), write_comparison(report, out, title)


def sweep_rows(results: Mapping[float, Predictions], judge: BatchJudge | None = None) -> list[dict[str, Any]]:
    """Per λ: overall error rate, unrecoverable errors (when judged) and the error rate of each class."""
    rows = []
    for weight in sorted(results):
        result = evaluate(results[weight], batch_judge=judge)
        rows.append({
            "lambda": weight, "tokens": result["tokens"]["count"], "errors": len(result["errors"]),
            "error_rate": 1 - result["tokens"]["accuracy"],
            "unrecoverable": result.get("unrecoverable"),
            "per_class": {c["class"]: c["error_rate"] for c in result["per_class"]},
            "class_errors": {c["class"]: [c["errors"], c.get("unrecoverable")] for c in result["per_class"]},
        })
    return rows


def fewest_errors(rows: Sequence[dict[str, Any]]) -> str:
    """The λ of a sweep with the fewest errors (the smallest such λ), as a phrase for reports."""
    best = min(rows, key=lambda r: (r["errors"], r["lambda"]))
    return f"fewest errors at λ={best['lambda']:g} ({best['errors']})"


def sweep_markdown(rows: Sequence[dict[str, Any]], title: str = "λ sweep") -> str:
    """The sweep as a Markdown table: λ × (overall, unrecoverable, per-class error rates)."""
    classes = sorted({c for row in rows for c in row["per_class"]})
    lines = [f"# {title}", "", "| λ | errors | error rate | unrecoverable | " + " | ".join(classes) + " |",
             "|---:|---:|---:|---:|" + "---:|" * len(classes)]
    for row in rows:
        unrecoverable = "" if row["unrecoverable"] is None else str(row["unrecoverable"])
        cells = [f"{100 * row['per_class'][c]:.1f}%" if c in row["per_class"] else "" for c in classes]
        lines.append(f"| {row['lambda']:g} | {row['errors']} | {100 * row['error_rate']:.2f}% | {unrecoverable} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_sweep(rows: Sequence[dict[str, Any]], out: str | os.PathLike, title: str = "") -> Path | str:
    """Error rate per class (and overall) against λ."""
    from tnforge.trainers.training.plots import _pyplot, save_figure

    plt = _pyplot()
    weights = [row["lambda"] for row in rows]
    classes = sorted({c for row in rows for c in row["per_class"]})
    figure, axis = plt.subplots(figsize=(9.5, 5))
    colours = plt.get_cmap("tab20").colors
    for index, cls in enumerate(classes):
        values = [row["per_class"].get(cls, float("nan")) for row in rows]
        if any(v > 0 for v in values if v == v):  # distinct colour and line style per class (17 classes)
            axis.plot(weights, values, marker="os^"[index % 3], linestyle=("-", "--", ":")[index % 3], lw=1, ms=3,
                      color=colours[index % len(colours)], label=cls)
    axis.plot(weights, [row["error_rate"] for row in rows], "k-", lw=2.5, label="all tokens")
    axis.set_xlabel("λ (constraint weight)")
    axis.set_ylabel("error rate")
    axis.set_yscale("symlog", linthresh=0.01)
    axis.set_title(title or "error rate per class against λ")
    axis.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    return save_figure(figure, out)
