"""The model-family registry (in the spirit of fairseq's `register_model` and HF's AutoConfig): each
checkpoint records its format, and the format picks the family — its config, loader and trainer. Entries
name their code as lazy "module:attribute" strings, so reading the registry imports no torch."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

#: What a family's loaded model is for: `--model` decodes with a "decoder"; a "scorer" (dual encoder)
#: scores readings inside a decoding constraint.
KINDS = ("decoder", "scorer")


@dataclass(frozen=True)
class Family:
    """A model family: what a checkpoint of `format` is and the code that loads and trains it."""

    name: str  # how messages call it ("seq2seq", "dual encoder")
    format: str  # the format its checkpoints record (`checkpoints.save_checkpoint`)
    kind: str  # one of KINDS
    model_config: str  # "module:attr": the model's config dataclass (from_dict / to_dict)
    loader: str  # "module:attr": (payload, checkpoint file, device) → the loaded model
    trainer: str  # "module:attr": (train_config, resume, overwrite) → result — the training engine's side
    train_config: str  # "module:attr": the training config dataclass (the train command's option defaults)
    commands: tuple[str, ...]  # its `tnforge train` sub-commands (`cli/train/__init__.TRAINERS`)

    def load(self, payload: dict[str, Any], file: os.PathLike, device: Any) -> Any:
        """The loaded model of a payload of this family's format."""
        return resolve(self.loader)(payload, file, device)


#: Checkpoint format → family. Add a family here (and its train command in `cli/train/__init__.TRAINERS`).
FAMILIES: dict[str, Family] = {family.format: family for family in (
    Family("seq2seq", "tnforge-seq2seq", "decoder",
           model_config="tnforge.trainers.seq2seq.model:ModelConfig",
           loader="tnforge.trainers.seq2seq.loading:from_payload",
           trainer="tnforge.trainers.seq2seq.train:train",
           train_config="tnforge.trainers.seq2seq.train:TrainConfig",
           commands=("seq2seq",)),
    Family("dnc", "tnforge-dnc", "decoder",
           model_config="tnforge.trainers.dnc.model:DNCConfig",
           loader="tnforge.trainers.dnc.loading:from_payload",
           trainer="tnforge.trainers.dnc.train:train",
           train_config="tnforge.trainers.dnc.train:DNCTrainConfig",
           commands=("dnc",)),
    Family("sentence", "tnforge-sentence", "decoder",
           model_config="tnforge.trainers.sentence.model:SentenceModelConfig",
           loader="tnforge.trainers.sentence.loading:from_payload",
           trainer="tnforge.trainers.sentence.train:train",
           train_config="tnforge.trainers.sentence.train:SentenceTrainConfig",
           commands=("sentence",)),
    Family("dual encoder", "tnforge-dual-encoder", "scorer",
           model_config="tnforge.trainers.dual_encoders.config:DualEncoderConfig",
           loader="tnforge.trainers.dual_encoders.scorer:from_payload",
           trainer="tnforge.trainers.dual_encoders.train:train_dual_encoder",
           train_config="tnforge.trainers.dual_encoders.train:DETrainConfig",
           commands=("seq-de", "voc-de")),
)}


class WrongKind(ValueError):
    """A checkpoint of a known family, but not of the kind asked for (e.g. a dual encoder as `--model`)."""

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
    return [family for family in FAMILIES.values() if family.kind == kind]


def family_of(payload: Any, file: os.PathLike | str) -> Family:
    """The family of a checkpoint payload; ValueError (one line) for a payload without a tnforge format or
    with a format this tnforge does not know."""
    fmt = payload.get("format") if isinstance(payload, dict) else None
    if not isinstance(fmt, str):
        raise ValueError(f"{file}: not a tnforge checkpoint (no recorded format)")
    if fmt not in FAMILIES:
        raise ValueError(f"{file}: a {fmt!r} checkpoint, which this tnforge does not know (it reads "
                         f"{', '.join(FAMILIES)}); a newer tnforge may")
    return FAMILIES[fmt]


def load(path: os.PathLike | str, device: Any = "cpu", kind: str | None = None) -> tuple[Family, Any]:
    """Any registered family's checkpoint (run directory or file) loaded onto `device`, with its family;
    WrongKind when `kind` is given and the family is of another kind."""
    import torch

    from tnforge.trainers.checkpoints import check_version, checkpoint_file, read_payload

    device = torch.device(device)
    file = checkpoint_file(path)
    payload = read_payload(file, device)
    family = family_of(payload, file)
    if kind is not None and family.kind != kind:
        raise WrongKind(path, family, kind)
    check_version(payload, file)
    return family, family.load(payload, file, device)
