"""`tnforge compare`: one split decoded under every constraint configuration, reported side by side
(`trainers.decoding.constraint_sets.configuration_matrix`, `trainers.evaluation.constraint_runs`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.constraint_sets import WEIGHT, named_runs


@common.command(interrupted=common.nothing_written("report", "the comparison"))
@common.model_and_data
@click.option("--split", default="test", help="Split decoded by every configuration.")
@click.option("--seq-de", default=None, type=click.Path(exists=True), help="Sequence dual encoder run.")
@click.option("--voc-de", multiple=True, callback=common.parsed_by(named_runs),
              help="Vocabulary filter run, as RUN or NAME=RUN (repeatable: e.g. random=runs/voc-rand "
                   "topk=runs/voc-topk).")
@click.option("--grammar-constraint/--no-grammar-constraint", default=True,
              help="Include the covering-grammar mask configurations.")
@common.class_weight_option(WEIGHT)
@common.decoding_options
@click.option("--report", "-r", required=True, type=click.Path(file_okay=False),
              help="Folder for comparison.md and comparison.json.")
@common.runtime_options
def compare(model: str, data: str, split: str, seq_de: str | None, voc_de: list[tuple[str, str]],
            grammar_constraint: bool, weight: float, beam: int, batch_size: int, report: str, device: str, threads: int) -> None:
    """Compare decoding configurations on the same tokens: no constraint, +seqDE, +vocDE (each run),
    +grammar, and combinations; errors, recoverable/unrecoverable (covering grammar), McNemar vs none.

    \b
    Examples:
      tnforge compare --model runs/s2s --data out/sample --split test --seq-de runs/seq-de \\
          --voc-de random=runs/voc-rand --voc-de topk=runs/voc-topk --report runs/compare
    """
    from tnforge.grammars import adapter
    from tnforge.trainers.decoding.constraint_sets import configuration_matrix, constraint_pieces
    from tnforge.trainers.evaluation.comparison import publish_comparison
    from tnforge.trainers.evaluation.constraint_runs import run_comparison

    loaded, files = common.load_model(model, device, threads, data, split)
    with common.grammar_errors("--grammar-constraint"):
        reading_words, covered = adapter.reading_words() if grammar_constraint else (None, frozenset())
    judge, note = adapter.judge()
    pieces = constraint_pieces(loaded, seq_de, voc_de, reading_words, covered, weight)
    result = run_comparison(loaded, files, split, configuration_matrix(pieces), judge, beam=beam,
                            batch_size=batch_size, progress=common.token_progress, on_decoded=lambda name, n, s: click.echo(
                                f"{name}: decoded {n:,} tokens in {s:.1f} s", err=True))
    markdown, paths = publish_comparison(result, report, loaded.path, data, split, weight, beam)
    click.echo(markdown.rstrip())
    click.echo(f"\n{note}. report: " + ", ".join(str(p) for p in paths))
