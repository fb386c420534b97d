"""What goes into the build's manifest (what was built from what, and every count), and its summary table.

Reading and writing DIR/manifest.json is `tnforge.manifest`'s.
"""

from __future__ import annotations

import datetime as dt

from tnforge import __version__, schemas
from tnforge.grammars.adapter import language
from tnforge.manifest import mark_complete
from tnforge.pipelines.build_config import BuildConfig
from tnforge.progress import folded
from tnforge.sources import source_name
from tnforge.splits import STANDARD_TEST_LINES
from tnforge.token_blocks import FILE_LEVEL_REASONS


def make_manifest(config: BuildConfig, shards: int, state: dict, wall_time: float) -> dict:
    """Assemble manifest.json from the pipeline's final state (with the layout and the completion marker)."""
    splits = {}
    for split in schemas.SPLITS:
        tokens, examples = state["tokens"][split], state["examples"][split]
        splits[split] = {
            "sentences": tokens["sentences"],
            "tokens": tokens["tokens"],
            "trivial_tokens": tokens["trivial_tokens"],
            "examples": examples["examples"],
            "trivial_examples": examples["trivial_examples"],
            "sampled_out": examples["sampled_out"],
            "copies": examples["copies"],
        }
    rejects: dict[str, int] = {}
    for entry in state["files"]:
        for reason, count in entry["rejects"].items():
            rejects[reason] = rejects.get(reason, 0) + count
    records = sum(f["records"] for f in state["files"])
    kept = sum(sum(s["examples"].values()) - s["copies"] for s in splits.values())
    sampled_out = sum(s["sampled_out"] for s in splits.values())
    rejected = sum(n for reason, n in rejects.items() if reason not in FILE_LEVEL_REASONS)
    inference = class_inference(state["files"])
    joined = inference["restored_lines"] if inference else 0
    deferred = sum(state["examples"]["train"].get("deferred", {}).values())
    accounting = {
        "input_records": records,
        "kept": kept,
        "sampled_out": sampled_out,
        "excluded": state["excluded"],
        "rejected": rejected,
        "copies_added": sum(s["copies"] for s in splits.values()),
    }
    if inference:
        accounting["joined"] = joined  # aligned text's split pieces joined into the token before them
    if config.defer_to_first:
        accounting["deferred"] = deferred  # later inputs' train tokens the first input reads otherwise
    accounting["reconciles"] = records == kept + sampled_out + deferred + state["excluded"] + rejected + joined
    plan = state["plan"]
    measure_units = {k.split(":", 1)[1]: v for k, v in plan["upsampled"].items() if k.startswith("measure:")}
    datasets: dict[str, dict | int] = {}
    for dataset, split, _shard, rows in state["written"]:
        if dataset == "rejects":
            datasets["rejects"] = int(datasets.get("rejects", 0)) + rows
            continue
        per_split = datasets.setdefault(dataset, {s: 0 for s in schemas.SPLITS})
        per_split[split] += rows
    datasets.setdefault("rejects", 0)
    for name in ("examples", "sentences", "positive_pairs"):
        datasets.setdefault(name, {s: 0 for s in schemas.SPLITS})
    manifest = {
        "tnforge_version": __version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "wall_time_s": round(wall_time, 2),
        "config": {**config.as_dict(), "shards": shards},
        "inputs": state["files"],
        "accounting": accounting,
        "splits": splits,
        "sampling": {
            "trivial_keep_rate": plan["trivial_keep_rate"],
            "trivial_fraction": plan["trivial_fraction"],
            "trivial_target": plan.get("trivial_target", config.trivial_fraction),
            "trivial_tokens": plan["trivial_tokens"],
            "trivial_kept": plan["trivial_kept"],
            "measure_units": measure_units,
            "big_cardinals": plan["upsampled"].get("cardinal:big", {"tokens": 0, "examples": 0}),
            "copy_budget": {**plan["copy_budget"], "train_examples": sum(splits["train"]["examples"].values())},
        },
        "rejects_by_reason": dict(sorted(rejects.items())),
        "datasets": datasets,
        "grammar_language": language(),  # the covering grammar's (class inference); old manifests: "en"
    }
    if inference:
        manifest["class_inference"] = inference
    if config.augment_sentences:
        train = state["examples"]["train"]
        manifest["augmentation"] = {
            "copies": config.augment_sentences,
            "sentences": train.get("augmented_sentences", 0),
            "substituted": train.get("substituted", 0),
            "dropped_as_held_out": train.get("augmented_dropped", 0),
            "substitutes_per_class": state.get("substitutes", {}),
            "marked_by": "source SOURCE#augment-N (sentences dataset, train split only)",
        }
    if config.synthesize:
        manifest["synthesis"] = {
            "per_class": config.synthesize,
            "below": config.synthesize_below,
            "examples": state["examples"]["train"].get("synthesized", {}),
            "sentences": state["examples"]["train"].get("synthesized_sentences", 0),
            "sentences_dropped_as_held_out": state["examples"]["train"].get("synthesized_dropped", 0),
            **(state.get("synthesis") or {}),
        }
    if config.defer_to_first:
        manifest["deference"] = {
            "leading": state.get("leading", []),
            "deferred": state["examples"]["train"].get("deferred", {}),
            "left_out_of": "examples and positive pairs (train split); kept as context and in sentences",
        }
    if config.split == "standard":
        manifest["standard_split"] = {
            "test_source": "output-00099-of-00100",
            "test_lines": STANDARD_TEST_LINES,
            "test_tokens": sum(splits["test"]["tokens"].values()),
            "test_source_present": any(source_name(f["path"]).startswith("output-00099-of-00100")
                                       for f in state["files"]),
        }
    return mark_complete(manifest)


def class_inference(files: list[dict]) -> dict | None:
    """The manifest's `class_inference` section: the aligned-text inputs whose classes were inferred, and how
    (summed `tnforge.class_inference` counts); None when no input was aligned text."""
    aligned = [f for f in files if f.get("flavour") == "aligned"]
    if not aligned:
        return None
    counts: dict[str, int] = {}
    for entry in aligned:
        for key, n in (entry.get("class_inference") or {}).items():
            counts[key] = counts.get(key, 0) + n
    decided = counts.get("grammar", 0) + counts.get("fallback", 0)
    return {
        "inferred": True,
        "sources": [f["source"] for f in aligned],
        "licensed_by": sorted({f["class_grammar"] for f in aligned if f.get("class_grammar")}),
        "tokens": counts.get("self", 0) + counts.get("sil", 0) + decided,
        "trivial": {"self": counts.get("self", 0), "sil": counts.get("sil", 0)},
        "grammar": counts.get("grammar", 0),
        "fallback": counts.get("fallback", 0),
        "fallback_share": round(counts.get("fallback", 0) / decided, 6) if decided else 0.0,
        "fallback_by_class": _prefixed(counts, "fallback:"),
        "restored": counts.get("restored", 0),
        "restored_lines": counts.get("restored_lines", 0),
        "restored_by_class": _prefixed(counts, "restored:"),
    }


def _prefixed(counts: dict[str, int], prefix: str) -> dict[str, int]:
    return {k[len(prefix):]: n for k, n in sorted(counts.items()) if k.startswith(prefix)}


def inference_lines(section: dict) -> list[str]:
    """The summary's lines on inferred classes (aligned text)."""
    fallback = ", ".join(f"{c} {n:,}" for c, n in section["fallback_by_class"].items()) or "none"
    restored = ", ".join(f"{c} {n:,}" for c, n in section["restored_by_class"].items()) or "none"
    return [
        f"classes INFERRED (aligned text without classes: {', '.join(section['sources'])}): "
        f"{section['trivial']['self']:,} <self> → PLAIN/PUNCT, {section['trivial']['sil']:,} sil → PUNCT, "
        f"{section['grammar']:,} by the covering grammar, {section['fallback']:,} by shape rules "
        f"({section['fallback_share']:.2%}: {fallback})",
        f"  multi-word tokens restored: {section['restored']:,} from {section['restored'] + section['restored_lines']:,} "
        f"lines ({restored}); licensed by: {'; '.join(section['licensed_by']) or 'nothing (no token to judge)'}",
    ]


def summary_table(manifest: dict) -> str:
    """The closing table: counts per split and class, resampling effects and rejects."""
    splits = manifest["splits"]
    classes = [c for c in schemas.SEMIOTIC_CLASSES if any(splits[s]["tokens"].get(c) for s in splits)]
    header = f"{'class':<11}" + "".join(f"{s + ' tokens':>14}{s + ' examples':>16}" for s in schemas.SPLITS)
    lines = [header, "-" * len(header)]
    for cls in classes:
        cells = "".join(
            f"{splits[s]['tokens'].get(cls, 0):>14,}{splits[s]['examples'].get(cls, 0):>16,}" for s in schemas.SPLITS
        )
        lines.append(f"{cls:<11}{cells}")
    totals = "".join(
        f"{sum(splits[s]['tokens'].values()):>14,}{sum(splits[s]['examples'].values()):>16,}" for s in schemas.SPLITS
    )
    lines += ["-" * len(header), f"{'total':<11}{totals}", ""]
    sampling = manifest["sampling"]
    train = splits["train"]
    lines.append(
        f"train: trivial tokens kept {sampling['trivial_kept']:,} of {sampling['trivial_tokens']:,} "
        f"(rate {sampling['trivial_keep_rate']:.4f}) → trivial share of train examples "
        f"{sampling['trivial_fraction']:.2%} ({trivial_target_text(manifest)})"
    )
    budget = sampling.get("copy_budget") or {}
    synthesized = (manifest.get("synthesis") or {}).get("examples") or {}
    upsampled = train["copies"] - sum(synthesized.values())  # the copies count synthesized examples too
    if budget:
        lines.append(f"  {copies_line(budget, upsampled, sum(train['examples'].values()))}")
    else:
        lines.append(f"  up-sampling copies {upsampled:,}")
    units = sorted(sampling["measure_units"].items(), key=lambda item: (-item[1]["examples"], item[0]))
    lines += folded([f"  MEASURE unit {unit!r}: {upsampling_line(group, budget)}" for unit, group in units],
                    "MEASURE units", "manifest.json, sampling.measure_units")
    big = sampling["big_cardinals"]
    if big.get("tokens"):
        lines.append(f"  CARDINAL ≥ {manifest['config']['cardinal_min_value']:,}: {upsampling_line(big, budget)}")
    if manifest.get("class_inference"):
        lines += inference_lines(manifest["class_inference"])
    augmented = manifest.get("augmentation")
    if augmented:
        lines.append(
            f"augmented train sentences (--augment-sentences {augmented['copies']}): {augmented['sentences']:,} "
            f"written ({augmented['substituted']:,} tokens substituted; {augmented['dropped_as_held_out']:,} left out "
            f"as they read like a dev/test sentence); sentences only, source SOURCE#augment-N")
    synthesis = manifest.get("synthesis")
    if synthesis:
        placed = ", ".join(f"{cls} {n:,}" for cls, n in sorted(synthesis["examples"].items()))
        lines.append(
            f"synthesized train examples (--synthesize {synthesis['per_class']}, classes below "
            f"{synthesis['below']} train tokens): {sum(synthesis['examples'].values()):,} ({placed or 'none'}); "
            "examples and positive pairs, source SOURCE#synthesized, counted in the copies of the accounting; the "
            f"same tokens in {synthesis.get('sentences', 0):,} train sentences ("
            f"{synthesis.get('sentences_dropped_as_held_out', 0):,} left out as they read like a dev/test sentence), "
            "source SOURCE#synthesized-N")
    deference = manifest.get("deference")
    if deference:
        left = ", ".join(f"{cls} {n:,}" for cls, n in sorted(deference["deferred"].items()))
        lines.append(
            f"deferred to the first input ({', '.join(deference['leading'])}; --defer-to-first): "
            f"{sum(deference['deferred'].values()):,} train tokens of later inputs that it reads otherwise "
            f"({left or 'none'}); left out of examples and pairs, kept as context and in sentences")
    acc = manifest["accounting"]
    joined = f" + joined {acc['joined']:,}" if "joined" in acc else ""
    deferred = f" + deferred {acc['deferred']:,}" if "deferred" in acc else ""
    lines.append(
        f"records {acc['input_records']:,} = kept {acc['kept']:,} + sampled out {acc['sampled_out']:,}{deferred} + "
        f"excluded {acc['excluded']:,} + rejected {acc['rejected']:,}{joined}  "
        f"[{'reconciles' if acc['reconciles'] else 'DOES NOT RECONCILE'}]"
    )
    if manifest["rejects_by_reason"]:
        lines.append(rejects_line(manifest))
    return "\n".join(lines)


def trivial_target_text(manifest: dict) -> str:
    """"target 10.00%", or how `--trivial-min-count` raised it (or kept every trivial token)."""
    config, sampling = manifest["config"], manifest["sampling"]
    fraction, target = config["trivial_fraction"], sampling.get("trivial_target", config["trivial_fraction"])
    text = f"target {fraction:.2%}"
    least = config.get("trivial_min_count", 0)
    if target > fraction and sampling["trivial_kept"] < least:
        text += f"; all kept: fewer than --trivial-min-count {least:,}"
    elif target > fraction:
        text += f", raised to {target:.2%} to keep --trivial-min-count {least:,}"
    return text


def copies_line(budget: dict, copies: int, train_examples: int) -> str:
    """How many up-sampling copies the caps allowed, against what the targets wanted."""
    share = f"{copies / train_examples:.1%}" if train_examples else "0%"
    caps = [f"≤ {budget['max_copy_share']:.0%} of train" if budget["max_copy_share"] < 1 else "",
            f"≤ {budget['max_copies_per_token']:,} per token" if budget["max_copies_per_token"] else ""]
    caps_text = "; ".join(c for c in caps if c) or "none (absolute targets)"
    return (f"up-sampling copies {copies:,} = {share} of train examples (caps: {caps_text}; "
            f"the configured targets wanted {budget['wanted_copies']:,})")


def upsampling_line(group: dict, budget: dict) -> str:
    """"N tokens → M examples", and why M is not the configured target when a cap lowered it."""
    tokens = f"{group['tokens']:,} token{'s' if group['tokens'] != 1 else ''} → {group['examples']:,} examples"
    why = group.get("limited_by")
    if why == "max_copy_share":
        return f"{tokens} (target {group['target']:,} scaled to keep copies ≤ {budget['max_copy_share']:.0%} of train)"
    if why == "max_copies_per_token":
        return f"{tokens} (target {group['target']:,} capped at {budget['max_copies_per_token']:,} copies per token)"
    return tokens


def rejects_line(manifest: dict) -> str:
    """"rejects: REASON N, …" of a manifest ('' when nothing was rejected)."""
    reasons = ", ".join(f"{r} {n:,}" for r, n in manifest["rejects_by_reason"].items())
    return f"rejects: {reasons}" if reasons else ""
