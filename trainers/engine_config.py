"""The training options every family shares (`EngineConfig`), and `option`, the field that carries its
command-line help: `tnforge train …` options are generated from these dataclasses (`cli/train/options.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tnforge.trainers.config_dicts import DictConfig


def option(default: Any, help: str, **cli: Any) -> Any:
    """A config field with its `--option` help; `cli` may hold `min`/`max` (bounds), `min_open`, `choices`,
    `aliases` (more option names) or `hidden` (no option: set by the command itself)."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: default, metadata={"help": help, **cli})
    return field(default=default, metadata={"help": help, **cli})


#: Options a resumed run takes from the new command line rather than from its checkpoint.
RUNTIME_OPTIONS = ("epochs", "max_minutes", "device", "threads", "progress", "patience")


@dataclass
class EngineConfig(DictConfig):
    """What the training engine (`trainers.engine`) reads; each family's config adds its own fields."""

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

    def overrides(self) -> dict[str, Any]:
        """The runtime options of this config (`RUNTIME_OPTIONS`)."""
        return {name: getattr(self, name) for name in RUNTIME_OPTIONS}
