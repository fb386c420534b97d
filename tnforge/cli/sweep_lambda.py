"""`tnforge sweep-lambda`: errors per class against λ (`trainers.evaluation.constraint_runs.run_sweep`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.constraint_sets import parse_weights


@common.command("sweep-lambda", interrupted=common.nothing_written("out", "the sweep"))
@common.model_and_data
@click.option("--split", default="dev", help="Split decoded at every λ.")
@click.option("--seq-de", default=None, type=click.Path(exists=True), help="Sequence dual encoder run.")
@click.option("--voc-de", default=None, type=click.Path(exists=True), help="Vocabulary filter run.")
@click.option("--lambdas", default="0,1,2,5,10,20", callback=common.parsed_by(parse_weights), help="λ values, comma-separated.")
@common.decoding_options
@common.out_option(help="Folder for sweep.md, sweep.json and sweep.png.")
@common.runtime_options
def sweep_lambda(model: str, data: str, split: str, seq_de: str | None, voc_de: str | None, lambdas: list[float], beam: int,
                 batch_size: int, out: str, device: str, threads: int) -> None:
    """Decode a split with the dual-encoder constraints at several λ and plot error rate per class against λ.

    \b
    Example:
      tnforge sweep-lambda --model runs/s2s --data out/sample --seq-de runs/seq-de --voc-de runs/voc-de \\
          --lambdas 0,1,2,5,10,20 --out runs/sweep
    """
    from tnforge.grammars import adapter
    from tnforge.trainers.evaluation.comparison import fewest_errors
    from tnforge.trainers.evaluation.constraint_runs import run_sweep, write_sweep

    if not seq_de and not voc_de:
        raise click.UsageError("give --seq-de and/or --voc-de: there is nothing to weigh")
    loaded, files = common.load_model(model, device, threads, data, split)
    judge, note = adapter.judge()
    rows = run_sweep(loaded, files, split, lambdas, seq_de, voc_de, judge, beam, batch_size, common.token_progress,
                     on_decoded=lambda label, n, s: click.echo(f"{label}: {n:,} tokens in {s:.1f} s", err=True))
    markdown, paths = write_sweep(rows, out, f"λ sweep of {loaded.path} on {data} ({split})")
    click.echo(markdown.rstrip())
    click.echo(f"\n{fewest_errors(rows)}; {note}. " + ", ".join(str(p) for p in paths))
