"""`tnforge normalize`: raw text → spoken text with a seq2seq model and an optional tagger (`trainers.normalize`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.defaults import THRESHOLD


@common.command(interrupted=lambda o: "interrupted; " + (f"nothing was written to {o['out']}" if o["source"] and o["out"] != "-"
                                                       else "the sentences answered before it are complete"))
@common.model_option
@click.argument("text", nargs=-1)
@click.option("--file", "-f", "source", default=None, help="Sentences to normalize, one a line ('-': standard input).")
@click.option("--out", "-o", default="-", show_default=True,
              help="With --file: where the spoken sentences go, one a line ('-': standard output).")
@click.option("--tagger", "-t", default=None, type=click.Path(exists=True),
              help="Tagger run: predicts each token's class (confident PLAIN/PUNCT tokens skip the seq2seq).")
@click.option("--grammar-constraint", is_flag=True, default=False,
              help="Hard covering-grammar mask by each token's predicted class (needs --tagger).")
@click.option("--threshold", default=THRESHOLD, type=click.FloatRange(0),
              help="Tagger probability from which PLAIN/PUNCT tokens are read as written (above 1: never).")
@click.option("--corpus-letters", is_flag=True, default=False,
              help="Write readings as the corpus does: URLs spelt b_letter a_letter ..., not as words (ba ...), and "
                   "the pause marker sil inside readings (telephone numbers) kept.")
@common.decoding_options
@common.progress_option(True, help="Progress bar on stderr for --file.")
@common.runtime_options
def normalize(model: str, text: tuple[str, ...], source: str | None, out: str, tagger: str | None,
              grammar_constraint: bool, threshold: float, corpus_letters: bool, beam: int, batch_size: int,
              progress: bool, device: str, threads: int) -> None:
    """Normalize raw text: tokenize it like the corpus, tag each token's class (--tagger), decode the tokens
    that need it, and print the spoken text.

    With TEXT: one sentence, each token beside its class and reading, then the spoken sentence. With
    --file: one sentence a line in, one spoken sentence a line out (an empty line for an empty one).

    \b
    Examples:
      tnforge normalize --model runs/s2s "Train 540 leaves at 4:45"
      tnforge normalize --model runs/s2s --tagger runs/tagger --grammar-constraint "It costs $20."
      tnforge normalize --model runs/s2s --tagger runs/tagger --grammar-constraint --file in.txt --out out.txt
      cat in.txt | tnforge normalize -m runs/s2s -t runs/tagger --grammar-constraint -f - > out.txt
    """
    from tnforge.progress import progress_bar
    from tnforge.trainers.decoding.raw_text import reading_table
    from tnforge.trainers.normalize import Normalizer, normalize_file

    if bool(text) == bool(source):
        raise click.UsageError("give either TEXT or --file (not both)")
    if out != "-" and not source:
        raise click.UsageError("--out goes with --file (TEXT is answered on standard output)")
    if grammar_constraint and not tagger:
        raise click.UsageError("--grammar-constraint needs --tagger: the grammar is chosen by each token's class")
    from tnforge.trainers.decoding.constraint_sets import build_constraint

    loaded = common.load_model(model, device, threads)
    reading_words, covered = common.grammar_words(grammar_constraint)
    constraint, _ = build_constraint(loaded, reading_words=reading_words, covered=covered)
    normalizer = Normalizer(loaded, common.load_tagger(tagger) if tagger else None, constraint, beam, batch_size,
                            threshold, reading_words, corpus_letters=corpus_letters)
    if text:
        [reading] = normalizer([" ".join(text)])
        if not reading.tokens:
            raise click.ClickException("nothing to normalize: the text has no tokens")
        click.echo(reading_table(reading, corpus_letters))
        return
    bar = (lambda total: progress_bar(total, desc="normalize", unit="sent")) if progress else None
    done = normalize_file(normalizer, source, out, bar)
    click.echo(done.describe(out), err=True)

