"""Evaluation of predicted readings: token accuracy overall and per semiotic class, sentence accuracy,
non-trivial accuracy, and the error list — each error optionally judged recoverable (the covering grammar
licenses the wrong reading) or unrecoverable (Gokcen et al.).

Knows no grammar library: a judge is any callable `(before, reading, cls) -> bool` (or a batch callable
taking a list of such triples), passed in by the CLI.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tnforge.schemas import SELF, SEMIOTIC_CLASSES, TRIVIAL_TARGETS

Judge = Callable[[str, str, str | None], bool | None]
BatchJudge = Callable[[list[tuple[str, str, str | None]]], list[bool | None]]


def resolve(before: str, reading: str) -> str:
    """The spoken form a target stands for: `<self>` → the token itself; anything else unchanged."""
    return before if reading == SELF else reading


def is_correct(before: str, gold: str, prediction: str) -> bool:
    """Exact match, where `<self>` and the token itself are the same answer."""
    return prediction == gold or resolve(before, prediction) == resolve(before, gold)


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _judge_errors(errors: list[dict[str, Any]], judge: Judge | None, batch_judge: BatchJudge | None) -> bool:
    """Label each error `recoverable` (licensed by the judge) in place; False when there is no judge."""
    if judge is None and batch_judge is None:
        return False
    # The judge gets the prediction as the corpus writes targets (`<self>`, `sil` kept): the covering
    # grammar licenses those markers per class (`.` may be `sil` but is never read as ".").
    items = [(e["before"], e["prediction"], e["class"]) for e in errors]
    raw = batch_judge(items) if batch_judge is not None else [judge(*item) for item in items]  # type: ignore[misc]
    verdicts = [None if v is None else bool(v) for v in raw]  # None: the judge could not decide
    for error, verdict in zip(errors, verdicts, strict=True):
        error["recoverable"] = verdict
    return True


def evaluate(
    predictions: Iterable[Mapping[str, Any]],
    judge: Judge | None = None,
    batch_judge: BatchJudge | None = None,
) -> dict[str, Any]:
    """Accuracy figures of predictions.

    Each prediction is a mapping with `class`, `before`, `gold` (the reference `after`) and `prediction`;
    optional `source`, `sentence_id` (for sentence accuracy), `key`, `input`. Up-sampling copies must
    already be left out.
    """
    per_class: dict[str, dict[str, int]] = {}
    sentences: dict[tuple[Any, Any], bool] = {}
    errors: list[dict[str, Any]] = []
    total = correct = nontrivial = nontrivial_correct = 0
    for row in predictions:
        cls = row.get("class") or "UNKNOWN"
        hit = is_correct(row["before"], row["gold"], row["prediction"])
        total += 1
        correct += hit
        counts = per_class.setdefault(cls, {"count": 0, "correct": 0})
        counts["count"] += 1
        counts["correct"] += hit
        if row["gold"] not in TRIVIAL_TARGETS:
            nontrivial += 1
            nontrivial_correct += hit
        if row.get("sentence_id") is not None:
            sentence = (row.get("source"), row["sentence_id"])
            sentences[sentence] = sentences.get(sentence, True) and hit
        if not hit:
            errors.append({name: row.get(name) for name in ("key", "source", "sentence_id", "input")}
                          | {"class": cls, "before": row["before"], "gold": row["gold"],
                             "prediction": row["prediction"], "recoverable": None})
    judged = _judge_errors(errors, judge, batch_judge)
    order = {name: i for i, name in enumerate(SEMIOTIC_CLASSES)}
    table = []
    for cls in sorted(per_class, key=lambda c: (order.get(c, len(order)), c)):
        counts = per_class[cls]
        wrong = [e for e in errors if e["class"] == cls]
        entry = {"class": cls, "count": counts["count"], "correct": counts["correct"],
                 "accuracy": _ratio(counts["correct"], counts["count"]), "errors": len(wrong),
                 "error_rate": _ratio(len(wrong), counts["count"])}
        if judged:
            entry["recoverable"] = sum(1 for e in wrong if e["recoverable"])
            entry["unrecoverable"] = sum(1 for e in wrong if e["recoverable"] is False)
        table.append(entry)
    report = {
        "tokens": {"count": total, "correct": correct, "accuracy": _ratio(correct, total)},
        "nontrivial": {"count": nontrivial, "correct": nontrivial_correct,
                       "accuracy": _ratio(nontrivial_correct, nontrivial)},
        "sentences": {"count": len(sentences), "correct": sum(sentences.values()),
                      "accuracy": _ratio(sum(sentences.values()), len(sentences))},
        "per_class": table,
        "judged": judged,
        "errors": errors,
    }
    if judged:
        report["recoverable"] = sum(1 for e in errors if e["recoverable"])
        report["unrecoverable"] = sum(1 for e in errors if e["recoverable"] is False)
    return report


def _percent(value: float) -> str:
    return f"{100 * value:.2f}%"


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(report: dict[str, Any], title: str = "Evaluation", max_errors: int = 200) -> str:
    """The report as Markdown: summary, per-class table (with recoverable columns when judged), errors."""
    t, n, s = report["tokens"], report["nontrivial"], report["sentences"]
    lines = [f"# {title}", "",
             "| measure | count | correct | accuracy |", "|---|---:|---:|---:|",
             f"| all tokens | {t['count']} | {t['correct']} | {_percent(t['accuracy'])} |",
             f"| non-trivial tokens | {n['count']} | {n['correct']} | {_percent(n['accuracy'])} |",
             f"| sentences | {s['count']} | {s['correct']} | {_percent(s['accuracy'])} |", "",
             "## Per class", ""]
    judged = report["judged"]
    header = "| class | count | correct | accuracy | errors | error rate |"
    rule = "|---|---:|---:|---:|---:|---:|"
    if judged:
        header += " recoverable | unrecoverable |"
        rule += "---:|---:|"
    lines += [header, rule]
    for row in report["per_class"]:
        line = (f"| {row['class']} | {row['count']} | {row['correct']} | {_percent(row['accuracy'])} | "
                f"{row['errors']} | {_percent(row['error_rate'])} |")
        if judged:
            line += f" {row['recoverable']} | {row['unrecoverable']} |"
        lines.append(line)
    if judged:
        lines += ["", f"Recoverable errors (licensed by the covering grammar): {report['recoverable']}; "
                      f"unrecoverable: {report['unrecoverable']}."]
    errors = report["errors"]
    lines += ["", f"## Errors ({len(errors)})", ""]
    if errors:
        lines += ["| class | before | gold | prediction | recoverable |", "|---|---|---|---|---|"]
        for error in errors[:max_errors]:
            verdict = "" if error["recoverable"] is None else ("yes" if error["recoverable"] else "no")
            lines.append(f"| {error['class']} | {_cell(error['before'])} | {_cell(error['gold'])} | "
                         f"{_cell(error['prediction'])} | {verdict} |")
        if len(errors) > max_errors:
            lines.append(f"\n… and {len(errors) - max_errors} more (see the JSON report).")
    return "\n".join(lines) + "\n"


def summary(report: dict[str, Any], title: str, note: str) -> str:
    """The report as `tnforge evaluate` prints it: the Markdown up to the error list, then the error count and
    `note` (on the covering grammar's judgement)."""
    head = to_markdown(report, title=title, max_errors=20).split("## Errors")[0].rstrip()
    return f"{head}\n\n{len(report['errors'])} errors; {note}."


def write_report(report: dict[str, Any], out: str | os.PathLike, title: str = "Evaluation") -> list[Path | str]:
    """Write report.md, report.json and per_class.png into the folder `out` (local, or remote such as gs://…)."""
    from tnforge.filesystems import join, write_text_files
    from tnforge.trainers.training.plots import plot_per_class

    written = write_text_files(out, {"report.md": to_markdown(report, title),
                                     "report.json": json.dumps(report, indent=2, default=str) + "\n"})
    written.append(plot_per_class(report["per_class"], join(out, "per_class.png"), title=title))
    return written


def predictions_from_rows(rows: Mapping[str, Sequence[Any]], readings: Sequence[str]) -> list[dict[str, Any]]:
    """Prediction mappings from decoded example rows (columns as lists) and their best readings."""
    names = [n for n in ("key", "source", "sentence_id", "class", "before", "input") if n in rows]
    return [{**{n: rows[n][i] for n in names}, "gold": rows["after"][i], "prediction": readings[i]}
            for i in range(len(readings))]
