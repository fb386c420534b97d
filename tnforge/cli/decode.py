"""`tnforge decode`: decode a dataset and write its top-k hypotheses (`trainers.decoding.outputs`)."""

from __future__ import annotations

import click

from tnforge.cli import common
from tnforge.trainers.decoding.defaults import TOP_K


@common.command(cls=common.PassThroughCommand)
@common.model_and_data
@click.option("--split", default="dev", help="Split to decode (dataset directories, or files with a split column).")
@click.option("--out", "-o", required=True, type=common.Location(dir_okay=True),
              help="Hypotheses output: a folder of Parquet parts, or one file when it ends in .parquet.")
@common.decoding_options
@click.option("--top-k", default=TOP_K, type=click.IntRange(1), help="Distinct hypotheses kept per input.")
@click.option("--copies/--no-copies", default=False, help="Also decode the build's up-sampling copies.")
@click.option("--rows-per-file", default=1_000_000, type=click.IntRange(1), help="Hypotheses per Parquet part.")
@common.constraint_options
@click.option("--raw", is_flag=True, default=False,
              help="--data is a text file, one sentence a line: tokenized, tagged (--tagger), decoded as `normalize` does.")
@click.option("--tagger", "-t", default=None, type=click.Path(exists=True), help="With --raw: the tagger run.")
@common.runtime_options
@common.grammar_language
def decode(model: str, data: str, split: str, out: str, beam: int, top_k: int, batch_size: int, copies: bool,
           rows_per_file: int, seq_de: str | None, voc_de: str | None, grammar_constraint: bool, weight: float,
           raw: bool, tagger: str | None, device: str, threads: int) -> None:
    """Beam-search decode examples and write the top-k hypotheses (schema `hypotheses`).

    Each input gets up to --top-k distinct readings, ranked by log-probability (rank 0 = best), with the
    gold reading when the examples carry it: the top-k source for negatives.

    \b
    Examples:
      tnforge decode --model runs/s2s --data out/sample --split train --top-k 10 --out out/sample/hyps
      tnforge decode --model runs/s2s/best.pt --data dev.parquet --beam 5 --top-k 1 --out hyps.parquet
      tnforge decode --raw --model runs/normalizer --data in.txt --top-k 10 --out hyps.parquet
      tnforge decode -m runs/s2s -d out/sample --out out/sample/hyps/dev -- --runner DirectRunner
    """
    from tnforge.trainers.decoding.outputs import write_hypotheses

    if beam_run := common.on_beam():  # a Beam pipeline (RunInference) decodes
        from tnforge.pipelines.inference import decode_command
        return click.echo(decode_command(*beam_run))
    if raw:
        from tnforge.reading.streams import write_raw_hypotheses

        normalizer = common.open_reader(model, tagger, device, threads, guard=bool(tagger) or grammar_constraint,
                                        say_unguarded=True, beam=beam, batch_size=batch_size, top_k=top_k,
                                        seq_de=seq_de, voc_de=voc_de, weight=weight)
        written = write_raw_hypotheses(normalizer, data, out)
        click.echo(written.describe(out, beam, top_k, normalizer.device, normalizer.constraint_note))
        return
    loaded, files = common.load_model(model, device, threads, data, split)
    constraint, constraint_note = common.constraint_of(loaded, seq_de, voc_de, grammar_constraint, weight)
    written = write_hypotheses(loaded, files, out, split=split, beam=beam, top_k=top_k, batch_size=batch_size,
                               copies=copies, rows_per_file=rows_per_file, constraint=constraint,
                               progress=common.token_progress)
    click.echo(written.describe(out, beam, top_k, loaded.device, constraint_note))
