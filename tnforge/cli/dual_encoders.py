"""Dual encoders and constrained decoding: `tnforge train seq-de|voc-de`, `compare`, `sweep-lambda`, `loop`,
and the constraint options (`--seq-de RUN --voc-de RUN --grammar-constraint --lambda 5`) that decode and
evaluate share (`constraint_options` + `build_constraint`).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from tnforge.cli.common import (
    data_option,
    device_option,
    example_files_of,
    load_seq2seq,
    model_option,
    parse_ratio,
    threads_option,
    token_progress,
)
from tnforge.config import config_option

# --- training ---------------------------------------------------------------------------------------------

def _train_options(kind: str) -> Callable[[Any], Any]:
    from_types = {"sequence": "synthetic,random,topk", "vocabulary": "class,global,topk,unread"}[kind]

    def decorate(function: Any) -> Any:
        options = [
            config_option,
            click.option("--data", "-d", required=True, type=click.Path(exists=True, file_okay=False),
                         help="Dataset directory with pairs/ (sequence) or vocab_pairs/ (vocabulary) from `tnforge negatives`."),
            click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
                         help="Run directory: best.pt, checkpoint.pt, metrics.jsonl, dev.md."),
            click.option("--negatives", default="", help=f"Negative types used for training, comma-separated "
                                                          f"(of {from_types}; default: every type present)."),
            click.option("--ratio", default="all", help="Negatives kept per positive in training: a number or 'all'."),
            click.option("--trivial/--no-trivial", default=True,
                         help="Train on the pairs with trivial readings (<self>/sil) too, when `tnforge negatives` "
                              "made them: the model then judges trivial outputs in constrained decoding."),
            click.option("--device", default="auto", help="auto, cpu, cuda or cuda:N."),
            click.option("--epochs", default=30, type=click.IntRange(1), help="Maximum passes over the train pairs."),
            click.option("--batch-size", default=256, type=click.IntRange(1), help="Pairs per batch."),
            click.option("--learning-rate", "--lr", default=3e-3, type=click.FloatRange(0, min_open=True)),
            click.option("--patience", default=4, type=click.IntRange(1), help="Epochs without dev AUC gain before stopping."),
            click.option("--select", type=click.Choice(["auc", "auc-nontrivial"]), default="auc",
                         help="Dev figure that picks best.pt and drives early stopping: ROC AUC on all dev pairs, or "
                              "on the non-trivial ones (no <self>/sil reading or input)."),
            click.option("--max-minutes", default=0.0, type=click.FloatRange(0), help="Wall-clock budget (0: none)."),
            click.option("--seed", default=13, type=int, help="Seed of weights and data order."),
            click.option("--threads", default=0, type=click.IntRange(0), help="CPU threads for torch (0: default)."),
            click.option("--head", type=click.Choice(["mlp", "dot"]), default="mlp" if kind == "sequence" else "dot",
                         help="Classifier on the two vectors: MLP on [u, v, |u-v|, u*v], or a weighted dot product."),
            click.option("--dim", default=64, type=click.IntRange(1), help="Size of the two encodings."),
            click.option("--hidden", default=128, type=click.IntRange(1), help="Hidden size of each tower."),
            click.option("--buckets", default=1 << 16, type=click.IntRange(64), help="Hashed feature buckets per tower."),
            click.option("--progress/--no-progress", default=True, help="Progress bar on stderr."),
        ]
        if kind == "sequence":
            options.insert(-1, click.option(
                "--cross-buckets", default=1 << 18, type=click.IntRange(0),
                help="Hashed weights of the interaction term (token key × reading key, and token-reading match "
                     "features); 0: towers only."))
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


def _negative_types(kind: str, value: str) -> tuple[str, ...]:
    from tnforge.schemas.negative_kinds import NEGATIVE_TYPES

    types = tuple(t.strip() for t in value.split(",") if t.strip())
    unknown = [t for t in types if t not in NEGATIVE_TYPES[kind]]
    if unknown:
        raise click.BadParameter(f"{', '.join(unknown)}: choose from {', '.join(NEGATIVE_TYPES[kind])}",
                                 param_hint="--negatives")
    return types


def run_training(kind: str, options: dict[str, Any]) -> Any:
    """Train one dual encoder from CLI options; prints the dev figures and writes dev.md into the run."""
    from tnforge.trainers.devices import DeviceError
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.metrics import to_markdown
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    model = DualEncoderConfig(kind=kind, head=options["head"], dim=options["dim"], hidden=options["hidden"],
                              input_buckets=options["buckets"], output_buckets=options["buckets"],
                              cross_buckets=options.get("cross_buckets", 0))
    config = DETrainConfig(data=options["data"], out=options["out"], kind=kind,
                           negatives=_negative_types(kind, options["negatives"]), ratio=parse_ratio(options["ratio"]),
                           trivial=options["trivial"], device=options["device"], epochs=options["epochs"], batch_size=options["batch_size"],
                           learning_rate=options["learning_rate"], patience=options["patience"], select=options["select"],
                           max_minutes=options["max_minutes"], seed=options["seed"], threads=options["threads"],
                           progress=options["progress"], model=model)
    try:
        result = train_dual_encoder(config)
    except (DeviceError, FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    best = result.best
    title = f"{kind} dual encoder {result.run} on {options['data']} (dev, best epoch {best.get('epoch')})"
    (result.run / "dev.md").write_text(to_markdown(best, title), encoding="utf-8")
    click.echo(f"trained on {result.train_pairs:,} pairs for {result.epochs} epochs ({result.stopped}) in "
               f"{result.seconds:.0f} s", err=True)
    click.echo(to_markdown(best, title).rstrip())
    click.echo(f"\nmodel: {result.run / 'best.pt'}  metrics: {result.run / 'metrics.jsonl'}")
    return result


@click.command("seq-de", context_settings={"show_default": True},
               short_help="Sequence dual encoder: p(reading acceptable for token).")
@_train_options("sequence")
def seq_de(**options: Any) -> None:
    """Train the sequence dual encoder on DIR/pairs (from `tnforge negatives`), early-stopping on dev AUC.

    \b
    Examples:
      tnforge train seq-de --data out/sample --out runs/seq-de
      tnforge train seq-de --data out/sample --out runs/seq-de-r3 --negatives synthetic,random --ratio 3
    """
    run_training("sequence", options)


@click.command("voc-de", context_settings={"show_default": True},
               short_help="Vocabulary-filter dual encoder: p(word may appear in the reading).")
@_train_options("vocabulary")
def voc_de(**options: Any) -> None:
    """Train the vocabulary-filter dual encoder on DIR/vocab_pairs, early-stopping on dev AUC.

    \b
    Examples:
      tnforge train voc-de --data out/sample --out runs/voc-de --negatives class,global
      tnforge train voc-de --data out/sample --out runs/voc-de-topk --negatives topk
    """
    run_training("vocabulary", options)


# --- constraints ------------------------------------------------------------------------------------------

def constraint_options(function: Any) -> Any:
    """Decorator adding --seq-de, --voc-de, --grammar-constraint and --lambda to a decode/evaluate command.

    The command receives `seq_de`, `voc_de`, `grammar_constraint` and `weight`; pass them to
    `build_constraint`.
    """
    options = [
        click.option("--seq-de", default=None, type=click.Path(exists=True),
                     help="Sequence dual encoder run: STOP + λ(s − 0.5)."),
        click.option("--voc-de", default=None, type=click.Path(exists=True),
                     help="Vocabulary-filter dual encoder run: each word + λ(s − 1)."),
        click.option("--grammar-constraint", is_flag=True, default=False,
                     help="Hard covering-grammar mask for inputs of covered classes (needs the class column)."),
        click.option("--lambda", "weight", default=5.0, type=click.FloatRange(0), help="Constraint weight λ."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def grammar_reading_words() -> tuple[Callable[[str, str | None], Any], frozenset[str]]:
    """The covering grammar as a `(before, cls) → word tuples` callable, and the classes it covers."""
    from tnforge.grammars import adapter

    try:
        return adapter.reading_words()
    except adapter.GrammarUnavailable as error:
        raise click.ClickException(f"--grammar-constraint: {error}") from error


def _scorer(path: str, device: Any, kind: str) -> Any:
    from tnforge.trainers.dual_encoders.scorer import load_dual_encoder

    try:
        scorer = load_dual_encoder(path, device)
    except (FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    if scorer.kind != kind:
        raise click.ClickException(f"{path}: a {scorer.kind} dual encoder, but a {kind} one is needed here")
    return scorer


def build_constraint(loaded: Any, seq_de: str | None = None, voc_de: str | None = None,
                     grammar_constraint: bool = False, weight: float = 5.0) -> tuple[Any, str]:
    """The decoding constraint for a loaded seq2seq model (None when no option is set) and a description."""
    from tnforge.trainers.decoding.constraints import (
        GrammarConstraint,
        SequenceDEConstraint,
        VocabularyFilterConstraint,
    )
    from tnforge.trainers.decoding.hooks import combine

    parts, notes = [], []
    if seq_de:
        parts.append(SequenceDEConstraint(_scorer(seq_de, loaded.device, "sequence"), weight))
        notes.append(f"seqDE λ={weight:g}")
    if voc_de:
        parts.append(VocabularyFilterConstraint(_scorer(voc_de, loaded.device, "vocabulary"), weight))
        notes.append(f"vocDE λ={weight:g}")
    if grammar_constraint:
        reading_words, covered = grammar_reading_words()
        parts.append(GrammarConstraint(reading_words, covered,
                                       max_length=int(loaded.config.get("max_output_length", 40))))
        notes.append("grammar mask")
    return combine(parts), (", ".join(notes) or "unconstrained")


# --- shared helpers ---------------------------------------------------------------------------------------

def _set_threads(threads: int) -> None:
    if threads:
        import torch

        torch.set_num_threads(threads)


def _judge() -> tuple[Any, str]:
    from tnforge.cli.model import grammar_judges

    return grammar_judges(None)


def _originals(files: list[Path], split: str) -> int:
    """Tokens `_decode` decodes: the originals of the split (counted once per command, not per decode)."""
    from tnforge.trainers.seq2seq.data import count_rows

    return count_rows(files, split, max_copies=1)


def _decode(loaded: Any, files: list[Path], split: str, constraint: Any, beam: int, batch_size: int,
            label: str, total: int) -> tuple[list[dict[str, Any]], float, dict[str, int]]:
    from tnforge.trainers.evaluation.comparison import decode_predictions

    with token_progress(total, label) as bar:
        try:
            return decode_predictions(loaded, files, split, constraint, beam, batch_size, on_batch=bar.update)
        except ValueError as error:
            raise click.ClickException(str(error)) from error


def _write(folder: Path, name: str, text: str) -> Path:
    from tnforge.filesystems import write_text_files

    return write_text_files(folder, {name: text})[0]


def _named_runs(values: tuple[str, ...]) -> list[tuple[str, str]]:
    runs = []
    for value in values:
        name, _, path = value.rpartition("=") if "=" in value else ("", "", value)
        if not Path(path).exists():
            raise click.BadParameter(f"{path}: no such run directory or checkpoint", param_hint="--voc-de")
        runs.append((name or Path(path).name, path))
    return runs




# --- compare ----------------------------------------------------------------------------------------------

@click.command(context_settings={"show_default": True})
@config_option
@model_option
@data_option
@click.option("--split", default="test", help="Split decoded by every configuration.")
@click.option("--seq-de", default=None, type=click.Path(exists=True), help="Sequence dual encoder run.")
@click.option("--voc-de", multiple=True, help="Vocabulary filter run, as RUN or NAME=RUN (repeatable: e.g. "
                                              "random=runs/voc-rand topk=runs/voc-topk).")
@click.option("--grammar-constraint/--no-grammar-constraint", default=True,
              help="Include the covering-grammar mask configurations.")
@click.option("--lambda", "weight", default=5.0, type=click.FloatRange(0), help="Constraint weight λ.")
@click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
@click.option("--batch-size", default=256, type=click.IntRange(1), help="Inputs decoded together.")
@click.option("--report", "-r", required=True, type=click.Path(file_okay=False),
              help="Folder for comparison.md and comparison.json.")
@device_option
@threads_option
def compare(model: str, data: str, split: str, seq_de: str | None, voc_de: tuple[str, ...], grammar_constraint: bool,
            weight: float, beam: int, batch_size: int, report: str, device: str, threads: int) -> None:
    """Compare decoding configurations on the same tokens: no constraint, +seqDE, +vocDE (each run),
    +grammar, and combinations; errors, recoverable/unrecoverable (covering grammar), McNemar vs none.

    \b
    Examples:
      tnforge compare --model runs/s2s --data out/sample --split test --seq-de runs/seq-de \\
          --voc-de random=runs/voc-rand --voc-de topk=runs/voc-topk --report runs/compare
    """
    from tnforge.trainers.decoding.constraints import (
        GrammarConstraint,
        SequenceDEConstraint,
        VocabularyFilterConstraint,
    )
    from tnforge.trainers.decoding.hooks import combine
    from tnforge.trainers.evaluation.comparison import compare_configurations, to_markdown, write_comparison

    _set_threads(threads)
    loaded = load_seq2seq(model, device)
    files = example_files_of(data, split)
    pieces: dict[str, Any] = {}
    if seq_de:
        pieces["seqDE"] = SequenceDEConstraint(_scorer(seq_de, loaded.device, "sequence"), weight)
    for name, path in _named_runs(voc_de):
        pieces[f"vocDE[{name}]"] = VocabularyFilterConstraint(_scorer(path, loaded.device, "vocabulary"), weight)
    covered: frozenset[str] = frozenset()
    if grammar_constraint:
        reading_words, covered = grammar_reading_words()
        pieces["grammar"] = GrammarConstraint(reading_words, covered,
                                              max_length=int(loaded.config.get("max_output_length", 40)))
    configurations: dict[str, Any] = {"none": None}
    configurations.update({f"+{name}": piece for name, piece in pieces.items()})
    des = [name for name in pieces if name != "grammar"]
    if "seqDE" in pieces:
        for name in des[1:]:
            configurations[f"+seqDE+{name}"] = combine([pieces["seqDE"], pieces[name]])
    if "grammar" in pieces and des:
        configurations["+" + "+".join([*des, "grammar"])] = combine([pieces[n] for n in [*des, "grammar"]])
    judge, note = _judge()
    if not covered:
        try:
            import tnforge.grammars as grammars

            covered = grammars.covered_classes()
        except ImportError:
            covered = frozenset()
    runs, seconds = {}, {}
    total = _originals(files, split)
    grammar_inputs: dict[str, int] = {}
    for name, constraint in configurations.items():
        runs[name], seconds[name], counts = _decode(loaded, files, split, constraint, beam, batch_size, name, total)
        click.echo(f"{name}: decoded {len(runs[name]):,} tokens in {seconds[name]:.1f} s", err=True)
        if name == "+grammar":
            grammar_inputs = {"constrained": counts.get("grammar_constrained", 0),
                              "unconstrained": counts.get("grammar_unconstrained", 0)}
    result = compare_configurations(runs, judge, covered, baseline="none", seconds=seconds)
    if grammar_inputs:
        result["grammar_inputs"] = grammar_inputs
    result.update({"model": str(loaded.path), "data": data, "split": split, "lambda": weight, "beam": beam})
    title = f"Constrained decoding of {loaded.path} on {data} ({split}, λ={weight:g})"
    paths = write_comparison(result, report, title)
    click.echo(to_markdown(result, title).rstrip())
    click.echo(f"\n{note}. report: " + ", ".join(str(p) for p in paths))


# --- sweep-lambda -----------------------------------------------------------------------------------------

def _lambdas(value: str) -> list[float]:
    try:
        weights = sorted({float(v) for v in value.split(",") if v.strip()})
    except ValueError as error:
        raise click.BadParameter(f"{value!r}: comma-separated numbers, e.g. 0,1,2,5,10", param_hint="--lambdas") from error
    if not weights or min(weights) < 0:
        raise click.BadParameter(f"{value!r}: give non-negative weights", param_hint="--lambdas")
    return weights


@click.command("sweep-lambda", context_settings={"show_default": True})
@config_option
@model_option
@data_option
@click.option("--split", default="dev", help="Split decoded at every λ.")
@click.option("--seq-de", default=None, type=click.Path(exists=True), help="Sequence dual encoder run.")
@click.option("--voc-de", default=None, type=click.Path(exists=True), help="Vocabulary filter run.")
@click.option("--lambdas", default="0,1,2,5,10,20", help="λ values, comma-separated.")
@click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
@click.option("--batch-size", default=256, type=click.IntRange(1), help="Inputs decoded together.")
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Folder for sweep.md, sweep.json and sweep.png.")
@device_option
@threads_option
def sweep_lambda(model: str, data: str, split: str, seq_de: str | None, voc_de: str | None, lambdas: str, beam: int,
                 batch_size: int, out: str, device: str, threads: int) -> None:
    """Decode a split with the dual-encoder constraints at several λ and plot error rate per class against λ.

    \b
    Example:
      tnforge sweep-lambda --model runs/s2s --data out/sample --seq-de runs/seq-de --voc-de runs/voc-de \\
          --lambdas 0,1,2,5,10,20 --out runs/sweep
    """
    from tnforge.trainers.evaluation.comparison import plot_sweep, sweep_markdown, sweep_rows

    if not seq_de and not voc_de:
        raise click.UsageError("give --seq-de and/or --voc-de: there is nothing to weigh")
    weights = _lambdas(lambdas)
    _set_threads(threads)
    loaded = load_seq2seq(model, device)
    files = example_files_of(data, split)
    results, total = {}, _originals(files, split)
    for weight in weights:
        constraint, note = build_constraint(loaded, seq_de, voc_de, False, weight)
        results[weight], seconds, _counts = _decode(loaded, files, split, constraint if weight else None, beam, batch_size,
                                           f"λ={weight:g}", total)
        click.echo(f"λ={weight:g} ({note}): {len(results[weight]):,} tokens in {seconds:.1f} s", err=True)
    judge, note = _judge()
    rows = sweep_rows(results, judge)
    folder = Path(out)
    title = f"λ sweep of {loaded.path} on {data} ({split})"
    markdown = sweep_markdown(rows, title)
    paths = [_write(folder, "sweep.md", markdown),
             _write(folder, "sweep.json", json.dumps(rows, indent=2) + "\n"),
             plot_sweep(rows, folder / "sweep.png", title)]
    click.echo(markdown.rstrip())
    best = min(rows, key=lambda r: (r["errors"], r["lambda"]))
    click.echo(f"\nfewest errors at λ={best['lambda']:g} ({best['errors']}); {note}. "
               + ", ".join(str(p) for p in paths))


# --- loop -------------------------------------------------------------------------------------------------

def _loop_dataset(source: Path, work: Path) -> Path:
    """A dataset directory for the loop's regenerated pairs: links to the source's examples and positives."""
    from tnforge.datasets import DATASET_DIRS, MANIFEST

    target = work / "data"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("examples", "sentences", "positive_pairs"):
        link = target / DATASET_DIRS[name]
        if not link.exists() and (source / DATASET_DIRS[name]).exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to((source / DATASET_DIRS[name]).resolve(), target_is_directory=True)
    if (source / MANIFEST).exists():
        shutil.copyfile(source / MANIFEST, target / MANIFEST)
    return target


@click.command(context_settings={"show_default": True})
@config_option
@model_option
@click.option("--data", "-d", required=True, type=click.Path(exists=True, file_okay=False),
              help="Dataset directory built by `tnforge build` (it is not modified).")
@click.option("--rounds", default=2, type=click.IntRange(1), help="Adversarial rounds.")
@click.option("--split", default="dev", help="Split evaluated after each round.")
@click.option("--top-k", default=5, type=click.IntRange(1), help="Hypotheses per training input.")
@click.option("--ratio", default="3", help="Negatives per positive when regenerating ('all' for every candidate).")
@click.option("--lambda", "weight", default=5.0, type=click.FloatRange(0), help="Vocabulary filter weight λ.")
@click.option("--epochs", default=20, type=click.IntRange(1), help="Epochs of each filter retraining.")
@click.option("--beam", default=5, type=click.IntRange(1), help="Beam width.")
@click.option("--batch-size", default=256, type=click.IntRange(1), help="Inputs decoded together.")
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Work folder: data/ (regenerated pairs), round-N/ (hypotheses, filter), loop.md, loop.json.")
@device_option
@threads_option
def loop(model: str, data: str, rounds: int, split: str, top_k: int, ratio: str, weight: float, epochs: int, beam: int,
         batch_size: int, out: str, device: str, threads: int) -> None:
    """The adversarial loop: decode the train split for top-k → regenerate top-k negatives → retrain the
    vocabulary filter → decode --split with it; N rounds, one table row per round.

    \b
    Example:
      tnforge loop --model runs/s2s --data out/sample --rounds 3 --out runs/loop
    """
    import pyarrow as pa

    from tnforge import schemas
    from tnforge.datasets import write_shard
    from tnforge.pipelines.negatives import run_negatives
    from tnforge.trainers.adversarial_loop import adversarial_loop, loop_markdown
    from tnforge.trainers.decoding.constraints import VocabularyFilterConstraint
    from tnforge.trainers.decoding.decode import decode_files, hypotheses_table
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder
    from tnforge.trainers.evaluation.accuracy import evaluate

    _set_threads(threads)
    loaded = load_seq2seq(model, device)
    work = Path(out)
    dataset = _loop_dataset(Path(data), work)
    train_files, eval_files = example_files_of(str(dataset), "train"), example_files_of(str(dataset), split)
    eval_total = _originals(eval_files, split)
    regenerate_ratio = parse_ratio(ratio)
    judge, note = _judge()
    seed = int(json.loads((dataset / "manifest.json").read_text()).get("config", {}).get("seed", 0) or 0) \
        if (dataset / "manifest.json").exists() else 0

    def decode_topk(round_index: int, previous: Path | None) -> Path:
        constraint = None
        if previous is not None:
            constraint = VocabularyFilterConstraint(_scorer(str(previous), loaded.device, "vocabulary"), weight)
        tables = [hypotheses_table(rows, ranked) for rows, ranked, _counts in
                  decode_files(loaded, train_files, split="train", beam=max(beam, top_k), top_k=top_k,
                               batch_size=batch_size, constraint=constraint, originals_only=True)]
        path = work / f"round-{round_index}" / "hypotheses.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_shard(pa.concat_tables(tables), path, schemas.HYPOTHESES)
        return path

    def regenerate(round_index: int, hypotheses: Path) -> None:
        run_negatives(str(dataset), ["synthetic", "random", "topk"], regenerate_ratio, str(hypotheses), None, seed, 1, [])

    def retrain(round_index: int) -> Path:
        run = work / f"round-{round_index}" / "voc-de"
        train_dual_encoder(DETrainConfig(data=str(dataset), out=str(run), kind="vocabulary", device=str(loaded.device),
                                         epochs=epochs, progress=False, model=DualEncoderConfig(kind="vocabulary",
                                                                                                head="dot")))
        return run

    def evaluate_round(round_index: int, run: Path) -> dict[str, Any]:
        scorer = _scorer(str(run), loaded.device, "vocabulary")
        predictions, _, _counts = _decode(loaded, eval_files, split, VocabularyFilterConstraint(scorer, weight), beam,
                                 batch_size, f"round {round_index}", eval_total)
        result = evaluate(predictions, batch_judge=judge)
        return {"errors": len(result["errors"]), "error_rate": 1 - result["tokens"]["accuracy"],
                "unrecoverable": result.get("unrecoverable"), "filter_auc": scorer.metrics.get("dev", {}).get("auc")}

    done: list[dict[str, Any]] = []

    def report(row: dict[str, Any]) -> None:
        done.append(row)
        click.echo(f"round {row['round']}: {row['errors']} errors ({row.get('unrecoverable')} unrecoverable), "
                   f"filter dev AUC {row.get('filter_auc') or float('nan'):.4f}", err=True)
        click.echo(loop_markdown(done, f"Adversarial loop after round {row['round']} ({split}, λ={weight:g})").rstrip()
                   + "\n")

    try:
        rows = adversarial_loop(rounds, decode_topk, regenerate, retrain, evaluate_round, on_round=report)
    except (FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    markdown = loop_markdown(rows, f"Adversarial loop of {loaded.path} on {data} ({split}, λ={weight:g})")
    paths = [_write(work, "loop.md", markdown), _write(work, "loop.json", json.dumps(rows, indent=2) + "\n")]
    click.echo(markdown.rstrip())
    click.echo(f"\n{note}. " + ", ".join(str(p) for p in paths))
