"""`tnforge validate`: check every dataset of a dataset directory with Great Expectations."""

from __future__ import annotations

import sys

import click

from tnforge.cli import common


@common.command(cls=common.PassThroughCommand, interrupted=lambda o: f"interrupted; the validation of {o['directory']} "
                "did not finish: no verdict (results in its validation/ folder may be partial)",
                epilog="Examples:\n\n\b\n  tnforge validate out/en\n  tnforge validate out/en --docs /tmp/en-docs\n"
                "  tnforge validate out/en --json > report.json\n  tnforge validate gs://bucket/en -- "
                "--runner=DataflowRunner --project=P --region=R --temp_location=gs://bucket/tmp")
@click.argument("directory", type=common.Location(exists=True, file_okay=False))
@click.option("--docs", "docs", help="Where to render the Data Docs, local or gs:// (default DIRECTORY/validation/docs).")
@click.option("--only", help="Comma-separated datasets to check (e.g. examples,sentences,manifest); default all.")
@click.option("--no-docs", is_flag=True, help="Skip rendering the Data Docs.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of a table.")
@click.option("-q", "--quiet", is_flag=True, help="No progress messages on stderr.")
@click.pass_context
def validate(ctx: click.Context, directory: str, docs: str | None, only: str | None, no_docs: bool, as_json: bool,
             quiet: bool) -> None:
    """Validate a dataset directory (local or gs://): schemas, classes, ids, sampling targets, leakage, pairs,
    manifest — shard by shard, in memory bounded by the largest shard.

    Writes the JSON results to DIRECTORY/validation/, renders Data Docs readable offline, prints a
    table (dataset, expectations passed/failed, failures with what was observed) and exits with
    status 1 when any expectation fails. Arguments after `--` go to Beam: the shards are then validated
    as a Beam pipeline on that runner (e.g. next to the build on Dataflow).
    """
    from tnforge.validation import validate_directory

    chosen = [name.strip() for name in only.split(",") if name.strip()] if only else None
    report = validate_directory(directory, docs_dir=docs, only=chosen, render_docs=not no_docs, quiet=quiet,
                                pipeline_args=ctx.meta.get("pipeline_args") or None)
    click.echo(report.to_json() if as_json else report.format_table())
    click.echo(report.verdict(), file=sys.stderr)
    if not report.success:
        sys.exit(1)
