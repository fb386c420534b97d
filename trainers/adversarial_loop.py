"""The adversarial iteration of Gokcen et al. (2019): each round decodes the training data for top-k
hypotheses (with the previous round's vocabulary filter) → regenerates top-k negatives → retrains the filter
→ evaluates decoding with it. `adversarial_loop` runs injected steps; `run_loop` supplies them for a decoder
model and a dataset directory (local or gs://), with the regeneration (Beam) passed in by the caller and,
for decoding at scale, the decoding on Beam (`LoopDecoding`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tnforge.trainers.decoding.constraint_sets import WEIGHT
from tnforge.trainers.decoding.defaults import BATCH_SIZE, BEAM
from tnforge.trainers.decoding.outputs import Progress
from tnforge.trainers.evaluation.accuracy import BatchJudge

if TYPE_CHECKING:
    from tnforge.trainers.decoding.protocol import DecodableModel

DecodeTopK = Callable[[int, Path | str | None], Path | str]  # gs:// paths stay str
Regenerate = Callable[[int, Path | str], None]
Retrain = Callable[[int], Path | str]
Evaluate = Callable[[int, Path | str], dict[str, Any]]


#: A finished round's record in its folder (`work`/round-N/), written last: the loop resumes after it.
ROUND_RECORD = "round.json"


def round_record(work: str | Path, round_index: int) -> str:
    """Where round `round_index`'s record lives in `work` (local or gs://)."""
    from tnforge.filesystems import join

    return join(work, f"round-{round_index}", ROUND_RECORD)


def finished_round(work: str | Path | None, round_index: int, settings: dict[str, Any]) -> dict[str, Any] | None:
    """The row of round `round_index` when an earlier run of the same settings finished it in `work` (local or
    gs://); a record of other settings is refused (ValueError, one line)."""
    from tnforge.filesystems import is_file, read_bytes

    path = None if work is None else round_record(work, round_index)
    if path is None or not is_file(path):
        return None
    record = json.loads(read_bytes(path).decode("utf-8"))
    if record.get("settings") != settings:
        raise ValueError(f"{work}: holds rounds of a loop with other settings ({path}): use a new --out")
    return record["row"]


def adversarial_loop(rounds: int, decode_topk: DecodeTopK, regenerate: Regenerate, retrain: Retrain,
                     evaluate: Evaluate, on_round: Callable[[dict[str, Any]], None] | None = None,
                     work: str | Path | None = None, settings: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Run `rounds` rounds; returns one row per round (its figures plus the seconds of each step). With `work`,
    each finished round's row is recorded in `work`/round-N/round.json (last), and the rounds an earlier run
    of the same `settings` finished there are taken from their records, not run again (a loop interrupted
    between rounds resumes)."""
    from tnforge.filesystems import is_remote, write_text

    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    rows: list[dict[str, Any]] = []
    previous: Path | str | None = None
    for round_index in range(1, rounds + 1):
        if (row := finished_round(work, round_index, settings or {})) is not None:
            rows.append(row)
            if on_round is not None:
                on_round(row)
            previous = row["filter"] if is_remote(row["filter"]) else Path(row["filter"])  # Path() breaks gs://
            continue
        timings: dict[str, float] = {}
        started = time.monotonic()
        hypotheses = decode_topk(round_index, previous)
        timings["decode_s"] = time.monotonic() - started
        started = time.monotonic()
        regenerate(round_index, hypotheses)
        timings["negatives_s"] = time.monotonic() - started
        started = time.monotonic()
        run = retrain(round_index)
        timings["train_s"] = time.monotonic() - started
        started = time.monotonic()
        figures = evaluate(round_index, run)
        timings["evaluate_s"] = time.monotonic() - started
        row = {"round": round_index, "filter": str(run), "hypotheses": str(hypotheses), **figures, **timings}
        rows.append(row)
        if work is not None:
            write_text(round_record(work, round_index),
                       json.dumps({"settings": settings or {}, "row": row}, indent=2, default=str) + "\n")
        if on_round is not None:
            on_round(row)
        previous = run
    return rows


def loop_markdown(rows: list[dict[str, Any]], title: str = "Adversarial loop") -> str:
    """One table row per round: the evaluation's figures and the time of each step."""
    lines = [f"# {title}", "",
             "| round | errors | error rate | unrecoverable | filter dev AUC | decode s | negatives s | train s | "
             "evaluate s |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        def cell(name: str, fmt: str = "{}", row: dict[str, Any] = row) -> str:
            value = row.get(name)
            return "" if value is None else fmt.format(value)

        lines.append(f"| {row['round']} | {cell('errors')} | {cell('error_rate', '{:.2%}')} | {cell('unrecoverable')} "
                     f"| {cell('filter_auc', '{:.4f}')} | {cell('decode_s', '{:.0f}')} | {cell('negatives_s', '{:.0f}')} "
                     f"| {cell('train_s', '{:.0f}')} | {cell('evaluate_s', '{:.0f}')} |")
    return "\n".join(lines) + "\n"


def round_note(row: dict[str, Any]) -> str:
    """A progress line for one finished round."""
    return (f"round {row['round']}: {row['errors']} errors ({row.get('unrecoverable')} unrecoverable), "
            f"filter dev AUC {row.get('filter_auc') or float('nan'):.4f}")


def rounds_so_far(rows: list[dict[str, Any]], config: LoopConfig) -> str:
    """The table of the rounds done so far (`loop_markdown`), titled after the last of them."""
    title = f"Adversarial loop after round {rows[-1]['round']} ({config.split}, λ={config.weight:g})"
    return loop_markdown(rows, title)


def write_loop(rows: list[dict[str, Any]], out: str | Path, title: str) -> tuple[str, list[Path]]:
    """Write loop.md and loop.json into the folder `out`; returns the Markdown and the paths."""
    from tnforge.filesystems import write_text_files

    markdown = loop_markdown(rows, title)
    return markdown, write_text_files(out, {"loop.md": markdown, "loop.json": json.dumps(rows, indent=2) + "\n"})


# --- the loop's steps on a decoder model and a dataset directory ----------------------------------------------

#: (dataset, pairs folder, kinds, ratio, top-k hypotheses, seed) → None: writes the pairs / vocab_pairs of the
#: dataset (only read) into the pairs folder (Beam); kinds () means the generator registry's "regenerated each
#: round" kinds (trainers do not read generators/).
RegenerateNegatives = Callable[[str, str, Sequence[str], float | None, str, int], None]


class LoopDecoding(Protocol):
    """The loop's decoding done outside this process (on Beam: `tnforge.pipelines.inference.BeamDecoding`), each
    step with the vocabulary filter of run `filter` (None: none) at the loop's weight."""

    def hypotheses(self, files: Sequence[Path | str], out: str, filter: str | None) -> None:
        """The top-k hypotheses of the train split's `files` → the new folder `out`."""

    def best_readings(self, files: Sequence[Path | str], split: str, filter: str) -> dict[int, str]:
        """key → best reading of every original example of `files`."""


@dataclass
class LoopConfig:
    """Options of the loop (the `loop` command's defaults)."""

    rounds: int = 2
    split: str = "dev"  # evaluated after each round
    top_k: int = 5  # hypotheses per training input
    ratio: float | None = 3.0  # negatives per positive when regenerating (None: every candidate)
    weight: float = WEIGHT  # vocabulary filter weight λ
    epochs: int = 20  # of each filter retraining
    beam: int = BEAM
    batch_size: int = BATCH_SIZE


#: The loop's folder of regenerated pairs (`work`/data: a pairs folder of the dataset, which is only read).
PAIRS = "data"


def decode_topk(loaded: DecodableModel, files: Sequence[Path | str], out: str, config: LoopConfig,
                previous: str | None, decoding: LoopDecoding | None = None) -> str:
    """The train split's top-k hypotheses (decoded with the previous round's filter, if any) → the new folder
    `out` (an unfinished earlier attempt's removed first), in this process or by `decoding`."""
    from tnforge.filesystems import remove
    from tnforge.trainers.decoding.constraint_sets import vocabulary_constraint
    from tnforge.trainers.decoding.outputs import write_hypotheses

    remove(out)  # a round is redone whole: its hypotheses too
    if decoding is not None:
        decoding.hypotheses(files, out, previous)
        return out
    constraint = None if previous is None else vocabulary_constraint(loaded, previous, config.weight)
    write_hypotheses(loaded, files, out, split="train", beam=max(config.beam, config.top_k), top_k=config.top_k,
                     batch_size=config.batch_size, constraint=constraint)
    return out


def retrain_filter(pairs: str, run: str, device: str, epochs: int) -> str:
    """Train a vocabulary filter (the default model) on the vocab_pairs of `pairs` into the run folder `run`;
    a remote `run` (gs://…) is trained in a local scratch folder and copied there whole."""
    import shutil
    import tempfile

    from tnforge.filesystems import is_remote, remove
    from tnforge.folder_copies import copy_folder
    from tnforge.trainers.dual_encoders.runs import default_model
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    local = tempfile.mkdtemp(prefix="tnforge-filter-") if is_remote(run) else run
    try:
        train_dual_encoder(DETrainConfig(data=str(pairs), out=str(local), kind="vocabulary", device=device,
                                         epochs=epochs, progress=False, model=default_model("vocabulary")),
                           overwrite=True)  # the loop owns its work folder
        if is_remote(run):
            remove(run)
            copy_folder(local, run)
    finally:
        if local != run:
            shutil.rmtree(local, ignore_errors=True)
    return run


def evaluate_filter(loaded: DecodableModel, files: Sequence[Path | str], run: str, config: LoopConfig,
                    judge: BatchJudge | None = None, progress: Progress | None = None, label: str = "evaluate",
                    total: int | None = None, decoding: LoopDecoding | None = None) -> dict[str, Any]:
    """Errors of decoding `config.split` with the filter of `run` (in this process or by `decoding`): a row of
    the loop's table."""
    from tnforge.trainers.decoding.constraint_sets import load_scorer
    from tnforge.trainers.decoding.constraints import VocabularyFilterConstraint
    from tnforge.trainers.evaluation.decoded import evaluate_decoding, evaluate_readings

    scorer = load_scorer(run, loaded.device, "vocabulary")
    if decoding is not None:
        result = evaluate_readings(files, config.split, decoding.best_readings(files, config.split, run), judge)
    else:
        result = evaluate_decoding(loaded, files, config.split, VocabularyFilterConstraint(scorer, config.weight),
                                   judge, config.beam, config.batch_size, progress, label, total)
    return {"errors": len(result["errors"]), "error_rate": 1 - result["tokens"]["accuracy"],
            "unrecoverable": result.get("unrecoverable"), "filter_auc": scorer.metrics.get("dev", {}).get("auc")}


def check_source(source: str, config: LoopConfig) -> int:
    """The checks made before the loop writes anything: `source` is a built dataset with positive pairs and
    examples of the evaluated split (their original tokens are returned)."""
    from tnforge.datasets import dataset_files
    from tnforge.manifest import require_dataset
    from tnforge.trainers.evaluation.decoded import require_examples
    from tnforge.trainers.kernel.examples import example_files

    require_dataset(source)  # the loop regenerates the dataset's negatives: a built dataset, checked before any write
    total = require_examples(example_files(source, config.split), config.split)  # none: say so before anything
    if not dataset_files(source, "positive_pairs"):
        raise FileNotFoundError(f"{source}: no positive pairs under positives/ (the loop makes its negatives from "
                                "them; run `tnforge build` first)")
    return total


def run_loop(loaded: DecodableModel, source: Path | str, work: Path | str, regenerate: RegenerateNegatives,
             config: LoopConfig, judge: BatchJudge | None = None, progress: Progress | None = None,
             on_round: Callable[[dict[str, Any]], None] | None = None,
             decoding: LoopDecoding | None = None) -> list[dict[str, Any]]:
    """The loop on a built dataset `source` (only read; local or gs://): pairs are regenerated in `work`/data,
    each round's hypotheses and filter go to `work`/round-N/ (local or gs://), its row to round-N/round.json
    last; run again on the same `work`, the loop resumes after the last finished round. Decoding runs in this
    process, or by `decoding` (on Beam). Returns one row per round."""
    from tnforge.filesystems import join
    from tnforge.manifest import build_config
    from tnforge.trainers.kernel.examples import example_files

    source, work = str(source), str(work)
    total = check_source(source, config)
    train_files, eval_files = example_files(source, "train"), example_files(source, config.split)
    pairs, seed = join(work, PAIRS), int(build_config(source).get("seed", 0) or 0)

    def round_folder(r: int, name: str) -> str:
        return join(work, f"round-{r}", name)

    return adversarial_loop(
        config.rounds,
        lambda r, previous: decode_topk(loaded, train_files, round_folder(r, "hypotheses"), config,
                                        None if previous is None else str(previous), decoding),
        lambda r, hypotheses: regenerate(source, pairs, (), config.ratio, str(hypotheses), seed),
        lambda r: retrain_filter(pairs, round_folder(r, "voc-de"), str(loaded.device), config.epochs),
        lambda r, run: evaluate_filter(loaded, eval_files, str(run), config, judge, progress, f"round {r}", total,
                                       decoding),
        on_round=on_round, work=work, settings=loop_settings(loaded, source, config))


def loop_settings(loaded: DecodableModel, source: Path | str, config: LoopConfig) -> dict[str, Any]:
    """What a resumed loop must share with the run whose rounds it takes over (not the runner: the bytes are
    the same on any)."""
    from dataclasses import asdict

    from tnforge.filesystems import is_remote

    def where(path: Path | str) -> str:
        return str(path) if is_remote(str(path)) else str(Path(path).resolve())

    return {"model": where(loaded.path), "data": where(source),
            **{k: v for k, v in asdict(config).items() if k != "rounds"}}
