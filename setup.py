"""The package list, found rather than written down: every folder with an `__init__.py` under the folders that
pyproject.toml's `package-dir` maps (a new family or generator folder ships without editing a list). All other
metadata is in pyproject.toml. Beam/Dataflow (--setup_file) also builds tnforge for its workers from here."""

import tomllib
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def packages() -> list[str]:
    """Every package of the wings, by its installed name ("tnforge.trainers.tagger")."""
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    found = set()
    for name, folder in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if not any(part.startswith(".") or part in ("build", "__pycache__") for part in parts):
                found.add(".".join([name, *parts]))
    return sorted(found)

if __name__ == "__main__":
    setup(packages=packages())
