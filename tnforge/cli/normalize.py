"""`tnforge normalize`: raw text → spoken text with a normalizer (`tnforge.Normalizer`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.defaults import CONFIDENCE, THRESHOLD


@common.command(cls=common.PassThroughCommand, interrupted=lambda o: "interrupted; " + (f"nothing was written to {o['out']}" if o["source"] and o["out"] != "-"
                                                       else "the sentences answered before it are complete"))
@click.option("--model", "-m", required=True, type=click.Path(exists=True),
              help="Normalizer run directory (`tnforge normalizer assemble`), or a decoder model run with --tagger "
                   "(the covering grammar comes with it).")
@click.argument("text", nargs=-1)
@click.option("--file", "-f", "source", default=None, help="Sentences to normalize, one a line ('-': standard input).")
@click.option("--out", "-o", default="-", show_default=True,
              help="With --file: where the spoken sentences go, one a line ('-': standard output).")
@click.option("--tagger", "-t", default=None, type=click.Path(exists=True),
              help="With a bare model run: the tagger run that predicts each token's class.")
@click.option("--grammar-constraint", is_flag=True, default=False,
              help="With a bare model run and --tagger: guard the readings with the covering grammar (implied by "
                   "--tagger).")
@click.option("--unguarded", is_flag=True, default=False,
              help="Read a bare model run without tagger or grammar: nothing guards the readings' meaning.")
@click.option("--confidence", default=None, type=click.FloatRange(0, 1),
              help=f"Calibrated tagger probability from which a token's first class is taken alone [normalizer's, "
                   f"else {CONFIDENCE}].")
@click.option("--threshold", default=None, type=click.FloatRange(0),
              help=f"Tagger probability from which PLAIN/PUNCT tokens are read as written (above 1: never) "
                   f"[normalizer's, else {THRESHOLD}].")
@click.option("--fail-on-unrecoverable", is_flag=True, default=False,
              help="With --file: exit 1 when a reading is licensed by the grammar for none of its token's likely "
                   "classes (or when no grammar checked them).")
@click.option("--corpus-letters", is_flag=True, default=False,
              help="Write readings as the corpus does: URLs spelt b_letter a_letter ..., not as words (ba ...), and "
                   "the pause marker sil inside readings (telephone numbers) kept.")
@click.option("--punctuation", type=click.Choice(["drop", "keep"]), default="drop",
              help="keep: the written punctuation marks stay in the spoken text (for prosody); drop: spoken words only.")
@click.option("--lexicon", default=None, type=click.Path(exists=True, dir_okay=False),
              help="TSV of written<TAB>reading[<TAB>CLASS] overrides; a reading the grammar does not license is "
                   "refused unless --force-lexicon.")
@click.option("--force-lexicon", is_flag=True, default=False,
              help="Read --lexicon entries the covering grammar does not license anyway (listed in the table).")
@common.decoding_options
@common.progress_option(True, help="Progress bar on stderr for --file.")
@common.runtime_options
def normalize(model: str, text: tuple[str, ...], source: str | None, out: str, tagger: str | None,
              grammar_constraint: bool, unguarded: bool, confidence: float | None, threshold: float | None,
              fail_on_unrecoverable: bool, corpus_letters: bool, punctuation: str, lexicon: str | None,
              force_lexicon: bool, beam: int, batch_size: int, progress: bool, device: str, threads: int) -> None:
    """Normalize raw text: tokenize it like the corpus, tag each token's class, read each token within the
    readings the covering grammar licenses for its likely classes, and print the spoken text.

    With TEXT: one sentence, each token beside its class, reading and why it was read so, then the spoken
    sentence. With --file: one sentence a line in, one spoken sentence a line out (an empty line for an
    empty one), and on stderr how many readings the grammar licenses for none of their token's classes.

    \b
    Examples:
      tnforge normalize --model runs/normalizer "Train 540 leaves at 4:45"
      tnforge normalize --model runs/normalizer --file in.txt --out out.txt --fail-on-unrecoverable
      cat in.txt | tnforge normalize -m runs/normalizer -f - > out.txt
      tnforge normalize --model runs/normalizer --punctuation keep 'It costs $20, not $30.'
      tnforge normalize --model runs/s2s --tagger runs/tagger 'It costs $20.'
      tnforge normalize -m runs/normalizer -f in.txt -o out.txt -- --runner DirectRunner --direct_num_workers 2

    From Python: `from tnforge import Normalizer` (docs: getting started, "Use from Python").
    """
    from tnforge.progress import progress_bar
    from tnforge.reading.streams import normalize_file
    from tnforge.trainers.decoding.sentences import reading_table

    if bool(text) == bool(source):
        raise click.UsageError("give either TEXT or --file (not both)")
    if out != "-" and not source:
        raise click.UsageError("--out goes with --file (TEXT is answered on standard output)")
    if grammar_constraint and not tagger:
        raise click.UsageError("--grammar-constraint needs --tagger: the grammar is chosen by each token's class")
    if beam_run := common.on_beam():  # a Beam pipeline (RunInference) reads the file
        from tnforge.pipelines.inference import normalize_command
        said, status = normalize_command(*beam_run)
        click.echo(said, err=True)
        raise SystemExit(status)
    normalizer = common.open_reader(model, tagger, device, threads, guard=not unguarded, beam=beam,
                                    batch_size=batch_size, confidence=confidence, threshold=threshold,
                                    corpus_letters=corpus_letters, punctuation=punctuation, lexicon=lexicon,
                                    force_lexicon=force_lexicon)
    if text:
        [reading] = normalizer.read_batch([" ".join(text)])
        if not reading.tokens:
            raise click.ClickException("nothing to normalize: the text has no tokens")
        click.echo(reading_table(reading, corpus_letters, normalizer.spoken(reading)))
        return
    bar = (lambda total: progress_bar(total, desc="normalize", unit="sent")) if progress else None
    done = normalize_file(normalizer, source, out, bar)
    click.echo(done.describe(out), err=True)
    if fail_on_unrecoverable and (done.unchecked or done.unlicensed):
        raise SystemExit(1)
