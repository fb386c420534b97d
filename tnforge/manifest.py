"""DIR/manifest.json: the commit record of a dataset directory — read it, write it atomically, update a section.

Every command that reads or writes a manifest goes through here (local paths and Beam filesystems alike).
What goes *into* the build's manifest is assembled by `tnforge.pipelines.manifest`.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, TypeVar

from tnforge.errors import TnforgeError
from tnforge.filesystems import (
    exists,
    has_contents,
    is_file,
    is_folder,
    join,
    parquet_files,
    read_bytes,
    write_bytes,
)

P = TypeVar("P", str, os.PathLike)

MANIFEST = "manifest.json"
#: The dataset layout this tnforge writes and reads (2: positive pairs in DIR/positives/, not DIR/pairs/positive/).
LAYOUT = 2
#: The build's scratch folder inside DIR while it runs (removed when the run ends).
SCRATCH = ".tnforge-cache"


class DatasetError(TnforgeError, ValueError):
    """A dataset directory that downstream commands refuse: unfinished, or of another layout (the CLI
    prints it as one line)."""


class NotADataset(DatasetError):
    """A folder given where a dataset directory is wanted that is none: empty, a model run, a grammar, docs."""

    def __init__(self, path: str | os.PathLike, what: str) -> None:
        super().__init__(f"{path}: not a dataset directory ({what}); `tnforge build INPUT... --out DIR` makes one")


class IncompleteBuild(DatasetError):
    """DIR has dataset files but no complete manifest (the build, or its manifest, never finished)."""

    def __init__(self, root: str | os.PathLike) -> None:
        super().__init__(f"{root} is an incomplete build — rebuild it with --overwrite")


class LayoutMismatch(DatasetError):
    """DIR's manifest records another dataset layout than this tnforge's."""

    def __init__(self, root: str | os.PathLike, layout: object) -> None:
        fix = "rebuild it with `tnforge build … --overwrite`" if _older(layout) else "upgrade tnforge"
        super().__init__(f"{root} has dataset layout {layout}; this tnforge reads layout {LAYOUT}: {fix}")
        self.layout = layout


def _older(layout: object) -> bool:
    return not isinstance(layout, int) or layout < LAYOUT


def manifest_path(root: str | os.PathLike) -> str:
    """Where the manifest of dataset directory `root` lives (`root` may be a gs:// URI)."""
    return join(root, MANIFEST)


def has_manifest(root: str | os.PathLike) -> bool:
    """Whether `root` holds a manifest."""
    return is_file(manifest_path(root))


def read_manifest(root: str | os.PathLike, missing_ok: bool = False) -> dict[str, Any] | None:
    """The manifest of `root` as a dict; None when there is none and `missing_ok`, else FileNotFoundError.

    A manifest that is not a JSON object is a ValueError naming the file."""
    path = manifest_path(root)
    if not has_manifest(root):
        if missing_ok:
            return None
        raise FileNotFoundError(f"{path}: no manifest (is {root} a dataset directory built by `tnforge build`?)")
    raw = read_bytes(path)
    try:
        manifest = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not valid JSON: {error}") from error
    if not isinstance(manifest, dict):
        raise ValueError(f"{path}: not a JSON object")
    return manifest


def manifest_sha256(root: str | os.PathLike) -> str | None:
    """The sha256 of `root`'s manifest file (what a run or a normalizer records of its data); None without one."""
    if not has_manifest(root):
        return None
    return hashlib.sha256(read_bytes(manifest_path(root))).hexdigest()


def write_manifest(root: str | os.PathLike, manifest: dict[str, Any]) -> str:
    """Write the manifest of `root` atomically (temporary name, then rename or copy); return its path."""
    return write_bytes(manifest_path(root), (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def update_section(root: str | os.PathLike, name: str, section: dict[str, Any]) -> dict[str, Any]:
    """Replace one top-level section (e.g. "negatives") of `root`'s manifest; return the whole manifest."""
    manifest = read_manifest(root, missing_ok=True) or {}
    manifest[name] = section
    write_manifest(root, manifest)
    return manifest


def mark_complete(manifest: dict[str, Any]) -> dict[str, Any]:
    """`manifest` with this tnforge's layout and the completion marker: only a run's final manifest write uses it."""
    return {"layout": LAYOUT, **{k: v for k, v in manifest.items() if k not in ("layout", "complete")},
            "complete": True}


def is_dataset_directory(path: str | os.PathLike) -> bool:
    """Whether `path` is (or was meant to become) a dataset directory: a local folder with a manifest, the
    build's scratch folder or a dataset's top-level folder (local or remote). Parquet files and plain folders of
    them are not."""
    from tnforge.datasets import DATASET_DIRS

    if not is_folder(path):
        return False
    names = [MANIFEST, SCRATCH, *sorted({d.split("/")[0] for d in DATASET_DIRS.values()})]
    return any(exists(join(path, name)) for name in names)


#: Files that make a folder something other than a dataset: (file name, what the folder is).
_OTHER_RUNS = (("best.pt", "a model run"), ("checkpoint.pt", "a model run"), ("tagger.json", "a tagger run"),
               ("rules.tsv", "a number grammar"), ("grammar.far", "a number grammar"))


def other_kind(path: str | os.PathLike) -> str | None:
    """What folder `path` is when it is a run or grammar of tnforge's instead of a dataset ("a model run
    (best.pt)"); None otherwise."""
    if not is_folder(path):
        return None
    for name, what in _OTHER_RUNS:
        if is_file(join(path, name)):
            return f"{what}: it holds {name}"
    return None


def _refuse_other_folders(path: str | os.PathLike) -> None:
    """NotADataset for a run or grammar folder, an empty folder, or a folder holding no Parquet file."""
    if (what := other_kind(path)) is not None:
        raise NotADataset(path, what)
    if not is_folder(path) or is_dataset_directory(path):
        return
    if not parquet_files(path):
        empty = not has_contents(path)
        raise NotADataset(path, "an empty folder" if empty else "no manifest.json and no Parquet files in it or its "
                          "sub-folders")


def require_dataset(root: str | os.PathLike) -> dict[str, Any]:
    """The manifest of `root`, a complete dataset directory of this layout; NotADataset (one line saying what
    `root` is instead) for any other folder, else as `require_complete`."""
    _refuse_other_folders(root)
    if not is_dataset_directory(root):
        raise NotADataset(root, "no manifest.json and no datasets in the tnforge layout")
    return require_complete(root)


def require_complete(root: str | os.PathLike) -> dict[str, Any]:
    """The manifest of dataset directory `root`, when the build that wrote it finished with this layout.

    Raises LayoutMismatch for a manifest of another layout (none recorded: layout 1) and IncompleteBuild
    when the manifest is missing, unreadable or lacks the completion marker (both are DatasetError)."""
    try:
        manifest = read_manifest(root)
    except (FileNotFoundError, ValueError, OSError) as error:
        raise IncompleteBuild(root) from error
    assert manifest is not None
    layout = manifest.get("layout", 1)
    if layout != LAYOUT:
        raise LayoutMismatch(root, layout)
    if manifest.get("complete") is not True:
        raise IncompleteBuild(root)
    return manifest


def check_input(path: P) -> P:
    """`path`, or DatasetError for an unfinished or other-layout dataset directory given as input, or for a
    folder that holds no dataset at all (empty, a model run, a grammar: `NotADataset`); files and folders of
    Parquet files that are not dataset directories pass (their files are checked where they are read)."""
    _refuse_other_folders(path)
    if is_dataset_directory(path):
        require_complete(path)
    return path


def build_config(root: str | os.PathLike) -> dict[str, Any]:
    """The effective build config recorded in `root`'s manifest ({} when there is no manifest)."""
    manifest = read_manifest(root, missing_ok=True) or {}
    config = manifest.get("config", {})
    return config if isinstance(config, dict) else {}
