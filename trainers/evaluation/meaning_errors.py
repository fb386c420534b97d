"""Meaning errors of per-token readings (any model family's `SentenceReading`s) against a split's gold tokens.

A token read wrong is *unrecoverable* when the covering grammar licenses its reading for none of the
readings of the token's gold class ("three kilogram" for `3kg` is recoverable: MEASURE licenses it; "thirty
eight" is not). Counted per gold class, apart for tokens whose predicted class was right and wrong, with
every such token listed beside its sentence. Where the text's tokens differ from the gold ones (raw text
tokenized), tokens are matched by alignment (`difflib`, equal runs only); gold tokens left unmatched cannot
be judged and are counted and listed as such, never passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

#: What `tnforge evaluate --raw --fail-on-unrecoverable` and `normalize --fail-on-unrecoverable` check.
GATE = "--fail-on-unrecoverable"


def aligned(tokens: Sequence[str], gold: Sequence[str]) -> tuple[list[tuple[int, int]], list[int]]:
    """(read token index, gold token index) pairs of the tokens the two tokenizations share, and the gold
    indices left unmatched."""
    if list(tokens) == list(gold):
        return [(i, i) for i in range(len(gold))], []
    pairs: list[tuple[int, int]] = []
    for tag, a0, a1, b0, _b1 in SequenceMatcher(None, list(tokens), list(gold), autojunk=False).get_opcodes():
        if tag == "equal":
            pairs += [(a0 + k, b0 + k) for k in range(a1 - a0)]
    matched = {j for _, j in pairs}
    return pairs, [j for j in range(len(gold)) if j not in matched]


def meaning_errors(readings: Sequence[Any], gold: Sequence[Any], judge: Any) -> dict[str, Any]:
    """The unrecoverable errors of `readings` (SentenceReading) against `gold` (GoldSentence), judged by
    `judge` (a batch judge: [(before, reading, class)] → [bool | None]); a verdict of None (the grammar failed
    on the token) counts as not judged."""
    candidates: list[dict[str, Any]] = []
    unmatched: list[dict[str, Any]] = []
    for reading, sentence in zip(readings, gold, strict=True):
        pairs, left = aligned(reading.tokens, sentence.tokens)
        for i, j in pairs:
            if reading.readings[i] != sentence.afters[j]:
                candidates.append({"source": sentence.source, "sentence_id": sentence.sentence_id,
                                   "before": sentence.tokens[j], "class": sentence.classes[j],
                                   "predicted_class": reading.classes[i], "gold": sentence.afters[j],
                                   "prediction": reading.readings[i],
                                   "route": reading.routes[i] if i < len(reading.routes) else "",
                                   "gold_sentence": sentence.spoken, "spoken": reading.spoken})
        if left:
            unmatched.append({"source": sentence.source, "sentence_id": sentence.sentence_id,
                              "tokens": [sentence.tokens[j] for j in left]})
    verdicts = judge([(c["before"], c["prediction"], c["class"]) for c in candidates]) if candidates else []
    errors = [c for c, verdict in zip(candidates, verdicts, strict=True) if verdict is False]
    failed = [c for c, verdict in zip(candidates, verdicts, strict=True) if verdict is None]
    by_class: dict[str, dict[str, int]] = {}
    for error in errors:
        counts = by_class.setdefault(error["class"], {"class_right": 0, "class_wrong": 0})
        counts["class_right" if error["predicted_class"] == error["class"] else "class_wrong"] += 1
    return {"unrecoverable": len(errors), "by_class": dict(sorted(by_class.items())), "errors": errors,
            "not_judged_tokens": sum(len(u["tokens"]) for u in unmatched) + len(failed),
            "not_judged": unmatched + [{"source": c["source"], "sentence_id": c["sentence_id"],
                                        "tokens": [c["before"]], "reason": "the grammar failed on it"}
                                       for c in failed]}


def meaning_markdown(found: dict[str, Any], row: str) -> str:
    """The unrecoverable errors of one row as Markdown: per gold class (predicted class right / wrong), then
    each error beside its sentence, then the tokens not judged."""
    lines = [f"## Unrecoverable errors: {row}", ""]
    if not found["unrecoverable"]:
        lines.append("None: every token read differently from the corpus has a reading the grammar licenses for "
                     "its gold class.")
    else:
        lines += ["| gold class | predicted class right | predicted class wrong |", "|---|---:|---:|"]
        lines += [f"| {cls} | {n['class_right']} | {n['class_wrong']} |" for cls, n in found["by_class"].items()]
        lines.append("")
        for e in found["errors"]:
            lines.append(f"- `{e['before']}` ({e['class']}, predicted {e['predicted_class']}): "
                         f"\"{e['prediction']}\", corpus \"{e['gold']}\" — {e['source']} sentence {e['sentence_id']}: "
                         f"\"{e['spoken']}\"" + (f" [{e['route']}]" if e["route"] else ""))
    if found["not_judged_tokens"]:
        lines += ["", f"Not judged: {found['not_judged_tokens']} gold token(s) in {len(found['not_judged'])} "
                      "sentence(s) (the text's tokens differ from the corpus's there, or the grammar failed): "
                  + "; ".join(f"{u['source']} {u['sentence_id']}: {' '.join(u['tokens'])}"
                              for u in found["not_judged"][:20])]
    return "\n".join(lines) + "\n"


def gate(row: dict[str, Any], name: str) -> tuple[bool, str]:
    """`--fail-on-unrecoverable` on one evaluated row: (passed, one line saying what was checked). Fails when
    the row has an unrecoverable error, or when nothing judged it (no grammar)."""
    found = row.get("meaning_errors")
    if found is None:
        return False, f"{GATE}: not checked — the covering grammar is off or unavailable, so nothing judged {name}"
    skipped = (f"; {found['not_judged_tokens']} gold token(s) not judged (tokenization differs)"
               if found["not_judged_tokens"] else "")
    if found["unrecoverable"]:
        classes = ", ".join(f"{cls} {n['class_right'] + n['class_wrong']}" for cls, n in found["by_class"].items())
        return False, f"{GATE}: {found['unrecoverable']} unrecoverable error(s) in {name} ({classes}){skipped}"
    return True, f"{GATE}: 0 unrecoverable errors in {name}{skipped}"
