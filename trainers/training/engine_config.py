"""The training options every family shares (`EngineConfig`), and `option`, the field that carries its
command-line help: `tnforge train …` options are generated from these dataclasses (`cli/train/options.py`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from tnforge.trainers.training.config_dicts import DictConfig


def option(default: Any, help: str, **cli: Any) -> Any:
    """A config field with its `--option` help; `cli` may hold `min`/`max` (bounds), `min_open`, `choices`,
    `aliases` (more option names), `parse` ("module:attr" turning the option's text into the value) or
    `hidden` (no option: set by the command itself)."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: default, metadata={"help": help, **cli})
    return field(default=default, metadata={"help": help, **cli})


#: Options a resumed run may take from the new command line; every other option stays as its checkpoint records.
RUNTIME_OPTIONS = ("epochs", "max_minutes", "device", "threads", "progress", "patience")


@dataclass
class EngineConfig(DictConfig):
    """What the training engine (`trainers.training.engine`) reads; each family's config adds its own fields."""

    data: str = option("", "Dataset directory.", hidden=True)
    out: str = option("", "Run directory.", hidden=True)
    device: str = option("auto", "auto (a GPU when there is one), cpu, cuda or cuda:N. Under torchrun each rank "
                                 "uses the GPU of its local rank.")
    epochs: int = option(40, "Maximum passes over the train split.", min=1)
    batch_size: int = option(64, "Examples per optimizer step, over all ranks (the global batch).", min=1)
    learning_rate: float = option(2e-3, "Adam step size.", min=0, min_open=True, aliases=("--lr",))
    clip: float = option(1.0, "Gradient-norm clipping (0: none).", min=0)
    lr_decay: float = option(0.5, "Multiply the learning rate by this when the dev figure stops improving "
                                  "(1: no decay).", min=0, max=1, min_open=True)
    patience: int = option(6, "Dev evaluations without improvement before stopping.", min=1)
    eval_every: int = option(0, "Steps between dev evaluations (0: each epoch).", min=0)
    max_minutes: float = option(12.0, "Wall-clock budget in minutes; the best weights so far are kept (0: none).",
                                min=0)
    seed: int = option(13, "Seed of weights, dropout and data order.")
    amp: bool = option(True, "Mixed precision on CUDA: bfloat16 where the GPU has it, else float16 with a "
                             "gradient scaler (ignored on CPU).")
    threads: int = option(0, "CPU threads of torch (0: torch's default).", min=0)
    progress: bool = option(True, "Progress bar, and a line per dev evaluation, on standard error.")

    def overrides(self, explicit: Collection[str] | None = None) -> dict[str, Any]:
        """The runtime options of this config (`RUNTIME_OPTIONS`); with `explicit`, those named in it only."""
        return {name: getattr(self, name) for name in RUNTIME_OPTIONS if explicit is None or name in explicit}


def flag(name: str) -> str:
    """A config field's command-line option: max_minutes → --max-minutes."""
    return "--" + name.replace("_", "-")


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _leaves(values: dict[str, Any]) -> dict[str, Any]:
    """A config dict's values by field name, nested configs' fields included (lists as tuples, to compare)."""
    flat: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, dict):
            flat.update(_leaves(value))
        else:
            flat[name] = tuple(value) if isinstance(value, list) else value
    return flat


def resumed(saved: EngineConfig, given: EngineConfig, explicit: Collection[str] | None) -> list[str]:
    """Bring `saved`, the config a run recorded at its start, to a resumed run: the new command line's (`given`)
    data and out, and its runtime options (`RUNTIME_OPTIONS`) named in `explicit` (the options given on the
    command line; None: all of them, as a library call's config sets them). Every other option stays as
    recorded. Returns the lines that say what changed, and which options given were kept as recorded."""
    changed = []
    for name, value in given.overrides(explicit).items():
        if getattr(saved, name) != value:
            changed.append(f"{flag(name)} {_shown(getattr(saved, name))} → {_shown(value)}")
            setattr(saved, name, value)
    saved.data, saved.out = given.data, given.out
    recorded, asked = _leaves(saved.to_dict()), _leaves(given.to_dict())
    kept = [flag(name) for name in sorted(set(explicit or ()) - set(RUNTIME_OPTIONS) - {"data", "out"})
            if name not in recorded or recorded[name] != asked.get(name)]
    lines = [f"changed by the command line: {', '.join(changed)}"] if changed else []
    if kept:
        lines.append(f"kept as the run recorded them: {', '.join(kept)} (a resumed run changes only "
                     f"{', '.join(flag(name) for name in RUNTIME_OPTIONS)}; start a new run with --overwrite "
                     "to change the others)")
    return lines
