"""`tnforge grammar`: covering grammars: a token's readings, coverage of a dataset, lexicon learning."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from tnforge.config import config_option
from tnforge.schemas.classes import NAMES as _CLASSES


def _read_pairs(source: str) -> list[tuple[str, str, str, int]]:
    """(class, before, after, count) from a dataset directory's positive pairs or a corpus TSV file."""
    path = Path(source)
    if path.is_file():
        from tnforge.grammars.coverage import read_corpus_pairs

        return read_corpus_pairs(path)
    if not path.is_dir():
        raise click.BadParameter(f"{source}: neither a dataset directory nor a corpus TSV file", param_hint="DIR")
    from tnforge.datasets import dataset_files, read_dataset

    if not dataset_files(path, "positive_pairs"):
        raise click.ClickException(f"{source}: no pairs/positive/*/*.parquet (is it a dataset built by `tnforge build`?)")
    table = read_dataset(path, "positive_pairs", columns=["class", "before", "after", "count"])
    columns = [table.column(name).to_pylist() for name in ("class", "before", "after", "count")]
    merged: dict[tuple[str, str, str], int] = {}
    for cls, before, after, count in zip(*columns, strict=True):
        merged[(cls, before, after)] = merged.get((cls, before, after), 0) + count
    return [(cls, before, after, count) for (cls, before, after), count in sorted(merged.items())]


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
    size = g.token_readings(token, cls).size if cls else None
    more = f" of {size:,} paths" if size is not None and size > len(found) else ""
    click.echo(f"{len(found)} reading(s){more} for {token!r} in {cls or 'any class'}", err=True)


@grammar.command()
@config_option
@click.argument("source", metavar="DIR")
@click.option("--misses", type=click.IntRange(min=0), default=10, show_default=True, help="Misses listed per class.")
@click.option("--class", "classes", multiple=True, type=click.Choice(_CLASSES), help="Only these classes (repeatable).")
def coverage(source: str, misses: int, classes: tuple[str, ...]) -> None:
    """Per class: share of gold readings the grammar licenses, mean readings per token, and the misses.

    DIR is a dataset directory built by `tnforge build` (its pairs/positive); a corpus TSV file also works.

    Example: tnforge grammar coverage /data/ds --misses 20 --class DATE
    """
    from tnforge.grammars import get_grammar
    from tnforge.grammars.coverage import NUMBER_CLASSES, measure_coverage

    started = time.perf_counter()
    pairs = _read_pairs(source)
    if classes:
        pairs = [p for p in pairs if p[0] in classes]
    click.echo(f"checking {len(pairs):,} distinct pairs …", err=True)
    result = measure_coverage(pairs, get_grammar())
    click.echo(f"{'class':<11} {'licensed':>9} {'pairs':>8} {'share':>8} {'readings/token':>15}")
    below = []
    for cls in sorted(result):
        stats = result[cls]
        click.echo(f"{cls:<11} {stats.licensed:>9,} {stats.total:>8,} {stats.share:>8.2%} {stats.mean_readings:>15.1f}")
        if cls in NUMBER_CLASSES and stats.share < 0.995:
            below.append(cls)
    for cls in sorted(result):
        for before, after, count in result[cls].misses[:misses]:
            click.echo(f"MISS {cls}\t{before}\t{after}\t{count}")
    total = sum(s.total for s in result.values())
    licensed = sum(s.licensed for s in result.values())
    click.echo(
        f"{licensed:,}/{total:,} gold readings licensed ({licensed / max(total, 1):.2%}) in "
        f"{time.perf_counter() - started:.1f} s; number classes below 99.5%: {', '.join(below) or 'none'}",
        err=True,
    )


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
    from tnforge.grammars.lexicon import learn

    pairs = _read_pairs(source)
    candidates = [c for c in learn(get_grammar(), pairs) if c.count >= min_count and (include_all or not c.covered)]
    lines = ["table\tsymbol\tspoken\tnumber\tcount\tcovered"]
    lines += [f"{c.table}\t{c.symbol}\t{c.spoken}\t{c.number}\t{c.count}\t{str(c.covered).lower()}" for c in candidates]
    with write_atomically(out) as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))
    click.echo(f"wrote {len(candidates):,} candidate entries to {out}", err=True)
