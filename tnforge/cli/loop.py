"""`tnforge loop`: the adversarial top-k loop (`trainers.adversarial_loop.run_loop`); this command passes
in the Beam step, regenerating negatives with `pipelines.negatives`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from tnforge.cli import common
from tnforge.config import config_option
from tnforge.trainers.adversarial_loop import LoopConfig

DEFAULTS = LoopConfig()


def _regenerate(dataset: Path, kinds: Sequence[str], ratio: float | None, hypotheses: Path, seed: int) -> None:
    from tnforge.pipelines.negatives import run_negatives

    run_negatives(str(dataset), list(kinds), ratio, str(hypotheses), None, seed, 1, [])


@click.command(context_settings={"show_default": True})
@config_option
@common.model_option
@click.option("--data", "-d", required=True, type=click.Path(exists=True, file_okay=False), callback=common.dataset_input,
              help="Dataset directory built by `tnforge build` (it is not modified).")
@click.option("--rounds", default=DEFAULTS.rounds, type=click.IntRange(1), help="Adversarial rounds.")
@click.option("--split", default=DEFAULTS.split, help="Split evaluated after each round.")
@click.option("--top-k", default=DEFAULTS.top_k, type=click.IntRange(1), help="Hypotheses per training input.")
@click.option("--ratio", default=f"{DEFAULTS.ratio:g}",
              help="Negatives per positive when regenerating ('all' for every candidate).")
@common.weight_option("Vocabulary filter weight λ.")
@click.option("--epochs", default=DEFAULTS.epochs, type=click.IntRange(1), help="Epochs of each filter retraining.")
@common.decoding_options
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Work folder: data/ (regenerated pairs), round-N/ (hypotheses, filter), loop.md, loop.json.")
@common.runtime_options
def loop(model: str, data: str, rounds: int, split: str, top_k: int, ratio: str, weight: float, epochs: int, beam: int,
         batch_size: int, out: str, device: str, threads: int) -> None:
    """The adversarial loop: decode the train split for top-k → regenerate top-k negatives → retrain the
    vocabulary filter → decode --split with it; N rounds, one table row per round.

    \b
    Example:
      tnforge loop --model runs/s2s --data out/sample --rounds 3 --out runs/loop
    """
    from tnforge.filesystems import write_text_files
    from tnforge.trainers.adversarial_loop import loop_markdown, run_loop

    config = LoopConfig(rounds=rounds, split=split, top_k=top_k, ratio=common.parse_ratio(ratio), weight=weight,
                        epochs=epochs, beam=beam, batch_size=batch_size)
    loaded = common.load_seq2seq(model, device, threads)
    judge, note = common.grammar_judges(None)
    done: list[dict[str, Any]] = []

    def report(row: dict[str, Any]) -> None:
        done.append(row)
        click.echo(f"round {row['round']}: {row['errors']} errors ({row.get('unrecoverable')} unrecoverable), "
                   f"filter dev AUC {row.get('filter_auc') or float('nan'):.4f}", err=True)
        click.echo(loop_markdown(done, f"Adversarial loop after round {row['round']} ({split}, λ={weight:g})").rstrip()
                   + "\n")

    with common.click_errors():
        rows = run_loop(loaded, Path(data), Path(out), _regenerate, config, judge, common.token_progress, on_round=report)
    markdown = loop_markdown(rows, f"Adversarial loop of {loaded.path} on {data} ({split}, λ={weight:g})")
    paths = write_text_files(out, {"loop.md": markdown, "loop.json": json.dumps(rows, indent=2) + "\n"})
    click.echo(markdown.rstrip())
    click.echo(f"\n{note}. " + ", ".join(str(p) for p in paths))
