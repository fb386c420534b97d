"""`tnforge validate`: check every dataset of a dataset directory with Great Expectations."""

from __future__ import annotations

import sys

import click

from tnforge.cli import common


@common.command(epilog="Examples:\n\n\b\n  tnforge validate out/en\n  tnforge validate out/en --docs /tmp/en-docs\n"
                "  tnforge validate out/en --json > report.json")
@click.argument("directory", type=common.Location(exists=True, file_okay=False))
@click.option("--docs", "docs", type=click.Path(file_okay=False),
              help="Where to render the Data Docs (default DIRECTORY/validation/docs).")
@click.option("--only", help="Comma-separated datasets to check (e.g. examples,sentences,manifest); default all.")
@click.option("--no-docs", is_flag=True, help="Skip rendering the Data Docs.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of a table.")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages on stderr.")
def validate(directory: str, docs: str | None, only: str | None, no_docs: bool, as_json: bool, quiet: bool) -> None:
    """Validate a dataset directory: schemas, classes, ids, sampling targets, leakage, pairs, manifest.

    Writes the JSON results to DIRECTORY/validation/, renders Data Docs readable offline, prints a
    table (dataset, expectations passed/failed, failures with what was observed) and exits with
    status 1 when any expectation fails.
    """
    from tnforge.validation import validate_directory

    chosen = [name.strip() for name in only.split(",") if name.strip()] if only else None
    report = validate_directory(directory, docs_dir=docs, only=chosen, render_docs=not no_docs, quiet=quiet)
    click.echo(report.to_json() if as_json else report.format_table())
    click.echo(report.verdict(), file=sys.stderr)
    if not report.success:
        sys.exit(1)
