"""`tnforge build`: corpus files in, a dataset directory of sharded Parquet out."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli import common
from tnforge.generators.negatives import kinds as registered_kinds
from tnforge.pipelines.build_config import BuildConfig, bundled_sample, parse_split_ratios
from tnforge.pipelines.negatives_config import NegativesConfig, parse_kinds
from tnforge.readers import FLAVOURS
from tnforge.splits import SPLIT_MODES

B, N = BuildConfig(inputs=(), out=""), NegativesConfig()


@common.command(cls=common.PassThroughCommand)
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--out", "-o", required=True, help="Output dataset directory (local or gs://).")
@click.option("--split", type=click.Choice(SPLIT_MODES), default=B.split,
              help="auto: standard split for files named output-000NN-of-00100, else a hash split.")
@click.option("--split-ratios", default=",".join(map(str, B.split_ratios)),
              callback=common.parsed_by(parse_split_ratios), help="train,dev,test shares of the hash split.")
@click.option("--window", default=B.window, type=click.IntRange(0, 50),
              help="Context tokens either side of the token.")
@click.option("--trivial-fraction", default=B.trivial_fraction, type=click.FloatRange(0, 1, min_open=True),
              help="Share of <self>/sil examples in the train split after down-sampling.")
@click.option("--trivial-min-count", default=B.trivial_min_count, type=click.IntRange(0),
              help="Keep at least this many <self>/sil train examples (all when there are fewer; 0: the share alone).")
@click.option("--measure-min-count", default=B.measure_min_count, type=click.IntRange(0),
              help="Up-sample MEASURE units rarer than this to it.")
@click.option("--cardinal-min-value", default=B.cardinal_min_value, type=click.IntRange(0),
              help="CARDINALs of at least this value form the big-number group.")
@click.option("--cardinal-target", default=B.cardinal_target, type=click.IntRange(0),
              help="Up-sample the big-CARDINAL group to this many examples.")
@click.option("--max-copy-share", default=B.max_copy_share, type=click.FloatRange(0, 1),
              help="Scale up-sampling targets down so copies stay at most this share of train examples (1: no cap).")
@click.option("--max-copies-per-token", default=B.max_copies_per_token, type=click.IntRange(0),
              help="At most this many up-sampling copies of one token (0: no cap).")
@click.option("--seed", default=B.seed, type=click.IntRange(0),
              help="Seed of the stable hashes behind splits and sampling.")
@click.option("--shards", default=B.shards, type=click.IntRange(0), help="Parquet shards per split (0: from input size).")
@click.option("--augment-sentences", default=B.augment_sentences, type=click.IntRange(0), metavar="N",
              help="Add N copies of each train sentence, its non-trivial tokens replaced by train tokens of the "
                   "same class with their readings (sentences dataset only; source SOURCE#augment-N).")
@click.option("--synthesize", default=B.synthesize, type=click.IntRange(0), metavar="N",
              help="About N grammar-synthesized train examples for each rare class (fewer than --synthesize-below "
                   "train tokens), placed into its train sentences, read as the train split's conventions choose "
                   "among the grammar's readings (examples and pairs; source SOURCE#synthesized; needs the grammar).")
@click.option("--synthesize-below", default=B.synthesize_below, type=click.IntRange(1), metavar="COUNT",
              help="A class is rare (for --synthesize) below this many train tokens.")
@click.option("--defer-to-first", is_flag=True, default=B.defer_to_first, help="Leave out later inputs' train tokens "
              "that the first input reads otherwise (kept as context); augmentation and synthesis learn from it alone.")
@click.option("--input-format", type=click.Choice(FLAVOURS), default=B.input_format,
              help="Input flavour: auto (per file: Kaggle header → csv, 2 fields → aligned, else tsv), tsv "
                   "(CLASS, before, after), csv, aligned (before, after: classes inferred).")
@click.option("--restore-tokens/--no-restore-tokens", default=B.restore_tokens,
              help="Aligned text: join pieces split on spaces back into one token where the covering grammar "
                   "licenses the joined reading (\"12\"/\"April\"/\"2015\" → one DATE).")
@click.option("--max-token-chars", default=B.max_token_chars, type=click.IntRange(1),
              help="Reject tokens longer than this.")
@click.option("--workers", default=None, type=click.IntRange(1),
              help="Local worker processes (Beam direct_num_workers) of the build and of --negatives [default: the "
                   "build 1, in this process; --negatives one per work unit up to the cores, as `tnforge negatives`].")
@click.option("--overwrite", is_flag=True, help="Replace the contents of a non-empty --out.")
@click.option("--allow-empty", is_flag=True, default=B.allow_empty,
              help="Commit the dataset even when no input record is valid (else: an error).")
@click.option("--validate", is_flag=True, help="Validate the result with Great Expectations at the end.")
@click.option("--negatives", default="", help=f"Also generate negatives of these kinds: {','.join(registered_kinds())}.",
              callback=common.parsed_by(lambda value: parse_kinds(value, required=False)))
@common.ratio_option(f"{N.ratio:g}", "Negatives per positive: a number (3, 10) or 'all'.")
@click.option("--topk-from", default=None, type=common.Location(), help="Hypotheses Parquet (from `tnforge decode`) for top-k negatives.")
@click.option("--grammar/--no-grammar", default=N.grammar,
              help="Judge generated negatives with the covering grammar (default: when pynini is installed).")
@click.pass_context
@common.grammar_language
def build(ctx: click.Context, inputs: tuple[str, ...], workers: int | None, overwrite: bool, validate: bool,
          negatives: tuple[str, ...], ratio: float | None, topk_from: str | None, grammar: bool | None,
          **options: Any) -> None:
    """Build a dataset directory from corpus files (Google TSV, Kaggle CSV or aligned text; globs, .gz, gs://).

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
      tnforge build ../shared/data/proteno_en/train.tsv --out out/proteno   # aligned text: classes inferred
    """
    from tnforge.pipelines.build_job import build_dataset

    config = BuildConfig(inputs=tuple(inputs) or (bundled_sample(),),
                         pipeline_args=tuple(ctx.meta.get("pipeline_args", ())), **options)
    wanted = NegativesConfig(kinds=negatives, ratio=ratio, topk_from=topk_from, grammar=grammar,
                             seed=config.seed) if negatives else None
    build_dataset(config, wanted, validate, workers=workers, overwrite=overwrite, echo=click.echo)
