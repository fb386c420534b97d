"""`tnforge build`: corpus files in, a dataset directory of sharded Parquet out."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli.common import PassThroughCommand, parse_ratio
from tnforge.config import config_option, field_default
from tnforge.pipelines.build_config import BuildConfig, bundled_sample, parse_split_ratios
from tnforge.pipelines.negatives_config import NegativesConfig, NegativesOptionError, parse_kinds
from tnforge.schemas.negative_kinds import KINDS
from tnforge.splits import SPLIT_MODES


def _default(name: str) -> Any:
    return field_default(BuildConfig, name)


def _ratios(_ctx: click.Context, _param: click.Parameter, value: str | list | tuple) -> tuple[float, float, float]:
    try:
        return parse_split_ratios(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from error


@click.command(cls=PassThroughCommand, context_settings={"show_default": True})
@config_option
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--out", "-o", required=True, help="Output dataset directory (local or gs://).")
@click.option("--split", type=click.Choice(SPLIT_MODES), default=_default("split"),
              help="auto: standard split for files named output-000NN-of-00100, else a hash split.")
@click.option("--split-ratios", default=",".join(map(str, _default("split_ratios"))), callback=_ratios,
              help="train,dev,test shares of the hash split.")
@click.option("--window", default=_default("window"), type=click.IntRange(0, 50),
              help="Context tokens either side of the token.")
@click.option("--trivial-fraction", default=_default("trivial_fraction"), type=click.FloatRange(0, 1, min_open=True),
              help="Share of <self>/sil examples in the train split after down-sampling.")
@click.option("--measure-min-count", default=_default("measure_min_count"), type=click.IntRange(0),
              help="Up-sample MEASURE units rarer than this to it.")
@click.option("--cardinal-min-value", default=_default("cardinal_min_value"), type=click.IntRange(0),
              help="CARDINALs of at least this value form the big-number group.")
@click.option("--cardinal-target", default=_default("cardinal_target"), type=click.IntRange(0),
              help="Up-sample the big-CARDINAL group to this many examples.")
@click.option("--seed", default=_default("seed"), type=click.IntRange(0),
              help="Seed of the stable hashes behind splits and sampling.")
@click.option("--shards", default=_default("shards"), type=click.IntRange(0),
              help="Parquet shards per split (0: from input size).")
@click.option("--max-token-chars", default=_default("max_token_chars"), type=click.IntRange(1),
              help="Reject tokens longer than this.")
@click.option("--workers", default=1, type=click.IntRange(1), help="Local worker processes (Beam direct_num_workers).")
@click.option("--overwrite", is_flag=True, help="Replace the contents of a non-empty --out.")
@click.option("--allow-empty", is_flag=True, default=_default("allow_empty"),
              help="Commit the dataset even when no input record is valid (else: an error).")
@click.option("--validate", is_flag=True, help="Validate the result with Great Expectations at the end.")
@click.option("--negatives", default="", help=f"Also generate negatives of these kinds: {','.join(KINDS)}.")
@click.option("--ratio", default=f"{field_default(NegativesConfig, 'ratio'):g}",
              help="Negatives per positive: a number (3, 10) or 'all'.")
@click.option("--topk-from", default=None, help="Hypotheses Parquet (from `tnforge decode`) for top-k negatives.")
@click.option("--grammar/--no-grammar", default=field_default(NegativesConfig, "grammar"),
              help="Judge generated negatives with the covering grammar (default: when pynini is installed).")
@click.pass_context
def build(ctx: click.Context, inputs: tuple[str, ...], out: str, split: str, split_ratios, window: int,
          trivial_fraction: float, measure_min_count: int, cardinal_min_value: int, cardinal_target: int,
          seed: int, shards: int, max_token_chars: int, workers: int, overwrite: bool, allow_empty: bool,
          validate: bool, negatives: str, ratio: str, topk_from: str | None, grammar: bool | None) -> None:
    """Build a dataset directory from corpus files (Google TSV or Kaggle CSV; globs, .gz, gs://).

    Without INPUT, builds the bundled sample corpus. Arguments after `--` go to Beam, e.g. to run on
    Dataflow:

    \b
      tnforge build 'gs://bucket/en/output-*' --out gs://bucket/ds -- \\
        --runner=DataflowRunner --project=P --region=us-central1 --temp_location=gs://bucket/tmp

    \b
    Examples:
      tnforge build --out out/sample
      tnforge build data/output-000*-of-00100 --out out/en --workers 2
      tnforge build train.csv --out out/kaggle --split-ratios 0.8,0.1,0.1 --trivial-fraction 0.2
    """
    from tnforge.pipelines.build_job import run_build
    from tnforge.pipelines.manifest import summary_table

    config = BuildConfig(
        inputs=tuple(inputs) or (bundled_sample(),), out=out, split=split, split_ratios=split_ratios,
        window=window, trivial_fraction=trivial_fraction, measure_min_count=measure_min_count,
        cardinal_min_value=cardinal_min_value, cardinal_target=cardinal_target, seed=seed, shards=shards,
        max_token_chars=max_token_chars, allow_empty=allow_empty,
        pipeline_args=tuple(ctx.meta.get("pipeline_args", ())),
    )
    wanted = None
    if negatives.replace(",", "").strip():
        try:
            wanted = NegativesConfig(kinds=parse_kinds(negatives), ratio=parse_ratio(ratio), topk_from=topk_from,
                                     grammar=grammar, seed=seed)
        except NegativesOptionError as error:
            raise click.BadParameter(str(error), param_hint="--negatives") from error
    manifest = run_build(config, workers=workers, overwrite=overwrite)  # errors: one line (cli/lazy.py)
    if manifest is None:
        return
    click.echo(summary_table(manifest))
    if not manifest["accounting"]["reconciles"]:
        raise click.ClickException("the counts do not reconcile: see accounting in manifest.json")
    if wanted is not None:
        from tnforge.pipelines.negatives_job import run_negatives_job

        try:
            run_negatives_job(out, wanted, config.pipeline_args)
        except (ValueError, FileNotFoundError, RuntimeError) as error:
            raise click.ClickException(str(error)) from error
    if validate:
        from tnforge.validation import validate_directory

        report = validate_directory(out)
        click.echo(report.format_table())
        if not report.success:
            raise click.ClickException(f"validation failed: see {out}/validation/")
