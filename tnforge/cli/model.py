"""`tnforge decode`, `tnforge normalize`, `tnforge evaluate`: using a trained seq2seq model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from tnforge.cli.common import (
    data_option,
    device_option,
    example_files_of,
    load_seq2seq,
    model_option,
    threads_option,
    token_progress,
)
from tnforge.cli.dual_encoders import build_constraint, constraint_options
from tnforge.config import config_option


@click.command(context_settings={"show_default": True})
@config_option
@model_option
@data_option
@click.option("--split", default="dev", help="Split to decode (dataset directories, or files with a split column).")
@click.option("--out", "-o", required=True,
              help="Hypotheses output: a folder of Parquet parts, or one file when it ends in .parquet.")
@click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
@click.option("--top-k", default=10, type=click.IntRange(1), help="Distinct hypotheses kept per input.")
@click.option("--batch-size", default=256, type=click.IntRange(1), help="Inputs decoded together.")
@click.option("--copies/--no-copies", default=False, help="Also decode the build's up-sampling copies.")
@click.option("--rows-per-file", default=1_000_000, type=click.IntRange(1), help="Hypotheses per Parquet part.")
@constraint_options
@device_option
@threads_option
def decode(model: str, data: str, split: str, out: str, beam: int, top_k: int, batch_size: int, copies: bool,
           rows_per_file: int, seq_de: str | None, voc_de: str | None, grammar_constraint: bool, weight: float,
           device: str, threads: int) -> None:
    """Beam-search decode examples and write the top-k hypotheses (schema `hypotheses`).

    Each input gets up to --top-k distinct readings, ranked by log-probability (rank 0 = best), with the
    gold reading when the examples carry it: the top-k source for negatives.

    \b
    Examples:
      tnforge decode --model runs/s2s --data out/sample --split train --top-k 10 --out out/sample/hyps
      tnforge decode --model runs/s2s/best.pt --data dev.parquet --beam 5 --top-k 1 --out hyps.parquet
    """
    import time

    import pyarrow as pa

    from tnforge import schemas
    from tnforge.datasets import write_shard
    from tnforge.trainers.decoding.decode import decode_files, hypotheses_table
    from tnforge.trainers.seq2seq.data import count_rows

    loaded = load_seq2seq(model, device, threads)
    constraint, constraint_note = build_constraint(loaded, seq_de, voc_de, grammar_constraint, weight)
    files = example_files_of(data, split)
    single = out.endswith(".parquet")
    pending: list[pa.Table] = []
    pending_rows = written_rows = inputs = parts = 0
    started = time.monotonic()
    bar = token_progress(count_rows(files, split, max_copies=0 if copies else 1), "decode")

    def flush(final: bool = False) -> None:
        nonlocal pending, pending_rows, parts
        if not pending or (single and not final):
            return
        table = pa.concat_tables(pending)
        path = out if single else str(Path(out) / f"part-{parts:05d}.parquet")
        write_shard(table, path, schemas.HYPOTHESES)
        parts += 1
        pending, pending_rows = [], 0

    try:
        for rows, ranked, _counts in decode_files(loaded, files, split=split, beam=beam, top_k=top_k, batch_size=batch_size,
                                         on_batch=bar.update, originals_only=not copies, constraint=constraint):
            table = hypotheses_table(rows, ranked)
            pending.append(table)
            pending_rows += table.num_rows
            written_rows += table.num_rows
            inputs += len(ranked)
            if pending_rows >= rows_per_file:
                flush()
        flush(final=True)
    except ValueError as error:
        raise click.ClickException(str(error)) from error
    finally:
        bar.close()
    seconds = time.monotonic() - started
    click.echo(f"decoded {inputs:,} inputs → {written_rows:,} hypotheses in {parts} file(s) at {out} "
               f"({inputs / max(seconds, 1e-9):,.0f} inputs/s, beam {beam}, top-k {top_k}, {loaded.device}, "
               f"{constraint_note})")


@click.command(context_settings={"show_default": True})
@config_option
@model_option
@click.argument("text", nargs=-1, required=True)
@click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
@device_option
@threads_option
def normalize(model: str, text: tuple[str, ...], beam: int, device: str, threads: int) -> None:
    """Normalize plain text: tokenize it like the corpus, decode every token, print readings and speech.

    \b
    Example:
      tnforge normalize --model runs/s2s "Train 540 leaves at 4:45"
    """
    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.decoding.text_tokenizer import sentence_windows, spoken, tokenize

    tokens = tokenize(" ".join(text))
    if not tokens:
        raise click.ClickException("nothing to normalize: the text has no tokens")
    loaded = load_seq2seq(model, device, threads)
    readings = decode_windows(loaded, sentence_windows(tokens), beam=beam)
    width = max(len(t) for t in tokens)
    for token, reading in zip(tokens, readings, strict=True):
        click.echo(f"{token:<{width}}  {reading}")
    click.echo("")
    click.echo(spoken(tokens, readings))


def grammar_judges(wanted: bool | None) -> tuple[Callable | None, str]:
    """The covering grammar's tolerant batch judge and a note on it (a click error when required but missing)."""
    from tnforge.grammars import adapter

    try:
        return adapter.judge(wanted)
    except adapter.GrammarUnavailable as error:
        raise click.ClickException(f"--grammar: {error}") from error


@click.command(context_settings={"show_default": True})
@config_option
@model_option
@data_option
@click.option("--split", default="dev", help="Split to evaluate.")
@click.option("--report", "-r", default=None, type=click.Path(file_okay=False),
              help="Folder for report.md, report.json and per_class.png.")
@click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
@click.option("--batch-size", default=256, type=click.IntRange(1), help="Inputs decoded together.")
@click.option("--grammar/--no-grammar", default=None,
              help="Judge errors recoverable/unrecoverable with the covering grammar (default: when available).")
@constraint_options
@device_option
@threads_option
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
    from tnforge.trainers.decoding.decode import decode_files
    from tnforge.trainers.evaluation.accuracy import evaluate as score
    from tnforge.trainers.evaluation.accuracy import predictions_from_rows, to_markdown, write_report
    from tnforge.trainers.seq2seq.data import count_rows

    judge, note = grammar_judges(grammar)
    loaded = load_seq2seq(model, device, threads)
    constraint, constraint_note = build_constraint(loaded, seq_de, voc_de, grammar_constraint, weight)
    files = example_files_of(data, split)
    predictions: list[dict[str, Any]] = []
    bar = token_progress(count_rows(files, split, max_copies=1), "evaluate")
    try:
        for rows, ranked, _counts in decode_files(loaded, files, split=split, beam=beam, top_k=1, batch_size=batch_size,
                                         on_batch=bar.update, originals_only=True, constraint=constraint):
            if "after" not in rows:
                raise click.ClickException(f"{data}: no 'after' column: nothing to compare with")
            predictions += predictions_from_rows(rows, [r[0][0] if r else "" for r in ranked])
    except ValueError as error:
        raise click.ClickException(str(error)) from error
    finally:
        bar.close()
    result = score(predictions, batch_judge=judge)
    title = f"Evaluation of {loaded.path} on {data} ({split}; {constraint_note})"
    markdown = to_markdown(result, title=title, max_errors=20)
    click.echo(markdown.split("## Errors")[0].rstrip())
    click.echo(f"\n{len(result['errors'])} errors; {note}.")
    if report:
        paths = write_report(result, report, title=title)
        click.echo("report: " + ", ".join(str(p) for p in paths))
