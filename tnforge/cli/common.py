"""Options and helpers shared by several tnforge commands, defined once: model/data/device options, the
constraint options, loading a model, the grammar as callables, progress bars, library errors → click errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from tnforge.trainers.decoding.constraint_sets import WEIGHT

Decorator = Callable[[Any], Any]

def dataset_input(_ctx: Any, _param: Any, value: str | None) -> str | None:
    """--data of every model command: an unfinished or other-layout dataset directory is refused in one line."""
    from tnforge.manifest import DatasetError, check_input

    try:
        return value if value is None else check_input(value) or value
    except DatasetError as error:
        raise click.ClickException(str(error)) from error


# Options shared by the commands that load a seq2seq model and decode a dataset.
model_option = click.option("--model", "-m", required=True, type=click.Path(exists=True),
                            help="Seq2seq run directory (uses best.pt) or a checkpoint file.")
data_option = click.option("--data", "-d", required=True, type=click.Path(exists=True), callback=dataset_input,
                           help="Dataset directory, folder of examples Parquet files, or one Parquet file.")
device_option = click.option("--device", default="auto", help="auto, cpu, cuda or cuda:N.")
threads_option = click.option("--threads", default=0, type=click.IntRange(0),
                              help="CPU threads for torch (0: torch's default; 1 is fastest on a busy machine).")
beam_option = click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
batch_size_option = click.option("--batch-size", default=256, type=click.IntRange(1), help="Inputs decoded together.")


def weight_option(help: str = "Constraint weight λ.") -> Decorator:
    """--lambda (the constraint weight, passed as `weight`)."""
    return click.option("--lambda", "weight", default=WEIGHT, type=click.FloatRange(0), help=help)


def option_group(*decorators: Decorator) -> Decorator:
    """Several click options as one decorator, in the order given."""
    def decorate(function: Any) -> Any:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


#: --device and --threads, the last options of every model command.
runtime_options = option_group(device_option, threads_option)
#: --beam and --batch-size of the decoding commands.
decoding_options = option_group(beam_option, batch_size_option)

#: --seq-de, --voc-de, --grammar-constraint, --lambda of decode and evaluate (see `constraint_of`).
constraint_options = option_group(
    click.option("--seq-de", default=None, type=click.Path(exists=True),
                 help="Sequence dual encoder run: STOP + λ(s − 0.5)."),
    click.option("--voc-de", default=None, type=click.Path(exists=True),
                 help="Vocabulary-filter dual encoder run: each word + λ(s − 1)."),
    click.option("--grammar-constraint", is_flag=True, default=False,
                 help="Hard covering-grammar mask for inputs of covered classes (needs the class column)."),
    weight_option(),
)


def parsed_by(parse: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A click callback passing an option's value through `parse`; its errors are bad-parameter errors."""
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        try:
            return parse(value)
        except (FileNotFoundError, ValueError) as error:
            raise click.BadParameter(str(error), param_hint=param.opts[0]) from error

    return callback


@contextmanager
def click_errors() -> Iterator[None]:
    """Library errors (missing files, bad values, unusable devices) as click errors."""
    from tnforge.trainers.devices import DeviceError

    try:
        yield
    except (DeviceError, FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from error


def token_progress(label: str, total: int) -> Any:
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

    from tnforge.trainers.devices import resolve_device
    from tnforge.trainers.seq2seq.loading import load_model

    if threads:
        torch.set_num_threads(threads)
    with click_errors():
        return load_model(model, resolve_device(device))


def example_files_of(data: str, split: str) -> list[Path]:
    """The examples Parquet files of a dataset directory, folder or file (a click error when there are none)."""
    from tnforge.trainers.seq2seq.data import example_files

    with click_errors():
        return example_files(data, split)


def grammar_judges(wanted: bool | None) -> tuple[Callable | None, str]:
    """The covering grammar's tolerant batch judge and a note on it (a click error when required but missing)."""
    from tnforge.grammars import adapter

    try:
        return adapter.judge(wanted)
    except adapter.GrammarUnavailable as error:
        raise click.ClickException(f"--grammar: {error}") from error


def grammar_reading_words() -> tuple[Callable[[str, str | None], Any], frozenset[str]]:
    """The covering grammar as a `(before, cls) → word tuples` callable, and the classes it covers."""
    from tnforge.grammars import adapter

    try:
        return adapter.reading_words()
    except adapter.GrammarUnavailable as error:
        raise click.ClickException(f"--grammar-constraint: {error}") from error


def constraint_of(loaded: Any, seq_de: str | None, voc_de: str | None, grammar_constraint: bool,
                  weight: float) -> tuple[Any, str]:
    """The constraint the constraint options ask for (`trainers.constraint_sets.build_constraint`) and a note."""
    from tnforge.trainers.decoding.constraint_sets import build_constraint

    reading_words, covered = grammar_reading_words() if grammar_constraint else (None, frozenset())
    with click_errors():
        return build_constraint(loaded, seq_de, voc_de, reading_words, covered, weight)
