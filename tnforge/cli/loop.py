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

    beam_run = common.on_beam()
    pipeline_args = tuple(beam_run[1]) if beam_run else ()
    if beam_run and dry_run(model, data, out, device, threads, config, pipeline_args):
        return
    if beam_run:
        from tnforge.pipelines.runner import pipeline_options, require_shared

        require_shared(pipeline_options(list(pipeline_args)), {"dataset directory": data, "work folder": out})
    rows = run_loop(loaded, data, out, functools.partial(regenerate_negatives, pipeline_args=pipeline_args), config,
                    judge, common.token_progress, on_round=report,
                    decoding=beam_decoding(model, device, threads, config, pipeline_args) if beam_run else None)
    title = f"Adversarial loop of {loaded.path} on {data} ({config.split}, λ={config.weight:g})"
    markdown, paths = write_loop(rows, out, title)
    click.echo(markdown.rstrip())
    click.echo(f"\n{note}. " + ", ".join(str(p) for p in paths))


def beam_decoding(model: str, device: str, threads: int, config: LoopConfig, pipeline_args: tuple[str, ...]) -> Any:
    """The loop's decoding on Beam (`pipelines.inference.BeamDecoding`) with the loop's model and settings."""
    from tnforge.pipelines.inference import BeamDecoding, DecodeSpec

    spec = DecodeSpec(model, device, threads, weight=config.weight, beam=config.beam, top_k=config.top_k)
    return BeamDecoding(spec, pipeline_args, config.batch_size)


def dry_run(model: str, data: str, out: str, device: str, threads: int, config: LoopConfig,
            pipeline_args: tuple[str, ...]) -> bool:
    """For Dataflow's `--dry_run=True`: build the first round's decode job graph (nothing is submitted, read from
    or written to --out), say so, and return True; else False."""
    from tnforge.filesystems import join
    from tnforge.pipelines.runner import is_dry_run, pipeline_options
    from tnforge.trainers.adversarial_loop import check_source
    from tnforge.trainers.kernel.examples import example_files

    if not is_dry_run(pipeline_options(list(pipeline_args))):
        return False
    check_source(data, config)
    decoding = beam_decoding(model, device, threads, config, pipeline_args)
    decoding.hypotheses(example_files(data, "train"), join(out, "round-1", "hypotheses"), None)
    click.echo(f"dry run: the loop's first decode job graph was built; nothing was decoded, trained or written "
               f"to {out}")
    return True
