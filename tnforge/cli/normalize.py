"""`tnforge normalize`: normalize plain text with a seq2seq model (`trainers.decoding.text_tokenizer`)."""

from __future__ import annotations

import click

from tnforge.cli import common


@common.command()
@common.model_option
@click.argument("text", nargs=-1, required=True)
@common.beam_option
@common.runtime_options
def normalize(model: str, text: tuple[str, ...], beam: int, device: str, threads: int) -> None:
    """Normalize plain text: tokenize it like the corpus, decode every token, print readings and speech.

    \b
    Example:
      tnforge normalize --model runs/s2s "Train 540 leaves at 4:45"
    """
    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.decoding.text_tokenizer import reading_table, sentence_windows, tokenize

    tokens = tokenize(" ".join(text))
    if not tokens:
        raise click.ClickException("nothing to normalize: the text has no tokens")
    loaded = common.load_seq2seq(model, device, threads)
    click.echo(reading_table(tokens, decode_windows(loaded, sentence_windows(tokens), beam=beam)))
