"""`tnforge normalizer assemble`: one normalizer run directory from a model run, a tagger run and the grammar
choice (`trainers.normalizer_run`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.defaults import CONFIDENCE, THRESHOLD


@click.group()
def normalizer() -> None:
    """Normalizer run directories: what `tnforge normalize --model NORMALIZER` reads raw text with."""


@normalizer.command("assemble", context_settings={"show_default": True})
@click.option("--model", "--seq2seq", "-m", required=True, type=click.Path(exists=True),
              help="Decoder model run (seq2seq or another family's) or checkpoint file.")
@click.option("--tagger", "-t", required=True, type=click.Path(exists=True), help="Tagger run (`train tagger`).")
@common.out_option(help="Normalizer run directory to write (normalizer.json, model/, tagger/).")
@click.option("--grammar/--no-grammar", default=True,
              help="Guard the readings with the covering grammar (pynini); without it nothing guards their meaning.")
@click.option("--confidence", default=CONFIDENCE, type=click.FloatRange(0, 1),
              help="Calibrated tagger probability from which a token's first class is taken alone; below it the "
                   "token is read within its likely classes.")
@click.option("--threshold", default=THRESHOLD, type=click.FloatRange(0),
              help="Tagger probability from which PLAIN/PUNCT tokens are read as written.")
@click.option("--overwrite", is_flag=True, help="Replace the normalizer in a non-empty --out.")
def assemble(model: str, tagger: str, out: str, grammar: bool, confidence: float, threshold: float,
             overwrite: bool) -> None:
    """Assemble a normalizer: the model's checkpoint and the tagger copied into OUT, with a manifest of their
    versions and sha256 hashes, the grammar's version and the routing settings.

    \b
    Examples:
      tnforge normalizer assemble --model runs/s2s --tagger runs/tagger --out runs/normalizer
      tnforge normalize --model runs/normalizer "Train 540 leaves at 4:45"
    """
    from tnforge.grammars import adapter
    from tnforge.trainers.normalizer_run import assemble as build

    with common.click_errors(), common.grammar_errors("--grammar"):
        version = adapter.resolve(True) and adapter.version() if grammar else None
        written, notes = build(model, tagger, out, version, confidence, threshold, overwrite)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"normalizer → {written} (tnforge normalize --model {written} TEXT)")
