"""The documentation site: it builds with warnings as errors (broken links and anchors, a page missing from the
nav), uses nothing from the network, its command reference is the CLI's, and what the docs tell a user to type
is a real command with real options, reaches tnforge as printed (no `$` the shell expands) and, where it needs no
trained model, runs."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import click
import pytest

from tests.support.paths import REPO
from tnforge.cli import cli
from tnforge.docsite import build_site, command_reference, commands, stage_sources

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")
yaml = pytest.importorskip("yaml")

ROOT = REPO
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built as CI builds it: `mkdocs build --strict` (any warning fails it)."""
    return build_site(ROOT, tmp_path_factory.mktemp("site")).parent


def nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in nav_pages(value)]
    return []


def test_every_page_is_in_the_nav_once() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_pages(config["nav"])
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    generated = {"reference/commands.md"}
    assert sorted(on_disk - set(listed)) == []
    assert sorted(set(listed) - on_disk - generated) == []
    assert len(listed) == len(set(listed))


def test_the_strict_build_writes_every_page(site: Path) -> None:
    for page in DOCS.rglob("*.md"):
        assert (site / page.relative_to(DOCS).with_suffix(".html")).is_file(), page
    api = (site / "reference" / "api" / "decoding.html").read_text(encoding="utf-8")
    assert "DecodingConstraint" in api and "for_batch" in api  # the API reference comes from the docstrings


def test_the_site_loads_nothing_from_the_network(site: Path) -> None:
    """Fonts, scripts, styles and images are all local: the site reads the same offline."""
    external = re.compile(r"""<(?:link|script|img|iframe)\b[^>]*?(?:href|src)=["'](?:https?:)?//""", re.I)
    hits = [f"{page.relative_to(site)}: {m.group(0)}" for page in site.rglob("*.html")
            for m in external.finditer(page.read_text(encoding="utf-8"))]
    css = [p.relative_to(site) for p in site.rglob("*.css") if "fonts.googleapis" in p.read_text(encoding="utf-8")]
    assert hits == [] and css == []


def test_the_command_reference_is_the_cli(site: Path) -> None:
    """Every command and every option of the installed CLI is on the generated page, with its help text."""
    page = (site / "reference" / "commands.html").read_text(encoding="utf-8")
    names = commands(cli)
    assert {"tnforge build", "tnforge train seq2seq", "tnforge grammar induce", "tnforge docs"} <= {n for n, _, _ in names}
    for name, command, ctx in names:
        assert f"<code>{name}</code>" in page, name
        for param in command.get_params(ctx):
            for opt in param.opts if isinstance(param, click.Option) else []:
                assert f"<code>{opt}" in page or f", {opt}" in page, f"{name} {opt}"


def test_the_command_reference_renders_help_blocks_as_code() -> None:
    markdown = command_reference(cli)
    section = markdown.split("## `tnforge normalize`")[1].split("\n## ")[0]
    assert '```text\ntnforge normalize --model runs/normalizer "Train 540 leaves at 4:45"' in section
    assert "- `--threshold FLOAT RANGE`: Tagger probability" in section and "[default: 0; x&gt;=0]" in section


def _is_tnforge(token: str) -> bool:
    return token == "tnforge" or token.endswith("/bin/tnforge")


def documented_commands(text: str) -> list[tuple[str, list[str]]]:
    """Every `tnforge …` (or `.venv/bin/tnforge …`) command line in the fenced code blocks of a Markdown text,
    as tokens after the program (Python blocks are run by the tests of their pages instead)."""
    found = []
    for block in re.findall(r"^```(?!python)[a-z]*\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if "[OPTIONS]" in line:  # a usage line, not a command
                continue
            for part in re.split(r"\s(?:\||&&|;)\s", line):
                try:
                    tokens = shlex.split(part)
                except ValueError:
                    continue
                program = next((i for i, token in enumerate(tokens) if _is_tnforge(token)), None)
                if program is not None:
                    found.append((line, tokens[program + 1:]))
    return found


def unknown_options(tokens: list[str]) -> list[str]:
    """Options in `tokens` (after `tnforge`) that the named command does not have."""
    command: click.Command = cli
    ctx = click.Context(cli, info_name="tnforge")
    rest = list(tokens)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest.pop(0))
        if sub is None:
            return [f"no command {tokens}"]
        command, ctx = sub, click.Context(sub, parent=ctx)
    if "--" in rest:  # what follows goes to Beam
        rest = rest[: rest.index("--")]
    known = {opt for param in command.get_params(ctx) for opt in (*param.opts, *param.secondary_opts)}
    if isinstance(command, click.Group):
        known.add("--debug")
    return [token for token in rest if token.startswith("--") and token.split("=")[0] not in known]


def documentation_texts() -> dict[str, str]:
    """The README, every page and the `--help` texts (as the command reference renders them), by name."""
    texts = {str(page.relative_to(ROOT)): page.read_text(encoding="utf-8")
             for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]}
    texts["--help examples"] = command_reference(cli)
    return texts


def test_every_documented_command_line_exists() -> None:
    """The README's, the pages' and the `--help` examples' command lines use real commands and options."""
    checked, wrong = 0, []
    for name, text in documentation_texts().items():
        for line, tokens in documented_commands(text):
            checked += 1
            wrong += [f"{name}: {line} → {bad}" for bad in unknown_options(tokens)]
    assert checked > 100 and wrong == []


def test_the_option_check_catches_a_wrong_option() -> None:
    [(_, tokens)] = documented_commands("```bash\ntnforge train seq2seq --data d --epoch 3 -- --runner=X\n```\n")
    assert unknown_options(tokens) == ["--epoch"]


#: Fenced blocks whose lines are typed into a shell (unlabelled ones too: the `--help` examples).
_SHELL_BLOCK = re.compile(r"^```(bash|sh|shell|console|text|)\n(.*?)^```", flags=re.S | re.M)
#: What follows a `$` that the shell expands: a name, a digit, `{`, `(` or a special parameter.
_EXPANDS = re.compile(r"[\w{(@*#?!$-]")


def shell_lines(text: str) -> list[str]:
    """The lines of a Markdown text a user types into a shell: every line of its bash/sh blocks and of unlabelled
    ones, and the `tnforge …` lines of text blocks (the rest of those is output)."""
    lines = []
    for language, block in _SHELL_BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            if language != "text" or any(_is_tnforge(word) for word in line.split()):
                lines.append(line)
    return lines


def expanded_in_double_quotes(line: str) -> list[str]:
    """The `$…` a shell expands inside double quotes in `line`: `"It costs $20."` reaches tnforge as "It costs 0."
    (single quotes, or a backslash, keep the `$`)."""
    found, quote, i = [], "", 0
    while i < len(line):
        char = line[i]
        if char == "\\" and quote != "'":
            i += 2
            continue
        if not quote and char in "'\"":
            quote = char
        elif char == quote:
            quote = ""
        elif quote == '"' and char == "$" and _EXPANDS.match(line, i + 1):
            found.append(line[i:i + 2])
        i += 1
    return found


def test_the_dollar_check_catches_double_quotes() -> None:
    assert expanded_in_double_quotes('tnforge normalize -m run "It costs $20."') == ["$2"]
    assert expanded_in_double_quotes('echo "$HOME" "${X}"') == ["$H", "${"]
    assert expanded_in_double_quotes("tnforge normalize -m run 'It costs $20.' '\"$5\"'") == []
    assert expanded_in_double_quotes('echo "costs \\$5" "a $ sign" $PATH') == []


def test_no_documented_command_has_a_dollar_the_shell_expands() -> None:
    """Every shell example of the README, the pages and `--help` reaches tnforge as printed: a `$` inside double
    quotes would be expanded by the shell (write such text in single quotes)."""
    checked, wrong = 0, []
    for name, text in documentation_texts().items():
        for line in shell_lines(text):
            checked += 1
            wrong += [f"{name}: {line.strip()}"] if expanded_in_double_quotes(line) else []
    assert checked > 100 and wrong == []


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_first_session_activates_the_virtual_environment(page: str) -> None:
    """The set-up calls `.venv/bin/…`; a new shell finds a bare `tnforge` only once the environment is active."""
    lines = [line.split(" #")[0].strip() for language, block in _SHELL_BLOCK.findall((ROOT / page).read_text())
             if language in ("bash", "sh") for line in block.splitlines()]
    bare = [i for i, line in enumerate(lines) if line.startswith("tnforge ") and not re.search(r"\.\.\.|\[options\]", line)]
    assert bare and "source .venv/bin/activate" in lines[:bare[0]], lines


def test_the_examples_that_need_no_trained_model_run_as_printed(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's set-up build of the bundled sample and its covering-grammar example run as printed (in a
    temporary folder, where the build's `out/sample` lands)."""
    from click.testing import CliRunner

    printed = {" ".join(tokens): tokens for text in (documentation_texts()[name] for name in
                                                     ("README.md", "docs/getting-started.md"))
               for _, tokens in documented_commands(text)}
    monkeypatch.chdir(tmp_path)
    build = CliRunner().invoke(cli, printed["build --out out/sample --overwrite"])
    assert build.exit_code == 0, build.output
    assert (tmp_path / "out" / "sample" / "manifest.json").is_file() and "[reconciles]" in build.output
    pytest.importorskip("pynini")
    readings = CliRunner().invoke(cli, printed["grammar readings 3kg --class MEASURE"])
    assert readings.exit_code == 0 and "three kilograms" in readings.output.splitlines(), readings.output


def test_every_results_page_names_its_script_machine_and_date() -> None:
    for page in sorted((DOCS / "results").glob("*.md")):
        if page.name == "index.md":
            continue
        head = page.read_text(encoding="utf-8")[:1500]
        scripts = re.findall(r"benchmarks/(\w+)\.py", head)
        assert scripts and all((ROOT / "benchmarks" / f"{s}.py").is_file() for s in scripts), page.name
        assert re.search(r"20\d\d-\d\d-\d\d", head), f"{page.name}: no date"
        assert re.search(r"\bcores?\b|CPUs?\b|GPU|H100|H200", head), f"{page.name}: no machine"


def test_the_dataset_tables_list_the_schemas_columns() -> None:
    """The reference's column tables and the README's summary match `tnforge.schemas`, column for column."""
    from tnforge.schemas import SCHEMAS

    reference = (DOCS / "reference" / "datasets.md").read_text(encoding="utf-8")
    for name, schema in SCHEMAS.items():
        section = reference.split(f"\n## {name}\n")[1].split("\n## ")[0]
        documented = re.findall(r"^\| (\w+) \|", section, flags=re.M)
        assert documented[1:] == schema.names, name  # [0] is the header's "column"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\w+)[^|]* \| ([\w, ]+) \|$", readme, flags=re.M))
    assert {name: rows.get(name, "").split(", ") for name in SCHEMAS} == {n: s.names for n, s in SCHEMAS.items()}


def test_docs_without_mkdocs_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    monkeypatch.setitem(sys.modules, "mkdocstrings", None)  # as if the docs extra were not installed
    result = CliRunner().invoke(cli, ["docs", "--out", "unused"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: the documentation needs MkDocs and its plugins (mkdocstrings is missing): pip install -e '.[docs]'"]


def test_the_staged_sources_mirror_the_installed_layout(tmp_path: Path) -> None:
    """`tnforge.trainers` is `trainers/` in the checkout: the staged tree puts it where an import finds it."""
    staged = stage_sources(ROOT, tmp_path) / "tnforge"
    assert (staged / "trainers").resolve() == ROOT / "trainers"
    assert (staged / "docsite.py").resolve() == ROOT / "tnforge" / "docsite.py"
    (staged / "gone.py").symlink_to(tmp_path / "nothing.py")  # a module deleted since the last staging
    stage_sources(ROOT, tmp_path)
    assert not (staged / "gone.py").is_symlink() and (staged / "grammars" / "adapter.py").is_file()


def test_guides_carry_no_measurement_logs() -> None:
    """Dated, load-stamped figures belong on a results page written by a benchmark, not in a guide."""
    log = re.compile(r"\b20\d\d-\d\d-\d\d\b|load average|\bsession \d+\b|measured on ", re.I)
    pages = [p for p in DOCS.rglob("*.md") if p.parent.name != "results"]
    hits = [f"{p.relative_to(DOCS)}:{n}: {line.strip()[:80]}" for p in pages
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if log.search(re.sub(r"`[^`]*`", "", line))]  # example tokens in code spans (`2008-09-30`) are fine
    assert hits == []
