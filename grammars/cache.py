"""The FAR cache of compiled grammars, keyed by what they are built from.

The key hashes the grammar sources (every `.py` of this package and of its `en/` class grammars), the tables
(their bytes), the grammar language (`languages.Language.identity`: `en`, or an induced grammar's hash) and the
pynini version, so editing a table or a rule recompiles instead of silently serving a stale grammar (NeMo's cache
is keyed on flags only). The FAR is written under a temporary name and renamed into place; beside it, a JSON file (same key) holds the
small maps expanded into (input → outputs) lists, so loading skips the path enumeration.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

from tnforge.grammars.tables import Tables

SOURCE_DIR = Path(__file__).resolve().parent


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    """`override`, else `$TNFORGE_CACHE/grammars`, else `~/.cache/tnforge/grammars`."""
    if override is not None:
        return Path(override)
    env = os.environ.get("TNFORGE_CACHE")
    if env:
        return Path(env).expanduser() / "grammars"
    return Path.home() / ".cache" / "tnforge" / "grammars"


def grammar_key(tables: Tables, language: str = "en") -> str:
    """Hash of the grammar sources, the tables, the language's identity and the pynini version."""
    import pynini

    hasher = hashlib.sha256()
    for source in sorted([*SOURCE_DIR.glob("*.py"), *SOURCE_DIR.glob("en/*.py")]):
        hasher.update(source.relative_to(SOURCE_DIR).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    hasher.update(tables.digest.encode())
    hasher.update(language.encode() + b"\0")
    hasher.update(pynini.__version__.encode())
    return hasher.hexdigest()[:20]


def far_path(tables: Tables, directory: str | os.PathLike | None = None, language: str = "en") -> Path:
    return cache_dir(directory) / f"grammars-{grammar_key(tables, language)}.far"


def read_far(path: Path) -> dict:
    """Every FST of a FAR by its key."""
    import pynini

    fsts = {}
    with pynini.Far(str(path), mode="r") as far:
        for key, fst in far:
            fsts[key] = fst.copy()
    return fsts


def write_far(path: Path, fsts: dict) -> None:
    """Write FSTs to a FAR atomically (temporary name beside it, then rename)."""
    import pynini

    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".tmp-{uuid.uuid4().hex[:12]}-{path.name}")
    try:
        with pynini.Far(str(temp), mode="w", arc_type="standard", far_type="default") as far:
            for key in sorted(fsts):
                far[key] = fsts[key]
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()


def load_or_compile(tables: Tables, compile_fn, directory: str | os.PathLike | None = None,
                    language: str = "en") -> tuple[dict, bool]:
    """The compiled FSTs from the cache, or compiled now and cached; also whether they came from the cache."""
    path = far_path(tables, directory, language)
    if path.exists():
        try:
            return read_far(path), True
        except Exception:  # a damaged cache file is rebuilt
            pass
    fsts = compile_fn()
    try:
        write_far(path, fsts)
    except OSError:
        pass  # a read-only cache directory only costs the compile next time
    return fsts, False


def load_or_expand(tables: Tables, numbers, directory: str | os.PathLike | None = None, language: str = "en") -> dict:
    """The expanded small maps (input → outputs) from the JSON beside the FAR, or expanded now and saved."""
    path = far_path(tables, directory, language).with_suffix(".maps.json")
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return {name: {key: tuple(values) for key, values in table.items()} for name, table in data.items()}
        except (OSError, ValueError):
            pass  # a damaged file is rebuilt
    expanded = numbers.expand_all()
    temp = path.with_name(f".tmp-{uuid.uuid4().hex[:12]}-{path.name}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(expanded, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        pass
    finally:
        if temp.exists():
            temp.unlink()
    return expanded
