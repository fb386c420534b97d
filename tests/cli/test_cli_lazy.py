"""The lazy command group: listings come from the table, modules are imported on use, help stays light."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import click
from click.testing import CliRunner

from tnforge.cli import COMMANDS, cli
from tnforge.cli.lazy import LazyGroup

HEAVY = ("torch", "apache_beam", "pynini", "great_expectations", "xgboost")


def _imported_after(argv: list[str]) -> tuple[str, set[str]]:
    """Run `tnforge ARGV` in a fresh interpreter: its output, and which heavy modules it imported."""
    script = textwrap.dedent(f"""
        import contextlib, io, sys
        from tnforge.cli import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                main({argv!r})
            except SystemExit:
                pass
        print(out.getvalue())
        print("HEAVY:" + ",".join(m for m in {HEAVY!r} if m in sys.modules))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    text, _, heavy = result.stdout.rpartition("HEAVY:")
    return text, {m for m in heavy.strip().split(",") if m}


def test_top_level_help_lists_the_table_and_imports_nothing_heavy():
    text, heavy = _imported_after(["--help"])
    assert heavy == set()
    listed = [line.split()[0] for line in text.split("Commands:")[1].splitlines() if line.startswith("  ") and
              not line.startswith("    ")]
    assert listed == list(COMMANDS)


def test_train_help_lists_the_trainers_and_imports_nothing_heavy():
    text, heavy = _imported_after(["train", "--help"])
    assert heavy == set()
    commands = text.split("Commands:")[1]
    listed = [line.split()[0] for line in commands.splitlines() if line.strip() and not line.startswith("   ")]
    assert listed == ["dnc", "inverse", "sentence", "seq-de", "seq2seq", "span-tagger", "tagger",
                      "voc-de"]  # (wrapped help lines skipped)


def test_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(cli, ["bulid"])
    assert result.exit_code == 2
    assert "No such command 'bulid'" in result.output


def test_lazy_module_is_imported_only_when_its_command_runs(tmp_path, monkeypatch):
    (tmp_path / "lazy_probe_cmd.py").write_text(textwrap.dedent("""
        import click

        @click.command()
        def hello():
            click.echo("hello from the probe")
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_probe_cmd", raising=False)

    @click.group(cls=LazyGroup, lazy_commands={
        "hello": ("lazy_probe_cmd:hello", "Say hello."),
        "absent": ("no_such_module_here:cmd", "Never listed."),
    })
    def group() -> None:
        """A probe group."""

    @group.command("direct", short_help="Defined in place.")
    def direct() -> None:
        click.echo("direct")

    listing = CliRunner().invoke(group, ["--help"])
    assert listing.exit_code == 0
    assert "hello   Say hello." in listing.output and "direct  Defined in place." in listing.output
    assert "absent" not in listing.output
    assert "lazy_probe_cmd" not in sys.modules
    assert listing.output.index("hello") < listing.output.index("direct")  # table first, then direct ones

    ran = CliRunner().invoke(group, ["hello"])
    assert ran.exit_code == 0 and ran.output == "hello from the probe\n"
    assert "lazy_probe_cmd" in sys.modules
    assert CliRunner().invoke(group, ["absent"]).exit_code == 2
    assert CliRunner().invoke(group, ["direct"]).output == "direct\n"


def test_data_command_help_imports_nothing_heavy():
    for command in (["build"], ["negatives"], ["validate"], ["grammar"], ["grammar", "coverage"]):
        text, heavy = _imported_after([*command, "--help"])
        assert "Usage: " in text and heavy == set(), command
