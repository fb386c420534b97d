"""The model-family registry (fairseq's `register_model`, HF's Auto mapping): a family is one folder under
`trainers/` whose `family.py` calls `register_family` once. The registration names the family's code as lazy
"module:attr" strings — its model config, loader and `tnforge train` commands (options generated from their
config dataclasses) — so reading the registry imports no torch. Families outside tnforge come in as plug-ins
(`tnforge.plugins`: `TNFORGE_PLUGINS` or the `tnforge.plugins` entry points).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: What a family's loaded model is for: `--model` decodes with a "decoder"; a "scorer" (dual encoder) scores
#: readings inside a decoding constraint; a "tagger" gives raw-text tokens their classes (`--tagger`); an "inverse"
#: one chooses the written forms of spoken spans (`denormalizer learn --model`); a "spans" one tags spans of
#: spoken words with their classes (`denormalizer learn --tagger`).
KINDS = ("decoder", "scorer", "tagger", "inverse", "spans")


@dataclass(frozen=True)
class TrainCommand:
    """One `tnforge train NAME` command: its options are the documented fields of `config` (and of
    `model_config`, nested as the config's `model`), and of `options` where a command has more (they go to
    `make_config` with the rest)."""

    name: str
    help: str  # the one-line help of the listing
    description: str  # the command's --help text (with examples)
    config: str  # "module:attr": the training config dataclass
    trainer: str  # "module:attr": (config, resume=, overwrite=, explicit=) → result (config only: not resumable)
    describe: str  # "module:attr": result → (note for stderr, summary for stdout)
    model_config: str | None = None  # "module:attr": the network's config dataclass (options of its fields)
    make_config: str | None = None  # "module:attr": (**option values) → config, where not config(**values)
    options: str | None = None  # "module:attr": a dataclass of the command's own options (beside the config's)
    data_help: str = "Dataset directory (examples/train and examples/dev are used)."
    out_help: str = "Run directory: checkpoints, metrics.jsonl, timing.jsonl, run.json, training.png."
    resumable: bool = True  # False: --overwrite only (the option goes into the config), no --resume


@dataclass(frozen=True)
class Family:
    """A model family: what its runs are and the code that loads and trains them."""

    name: str  # how messages call it ("seq2seq", "dual encoder")
    format: str  # the format its checkpoints record (`checkpoints.save_checkpoint`)
    kind: str  # one of KINDS
    loader: str | None = None  # "module:attr": (payload, checkpoint file, device) → the loaded model
    model_config: str | None = None  # "module:attr": the model's config dataclass (from_dict / to_dict)
    commands: tuple[TrainCommand, ...] = ()
    #: A run folder that holds this file is this family's (runs that are no torch checkpoint: the tagger).
    marker: str | None = None
    #: "module:attr": (run folder, device) → the loaded model, for families with a `marker`.
    folder_loader: str | None = None

    def load(self, payload: dict[str, Any], file: os.PathLike, device: Any) -> Any:
        """The loaded model of a payload of this family's format."""
        if self.loader is None:
            raise ValueError(f"{file}: {self.name} runs are folders, not checkpoint files")
        return resolve(self.loader)(payload, file, device)


_REGISTRY: dict[str, Family] = {}
_discovered = False


def register_family(family: Family) -> Family:
    """Register a family (called once, in its folder's `family.py`); a second family with the same format,
    name or train command is refused."""
    if family.kind not in KINDS:
        raise ValueError(f"family {family.name}: kind {family.kind!r} is not one of {', '.join(KINDS)}")
    for other in _REGISTRY.values():
        if other.format == family.format and other != family:
            raise ValueError(f"family {family.name}: format {family.format!r} is {other.name}'s already")
        if other.name == family.name and other != family:
            raise ValueError(f"two families are named {family.name!r}")
        clash = {c.name for c in other.commands} & {c.name for c in family.commands}
        if clash and other != family:
            raise ValueError(f"family {family.name}: `tnforge train {sorted(clash)[0]}` is {other.name}'s already")
    _REGISTRY[family.format] = family
    return family


def _discover() -> None:
    """Import every built-in family's `family.py` (each folder of `trainers/` that has one), then the plug-ins."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = Path(__file__).parent
    for info in sorted(pkgutil.iter_modules([str(package)]), key=lambda i: i.name):
        if info.ispkg and (package / info.name / "family.py").is_file():
            importlib.import_module(f"{__package__}.{info.name}.family")
    from tnforge.plugins import load_plugins

    load_plugins()


def registered() -> dict[str, Family]:
    """Every registered family by format: built-in families in name order, then plug-ins."""
    _discover()
    return dict(_REGISTRY)


def train_commands() -> dict[str, tuple[Family, TrainCommand]]:
    """Every `tnforge train` command by name, with its family."""
    found = {command.name: (family, command) for family in registered().values() for command in family.commands}
    return dict(sorted(found.items()))


class WrongKind(ValueError):
    """A run of a known family, but not of the kind asked for (e.g. a dual encoder as `--model`)."""

    def __init__(self, path: os.PathLike | str, family: Family, kind: str):
        self.path, self.family, self.kind = path, family, kind
        wanted = ", ".join(f.name for f in of_kind(kind))
        super().__init__(f"{path} is a {family.name} run: a {kind} model ({wanted}) is needed here")


def resolve(target: str) -> Any:
    """The object a "module:attr" string names (imported now)."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def of_kind(kind: str) -> list[Family]:
    """The registered families of a kind, in registry order."""
    return [family for family in registered().values() if family.kind == kind]


def family_of(payload: Any, file: os.PathLike | str) -> Family:
    """The family of a checkpoint payload; ValueError (one line) for a payload without a tnforge format or
    with a format this tnforge does not know."""
    fmt = payload.get("format") if isinstance(payload, dict) else None
    if not isinstance(fmt, str):
        raise ValueError(f"{file}: not a tnforge checkpoint (no recorded format)")
    families = registered()
    if fmt not in families:
        raise ValueError(f"{file}: a {fmt!r} checkpoint, which this tnforge does not know (it reads "
                         f"{', '.join(families)}); a newer tnforge may")
    return families[fmt]


def folder_family(path: os.PathLike | str) -> Family | None:
    """The family of a run folder recognised by its marker file (no checkpoint), or None."""
    if not Path(path).is_dir():
        return None
    return next((f for f in registered().values() if f.marker and (Path(path) / f.marker).is_file()), None)


def load(path: os.PathLike | str, device: Any = "cpu", kind: str | None = None) -> tuple[Family, Any]:
    """Any registered family's run (run directory or checkpoint file) loaded onto `device`, with its family;
    WrongKind when `kind` is given and the family is of another kind. A run on a remote store (gs://…) is read
    from a temporary local copy (a worker's filter of the adversarial loop), and keeps its URI as its path."""
    import torch

    from tnforge.filesystems import is_remote

    if is_remote(str(path)):
        from tnforge.folder_copies import local_copy

        with local_copy(path) as local:
            family, model = load(local, device, kind)
        with contextlib.suppress(AttributeError):  # a model without a settable path keeps the copy's
            model.path = str(path)
        return family, model

    from tnforge.trainers.training.checkpoints import check_version, checkpoint_file, read_payload

    device = torch.device(device)
    marked = folder_family(path)
    if marked is not None:
        if kind is not None and marked.kind != kind:
            raise WrongKind(path, marked, kind)
        return marked, resolve(marked.folder_loader)(path, device)  # type: ignore[arg-type]
    file = checkpoint_file(path)
    payload = read_payload(file, device)
    family = family_of(payload, file)
    if kind is not None and family.kind != kind:
        raise WrongKind(path, family, kind)
    check_version(payload, file)
    return family, family.load(payload, file, device)
