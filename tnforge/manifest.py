"""DIR/manifest.json: the commit record of a dataset directory — read it, write it atomically, update a section.

Every command that reads or writes a manifest goes through here (local paths and Beam filesystems alike).
What goes *into* the build's manifest is assembled by `tnforge.pipelines.manifest`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tnforge.filesystems import is_remote, open_binary, write_atomically

MANIFEST = "manifest.json"


def manifest_path(root: str | os.PathLike) -> str:
    """Where the manifest of dataset directory `root` lives (`root` may be a gs:// URI)."""
    root = str(root)
    return f"{root.rstrip('/')}/{MANIFEST}" if is_remote(root) else os.path.join(root, MANIFEST)


def has_manifest(root: str | os.PathLike) -> bool:
    """Whether `root` holds a manifest."""
    path = manifest_path(root)
    if is_remote(path):
        from apache_beam.io.filesystems import FileSystems

        return FileSystems.exists(path)
    return os.path.isfile(path)


def read_manifest(root: str | os.PathLike, missing_ok: bool = False) -> dict[str, Any] | None:
    """The manifest of `root` as a dict; None when there is none and `missing_ok`, else FileNotFoundError.

    A manifest that is not a JSON object is a ValueError naming the file."""
    path = manifest_path(root)
    if not has_manifest(root):
        if missing_ok:
            return None
        raise FileNotFoundError(f"{path}: no manifest (is {root} a dataset directory built by `tnforge build`?)")
    with open_binary(path) as handle:
        raw = handle.read()
    try:
        manifest = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not valid JSON: {error}") from error
    if not isinstance(manifest, dict):
        raise ValueError(f"{path}: not a JSON object")
    return manifest


def write_manifest(root: str | os.PathLike, manifest: dict[str, Any]) -> str:
    """Write the manifest of `root` atomically (temporary name, then rename or copy); return its path."""
    path = manifest_path(root)
    with write_atomically(path) as handle:
        handle.write((json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def update_section(root: str | os.PathLike, name: str, section: dict[str, Any]) -> dict[str, Any]:
    """Replace one top-level section (e.g. "negatives") of `root`'s manifest; return the whole manifest."""
    manifest = read_manifest(root, missing_ok=True) or {}
    manifest[name] = section
    write_manifest(root, manifest)
    return manifest


def build_config(root: str | os.PathLike) -> dict[str, Any]:
    """The effective build config recorded in `root`'s manifest ({} when there is no manifest)."""
    manifest = read_manifest(root, missing_ok=True) or {}
    config = manifest.get("config", {})
    return config if isinstance(config, dict) else {}
