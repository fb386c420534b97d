"""`tnforge grammar`: covering grammars: a token's readings, coverage of a dataset, lexicon learning."""

from __future__ import annotations

import sys
import time

import click

from tnforge.cli import common
from tnforge.config import config_option
from tnforge.gold_pairs import read_gold_pairs
from tnforge.grammars.induction import batch
from tnforge.schemas.classes import NAMES as _CLASSES


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
@common.click_errors()  # $TNFORGE_LANG naming no grammar: one line
@common.grammar_language
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
@common.click_errors()  # no dataset, no corpus file: one line
@common.grammar_language
def coverage(source: str, misses: int, classes: tuple[str, ...]) -> None:
    """Per class: share of gold readings the grammar licenses, mean readings per token, and the misses.

    DIR is a dataset directory built by `tnforge build` (its positives/); a corpus TSV file also works.

    Example: tnforge grammar coverage /data/ds --misses 20 --class DATE
    """
    from tnforge.grammars import get_grammar
    from tnforge.grammars.coverage import coverage_summary, coverage_table, measure_coverage

    started = time.perf_counter()
    pairs = read_gold_pairs(source, classes)
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
@common.click_errors()
@common.grammar_language
def learn_lexicon(source: str, out: str, min_count: int, include_all: bool) -> None:
    """Derive candidate unit and currency entries from the MEASURE and MONEY pairs of DIR, for review.

    Each row: table, symbol, spoken form, singular/plural, count, covered. Reviewed rows go into
    grammars/en/data/units.tsv or currencies.tsv (which the grammars load).

    Example: tnforge grammar learn-lexicon /data/ds --out candidates.tsv
    """
    from tnforge.filesystems import write_atomically
    from tnforge.grammars import get_grammar
    from tnforge.grammars.lexicon import review_file

    tsv, written = review_file(get_grammar(), read_gold_pairs(source, ()), min_count, include_all)
    with write_atomically(out) as handle:
        handle.write(tsv.encode("utf-8"))
    click.echo(f"wrote {written:,} candidate entries to {out}", err=True)


_ITEMS = common.option_group(click.argument("directory", metavar="GRAMMAR_DIR"), click.argument("items", nargs=-1), click.option(
    "--file", "files", multiple=True, type=click.Path(dir_okay=False), help="Also items from a file, one a line."))


@grammar.command()
@click.option("--examples", required=True, type=click.Path(dir_okay=False), help="NUMBER<TAB>VERBALIZATION pairs.")
@click.option("--lang", required=True, help="Language code, recorded in the grammar.")
@click.option("--out", default=None, type=click.Path(file_okay=False),
              help="The grammar directory to write [default: LANG under $TNFORGE_GRAMMARS or ~/.local/share/tnforge/grammars].")
@click.option("--allomorph-text", default=None, type=click.Path(dir_okay=False), help="Number names, one a line, for the allomorph model.")
@common.click_errors()
def induce(examples: str, lang: str, out: str | None, allomorph_text: str | None) -> None:
    """Learn a number grammar from ~300 examples (Gorman & Sproat 2016): rules.tsv, grammar.far, manifest.
    By default it is written where `--lang LANG` finds it."""
    from tnforge.grammars.languages import grammars_home

    out = out or str(grammars_home() / lang)
    click.echo("\n".join(batch.induce_directory(examples, lang, out, allomorph_text)), err=True)


@grammar.command()
@_ITEMS
@click.option("--all", "every", is_flag=True, help="Every licensed reading (tab-separated), the best first.")
@common.click_errors()
def verbalize(directory: str, items: tuple[str, ...], files: tuple[str, ...], every: bool) -> None:
    """Say numbers with an induced grammar, one a line (exit 1 if any is refused)."""
    sys.exit(1 if batch.run(directory, "all" if every else "best", items, files, click.echo) else 0)


@grammar.command()
@_ITEMS
@common.click_errors()
def read(directory: str, items: tuple[str, ...], files: tuple[str, ...]) -> None:
    """Read number names back to digits with an induced grammar (exit 1 if any is refused)."""
    sys.exit(1 if batch.run(directory, "read", items, files, click.echo) else 0)
