"""Plug-ins: code outside tnforge that registers model families (or other registered parts) the way built-in
ones do — fairseq's `--user-dir` in spirit. Two ways in, both read once per process:

- the `TNFORGE_PLUGINS` environment variable: entries separated by the path separator (`:`), each a folder
  holding a package (its `__init__.py` or a `family.py` registers), a `.py` file, or an importable module name;
- installed distributions that declare an entry point in the `tnforge.plugins` group.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from pathlib import Path

from tnforge.errors import TnforgeError

#: The environment variable naming plug-ins to import.
VARIABLE = "TNFORGE_PLUGINS"
#: The entry-point group of installed plug-ins.
GROUP = "tnforge.plugins"

_loaded: set[str] = set()


class PluginError(TnforgeError, ValueError):
    """A plug-in that could not be imported (one line: which, and why)."""


def _import(entry: str) -> None:
    path = Path(entry)
    if entry.endswith(".py") or os.sep in entry or path.is_dir():
        if not path.exists():
            raise PluginError(f"{VARIABLE}: {entry}: no such file or folder")
        parent, name = str(path.resolve().parent), path.stem if path.suffix == ".py" else path.name
        if parent not in sys.path:
            sys.path.insert(0, parent)
        module = importlib.import_module(name)
        family = getattr(module, "__path__", None) and Path(module.__path__[0]) / "family.py"
        if family and family.is_file():
            importlib.import_module(f"{name}.family")
        return
    importlib.import_module(entry)


def load_plugins() -> None:
    """Import every plug-in not imported yet (their registrations run on import); PluginError in one line."""
    entries = [e for e in os.environ.get(VARIABLE, "").split(os.pathsep) if e.strip()]
    for entry in entries:
        if entry in _loaded:
            continue
        _loaded.add(entry)
        try:
            _import(entry)
        except PluginError:
            raise
        except Exception as error:  # noqa: BLE001 - whatever a plug-in raises, say which one and why
            raise PluginError(f"{VARIABLE}: cannot import {entry}: {type(error).__name__}: {error}") from error
    for point in importlib.metadata.entry_points(group=GROUP):
        if f"entry point {point.name}" in _loaded:
            continue
        _loaded.add(f"entry point {point.name}")
        try:
            point.load()
        except Exception as error:  # noqa: BLE001
            raise PluginError(f"plug-in {point.name} ({point.value}): {type(error).__name__}: {error}") from error
