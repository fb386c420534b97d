"""Options and helpers shared by several tnforge commands, defined once: model/data/device options, the
constraint options, the trainers' options, loading a model (through the family registry), progress bars,
library errors → click errors."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from tnforge.config import config_option, parse_ratio
from tnforge.errors import interrupt_says
from tnforge.manifest import check_input
from tnforge.progress import token_progress as token_progress  # the decoding commands' progress bar
from tnforge.trainers.decoding.constraint_sets import WEIGHT
from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM
from tnforge.trainers.families import of_kind

Decorator = Callable[[Any], Any]

class Location(click.ParamType):
    """A local path (checked as `click.Path` checks it) or a URI such as gs://… (`filesystems.check_path`; with
    `exists`, the file or folder must be there)."""

    name = "path"

    def __init__(self, exists: bool = False, file_okay: bool = True, dir_okay: bool = True) -> None:
        self.exists = exists
        self.local = click.Path(exists=exists, file_okay=file_okay, dir_okay=dir_okay)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from tnforge import filesystems

        try:
            filesystems.check_path(value)
            if not filesystems.is_remote(value):
                return self.local.convert(value, param, ctx)
            if self.exists and not filesystems.exists(value):
                self.fail(f"{value}: does not exist", param, ctx)
        except filesystems.PathError as error:
            self.fail(str(error), param, ctx)
        return value


def data_option(help: str, file_okay: bool = True) -> Decorator:
    """--data/-d of the model commands (local or gs://…): an unfinished or other-layout dataset directory is
    refused in one line (`manifest.check_input`)."""
    return click.option("--data", "-d", required=True, type=Location(exists=True, file_okay=file_okay),
                        callback=lambda _ctx, _param, value: check_input(value), help=help)


# Options shared by the commands that load a decoder model and decode a dataset.
model_option = click.option("--model", "-m", required=True, type=Location(exists=True),
                            help=f"Run directory (uses best.pt) or checkpoint file of a decoder model "
                                 f"({', '.join(f.name for f in of_kind('decoder'))}); local or gs:// (read from "
                                 "a temporary copy, also by Beam's workers).")
beam_option = click.option("--beam", default=BEAM, type=click.IntRange(1), help="Beam width.")


def shared_option(*names: str, **settings: Any) -> Callable[..., Decorator]:
    """An option declared once: each command passes its default (from its config dataclass) and, where the
    meaning differs, its own help."""
    def option(default: Any, help: str | None = None) -> Decorator:
        return click.option(*names, default=default, **{**settings, **({"help": help} if help else {})})

    return option


device_option = shared_option("--device", help="auto, cpu, cuda or cuda:N.")
threads_option = shared_option("--threads", type=click.IntRange(0), help="CPU threads for torch (0: torch's "
                               "default; 1 is fastest on a busy machine).")
batch_size_option = shared_option("--batch-size", type=click.IntRange(1), help="Inputs decoded together.")
# The trainers' options (loop: --epochs).
epochs_option = shared_option("--epochs", type=click.IntRange(1))
learning_rate_option = shared_option("--learning-rate", "--lr", type=click.FloatRange(0, min_open=True))
seed_option = shared_option("--seed", type=int)
progress_option = shared_option("--progress/--no-progress", help="Progress bar on stderr.")
#: --out/-o, the folder a command writes (each command gives its help).
out_option = functools.partial(click.option, "--out", "-o", required=True, type=click.Path(file_okay=False))
#: The type of an output folder that may be remote (gs://…).
output_folder = Location(file_okay=False)
#: --lambda, the constraint weight (passed as `weight`).
weight_option = shared_option("--lambda", "weight", type=click.FloatRange(0), help="Constraint weight λ.")
#: --lambda of the commands that decode a dataset with the dual encoders: λ per class allowed.
class_weight_option = shared_option("--lambda", "weight", type=str, metavar="λ[,CLASS=λ…]", callback=lambda c, p, v: parsed_by(
    __import__("tnforge.trainers.decoding.class_weights", fromlist=["_"]).parse_lambda)(c, p, v), help="Constraint "
    "weight λ: a number, or a default then CLASS=λ (5,MEASURE=20,MONEY=0; `sweep-lambda` chooses them on dev).")


def command(name: str | None = None, interrupted: Callable[[dict[str, Any]], str] | None = None,
            **settings: Any) -> Decorator:
    """A tnforge command: `click.command` showing option defaults in --help, with `--config FILE` first;
    library errors (missing files, bad values) end as one line (`click_errors`); Ctrl-C says
    `interrupted(options)` (what is complete and what is not) unless a step inside said more."""
    def decorate(function: Any) -> Any:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            if not main_rank():  # torchrun's other ranks: rank 0 says it once
                try:
                    return function(*args, **kwargs)
                except (Exception, KeyboardInterrupt) as error:
                    raise SystemExit(130 if isinstance(error, KeyboardInterrupt) else 1) from None
            with click_errors(), interrupt_says(interrupted(kwargs)) if interrupted else contextlib.nullcontext():
                return function(*args, **kwargs)

        return click.command(name, context_settings={"show_default": True}, **settings)(config_option(run))

    return decorate


def nothing_written(option: str, what: str) -> Callable[[dict[str, Any]], str]:
    """The Ctrl-C line of a command that writes `what` to its `option` only at its end."""
    return lambda options: (f"interrupted; {what} was not written" + (f" to {options[option]}" if options.get(option)
                                                                      else ""))


def option_group(*decorators: Decorator) -> Decorator:
    """Several click options as one decorator, in the order given."""
    return lambda function: functools.reduce(lambda f, option: option(f), reversed(decorators), function)


#: --model and --data of the commands that decode a dataset.
model_and_data = option_group(model_option, data_option(
    "Dataset directory, folder of examples Parquet files, or one Parquet file."))
#: --device and --threads, the last options of every model command.
runtime_options = option_group(device_option("auto"), threads_option(0))
#: --beam and --batch-size of the decoding commands.
decoding_options = option_group(beam_option, batch_size_option(BATCH_SIZE))

#: --seq-de, --voc-de, --grammar-constraint, --lambda of decode and evaluate (see `constraint_of`).
constraint_options = option_group(
    click.option("--seq-de", default=None, type=Location(exists=True),
                 help="Sequence dual encoder run: STOP + λ(s − 0.5)."),
    click.option("--voc-de", default=None, type=Location(exists=True),
                 help="Vocabulary-filter dual encoder run: each word + λ(s − 1)."),
    click.option("--grammar-constraint", is_flag=True, default=False,
                 help="Hard covering-grammar mask for inputs of covered classes (needs the class column)."),
    class_weight_option(WEIGHT),
)


def parsed_by(parse: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A click callback passing an option's value through `parse`; its errors are bad-parameter errors."""
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        try:
            return parse(value)
        except (FileNotFoundError, ValueError) as error:
            raise click.BadParameter(str(error), param_hint=param.opts[0]) from error

    return callback


#: --ratio: negatives per positive, a number or 'all' (parsed to a float, or None for all).
ratio_option = shared_option("--ratio", callback=parsed_by(parse_ratio))


@contextmanager
def click_errors(*also: type[Exception]) -> Iterator[None]:
    """Library errors (missing files, bad values, unusable devices: a DeviceError is a ValueError) and those
    of the types `also` as click errors."""
    try:
        yield
    except (FileNotFoundError, ValueError, *also) as error:
        raise click.ClickException(str(error)) from error


#: --resume and --overwrite of the train commands.
run_options = option_group(
    click.option("--resume", is_flag=True, help="Continue the run in --out from its last checkpoint, with every "
                 "option it was started with; given again, --epochs, --max-minutes, --patience, --device, --threads "
                 "and --progress change it."),
    click.option("--overwrite", is_flag=True, help="Replace the run in a non-empty --out (its checkpoints and metrics)."))


class PassThroughCommand(click.Command):
    """A command whose arguments after `--` go to Beam untouched (kept in ctx.meta['pipeline_args'])."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            args, ctx.meta["pipeline_args"] = args[:cut], args[cut + 1:]
        return super().parse_args(ctx, args)


def on_beam() -> tuple[dict[str, Any], list[str]] | None:
    """(the command's option values, the Beam options after `--`) of a PassThroughCommand given `--`, else None."""
    ctx = click.get_current_context()
    return (ctx.params, ctx.meta["pipeline_args"]) if "pipeline_args" in ctx.meta else None


#: How `--model` refuses a family of another kind: where that kind of run goes instead.
_USE_INSTEAD = {"scorer": "pass it as --seq-de/--voc-de", "tagger": "pass it as --tagger",
                "inverse": "pass it to `tnforge denormalizer learn --model`"}


def load_model(model: str, device: str, threads: int = 0, data: str | None = None, split: str | None = None) -> Any:
    """`--model`: a trained decoder model of any registered family (`trainers.families`) on `device` by name
    ("auto", "cpu", "cuda:N"), torch using `threads` CPU threads (0: its default); with `data`, (model, the
    examples files of `split`). A run of another kind or an unreadable file is refused in one line."""
    import torch

    from tnforge.trainers.families import WrongKind, load
    from tnforge.trainers.kernel.examples import example_files
    from tnforge.trainers.training.devices import resolve_device

    if threads:
        torch.set_num_threads(threads)
    try:
        _family, loaded = load(model, resolve_device(device), kind="decoder")
    except WrongKind as error:
        raise wrong_kind(model, error) from error
    return loaded if data is None else (loaded, example_files(data, split))


def wrong_kind(model: str, error: Any) -> click.ClickException:
    """`--model` given a run of another family kind (`families.WrongKind`): what it is and where it goes."""
    decoders = ", ".join(f.name for f in of_kind("decoder"))
    instead = _USE_INSTEAD.get(error.family.kind)
    return click.ClickException(f"{model} is a {error.family.name} run: --model needs a decoder model "
                                f"({decoders})" + (f"; {instead}" if instead else ""))


def load_tagger(path: str) -> Any:
    """A trained tagger (`trainers.tagger.load_tagger`)."""
    from tnforge.trainers.tagger import load_tagger as load

    return load(path)


def use_grammar_language(lang: str | None, grammar_dir: str | None) -> None:
    """--lang / --grammar-dir: the covering grammar's language for this process and its local workers (their
    environment); an unknown language or a directory that is no grammar is one line."""
    if lang is None and grammar_dir is None:
        return
    from tnforge.grammars import use_language
    from tnforge.grammars.languages import LanguageError

    try:
        use_language(lang, grammar_dir)
    except LanguageError as error:
        raise click.ClickException(f"{'--grammar-dir' if grammar_dir else '--lang'}: {error}") from error
    for name, value in (("TNFORGE_LANG", lang), ("TNFORGE_GRAMMAR_DIR", grammar_dir and os.path.abspath(grammar_dir)),
                        ("TNFORGE_CARDINAL_GRAMMAR", None)):
        if value:
            os.environ[name] = value
        else:
            os.environ.pop(name, None)


def grammar_language(function: Callable) -> Callable:
    """--lang and --grammar-dir on a command that uses the covering grammar (`use_grammar_language`)."""
    @functools.wraps(function)
    def wrapper(*args: Any, lang: str | None = None, grammar_dir: str | None = None, **kwargs: Any) -> Any:
        use_grammar_language(lang, grammar_dir)
        return function(*args, **kwargs)

    return option_group(
        click.option("--lang", default=None, help="The covering grammar's language (default: en; another: an "
                     "induced number grammar under $TNFORGE_GRAMMARS or ~/.local/share/tnforge/grammars)."),
        click.option("--grammar-dir", default=None, type=click.Path(file_okay=False),
                     help="An induced number grammar directory (`tnforge grammar induce`) for the cardinals."))(wrapper)


@contextmanager
def grammar_errors(option: str) -> Iterator[None]:
    """The covering grammar asked for but missing (`GrammarUnavailable`) as a click error on `option`."""
    from tnforge.grammars.adapter import GrammarUnavailable

    try:
        yield
    except GrammarUnavailable as error:
        raise click.ClickException(f"{option}: {error}") from error


def grammar_words(grammar_constraint: bool) -> tuple[Any, frozenset[str]]:
    """The covering grammar as `(before, cls) → readings` and its covered classes, when asked for (else None)."""
    from tnforge.grammars import adapter

    with grammar_errors("--grammar-constraint"):
        return adapter.reading_words() if grammar_constraint else (None, frozenset())


def constraint_of(loaded: Any, seq_de: str | None, voc_de: str | None, grammar_constraint: bool,
                  weight: float) -> tuple[Any, str]:
    """The constraint the constraint options ask for (`trainers.constraint_sets.build_constraint`) and a note."""
    from tnforge.trainers.decoding.constraint_sets import build_constraint

    reading_words, covered = grammar_words(grammar_constraint)
    return build_constraint(loaded, seq_de, voc_de, reading_words, covered, weight)


def main_rank() -> bool:
    """False in the ranks other than 0 of a torchrun launch: they train but print nothing."""
    return os.environ.get("RANK", "0") in ("", "0")


def open_reader(model: str, tagger: str | None, device: str, threads: int, guard: bool = True,
                say_unguarded: bool = False, **settings: Any) -> Any:
    """`--model` (a normalizer folder, or a decoder run with `--tagger`) as a `tnforge.Normalizer`
    (`Normalizer.load`, with `settings`); its refusals as one line: a normalizer given a tagger, a bare model
    run without one (saying what to add), a run of another kind, a missing grammar. Notes (a grammar changed
    since assembly; with `say_unguarded`, that nothing guards the readings) go to stderr — without it, an
    unguarded reader (asked for by --unguarded) is announced by its routes and summaries."""
    import warnings

    from tnforge.reading import Normalizer, UnguardedWarning
    from tnforge.reading.assembly import is_normalizer
    from tnforge.trainers.families import WrongKind

    if is_normalizer(model) and tagger:
        raise click.UsageError(f"{model} is a normalizer: it has its own tagger and grammar (drop --tagger and "
                               "--grammar-constraint)")
    try:
        with warnings.catch_warnings(), click_errors():
            warnings.simplefilter("ignore", UnguardedWarning)  # the routes and summaries say it
            normalizer = Normalizer.load(model, device, threads, tagger=tagger, guard=guard, **settings)
    except click.ClickException as error:
        if isinstance(error.__cause__, WrongKind):
            raise wrong_kind(model, error.__cause__) from error
        raise
    for note in normalizer.notes:
        if say_unguarded or "guard=False" not in note:
            click.echo(f"note: {note}", err=True)
    return normalizer
