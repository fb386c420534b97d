"""Turning config dataclasses into plain dicts (for checkpoints) and back, ignoring unknown keys."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, Self


def known_fields(cls: type, data: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The entries of `data` that are fields of dataclass `cls` (minus `skip`): older or newer checkpoints load."""
    known = {f.name for f in fields(cls)} - set(skip)
    return {key: value for key, value in data.items() if key in known}


class DictConfig:
    """Base of a flat config dataclass saved in checkpoints: `to_dict`, and `from_dict` ignoring unknown keys."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return cls(**known_fields(cls, data))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
