"""`tnforge denormalize` and `tnforge denormalizer learn`: spoken text (as ASR writes it) → written text with an
inverse normalizer (`tnforge.InverseNormalizer`, the grammar route)."""

from __future__ import annotations

import click

from tnforge.cli import common


@common.command()
@click.option("--model", "-m", required=True, type=click.Path(exists=True, file_okay=False),
              help="Inverse normalizer folder (`tnforge denormalizer learn`).")
@click.argument("text", nargs=-1)
@click.option("--file", "-f", "source", default=None, help="Spoken sentences, one a line ('-': standard input).")
@click.option("--out", "-o", default="-", show_default=True,
              help="With --file: where the written sentences go, one a line ('-': standard output).")
def denormalize(model: str, text: tuple[str, ...], source: str | None, out: str) -> None:
    """Write spoken text back: "it weighs three kilograms" → "it weighs 3 kg". Each span of words a class's
    covering grammar reads back is written in the form the train split mostly used (or, in a folder learnt with
    --model or --tagger, as a model chooses in context among the forms the grammar licenses); the rest as spoken.

    With TEXT: each written token beside its spoken words, class and source, then the written sentence. With
    --file: one spoken sentence a line in, one written sentence a line out.

    \b
    Examples:
      tnforge denormalize --model runs/inverse "it weighs three kilograms"
      tnforge denormalize --model runs/inverse --file spoken.txt --out written.txt
    """
    from tnforge import InverseNormalizer
    from tnforge.reading.streams import denormalize_file

    if bool(text) == bool(source):
        raise click.UsageError("give either TEXT or --file (not both)")
    if out != "-" and not source:
        raise click.UsageError("--out goes with --file (TEXT is answered on standard output)")
    inverse = InverseNormalizer.load(model)
    if text:
        tokens = inverse.explain(" ".join(text))
        if not tokens:
            raise click.ClickException("nothing to denormalize: the text has no words")
        for token in tokens:
            click.echo(f"{token.written}\t{token.cls}\t{' '.join(token.words)}\t{token.source}")
        click.echo(" ".join(token.written for token in tokens))
        return
    click.echo(denormalize_file(inverse, source, out).describe(out), err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def denormalizer() -> None:
    """Inverse normalizers (spoken → written): learn one from a dataset.

    \b
    Example:
      tnforge denormalizer learn --data out/sample --out runs/inverse
    """


@denormalizer.command()
@common.data_option("Dataset directory (`tnforge build`) whose split is counted.", file_okay=False)
@click.option("--split", type=click.Choice(["train", "dev", "test"]), default="train", show_default=True,
              help="The split whose conventions are counted.")
@click.option("--out", "-o", required=True, type=click.Path(), help="The inverse normalizer folder to write.")
@click.option("--model", "-m", default=None, type=click.Path(exists=True),
              help="An inverse model (`tnforge train inverse`) that chooses among each span's licensed written forms.")
@click.option("--tagger", default=None, type=click.Path(exists=True), help="A span tagger (train span-tagger).")
@click.option("--overwrite", is_flag=True, default=False, help="Replace what --out holds.")
@common.click_errors()
def learn(data: str, split: str, out: str, model: str | None, tagger: str | None, overwrite: bool) -> None:
    """Count a dataset split's written conventions (per span of spoken words and per shape) into an inverse
    normalizer folder: inverse.json (versions, hashes) and conventions.json; --model/--tagger: model.pt/tagger.pt.

    \b
    Examples:
      tnforge denormalizer learn --data out/sample --out runs/inverse
      tnforge denormalizer learn --data out/sample --model runs/inverse-model --out runs/inverse-neural
    """
    from tnforge import InverseNormalizer

    inverse = InverseNormalizer.learn(data, split, model, tagger)
    path = inverse.save(out, overwrite)
    click.echo(f"{inverse!r} → {path}")
