"""The dependency rules and size limits of docs/explanation/architecture.md, checked on the source tree."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO
#: Folder → the tnforge sub-package it installs as.
WINGS = {"tnforge": "tnforge", "pipelines": "tnforge.pipelines", "generators": "tnforge.generators",
         "trainers": "tnforge.trainers", "schemas": "tnforge.schemas", "grammars": "tnforge.grammars",
         "validation": "tnforge.validation"}
#: Folder → imports it must never make (a name and everything below it).
FORBIDDEN = {
    "pipelines": ("torch", "tnforge.trainers", "tnforge.cli"),
    "generators": ("torch", "apache_beam", "tnforge.trainers", "tnforge.pipelines", "tnforge.cli"),
    "trainers": ("apache_beam", "pynini", "tnforge.grammars", "tnforge.pipelines", "tnforge.generators",
                 "tnforge.validation", "tnforge.cli"),
    "grammars": ("torch", "apache_beam", "tnforge.trainers", "tnforge.pipelines", "tnforge.generators",
                 "tnforge.validation", "tnforge.cli"),
    "validation": ("torch", "pynini", "tnforge.trainers", "tnforge.cli"),
    "benchmarks": ("tnforge.cli",),
    # The reading layer (`tnforge.Normalizer`) joins the model side and the grammar, above both; Beam's
    # inference handler and the CLI call it, never the other way round.
    "tnforge/reading": ("apache_beam", "tnforge.pipelines", "tnforge.generators", "tnforge.validation",
                        "tnforge.cli"),
}
#: Folder → the only tnforge packages it may import (besides itself).
ONLY = {"schemas": ("tnforge.schemas",),
        "grammars": ("tnforge.grammars", "tnforge.schemas", "tnforge.hashing", "tnforge.collector",
                     "tnforge.letter_spelling")}
#: Core modules (tnforge/*.py, not the CLI or the reading layer) sit below every wing.
WING_PACKAGES = ("tnforge.pipelines", "tnforge.generators", "tnforge.trainers", "tnforge.grammars",
                 "tnforge.validation", "tnforge.cli")
MAX_MODULE_LINES = 500
MAX_CLI_LINES = 1550  # option parsing only; room for train sentence, normalizer assembly, aligned-text input,
#                     the Beam modes of decode, evaluate, normalize and loop (a branch each; pipelines/inference.py)
#                     and the inverse direction (denormalize, denormalizer learn)


def python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def imports(path: Path) -> set[str]:
    """Every module a file imports (absolute names; `from . import x` resolved against its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    relative = path.relative_to(ROOT).with_suffix("").parts
    package = [WINGS.get(relative[0], relative[0]), *relative[1:-1]]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_wings_keep_their_dependency_rules(folder):
    broken = [f"{path.relative_to(ROOT)} imports {name}" for path in python_files(folder)
              for name in sorted(imports(path)) if any(under(name, bad) for bad in FORBIDDEN[folder])]
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("folder", sorted(ONLY))
def test_contract_wings_import_only_what_they_may(folder):
    broken = [f"{path.relative_to(ROOT)} imports {name}" for path in python_files(folder)
              for name in sorted(imports(path))
              if under(name, "tnforge") and name != "tnforge" and not any(under(name, ok) for ok in ONLY[folder])]
    assert not broken, "\n".join(broken)


def test_core_sits_below_every_wing():
    core = [p for p in python_files("tnforge")  # __main__ starts the CLI
            if not {"cli", "reading"} & set(p.relative_to(ROOT).parts) and p.name != "__main__.py"]
    broken = [f"{path.relative_to(ROOT)} imports {name}" for path in core for name in sorted(imports(path))
              if any(under(name, wing) for wing in WING_PACKAGES)]
    assert not broken, "\n".join(broken)


def test_cli_command_modules_do_not_import_each_other():
    shared = {"tnforge.cli.common", "tnforge.cli.lazy", "tnforge.cli.options", "tnforge.cli.train.commands"}

    def allowed(name: str) -> bool:  # a shared module, or a name imported from one
        return name == "tnforge.cli" or name in shared or name.rpartition(".")[0] in shared

    broken = [f"{path.relative_to(ROOT)} imports {name}" for path in python_files("tnforge/cli")
              for name in sorted(imports(path)) if under(name, "tnforge.cli") and not allowed(name)]
    assert not broken, "\n".join(broken)


def test_no_module_is_over_the_size_limit():
    folders = [*WINGS, "benchmarks"]
    big = [f"{path.relative_to(ROOT)}: {n} lines" for folder in folders if (ROOT / folder).is_dir()
           for path in python_files(folder) if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert not big, "\n".join(big)


def test_the_cli_stays_a_thin_shell():
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in python_files("tnforge/cli"))
    assert lines <= MAX_CLI_LINES, f"tnforge/cli/ has {lines} lines (limit {MAX_CLI_LINES})"


def module_graph() -> dict[str, set[str]]:
    """Our modules → the modules of ours they import at module level (`from pkg import submodule` counts
    as the submodule; imports inside functions are lazy and left out)."""
    files = {}
    for folder, package in WINGS.items():
        for path in python_files(folder):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            files[".".join([package, *parts]).removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        found: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files else node.module
                             for a in node.names)
        graph[name] = {module for module in found if module in files and module != name}
    return graph


def test_no_import_cycle():
    graph, state, cycles = module_graph(), {}, []

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for other in sorted(graph[module]):
            if state.get(other) == "open":
                cycles.append(" → ".join([*path[path.index(other):], module, other]))
            elif other not in state:
                visit(other, [*path, module])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert len(graph) > 100 and not cycles, "\n".join(cycles)


def test_the_family_registry_names_its_code_lazily():
    """Every family's "module:attr" names a module of ours defining attr, and reading the registry (as
    `tnforge --help` and the model commands' options do) imports no torch."""
    import subprocess
    import sys

    from tnforge.trainers.families import registered

    for family in registered().values():
        targets = [family.model_config, family.loader, family.folder_loader]
        for command in family.commands:
            targets += [command.config, command.trainer, command.describe, command.model_config,
                        command.make_config, command.options]
        for target in filter(None, targets):
            module, _, attribute = target.partition(":")
            package, *rest = module.removeprefix("tnforge.").split(".")
            folder = next((f for f, p in WINGS.items() if p == f"tnforge.{package}"), None)
            path = (ROOT.joinpath(folder, *rest) if folder else ROOT.joinpath("tnforge", package, *rest)).with_suffix(".py")
            tree = ast.parse(path.read_text(encoding="utf-8")).body
            names = {node.name for node in tree if isinstance(node, ast.FunctionDef | ast.ClassDef)}
            names |= {t.id for node in tree if isinstance(node, ast.Assign) for t in node.targets
                      if isinstance(t, ast.Name)}
            assert attribute in names, target
    script = ("import sys, tnforge.trainers.families, tnforge.cli.common; tnforge.trainers.families.registered(); "
              "print('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_every_package_folder_is_installed(tmp_path: Path) -> None:
    """A wheel (not only an editable install) carries every sub-package, found by setup.py (no list to edit
    when a family or generator folder is added): every folder with an `__init__.py` under the wings, and its
    registration modules, and the grammars' data files."""
    import shutil
    import subprocess
    import sys
    import zipfile

    pytest.importorskip("build")
    source = tmp_path / "source"  # a copy: setuptools builds under the source tree's build/
    for folder in WINGS:
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(tmp_path),
                            str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    names = set(zipfile.ZipFile(next(tmp_path.glob("*.whl"))).namelist())
    found = {"/".join([*WINGS[folder].split("."), *init.parent.relative_to(ROOT / folder).parts, "__init__.py"])
             for folder in WINGS for init in (ROOT / folder).rglob("__init__.py")}
    assert found <= names, sorted(found - names)
    families = {"/".join(["tnforge", "trainers", *path.relative_to(ROOT / "trainers").parts])
                for path in (ROOT / "trainers").glob("*/family.py")}
    assert families and families <= names, sorted(families - names)
    # Package data: each language's grammar tables and test cases (grammars/en/data/*.tsv, en/tests/*.txt).
    data = {"/".join(["tnforge", "grammars", *path.relative_to(ROOT / "grammars").parts])
            for pattern in ("*/data/*.tsv", "*/tests/*.txt") for path in (ROOT / "grammars").glob(pattern)}
    assert data and data <= names, sorted(data - names)


#: The rooms of trainers/: each imports only rooms below it (by every import, a function's too).
ROOMS_BELOW = {
    "training": (),
    "families": ("training",),  # the registry: family code is named by strings, loaded on demand
    "decoding": ("training", "families"),
    "kernel": ("training", "families", "decoding"),
    "evaluation": ("training", "families", "decoding", "kernel", "tagger"),
}
FAMILY_ROOMS = ("seq2seq", "dnc", "sentence", "dual_encoders", "tagger")


def room_of(module: str) -> str | None:
    """The trainers room of a module name (`tnforge.trainers.training.engine` → "training"), or None."""
    if not module.startswith("tnforge.trainers."):
        return None
    return module.split(".")[2].removesuffix(".py")


def test_the_trainers_rooms_import_one_way_and_never_the_reading_layer() -> None:
    """training ← decoding ← kernel ← evaluation ← the families ← the loop, the workers and the reading layer:
    a room never imports one above it, no room imports the reading layer, and the rooms form no circle."""
    edges: dict[str, set[str]] = {}
    broken = []
    for path in python_files("trainers"):
        parts = path.relative_to(ROOT / "trainers").with_suffix("").parts
        room = parts[0]
        for name in imports(path):
            if under(name, "tnforge.reading"):
                broken.append(f"{path.relative_to(ROOT)} imports the reading layer ({name})")
            other = room_of(name)
            if other is None or other == room:
                continue
            edges.setdefault(room, set()).add(other)
            if room in ROOMS_BELOW and other not in ROOMS_BELOW[room]:
                broken.append(f"{path.relative_to(ROOT)} ({room}) imports {name} ({other}): a room above it")
    assert not broken, "\n".join(broken)
    state: dict[str, int] = {}

    def circle(room: str, trail: list[str]) -> list[str] | None:
        state[room] = 1
        for other in sorted(edges.get(room, ())):
            if state.get(other) == 1:
                return [*trail, room, other]
            if other not in state and (found := circle(other, [*trail, room])):
                return found
        state[room] = 2
        return None

    circles = [found for room in sorted(edges) if room not in state and (found := circle(room, []))]
    assert not circles, circles
    assert set(FAMILY_ROOMS) <= set(edges) and "training" not in edges
