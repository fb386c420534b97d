"""The `tnforge` command, the one place that wires the wings together. Sub-commands are imported only when
used, so `tnforge --help` stays instant and each command imports only the heavy libraries it needs."""

from __future__ import annotations

import os

import click

from tnforge import __version__
from tnforge.cli.lazy import DEBUG, LazyGroup

#: command name → ("module:attribute" of its click command, one-line help); imported only when used.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("tnforge.cli.build:build", "Build a dataset directory (Parquet) from corpus files with Beam."),
    "negatives": ("tnforge.cli.negatives:negatives", "Generate negative pairs for the dual encoders."),
    "validate": ("tnforge.cli.validate:validate", "Validate a dataset directory with Great Expectations."),
    "grammar": ("tnforge.cli.grammar:grammar", "Covering grammars: readings, coverage, lexicon learning."),
    "train": ("tnforge.cli.train:train", "Train a model: seq2seq, DNC, tagger, dual encoder, inverse."),
    "decode": ("tnforge.cli.decode:decode", "Beam-search decode a dataset and write top-k hypotheses."),
    "normalize": ("tnforge.cli.normalize:normalize", "Normalize a sentence of text with a trained model."),
    "denormalize": ("tnforge.cli.denormalize:denormalize", "Write spoken text (as ASR writes it) back as written text."),
    "denormalizer": ("tnforge.cli.denormalize:denormalizer", "Learn an inverse normalizer (spoken → written) from a dataset."),
    "normalizer": ("tnforge.cli.normalizer:normalizer", "Assemble a normalizer: model, tagger and grammar in one run."),
    "evaluate": ("tnforge.cli.evaluate:evaluate", "Evaluate a model per semiotic class."),
    "compare": ("tnforge.cli.compare:compare", "Compare constrained decoding configurations (Table 1)."),
    "sweep-lambda": ("tnforge.cli.sweep_lambda:sweep_lambda", "Error rate per class against the constraint weight."),
    "loop": ("tnforge.cli.loop:loop", "Adversarial top-k loop: decode, regenerate, retrain the filter."),
    "docs": ("tnforge.cli.docs:docs", "Build the documentation site for offline reading (or serve it)."),
}


@click.group(cls=LazyGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tnforge")
@click.option("--debug", is_flag=True, envvar="TNFORGE_DEBUG", help="Show tracebacks, not one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """tnforge: build training data for neural text normalization, and train the models that use it."""
    ctx.meta[DEBUG] = debug
    if debug and not os.environ.get("TNFORGE_DEBUG"):  # worker processes (`--workers N`) show tracebacks too
        os.environ["TNFORGE_DEBUG"] = "1"
        ctx.call_on_close(lambda: os.environ.pop("TNFORGE_DEBUG", None))


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    from tnforge.progress import start_clock

    start_clock()  # progress seconds count from here, in worker processes too
    cli.main(args=argv, prog_name="tnforge")  # None: the process's arguments

