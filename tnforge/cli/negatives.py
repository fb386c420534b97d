"""`tnforge negatives`: labelled pairs for the dual encoders, from an existing dataset directory."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.generators.negatives import kinds as registered_kinds
from tnforge.pipelines.negatives_config import NegativesConfig, NegativesOptionError, parse_kinds
from tnforge.pipelines.negatives_job import run_negatives_job, summary_table
from tnforge.progress import log

N = NegativesConfig()


@common.command(cls=common.PassThroughCommand)
@click.argument("directory", metavar="DIR", type=common.output_folder)
@click.option("--kinds", default=",".join(N.kinds),
              help=f"Negative kinds: {', '.join(registered_kinds())} (comma-separated).")
@common.ratio_option(f"{N.ratio:g}", "Negatives per positive: a number (3, 10) or 'all' (every candidate, "
                     "up to --cap).")
@click.option("--cap", default=N.cap, type=click.IntRange(1), help="Most negatives per input and split.")
@click.option("--topk-from", type=common.Location(), default=N.topk_from, help="Hypotheses Parquet (from `tnforge decode`) for topk.")
@click.option("--grammar/--no-grammar", default=N.grammar,
              help="Judge negatives with the covering grammar (default: when pynini and the grammar are installed).")
@click.option("--trivial/--no-trivial", default=N.trivial,
              help="Pairs for trivial tokens (<self>/sil, from DIR/examples) and an 'unread' <self> negative for the "
                   "others, so the dual encoders can judge trivial readings.")
@click.option("--seed", type=click.IntRange(0), default=N.seed, help="Seed of the stable hashes [default: the build's].")
@click.option("--shards", type=click.IntRange(0), default=N.shards,
              help="Parquet shards per split (0: as the build).")
@click.option("--units", type=click.IntRange(0), default=N.units,
              help="Work units (0: one per 50,000 distinct inputs); the files are the same for any count.")
@click.option("--workers", default=0, show_default=True, type=click.IntRange(0),
              help="Local worker processes (Beam direct_num_workers); 0: one per work unit, up to the CPU cores "
                   "(1.7–1.9 GB in all with 2 at 10M tokens; a small build runs in process). The files are the same "
                   "for any count.")
@click.option("--out", type=common.output_folder, default=None,
              help="Write the pairs and their manifest into this folder instead of DIR, which is then only read "
                   "(a dataset shared with others; `train voc-de|seq-de --data OUT` reads them).")
@click.pass_context
@common.grammar_language
def negatives(ctx: click.Context, directory: str, kinds: str, ratio: float | None, cap: int, topk_from: str | None,
              grammar: bool | None, trivial: bool, seed: int | None, shards: int, units: int, workers: int,
              out: str | None) -> None:
    """Generate labelled pairs for the dual encoders in a dataset directory DIR.

    Reads DIR/positives/ (written by `tnforge build`) and writes DIR/pairs/{split}/ (positives and
    typed negatives) and DIR/vocab_pairs/{split}/, with counts in DIR/manifest.json. Arguments after `--`
    go to Beam.

    \b
    Examples:
      tnforge negatives out/en --kinds synthetic,random --ratio 10
      tnforge negatives out/en --kinds synthetic,random,topk --ratio 3 --topk-from out/en/hyps.parquet
      tnforge negatives out/en --ratio all --cap 50 --no-grammar
      tnforge negatives out/en --kinds synthetic,random --out out/en-pairs
    """
    try:
        config = NegativesConfig(kinds=parse_kinds(kinds), ratio=ratio, cap=cap, topk_from=topk_from,
                                 grammar=grammar, trivial=trivial, seed=seed, shards=shards, units=units)
        section = run_negatives_job(directory, config, ctx.meta.get("pipeline_args", ()), workers, progress=log,
                                    out=out)
    except NegativesOptionError as error:
        raise click.BadParameter(str(error), param_hint=error.option) from error
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        raise click.ClickException(str(error)) from error
    click.echo(summary_table(section))
