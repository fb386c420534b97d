"""`tnforge evaluate`: token, class and sentence accuracy of a seq2seq model (`trainers.decoding.outputs`)."""

from __future__ import annotations

import click

from tnforge.cli import common


@common.command()
@common.model_and_data
@click.option("--split", default="dev", help="Split to evaluate.")
@click.option("--report", "-r", default=None, type=common.output_folder,
              help="Folder for report.md, report.json and per_class.png.")
@common.decoding_options
@click.option("--grammar/--no-grammar", default=None,
              help="Judge errors recoverable/unrecoverable with the covering grammar (default: when available).")
@common.constraint_options
@common.runtime_options
def evaluate(model: str, data: str, split: str, report: str | None, beam: int, batch_size: int,
             grammar: bool | None, seq_de: str | None, voc_de: str | None, grammar_constraint: bool, weight: float,
             device: str, threads: int) -> None:
    """Evaluate a model: token accuracy overall and per class, sentence and non-trivial accuracy, errors.

    Up-sampling copies are left out. With the covering grammar, each error is labelled recoverable (the
    grammar licenses the wrong reading) or unrecoverable.

    \b
    Examples:
      tnforge evaluate --model runs/s2s --data out/sample --split dev --report runs/s2s/eval-dev
      tnforge evaluate --model runs/s2s --data out/sample --split test --no-grammar
    """
    from tnforge.grammars import adapter
    from tnforge.trainers.decoding.outputs import evaluate_decoding
    from tnforge.trainers.evaluation.accuracy import summary, write_report

    with common.grammar_errors("--grammar"):
        judge, note = adapter.judge(grammar)
    loaded, files = common.load_seq2seq(model, device, threads, data, split)
    constraint, constraint_note = common.constraint_of(loaded, seq_de, voc_de, grammar_constraint, weight)
    result = evaluate_decoding(loaded, files, split, constraint, judge, beam, batch_size, common.token_progress)
    title = f"Evaluation of {loaded.path} on {data} ({split}; {constraint_note})"
    click.echo(summary(result, title, note))
    if report:
        click.echo("report: " + ", ".join(str(p) for p in write_report(result, report, title=title)))
