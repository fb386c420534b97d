"""`tnforge normalizer assemble`: one normalizer run directory from a model run, a tagger run and the grammar
choice (`tnforge.Normalizer.save`)."""

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
@common.grammar_language
def assemble(model: str, tagger: str, out: str, grammar: bool, confidence: float, threshold: float,
             overwrite: bool) -> None:
    """Assemble a normalizer: the model's checkpoint and the tagger copied into OUT, with a manifest of their
    versions and sha256 hashes, the grammar's version and the routing settings, and a model card
    (MODEL_CARD.md: training data, figures, licence, intended use, limitations). From Python:
    `Normalizer.load(MODEL, tagger=TAGGER).save(OUT)`.

    \b
    Examples:
      tnforge normalizer assemble --model runs/s2s --tagger runs/tagger --out runs/normalizer
      tnforge normalize --model runs/normalizer "Train 540 leaves at 4:45"
    """
    from tnforge.reading.assembly import is_normalizer

    if is_normalizer(model):
        raise click.ClickException(f"{model} is already a normalizer: --model takes a decoder model run")
    normalizer = common.open_reader(model, tagger, "cpu", 0, guard=grammar, confidence=confidence,
                                    threshold=threshold)
    with common.click_errors():
        written, notes = normalizer.save(out, overwrite=overwrite)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"normalizer → {written} (tnforge normalize --model {written} TEXT; from Python: "
               f"Normalizer.load({str(written)!r}))")
