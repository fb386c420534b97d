"""MkDocs hooks (named in mkdocs.yml): the command reference page, written from the click commands at build
time, and the source tree staged so that mkdocstrings finds every `tnforge.*` module (`tnforge.docsite`)."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from tnforge.docsite import command_reference, stage_sources

ROOT = Path(__file__).resolve().parent
#: Where the package layout is mirrored for the API reference (mkdocs.yml's mkdocstrings `paths`).
STAGED = ROOT / "build" / "docs-src"
#: The generated page's place in the site (mkdocs.yml's nav names it).
COMMANDS_PAGE = "reference/commands.md"

stage_sources(ROOT, STAGED)  # at import: before mkdocstrings' handler reads its paths


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the command reference, generated from the installed `tnforge` command."""
    from tnforge.cli import cli

    files.append(File.generated(config, COMMANDS_PAGE, content=command_reference(cli)))
    return files
