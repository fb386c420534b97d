"""`tnforge train …`: train models from a built dataset directory (each model a sub-command)."""

from __future__ import annotations

import importlib

import click

from tnforge.config import config_option

#: Trainers defined in other modules: sub-command → ("module:attribute", one-line help); each is imported
#: only when used. Add new trainers here.
LAZY_TRAINERS: dict[str, tuple[str, str]] = {
    "seq-de": ("tnforge.cli.dual_encoders:seq_de", "The sequence dual encoder (input, reading) → acceptable?"),
    "voc-de": ("tnforge.cli.dual_encoders:voc_de", "The vocabulary-filter dual encoder (input, word) → may occur?"),
}


class TrainGroup(click.Group):
    """The `train` group: commands defined here plus lazily imported ones from LAZY_TRAINERS."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY_TRAINERS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_TRAINERS and name not in self.commands:
            module, attribute = LAZY_TRAINERS[name][0].split(":")
            return getattr(importlib.import_module(module), attribute)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.commands[name].get_short_help_str() if name in self.commands else LAZY_TRAINERS[name][1])
                for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=TrainGroup, context_settings={"show_default": True})
def train() -> None:
    """Train a model from a dataset directory built by `tnforge build`.

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s
      tnforge train seq2seq --data out/sample --out runs/s2s --resume --epochs 60
    """


@train.command("seq2seq", context_settings={"show_default": True},
               short_help="The attention seq2seq normalizer: characters in, words out.")
@config_option
@click.option("--data", "-d", required=True, type=click.Path(exists=True),
              help="Dataset directory (examples/train and examples/dev are used).")
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Run directory: checkpoints, metrics.jsonl, training.png.")
@click.option("--device", default="auto", help="auto, cpu, cuda or cuda:N (auto picks CUDA when present).")
@click.option("--resume", is_flag=True, help="Continue the run in --out from its last checkpoint.")
@click.option("--epochs", default=40, type=click.IntRange(1), help="Maximum passes over the train split.")
@click.option("--max-minutes", default=0.0, type=click.FloatRange(0), help="Wall-clock budget (0: none).")
@click.option("--batch-size", default=64, type=click.IntRange(1), help="Examples per batch.")
@click.option("--learning-rate", "--lr", default=2e-3, type=click.FloatRange(0, min_open=True), help="Adam step size.")
@click.option("--lr-decay", default=0.5, type=click.FloatRange(0, 1, min_open=True),
              help="Multiply the learning rate by this when dev loss stops improving.")
@click.option("--clip", default=1.0, type=click.FloatRange(0, min_open=True), help="Gradient-norm clipping.")
@click.option("--patience", default=6, type=click.IntRange(1), help="Dev evaluations without improvement before stopping.")
@click.option("--eval-every", default=0, type=click.IntRange(0), help="Steps between dev evaluations (0: each epoch).")
@click.option("--dev-limit", default=0, type=click.IntRange(0), help="Dev rows per evaluation (0: all).")
@click.option("--max-copies", default=0, type=click.IntRange(0),
              help="Use only up-sampling copies with index below this (0: all rows).")
@click.option("--seed", default=13, type=int, help="Seed of weights, dropout and data order.")
@click.option("--input-units", type=click.Choice(["char", "sentencepiece"]), default="char", help="Input units.")
@click.option("--output-units", type=click.Choice(["word", "sentencepiece"]), default="word", help="Output units.")
@click.option("--sp-size", default=1000, type=click.IntRange(8), help="SentencePiece inventory size (upper bound).")
@click.option("--min-count", default=1, type=click.IntRange(1), help="Output words seen fewer times become <unk>.")
@click.option("--label-smoothing", default=0.0, type=click.FloatRange(0, 1, max_open=True), help="Label smoothing.")
@click.option("--amp/--no-amp", default=True, help="Mixed precision on CUDA (ignored on CPU).")
@click.option("--threads", default=0, type=click.IntRange(0), help="CPU threads for torch (0: torch's default).")
@click.option("--input-embedding", default=48, type=click.IntRange(1), help="Input unit embedding size.")
@click.option("--output-embedding", default=96, type=click.IntRange(1), help="Output unit embedding size.")
@click.option("--encoder-hidden", default=128, type=click.IntRange(1), help="Encoder LSTM size per direction.")
@click.option("--encoder-layers", default=1, type=click.IntRange(1), help="Encoder LSTM layers.")
@click.option("--decoder-hidden", default=192, type=click.IntRange(1), help="Decoder LSTM size.")
@click.option("--attention", default=96, type=click.IntRange(1), help="Attention layer size.")
@click.option("--dropout", default=0.2, type=click.FloatRange(0, 1, max_open=True), help="Dropout rate.")
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr.")
def seq2seq(data: str, out: str, device: str, resume: bool, epochs: int, max_minutes: float, batch_size: int,
            learning_rate: float, lr_decay: float, clip: float, patience: int, eval_every: int, dev_limit: int,
            max_copies: int, seed: int, input_units: str, output_units: str, sp_size: int, min_count: int,
            label_smoothing: float, amp: bool, threads: int, input_embedding: int, output_embedding: int,
            encoder_hidden: int, encoder_layers: int, decoder_hidden: int, attention: int, dropout: float,
            progress: bool) -> None:
    """Train the attention seq2seq normalizer (characters of the window in, words of the reading out).

    Streams examples/train of --data, early-stops on examples/dev, writes checkpoint.pt (latest),
    best.pt (best on dev), metrics.jsonl and training.png into --out.

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s --max-minutes 20
      tnforge train seq2seq --data out/sample --out runs/sp --input-units sentencepiece --sp-size 500
      tnforge train seq2seq --data out/sample --out runs/s2s --resume
    """
    from pathlib import Path

    from tnforge.trainers.checkpoints import LAST
    from tnforge.trainers.devices import DeviceError
    from tnforge.trainers.seq2seq.model import ModelConfig
    from tnforge.trainers.seq2seq.train import TrainConfig
    from tnforge.trainers.seq2seq.train import train as run_training

    if resume and not (Path(out) / LAST).is_file():
        raise click.ClickException(f"{out}: nothing to resume (no {LAST}); drop --resume to start a new run")
    model = ModelConfig(input_embedding=input_embedding, output_embedding=output_embedding,
                        encoder_hidden=encoder_hidden, encoder_layers=encoder_layers,
                        decoder_hidden=decoder_hidden, attention=attention, dropout=dropout)
    config = TrainConfig(data=data, out=out, device=device, epochs=epochs, batch_size=batch_size,
                         learning_rate=learning_rate, clip=clip, lr_decay=lr_decay, patience=patience,
                         eval_every=eval_every, max_minutes=max_minutes, seed=seed, input_units=input_units,
                         output_units=output_units, sp_size=sp_size, min_count=min_count,
                         label_smoothing=label_smoothing, amp=amp, threads=threads, dev_limit=dev_limit,
                         max_copies=max_copies, progress=progress, model=model)
    try:
        result = run_training(config, resume=resume)
    except DeviceError as error:
        raise click.ClickException(str(error)) from error
    except (FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    best = result.best
    click.echo(f"stopped after {result.steps} steps / {result.epochs} epochs in {result.seconds / 60:.1f} min "
               f"({result.stopped})", err=True)
    if best:
        click.echo(f"best dev (step {best['step']}): accuracy {100 * best['dev_accuracy']:.2f}%, "
                   f"non-trivial {100 * best['dev_nontrivial_accuracy']:.2f}%, loss {best['dev_loss']:.4f}")
    click.echo(f"model: {result.run / 'best.pt'}  metrics: {result.run / 'metrics.jsonl'}  "
               f"plot: {result.run / 'training.png'}")
