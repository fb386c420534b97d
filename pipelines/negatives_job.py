"""Run `tnforge negatives` on a dataset directory: resolve the config, run the pipeline, summarize the counts.

Beam is imported only when the pipeline runs, so the config and the summary can be used without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tnforge.pipelines.negatives_config import NegativesConfig, resolve
from tnforge.progress import quiet_library_logs
from tnforge.schemas.negative_kinds import PAIR_TYPES, VOCAB_TYPES


def run_negatives_job(
    root: str | Path,
    config: NegativesConfig,
    pipeline_args: Sequence[str] = (),
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
    out: str | None = None,
) -> dict[str, Any]:
    """Generate the pairs of dataset directory `root` (into `out` when given, `root` then only read); return
    the manifest's new "negatives" section.

    Raises NegativesOptionError for an option that cannot work, ValueError / FileNotFoundError / RuntimeError
    when the run cannot start or fails."""
    from tnforge.errors import interrupt_says
    from tnforge.pipelines.negatives import run_negatives

    config = resolve(root, config)
    with quiet_library_logs(), interrupt_says(f"interrupted; no negatives were written to {out or root}"):
        return run_negatives(
            str(root), kinds=list(config.kinds), ratio=config.ratio, topk_from=config.topk_from,
            grammar=config.grammar, seed=int(config.seed or 0), shards=config.shards,
            pipeline_args=list(pipeline_args), cap=config.cap, progress=progress, workers=workers,
            trivial=config.trivial, units=config.units or None, out=out,
        )


def summary_table(section: dict[str, Any]) -> str:
    """The closing summary: pairs and vocabulary pairs per split and type."""
    splits = sorted(set(section["counts"]) | set(section["vocab_counts"]))
    plugins = sorted({t for counts in section["counts"].values() for t in counts} - set(PAIR_TYPES))
    pair_types = (*PAIR_TYPES, *plugins)  # a plug-in generator's kind gets its column too
    lines = [
        f"negatives: kinds {','.join(section['kinds'])}, ratio {section['ratio']}, cap {section['cap']}, "
        f"grammar {'on' if section.get('grammar') else 'off'}, trivial pairs {'on' if section.get('trivial') else 'off'}, "
        f"generator {section['generator_version']}",
        "",
        f"{'pairs':<8}" + "".join(f"{t:>12}" for t in (*pair_types, "total")),
    ]
    for split in splits:
        counts = section["counts"].get(split, {})
        lines.append(f"{split:<8}" + "".join(f"{counts.get(t, 0):>12,}" for t in pair_types) + f"{sum(counts.values()):>12,}")
    lines += ["", f"{'vocab':<8}" + "".join(f"{t:>12}" for t in (*VOCAB_TYPES, "total"))]
    for split in splits:
        counts = section["vocab_counts"].get(split, {})
        lines.append(
            f"{split:<8}" + "".join(f"{counts.get(t, 0):>12,}" for t in VOCAB_TYPES) + f"{sum(counts.values()):>12,}"
        )
    if section.get("grammar"):
        lines += ["", f"licensed by the covering grammar (kept as label 1): {section['licensed']:,}"]
    return "\n".join(lines)
