"""Pieces shared by several tnforge commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

# Options shared by the commands that load a seq2seq model and decode a dataset.
model_option = click.option("--model", "-m", required=True, type=click.Path(exists=True),
                            help="Seq2seq run directory (uses best.pt) or a checkpoint file.")
data_option = click.option("--data", "-d", required=True, type=click.Path(exists=True),
                           help="Dataset directory, folder of examples Parquet files, or one Parquet file.")
device_option = click.option("--device", default="auto", help="auto, cpu, cuda or cuda:N.")
threads_option = click.option("--threads", default=0, type=click.IntRange(0),
                              help="CPU threads for torch (0: torch's default; 1 is fastest on a busy machine).")



def token_progress(total: int, label: str) -> Any:
    """The progress bar of a decoding command: `total` tokens, cleared when done."""
    from tnforge.progress import progress_bar

    return progress_bar(total=total, unit="tok", desc=label, leave=False)

class PassThroughCommand(click.Command):
    """A command whose arguments after `--` go to Beam untouched (kept in ctx.meta['pipeline_args'])."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            args, ctx.meta["pipeline_args"] = args[:cut], args[cut + 1:]
        return super().parse_args(ctx, args)


def parse_ratio(value: str) -> float | None:
    """A `--ratio` value: "10" → 10.0, "all" → None (every candidate)."""
    if str(value).strip().lower() == "all":
        return None
    try:
        number = float(value)
    except ValueError as error:
        raise click.BadParameter(f"{value!r}: a number such as 3 or 10, or 'all'", param_hint="--ratio") from error
    if not number > 0:
        raise click.BadParameter(f"{value!r}: must be positive", param_hint="--ratio")
    return number


def load_seq2seq(model: str, device: str, threads: int = 0) -> Any:
    """A trained seq2seq model for a command (a click error when it cannot be loaded on that device)."""
    import torch

    from tnforge.trainers.devices import DeviceError, resolve_device
    from tnforge.trainers.seq2seq.loading import load_model

    if threads:
        torch.set_num_threads(threads)
    try:
        return load_model(model, resolve_device(device))
    except (DeviceError, FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from error


def example_files_of(data: str, split: str) -> list[Path]:
    """The examples Parquet files of a dataset directory, folder or file (a click error when there are none)."""
    from tnforge.trainers.seq2seq.data import example_files

    try:
        return example_files(data, split)
    except FileNotFoundError as error:
        raise click.ClickException(str(error)) from error
