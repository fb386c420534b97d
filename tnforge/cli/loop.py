"""`tnforge loop`: the adversarial top-k loop (`trainers.adversarial_loop.run_loop`), given its Beam step
(`pipelines.negatives.regenerate_negatives`) and, with Beam options after `--`, its decoding on Beam
(`pipelines.inference.BeamDecoding`)."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli import common
from tnforge.trainers.adversarial_loop import LoopConfig

DEFAULTS = LoopConfig()


@common.command(cls=common.PassThroughCommand, interrupted=lambda o: f"interrupted; {o['out']} holds the rounds finished before it (round-N/), "
                "not the loop's table (loop.md, loop.json)")
@common.model_option
@common.data_option("Dataset directory built by `tnforge build`, local or gs:// (only read).", file_okay=False)
@click.option("--rounds", default=DEFAULTS.rounds, type=click.IntRange(1), help="Adversarial rounds.")
@click.option("--split", default=DEFAULTS.split, help="Split evaluated after each round.")
@click.option("--top-k", default=DEFAULTS.top_k, type=click.IntRange(1), help="Hypotheses per training input.")
@common.ratio_option(f"{DEFAULTS.ratio:g}", "Negatives per positive when regenerating ('all' for every candidate).")
@common.weight_option(DEFAULTS.weight, "Vocabulary filter weight λ.")
@common.epochs_option(DEFAULTS.epochs, "Epochs of each filter retraining.")
@common.decoding_options
@common.out_option(type=common.output_folder,
                   help="Work folder, local or gs://: data/ (regenerated pairs), round-N/ (hypotheses, filter, "
                        "round.json), loop.md, loop.json.")
@common.runtime_options
def loop(model: str, data: str, out: str, device: str, threads: int, **options: Any) -> None:
    """The adversarial loop: decode the train split for top-k → regenerate top-k negatives → retrain the
    vocabulary filter → decode --split with it; N rounds, one table row per round. Run again with the same
    --out, the loop resumes after its last finished round. Arguments after `--` go to Beam: the decoding and
    the negatives then run as Beam pipelines (the filters are trained here).

    \b
    Examples:
      tnforge loop --model runs/s2s --data out/sample --rounds 3 --out runs/loop
      tnforge loop --model runs/s2s --data gs://b/sample --out gs://b/loop -- --runner=PortableRunner …
    """
    import functools

    from tnforge.grammars import adapter
    from tnforge.pipelines.negatives import regenerate_negatives
    from tnforge.trainers.adversarial_loop import round_note, rounds_so_far, run_loop, write_loop

    config = LoopConfig(**options)
    loaded = common.load_model(model, device, threads)
    judge, note = adapter.judge()
    done: list[dict[str, Any]] = []

    def report(row: dict[str, Any]) -> None:
        done.append(row)
        click.echo(round_note(row), err=True)
        click.echo(rounds_so_far(done, config).rstrip() + "\n")

    beam_run, decoding = common.on_beam(), None
    if beam_run:  # decoding on Beam; a Dataflow dry run builds the first round's decode graph and stops
        from tnforge.pipelines.inference import DRY_RUN, loop_decoding
        from tnforge.trainers.adversarial_loop import check_source
        from tnforge.trainers.kernel.examples import example_files

        check_source(data, config)
        if (decoding := loop_decoding(*beam_run, example_files(data, "train"))) is None:
            return click.echo(DRY_RUN.format(out=out))
    rows = run_loop(loaded, data, out, functools.partial(regenerate_negatives, pipeline_args=tuple(
        beam_run[1]) if beam_run else ()), config, judge, common.token_progress, on_round=report, decoding=decoding)
    title = f"Adversarial loop of {loaded.path} on {data} ({config.split}, λ={config.weight:g})"
    markdown, paths = write_loop(rows, out, title)
    click.echo(markdown.rstrip())
    click.echo(f"\n{note}. " + ", ".join(str(p) for p in paths))

