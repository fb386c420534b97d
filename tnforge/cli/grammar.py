"""`tnforge grammar`: covering grammars: a token's readings, coverage of a dataset, lexicon learning."""

from __future__ import annotations

import sys
import time

import click

from tnforge.cli import common
from tnforge.config import config_option
from tnforge.gold_pairs import read_gold_pairs
from tnforge.schemas.classes import NAMES as _CLASSES


def _gold_pairs(source: str, classes: tuple[str, ...] = ()) -> list[tuple[str, str, str, int]]:
    with common.click_errors():  # no dataset, no corpus file: one line
        return read_gold_pairs(source, classes)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def grammar() -> None:
    """Covering grammars: every acceptable reading of a token.

    \b
    Examples:
      tnforge grammar readings 3kg --class MEASURE
      tnforge grammar coverage /data/ds --misses 20
      tnforge grammar learn-lexicon /data/ds --out candidates.tsv
    """


@grammar.command()
@config_option
@click.argument("token")
@click.option("--class", "cls", type=click.Choice(_CLASSES), default=None, help="Semiotic class (default: all).")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True, help="At most this many readings.")
@click.option("--check", default=None, help="Only say whether this reading is licensed (exit status 1 if not).")
def readings(token: str, cls: str | None, limit: int, check: str | None) -> None:
    """Print the licensed readings of TOKEN, one a line.

    Example: tnforge grammar readings '$6.5m' --class MONEY
    """
    from tnforge.grammars import get_grammar

    g = get_grammar()
    if check is not None:
        ok = g.licenses(token, check, cls)
        click.echo("licensed" if ok else "not licensed")
        sys.exit(0 if ok else 1)
    found = g.readings(token, cls, limit)
    for reading in found:
        click.echo(reading)
    click.echo(g.readings_note(token, cls, len(found)), err=True)


@grammar.command()
@config_option
@click.argument("source", metavar="DIR")
@click.option("--misses", type=click.IntRange(min=0), default=10, show_default=True, help="Misses listed per class.")
@click.option("--class", "classes", multiple=True, type=click.Choice(_CLASSES), help="Only these classes (repeatable).")
def coverage(source: str, misses: int, classes: tuple[str, ...]) -> None:
    """Per class: share of gold readings the grammar licenses, mean readings per token, and the misses.

    DIR is a dataset directory built by `tnforge build` (its positives/); a corpus TSV file also works.

    Example: tnforge grammar coverage /data/ds --misses 20 --class DATE
    """
    from tnforge.grammars import get_grammar
    from tnforge.grammars.coverage import coverage_summary, coverage_table, measure_coverage

    started = time.perf_counter()
    pairs = _gold_pairs(source, classes)
    click.echo(f"checking {len(pairs):,} distinct pairs …", err=True)
    result = measure_coverage(pairs, get_grammar())
    click.echo("\n".join(coverage_table(result, misses)))
    click.echo(coverage_summary(result, time.perf_counter() - started), err=True)


@grammar.command("learn-lexicon")
@config_option
@click.argument("source", metavar="DIR")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True, help="Candidate entries (TSV).")
@click.option("--min-count", type=click.IntRange(min=1), default=1, show_default=True, help="Drop rarer candidates.")
@click.option("--all/--uncovered", "include_all", default=False, show_default=True,
              help="Write every candidate, or only those the tables do not cover yet.")
def learn_lexicon(source: str, out: str, min_count: int, include_all: bool) -> None:
    """Derive candidate unit and currency entries from the MEASURE and MONEY pairs of DIR, for review.

    Each row: table, symbol, spoken form, singular/plural, count, covered. Reviewed rows go into
    grammars/data/units.tsv or currencies.tsv (which the grammars load).

    Example: tnforge grammar learn-lexicon /data/ds --out candidates.tsv
    """
    from tnforge.filesystems import write_atomically
    from tnforge.grammars import get_grammar
    from tnforge.grammars.lexicon import review_file

    tsv, written = review_file(get_grammar(), _gold_pairs(source), min_count, include_all)
    with write_atomically(out) as handle:
        handle.write(tsv.encode("utf-8"))
    click.echo(f"wrote {written:,} candidate entries to {out}", err=True)
