"""The adversarial iteration of Gokcen et al. (2019): each round decodes the training data for top-k
hypotheses (with the previous round's vocabulary filter) → regenerates top-k negatives → retrains the filter
→ evaluates decoding with it. `adversarial_loop` runs injected steps; `run_loop` supplies them for a seq2seq
model and a dataset directory, with the regeneration (Beam) passed in by the caller.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


# --- the loop's steps on a seq2seq model and a dataset directory --------------------------------------------

#: (dataset, kinds, ratio, top-k hypotheses, seed) → None: writes the dataset's pairs / vocab_pairs (Beam); kinds
#: () means the generator registry's "regenerated each round" kinds (trainers do not read generators/).
RegenerateNegatives = Callable[[Path, Sequence[str], float | None, Path, int], None]


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


def loop_dataset(source: Path, work: Path) -> Path:
    """A dataset directory for the loop's regenerated pairs: links to the source's examples and positives."""
    from tnforge.datasets import DATASET_DIRS
    from tnforge.manifest import has_manifest, manifest_path

    target = work / "data"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("examples", "sentences", "positive_pairs"):
        link = target / DATASET_DIRS[name]
        if not link.exists() and (source / DATASET_DIRS[name]).exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to((source / DATASET_DIRS[name]).resolve(), target_is_directory=True)
    if has_manifest(source):
        shutil.copyfile(manifest_path(source), manifest_path(target))
    return target


def decode_topk(loaded: DecodableModel, files: Sequence[Path], out: Path, config: LoopConfig,
                previous: Path | None) -> Path:
    """The train split's top-k hypotheses (decoded with the previous round's filter, if any) → `out`."""
    from tnforge.trainers.decoding.constraint_sets import vocabulary_constraint
    from tnforge.trainers.decoding.outputs import write_hypotheses

    constraint = None if previous is None else vocabulary_constraint(loaded, str(previous), config.weight)
    write_hypotheses(loaded, files, out, split="train", beam=max(config.beam, config.top_k), top_k=config.top_k,
                     batch_size=config.batch_size, constraint=constraint)
    return out


def retrain_filter(dataset: Path, run: Path, device: str, epochs: int) -> Path:
    """Train a vocabulary filter (the default model) on the dataset's vocab_pairs into `run`."""
    from tnforge.trainers.dual_encoders.runs import default_model
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    train_dual_encoder(DETrainConfig(data=str(dataset), out=str(run), kind="vocabulary", device=device,
                                     epochs=epochs, progress=False, model=default_model("vocabulary")),
                       overwrite=True)  # the loop owns its work folder
    return run


def evaluate_filter(loaded: DecodableModel, files: Sequence[Path], run: Path, config: LoopConfig,
                    judge: BatchJudge | None = None, progress: Progress | None = None, label: str = "evaluate", total: int | None = None) -> dict[str, Any]:
    """Errors of decoding `config.split` with the filter of `run`: a row of the loop's table."""
    from tnforge.trainers.decoding.constraint_sets import load_scorer
    from tnforge.trainers.decoding.constraints import VocabularyFilterConstraint
    from tnforge.trainers.evaluation.decoded import evaluate_decoding

    scorer = load_scorer(str(run), loaded.device, "vocabulary")
    result = evaluate_decoding(loaded, files, config.split, VocabularyFilterConstraint(scorer, config.weight), judge,
                               config.beam, config.batch_size, progress, label, total)
    return {"errors": len(result["errors"]), "error_rate": 1 - result["tokens"]["accuracy"],
            "unrecoverable": result.get("unrecoverable"), "filter_auc": scorer.metrics.get("dev", {}).get("auc")}


def run_loop(loaded: DecodableModel, source: Path | str, work: Path | str, regenerate: RegenerateNegatives,
             config: LoopConfig, judge: BatchJudge | None = None, progress: Progress | None = None,
             on_round: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """The loop on a built dataset `source` (left untouched): pairs are regenerated in `work`/data, each
    round's hypotheses and filter go to `work`/round-N/, its row to round-N/round.json last; run again on the
    same `work`, the loop resumes after the last finished round. Returns one row per round."""
    from tnforge.datasets import dataset_files
    from tnforge.filesystems import is_remote
    from tnforge.manifest import build_config, require_dataset
    from tnforge.trainers.evaluation.decoded import require_examples
    from tnforge.trainers.kernel.examples import example_files

    if is_remote(source) or is_remote(work):
        raise ValueError(f"{source if is_remote(source) else work}: the adversarial loop links and rewrites a local "
                         "dataset directory; copy the dataset to a local folder first")
    require_dataset(source)  # the loop regenerates the dataset's negatives: a built dataset, checked before any write
    total = require_examples(example_files(source, config.split), config.split)  # none: say so before anything
    if not dataset_files(source, "positive_pairs"):
        raise FileNotFoundError(f"{source}: no positive pairs under positives/ (the loop makes its negatives from "
                                "them; run `tnforge build` first)")
    dataset = loop_dataset(Path(source), Path(work))
    train_files, eval_files = example_files(dataset, "train"), example_files(dataset, config.split)
    seed = int(build_config(dataset).get("seed", 0) or 0)
    return adversarial_loop(
        config.rounds,
        lambda r, previous: decode_topk(loaded, train_files, Path(work) / f"round-{r}" / "hypotheses.parquet",
                                        config, previous),
        lambda r, hypotheses: regenerate(dataset, (), config.ratio, hypotheses, seed),
        lambda r: retrain_filter(dataset, Path(work) / f"round-{r}" / "voc-de", str(loaded.device), config.epochs),
        lambda r, run: evaluate_filter(loaded, eval_files, run, config, judge, progress, f"round {r}", total),
        on_round=on_round, work=Path(work), settings=loop_settings(loaded, source, config))


def loop_settings(loaded: DecodableModel, source: Path | str, config: LoopConfig) -> dict[str, Any]:
    """What a resumed loop must share with the run whose rounds it takes over."""
    from dataclasses import asdict

    return {"model": str(Path(loaded.path).resolve()), "data": str(Path(source).resolve()),
            **{k: v for k, v in asdict(config).items() if k != "rounds"}}
