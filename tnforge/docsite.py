"""The documentation site (MkDocs, `mkdocs.yml` at the checkout's root): the command reference written from the
click commands themselves, the source tree staged for the API reference, and building or serving the site
for `tnforge docs`. Only click and the standard library here; MkDocs runs in a child process."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import click

#: The site's configuration file, at the root of a checkout.
CONFIG = "mkdocs.yml"
#: What to install when MkDocs or its plugins are missing.
INSTALL_HINT = "pip install -e '.[docs]'"


class DocsError(click.ClickException):
    """The site cannot be built: no checkout with mkdocs.yml, MkDocs not installed, or the build failed."""


def find_checkout(start: Path | None = None) -> Path:
    """The checkout holding `mkdocs.yml`: the one this package was installed from (editable), else the
    current folder or one above it."""
    candidates = [Path(__file__).resolve().parents[1]]
    here = (start or Path.cwd()).resolve()
    candidates += [here, *here.parents]
    for folder in candidates:
        if (folder / CONFIG).is_file():
            return folder
    raise DocsError(f"no {CONFIG} found: the documentation sources come with a checkout of tnforge "
                          "(run this inside one, or install tnforge from one with `pip install -e .`)")


def stage_sources(root: Path, dest: Path) -> Path:
    """Mirror the installed package layout under `dest` with symlinks (`tnforge/trainers` → `root/trainers`, as
    pyproject.toml's package-dir maps it), so static analysis finds every `tnforge.*` module. Returns `dest`."""
    package_dirs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-dir"]
    top = dest / "tnforge"
    top.mkdir(parents=True, exist_ok=True)
    targets = {top / entry.name: entry for entry in (root / package_dirs["tnforge"]).iterdir()
               if entry.name != "__pycache__"}
    targets.update({top / package.removeprefix("tnforge."): root / folder
                    for package, folder in package_dirs.items() if package.count(".") == 1})
    for stale in set(top.iterdir()) - set(targets):  # a module removed or renamed since the last build
        if stale.is_symlink():
            stale.unlink()
    for link, target in targets.items():
        if link.is_symlink() and Path(os.readlink(link)) == target.resolve():
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target.resolve(), target_is_directory=target.is_dir())
    return dest


def _walk(command: click.Command, path: tuple[str, ...],
          parent: click.Context | None) -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
    ctx = click.Context(command, info_name=path[-1], parent=parent, **command.context_settings)
    yield path, command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _walk(sub, (*path, name), ctx)


def commands(group: click.Command, name: str = "tnforge") -> list[tuple[str, click.Command, click.Context]]:
    """Every command under `group` (itself first), as (full name, command, context), in listing order."""
    return [(" ".join(path), command, ctx) for path, command, ctx in _walk(group, (name,), None)]


def _escape(text: str) -> str:
    """Markdown-safe prose: `&`, `<`, `>`, `*` and `_` escaped outside `code` spans."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"([*_])", r"\\\1", parts[i].replace("&", "&amp;").replace("<", "&lt;")
                          .replace(">", "&gt;"))
    return "`".join(parts)


def _help_markdown(text: str) -> list[str]:
    """A command's help text: paragraphs as prose, click's `\\b` (keep-as-is) blocks as code blocks."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()) if text.strip() else []:
        if paragraph.startswith("\b"):
            body = paragraph.split("\n", 1)[1] if "\n" in paragraph else ""
            head, _, rest = body.partition("\n")
            if head.rstrip().endswith(":") and not head.startswith(" "):
                lines += [_escape(head.strip()), ""]
                body = rest
            lines += ["```text", *(line.rstrip() for line in _dedent(body).splitlines()), "```", ""]
        else:
            lines += [_escape(" ".join(line.strip() for line in paragraph.splitlines())), ""]
    return lines


def _dedent(text: str) -> str:
    widths = [len(line) - len(line.lstrip()) for line in text.splitlines() if line.strip()]
    cut = min(widths, default=0)
    return "\n".join(line[cut:] for line in text.splitlines())


def command_reference(group: click.Command, name: str = "tnforge") -> str:
    """The command reference page (Markdown) for every command under `group`: usage, help and every option
    with its default, read from the click objects — the same text `--help` shows, laid out as a page."""
    out = ["# Commands", "",
           "Every `tnforge` command and option, generated from the command-line definitions when the site is "
           "built (so it is always the installed version's). `tnforge COMMAND --help` shows the same text.",
           "",
           "Options can also come from a TOML file (`--config FILE`) with keys at the top level or in a table "
           "named after the command (`[build]`, `[train.seq2seq]`); an option given on the command line wins.",
           ""]
    for full_name, command, ctx in commands(group, name):
        level = "#" * (2 + max(0, full_name.count(" ") - 1))  # tnforge, tnforge build: ##; tnforge train seq2seq: ###
        out += [f"{level} `{full_name}`", ""]
        usage = " ".join(command.collect_usage_pieces(ctx))
        out += ["```text", f"{full_name} {usage}".rstrip(), "```", ""]
        out += _help_markdown(inspect.cleandoc(command.help or command.short_help or ""))
        out += _help_markdown(inspect.cleandoc(command.epilog or ""))
        if isinstance(command, click.Group):
            rows = [(sub, command.get_command(ctx, sub)) for sub in command.list_commands(ctx)]
            out += [f"- [`{full_name} {sub}`](#{_anchor(f'{full_name} {sub}')}): "
                    f"{_escape(cmd.get_short_help_str(limit=120))}" for sub, cmd in rows if cmd is not None]
            out.append("")
        records = [(param, param.get_help_record(ctx)) for param in command.get_params(ctx)
                   if isinstance(param, click.Option)]
        arguments = [param for param in command.params if isinstance(param, click.Argument)]
        if arguments:
            out += ["Arguments: " + ", ".join(f"`{arg.make_metavar(ctx)}`" for arg in arguments), ""]
        options = [(param, record) for param, record in records if record is not None]
        if options:
            out += ["Options:", ""]
            out += [f"- `{names}`: {_escape(text)}" if text else f"- `{names}`" for _, (names, text) in options]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _anchor(title: str) -> str:
    """The heading id MkDocs' `toc` extension gives a heading `` `title` ``."""
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


def _mkdocs(root: Path, *args: str) -> list[str]:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401  (installed? the build itself runs in a child process)
        import mkdocstrings  # noqa: F401
    except ImportError as error:
        raise DocsError(f"the documentation needs MkDocs and its plugins ({error.name} is missing): "
                              f"{INSTALL_HINT}") from None
    return [sys.executable, "-m", "mkdocs", *args, "--config-file", str(root / CONFIG)]


def build_site(root: Path, out: str | Path | None = None, *, strict: bool = True) -> Path:
    """Build the site into `out` (default `root/site`; warnings are errors when `strict`); returns its
    `index.html`. Readable from the file system without a server (no external resources); search needs the
    served site (`serve_site`), since browsers do not run its worker from file:// pages."""
    out = Path(out) if out is not None else root / "site"
    # Never --quiet: it hides the warnings that --strict counts.
    command = _mkdocs(root, "build", "--site-dir", str(out.resolve()), *(["--strict"] if strict else []))
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, env=_quiet_env())
    if result.returncode != 0:
        log = (result.stderr or result.stdout).strip().splitlines()
        raise DocsError("the documentation did not build:\n" + "\n".join(log[-20:]))
    return out / "index.html"


def serve_site(root: Path, address: str) -> int:
    """`mkdocs serve` on `address` (rebuilds on every change, until Ctrl-C); returns its exit status."""
    return subprocess.call(_mkdocs(root, "serve", "--dev-addr", address), cwd=root, env=_quiet_env())


def _quiet_env() -> dict[str, str]:
    """The environment without Material's banner about its successor (nothing the reader must act on)."""
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
