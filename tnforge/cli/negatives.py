"""`tnforge negatives`: labelled pairs for the dual encoders, from an existing dataset directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from tnforge.cli.common import PassThroughCommand, parse_ratio
from tnforge.config import config_option

KINDS = ("synthetic", "random", "topk")
TYPES = ("positive", "synthetic", "random", "topk")
VOCAB_TYPES = ("positive", "class", "global", "topk", "unread")


def parse_kinds(value: str) -> list[str]:
    """"synthetic,random" → ["synthetic", "random"], checked."""
    kinds = [k.strip() for k in value.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise click.BadParameter(
            f"{value!r}: choose one or more of {', '.join(KINDS)} (comma-separated)", param_hint="--kinds"
        )
    return kinds


def _build_settings(directory: str) -> dict[str, Any]:
    path = Path(directory) / "manifest.json"
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise click.ClickException(f"{path}: not valid JSON: {error}") from error
    return manifest.get("config", {}) if isinstance(manifest, dict) else {}


def summary_table(section: dict[str, Any]) -> str:
    """The closing summary: pairs and vocabulary pairs per split and type."""
    splits = sorted(set(section["counts"]) | set(section["vocab_counts"]))
    lines = [
        f"negatives: kinds {','.join(section['kinds'])}, ratio {section['ratio']}, cap {section['cap']}, "
        f"grammar {'on' if section.get('grammar') else 'off'}, trivial pairs {'on' if section.get('trivial') else 'off'}, "
        f"generator {section['generator_version']}",
        "",
        f"{'pairs':<8}" + "".join(f"{t:>12}" for t in (*TYPES, "total")),
    ]
    for split in splits:
        counts = section["counts"].get(split, {})
        lines.append(f"{split:<8}" + "".join(f"{counts.get(t, 0):>12,}" for t in TYPES) + f"{sum(counts.values()):>12,}")
    lines += ["", f"{'vocab':<8}" + "".join(f"{t:>12}" for t in (*VOCAB_TYPES, "total"))]
    for split in splits:
        counts = section["vocab_counts"].get(split, {})
        lines.append(
            f"{split:<8}" + "".join(f"{counts.get(t, 0):>12,}" for t in VOCAB_TYPES) + f"{sum(counts.values()):>12,}"
        )
    if section.get("grammar"):
        lines += ["", f"licensed by the covering grammar (kept as label 1): {section['licensed']:,}"]
    return "\n".join(lines)


@click.command(cls=PassThroughCommand, context_settings={"show_default": True})
@config_option
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--kinds", default="synthetic,random", help="Negative kinds: synthetic, random, topk (comma-separated).")
@click.option("--ratio", default="10", help="Negatives per positive: a number (3, 10) or 'all' (every candidate, up to --cap).")
@click.option("--cap", default=100, type=click.IntRange(1), help="Most negatives per input and split.")
@click.option("--topk-from", type=click.Path(), default=None, help="Hypotheses Parquet (from `tnforge decode`) for topk.")
@click.option("--grammar/--no-grammar", default=None,
              help="Judge negatives with the covering grammar (default: when pynini and the grammar are installed).")
@click.option("--trivial/--no-trivial", default=True,
              help="Pairs for trivial tokens (<self>/sil, from DIR/examples) and an 'unread' <self> negative for the "
                   "others, so the dual encoders can judge trivial readings.")
@click.option("--seed", type=click.IntRange(0), default=None, help="Seed of the stable hashes [default: the build's].")
@click.option("--shards", type=click.IntRange(0), default=0, help="Parquet shards per split (0: as the build).")
@click.option("--workers", default=1, type=click.IntRange(1), help="Local worker processes (Beam direct_num_workers).")
@click.pass_context
def negatives(ctx: click.Context, directory: str, kinds: str, ratio: str, cap: int, topk_from: str | None,
              grammar: bool | None, trivial: bool, seed: int | None, shards: int, workers: int) -> None:
    """Generate labelled pairs for the dual encoders in a dataset directory DIR.

    Reads DIR/pairs/positive/ (written by `tnforge build`) and writes DIR/pairs/{split}/ (positives and
    typed negatives) and DIR/vocab_pairs/{split}/, with counts in DIR/manifest.json. Arguments after `--`
    go to Beam.

    \b
    Examples:
      tnforge negatives out/en --kinds synthetic,random --ratio 10
      tnforge negatives out/en --kinds synthetic,random,topk --ratio 3 --topk-from out/en/hyps.parquet
      tnforge negatives out/en --ratio all --cap 50 --no-grammar
    """
    from tnforge.progress import log

    kind_list = parse_kinds(kinds)
    number = parse_ratio(ratio)
    if "topk" in kind_list and not topk_from:
        raise click.BadParameter("the 'topk' kind needs --topk-from HYPOTHESES.parquet", param_hint="--kinds")
    if topk_from and "topk" not in kind_list:
        kind_list.append("topk")
    if topk_from and not Path(topk_from).exists():
        raise click.BadParameter(f"{topk_from}: no such file", param_hint="--topk-from")
    if not Path(directory).is_dir():
        raise click.BadParameter(f"{directory}: no such dataset directory", param_hint="DIR")
    build = _build_settings(directory)
    seed = seed if seed is not None else int(build.get("seed", 0))
    if not shards:
        shards = int(build.get("shards") or 0) or _positive_shards(directory)

    from tnforge.pipelines.negatives import run_negatives

    try:
        section = run_negatives(
            directory, kinds=kind_list, ratio=number, topk_from=topk_from, grammar=grammar, seed=seed,
            shards=shards, pipeline_args=list(ctx.meta.get("pipeline_args", ())), cap=cap, progress=log,
            workers=workers, trivial=trivial,
        )
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        raise click.ClickException(str(error)) from error
    click.echo(summary_table(section))


def _positive_shards(directory: str) -> int:
    """Shards per split of the positive pairs (the most in any split), or 1."""
    base = Path(directory) / "pairs" / "positive"
    counts = [len(list(p.glob("part-*.parquet"))) for p in base.iterdir() if p.is_dir()] if base.is_dir() else []
    return max(counts, default=0) or 1
