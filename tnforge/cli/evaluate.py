"""`tnforge evaluate`: token, class and sentence accuracy of a seq2seq model (`trainers.decoding.outputs`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.defaults import THRESHOLD


@common.command(cls=common.PassThroughCommand, interrupted=common.nothing_written("report", "the report"))
@common.model_and_data
@click.option("--split", default="dev", help="Split to evaluate.")
@click.option("--report", "-r", default=None, type=common.output_folder,
              help="Folder for report.md, report.json and per_class.png.")
@common.decoding_options
@click.option("--grammar/--no-grammar", default=None,
              help="Judge errors recoverable/unrecoverable with the covering grammar (default: when available).")
@common.constraint_options
@click.option("--raw", is_flag=True, default=False,
              help="Evaluate from plain text: the split's sentences detokenized, then tokenizer → tagger → seq2seq, "
                   "beside rows with gold tokens and gold classes.")
@click.option("--tagger", "-t", default=None, type=click.Path(exists=True), help="With --raw: the tagger run.")
@click.option("--threshold", default=None, type=click.FloatRange(0),
              help=f"With --raw: tagger probability from which PLAIN/PUNCT tokens are read as written [normalizer's, "
                   f"else {THRESHOLD}].")
@click.option("--fail-on-unrecoverable", is_flag=True, default=False,
              help="With --raw: exit 1 when the plain-text pipeline makes an unrecoverable error (a reading the "
                   "grammar licenses for none of the token's gold class), or when no grammar judged it.")
@common.runtime_options
@common.grammar_language
def evaluate(model: str, data: str, split: str, report: str | None, beam: int, batch_size: int,
             grammar: bool | None, seq_de: str | None, voc_de: str | None, grammar_constraint: bool, weight: float,
             raw: bool, tagger: str | None, threshold: float | None, fail_on_unrecoverable: bool, device: str,
             threads: int) -> None:
    """Evaluate a model: token accuracy overall and per class, sentence and non-trivial accuracy, errors.

    Up-sampling copies are left out. With the covering grammar, each error is labelled recoverable (the
    grammar licenses the wrong reading) or unrecoverable.

    \b
    Examples:
      tnforge evaluate --model runs/s2s --data out/sample --split dev --report runs/s2s/eval-dev
      tnforge evaluate --model runs/s2s --data out/sample --split test --no-grammar
      tnforge evaluate --raw --model runs/normalizer --data out/sample --split test --fail-on-unrecoverable
      tnforge evaluate --raw --model runs/s2s --tagger runs/tagger --grammar-constraint --data out/en --split test
    """
    from tnforge.grammars import adapter
    from tnforge.reading.assembly import is_normalizer
    from tnforge.trainers.decoding.constraint_sets import build_constraint
    from tnforge.trainers.evaluation.accuracy import summary, write_report
    from tnforge.trainers.evaluation.decoded import evaluate_decoding, evaluate_readings
    from tnforge.trainers.kernel.examples import example_files

    with common.grammar_errors("--grammar"):
        judge, note = adapter.judge(grammar)
    if raw or tagger or is_normalizer(model):
        from tnforge.trainers.evaluation.meaning_errors import gate
        from tnforge.trainers.evaluation.raw_text import evaluate_raw, write_raw_report

        reader = common.open_reader(model, tagger, device, threads, guard=bool(tagger) or grammar_constraint,
                                    say_unguarded=True, beam=beam, batch_size=batch_size, threshold=threshold,
                                    seq_de=seq_de, voc_de=voc_de, weight=weight)
        title = (f"Plain-text evaluation of {model} on {data} ({split}; {reader.constraint_note}; tagger "
                 f"{tagger or model})")
        result = evaluate_raw(reader, example_files(data, split), split, judge)
        click.echo(write_raw_report(result, report, title) + f"\n{note}.")
        if fail_on_unrecoverable:
            name, row = next(iter(result["rows"].items()))
            passed, line = gate(row, name)
            click.echo(line, err=True)
            if not passed:
                raise SystemExit(1)
        return
    loaded, files = common.load_model(model, device, threads, data, split)
    reading_words, covered = common.grammar_words(grammar_constraint)
    constraint, constraint_note = build_constraint(loaded, seq_de, voc_de, reading_words, covered, weight)
    if beam_run := common.on_beam():  # the decoding half on Beam (RunInference)
        from tnforge.pipelines.inference import best_readings_command
        result = evaluate_readings(files, split, best_readings_command(*beam_run, files), judge)
    else:
        result = evaluate_decoding(loaded, files, split, constraint, judge, beam, batch_size, common.token_progress)
    title = f"Evaluation of {loaded.path} on {data} ({split}; {constraint_note})"
    click.echo(summary(result, title, note))
    if report:
        click.echo("report: " + ", ".join(str(p) for p in write_report(result, report, title=title)))
