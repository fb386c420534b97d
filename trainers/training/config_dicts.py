"""Turning config dataclasses into plain dicts (for checkpoints) and back, ignoring unknown keys."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, Self


def known_fields(cls: type, data: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The entries of `data` that are fields of dataclass `cls` (minus `skip`): older or newer checkpoints load."""
    known = {f.name for f in fields(cls)} - set(skip)
    return {key: value for key, value in data.items() if key in known}


class DictConfig:
    """Base of a config dataclass saved in checkpoints: `to_dict` (nested configs as dicts), and `from_dict`
    ignoring unknown keys and rebuilding nested configs (fields whose default factory is a `DictConfig`)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        values = known_fields(cls, data)
        for f in fields(cls):  # type: ignore[arg-type]
            factory = f.default_factory
            if f.name in values and isinstance(factory, type) and issubclass(factory, DictConfig):
                values[f.name] = factory.from_dict(values[f.name] or {})
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
