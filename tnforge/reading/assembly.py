"""A normalizer run directory: one artifact holding what `tnforge normalize` needs to read raw text safely —
a decoder model (any registered family), a tagger, whether the covering grammar guards the readings, and the
routing settings — with a manifest of versions and sha256 hashes of its parts.

    DIR/normalizer.json      format, versions, each part's files and sha256, grammar version, routing
    DIR/model/best.pt        the decoder checkpoint (copied)
    DIR/tagger/…             the tagger run's tagger.json and model.json (copied)
    DIR/MODEL_CARD.md        training data, figures, licence, intended use, limitations (`tnforge.reading.card`)

`assemble` writes the parts, then the manifest last (without it DIR is unfinished). `open_normalizer` checks
every part against its hash before use and loads them; a bare model run given where a normalizer is wanted
is refused in one line saying what to add (`bare_model_refusal`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tnforge.trainers.decoding.defaults import CONFIDENCE, THRESHOLD

FORMAT = "tnforge-normalizer"
VERSION = 1
MANIFEST = "normalizer.json"
CARD = "MODEL_CARD.md"
MODEL_FILE = "model/best.pt"
TAGGER_DIR = "tagger"
TAGGER_FILES = ("tagger.json", "model.json")


def is_normalizer(path: str | os.PathLike) -> bool:
    """Whether `path` is a normalizer run directory (has its manifest)."""
    return (Path(path) / MANIFEST).is_file()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble(model: str | os.PathLike, tagger: str | os.PathLike, out: str | os.PathLike,
             grammar_version: str | None, confidence: float = CONFIDENCE, threshold: float = THRESHOLD,
             overwrite: bool = False, card: Callable[[Path, dict[str, Any]], dict[str, Any]] | None = None,
             grammar_language: str = "en") -> tuple[Path, list[str]]:
    """Copy a decoder run's checkpoint and a tagger run into `out` and write the manifest; (out, notes for the
    user). `grammar_version`: the covering grammar's version (`grammars.adapter.version`) when it guards the
    readings, None when it does not; `grammar_language` its language. `card(out, manifest)` writes the model card and returns its facts (kept
    under `card` in the manifest). ValueError (one line) when a part is not what it should be or `out`
    holds something else. Called by `tnforge.Normalizer.save`, the one way to write a normalizer."""
    import tnforge
    from tnforge.trainers.families import family_of
    from tnforge.trainers.tagger import load_tagger
    from tnforge.trainers.training.checkpoints import checkpoint_file, read_payload

    out = Path(out)
    tagger_dir = Path(tagger) if Path(tagger).is_dir() else Path(tagger).parent
    if out.exists() and out.resolve() in (Path(model).resolve().parent, tagger_dir.resolve(), Path(model).resolve()):
        raise ValueError(f"{out}: the normalizer's own parts are there: save it to another folder")
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise ValueError(f"{out} is not empty: add --overwrite to replace it")
    checkpoint = checkpoint_file(model)
    family = family_of(read_payload(checkpoint), checkpoint)
    if family.kind != "decoder":
        raise ValueError(f"{model} is a {family.name} run: a normalizer needs a decoder model (--model)")
    tagged = load_tagger(tagger)  # ValueError when it is not a tagger run of this tnforge's features
    notes = [] if tagged.calibrated else [
        f"{tagger}: the tagger was trained before calibration (its probabilities are the trees'): retrain it "
        "(`tnforge train tagger`) for calibrated routing"]
    if grammar_version is None:
        notes.append("no covering grammar: nothing guards the readings' meaning (--no-grammar)")
    if out.exists() and overwrite:
        for name in (MANIFEST, "model", TAGGER_DIR, CARD):
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    (out / "model").mkdir(parents=True, exist_ok=True)
    (out / TAGGER_DIR).mkdir(exist_ok=True)
    shutil.copyfile(checkpoint, out / MODEL_FILE)
    for name in TAGGER_FILES:
        shutil.copyfile(tagger_dir / name, out / TAGGER_DIR / name)
    manifest = {
        "format": FORMAT, "version": VERSION, "tnforge_version": tnforge.__version__,
        "model": {"family": family.name, "file": MODEL_FILE, "sha256": _sha256(out / MODEL_FILE),
                  "from": str(checkpoint.resolve())},
        "tagger": {"files": {f"{TAGGER_DIR}/{n}": _sha256(out / TAGGER_DIR / n) for n in TAGGER_FILES},
                   "features_version": tagged.description.get("features_version"),
                   "xgboost": tagged.description.get("xgboost"), "calibrated": tagged.calibrated,
                   "temperature": tagged.temperature, "from": str(tagger_dir.resolve())},
        "grammar": {"enabled": grammar_version is not None, "version": grammar_version, "language": grammar_language},
        "routing": {"confidence": confidence, "threshold": threshold},
    }
    if card is not None:
        manifest["card"] = card(out, manifest)
    temp = out / f".{MANIFEST}.tmp"
    temp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(temp, out / MANIFEST)
    return out, notes


def read_manifest(path: str | os.PathLike) -> dict[str, Any]:
    """The manifest of a normalizer, its parts checked against their hashes (ValueError, one line, otherwise)."""
    root = Path(path)
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{root / MANIFEST}: unreadable normalizer manifest ({error})") from error
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{root / MANIFEST}: not a normalizer manifest (format {manifest.get('format')!r})")
    if manifest.get("version", 0) > VERSION:
        raise ValueError(f"{root}: normalizer version {manifest['version']} is newer than this tnforge reads")
    files = {manifest["model"]["file"]: manifest["model"]["sha256"], **manifest["tagger"]["files"]}
    for name, expected in files.items():
        if not (root / name).is_file():
            raise ValueError(f"{root}: {name} is missing: assemble the normalizer again")
        if _sha256(root / name) != expected:
            raise ValueError(f"{root}: {name} does not match its sha256 in {MANIFEST} (changed after assembly): "
                             "assemble the normalizer again")
    return manifest


@dataclass
class NormalizerParts:
    """A normalizer's loaded parts and settings, as the reading commands use them."""

    loaded: Any
    tagger: Any
    confidence: float | None
    threshold: float
    grammar_version: str | None = None  # the grammar version it was assembled with (None: no grammar)
    manifest: dict[str, Any] | None = None  # its normalizer.json, parts checked


def open_normalizer(path: str | os.PathLike, device: Any) -> NormalizerParts:
    """Load a normalizer run directory (hashes checked) onto `device`: its model and tagger, its settings and
    the grammar version it wants (`tnforge.Normalizer.load` attaches the grammar: this package imports none)."""
    from tnforge.trainers.families import load
    from tnforge.trainers.tagger import load_tagger

    root = Path(path)
    manifest = read_manifest(root)
    _family, loaded = load(root / manifest["model"]["file"], device, kind="decoder")
    tagger = load_tagger(root / TAGGER_DIR)
    routing = manifest["routing"]
    wanted = manifest["grammar"]["version"] if manifest["grammar"]["enabled"] else None
    return NormalizerParts(loaded, tagger, routing["confidence"], routing["threshold"], wanted, manifest)


def grammar_note(path: str | os.PathLike, wanted: str, now: str) -> str | None:
    """A note when the covering grammar installed now is not the one a normalizer was assembled with."""
    return None if wanted == now else (f"{path}: the covering grammar changed since assembly (version {wanted}, "
                                       f"now {now}): readings follow the grammar installed now")


def bare_model_refusal(model: str) -> str:
    """Why a bare model run cannot read raw text safely, and what to add (one line)."""
    return (f"{model} is a model run, not a normalizer: without a tagger and the covering grammar nothing guards "
            f"its readings' meaning. Assemble one (tnforge normalizer assemble --model {model} --tagger TAGGER_RUN "
            "--out NORMALIZER) and load that, or give a tagger (--tagger TAGGER_RUN; tagger=… in Python): the "
            "grammar comes with it (--unguarded / guard=False: read every token by the model alone)")
