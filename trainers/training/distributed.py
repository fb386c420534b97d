"""The process group of a training run: one process (no torch.distributed at all), or the ranks `torchrun`
started (RANK / WORLD_SIZE / LOCAL_RANK in the environment): NCCL on CUDA, gloo on the CPU.

Every collective the engine needs is here, each a no-op on one process, so the training loop reads the same
either way: `agree` (rank 0 decides, every rank raises the same error), `broadcast`, `gather` and
`sum_counts`."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import torch
import torch.distributed as dist

from tnforge.trainers.training.devices import DeviceError, resolve_device

T = TypeVar("T")


class RankError(ValueError):
    """An error rank 0 found, raised on every rank with rank 0's message (so no rank waits for the others)."""


@dataclass(frozen=True)
class ProcessGroup:
    """This process's place in the run: its rank, the world size, its local rank on the machine."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def distributed(self) -> bool:
        return self.world > 1

    @property
    def main(self) -> bool:
        """Rank 0: the only process that writes checkpoints, metrics and progress."""
        return self.rank == 0

    def device(self, name: str) -> torch.device:
        """The device of this rank: `name` as `resolve_device` reads it, with CUDA ranks on GPU `local_rank`."""
        device = resolve_device(name)
        if device.type == "cuda" and self.distributed:
            if name.strip().lower() not in ("auto", "cuda"):
                raise DeviceError(f"--device {name}: under torchrun each rank uses the GPU of its local rank; "
                                  "use --device auto or cuda")
            if self.local_rank >= torch.cuda.device_count():
                raise DeviceError(f"local rank {self.local_rank}: only {torch.cuda.device_count()} GPU(s) here "
                                  "(lower --nproc_per_node)")
            device = torch.device("cuda", self.local_rank)
            torch.cuda.set_device(device)
        return device

    def agree(self, decide: Callable[[], T]) -> T:
        """`decide()` on rank 0, its result on every rank; an error there is raised on every rank."""
        outcome: list[Any] = [None, None]
        if self.main:
            try:
                outcome = [decide(), None]
            except (ValueError, FileNotFoundError, OSError) as error:
                outcome = [None, (type(error).__name__, str(error))]
                if not self.distributed:
                    raise
        outcome = self.broadcast(outcome)
        if outcome[1] is not None:
            raise RankError(outcome[1][1])
        return outcome[0]

    def broadcast(self, value: T) -> T:
        """Rank 0's `value` on every rank (picklable objects)."""
        if not self.distributed:
            return value
        box = [value]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, value: T) -> list[T]:
        """Every rank's `value`, in rank order, on every rank."""
        if not self.distributed:
            return [value]
        boxes: list[Any] = [None] * self.world
        dist.all_gather_object(boxes, value)
        return boxes

    def sum_counts(self, values: list[float], device: torch.device) -> list[float]:
        """Element-wise sums of small numbers over the ranks (one all-reduce)."""
        if not self.distributed:
            return list(values)
        tensor = torch.tensor(values, dtype=torch.float64, device=device)
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        return tensor.tolist()

    def barrier(self) -> None:
        if self.distributed:
            dist.barrier()


def from_environment(device_name: str = "auto") -> ProcessGroup:
    """The process group torchrun describes in the environment (initialized once), or a single process."""
    world = int(os.environ.get("WORLD_SIZE", "1") or 1)
    if world <= 1:
        return ProcessGroup()
    group = ProcessGroup(int(os.environ["RANK"]), world, int(os.environ.get("LOCAL_RANK", "0")))
    if not dist.is_initialized():
        use_cuda = torch.cuda.is_available() and device_name.strip().lower() != "cpu"
        dist.init_process_group("nccl" if use_cuda else "gloo", timeout=timedelta(minutes=30))
    return group


def shut_down() -> None:
    """Leave the process group (at the end of a run)."""
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
