"""Train the semiotic-class tagger: every token of the train split (the sentences dataset's `tokens` and
`classes`), gradient-boosted trees (xgboost, imported here) over `features`, early stopping on dev, then
per-class figures on dev and test and a self-describing model in the run folder."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.datasets import read_dataset
from tnforge.hashing import stable_hash64
from tnforge.manifest import manifest_sha256, require_dataset
from tnforge.trainers.tagger.features import Lexicon, feature_names, features
from tnforge.trainers.tagger.metrics import class_metrics, markdown
from tnforge.trainers.tagger.model import TAGGER_FILES, Tagger
from tnforge.trainers.training.engine_config import option
from tnforge.trainers.training.runs import check_not_corpus, prepare_run_directory


@dataclass
class TaggerConfig:
    """Options of `tnforge train tagger` (its options and their defaults are generated from these fields)."""

    data: str = option("", "Dataset directory.", hidden=True)
    out: str = option("", "Run directory.", hidden=True)
    rounds: int = option(400, "Boosting rounds at most.", min=1)
    #: chosen by 5-fold cross-validation over train + dev (benchmarks/tagger.py)
    learning_rate: float = option(0.1, "Boosting step size (eta).", min=0, min_open=True, aliases=("--lr",))
    max_depth: int = option(6, "Depth of each tree.", min=1)
    colsample: float = option(0.5, "Share of the features each tree may use.", min=0, max=1, min_open=True)
    patience: int = option(30, "Rounds without dev improvement before stopping (0: no early stopping).", min=0)
    class_weight: float = option(0.75, "Weight of class c: (count of the commonest class / count of c) ** this "
                                       "(0: unweighted).", min=0)
    max_weight: float = option(20.0, "Largest class weight.", min=1)
    folds: int = option(5, "Folds of the train sentences: each sees the token statistics of the others only.",
                        min=2)
    max_words: int = option(2000, "Frequent words with their own feature.", min=0)
    seed: int = option(0, "Seed of the trees and the folds.")
    #: xgboost's OpenMP threads spin-wait: on a busy machine 2 threads ran 10x slower than 1
    threads: int = option(1, "CPU threads of xgboost.", min=1)
    device: str = option("cpu", "cpu (default), cuda or cuda:N: xgboost's device.")
    overwrite: bool = option(False, "Replace the tagger run in a non-empty --out.", hidden=True)


@dataclass
class TaggerReport:
    """A finished tagger run: folder, classes, rounds kept, seconds, dev and test figures."""

    run: Path
    classes: list[str]
    train_tokens: int
    rounds: int
    seconds: float
    dev: dict[str, Any] = field(default_factory=dict)
    test: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the user should know of how it trained


def read_train_sentences(root: str | os.PathLike, split: str = "train") -> tuple[list[list[str]], list[list[str]]]:
    """Tokens and classes of every sentence of a split (the sentences dataset, schema version 2 or later)."""
    table = read_dataset(root, "sentences", split, columns=["key"])
    if table.num_rows:
        try:
            table = read_dataset(root, "sentences", split, columns=["key", "tokens", "classes"])
        except (KeyError, pa.ArrowInvalid) as error:
            raise ValueError(f"{root}: its sentences have no tokens/classes columns (built by an older tnforge): "
                             "rebuild it with `tnforge build`") from error
        table = table.sort_by("key")
    else:
        table = pa.table({"tokens": pa.array([], pa.list_(pa.string())), "classes": pa.array([], pa.list_(pa.string()))})
    return table.column("tokens").to_pylist(), table.column("classes").to_pylist()


def read_eval_sentences(root: str | os.PathLike, split: str) -> tuple[list[list[str]], list[list[str]], list[bool]]:
    """Tokens, classes and flat trivial flags of every sentence of a dev/test split (from its examples, which
    hold every token of those sentences)."""
    table = read_dataset(root, "examples", split,
                         columns=["source", "sentence_id", "token_index", "copy", "class", "before", "trivial"])
    table = table.filter(pc.equal(table.column("copy"), 0))
    table = table.sort_by([("source", "ascending"), ("sentence_id", "ascending"), ("token_index", "ascending")])
    sources, ids = table.column("source").to_pylist(), table.column("sentence_id").to_numpy()
    befores, classes = table.column("before").to_pylist(), table.column("class").to_pylist()
    tokens: list[list[str]] = []
    labels: list[list[str]] = []
    previous = None
    for i, before in enumerate(befores):
        sentence = (sources[i], int(ids[i]))
        if sentence != previous:
            tokens.append([])
            labels.append([])
            previous = sentence
        tokens[-1].append(before)
        labels[-1].append(classes[i])
    return tokens, labels, table.column("trivial").to_pylist()


def _classes(labels: Sequence[Sequence[str]]) -> list[str]:
    present = {c for sentence in labels for c in sentence}
    return [c for c in schemas.SEMIOTIC_CLASSES if c in present] + sorted(present - set(schemas.SEMIOTIC_CLASSES))


def out_of_fold_features(tokens: Sequence[Sequence[str]], labels: Sequence[Sequence[str]], lexicon: Lexicon,
                         folds: int, seed: int) -> np.ndarray:
    """Features of the training tokens, each sentence described by a lexicon of the other folds' sentences
    (so a row never sees its own label in the token statistics, as a dev or test row would not)."""
    fold_of = [stable_hash64(" ".join(s), seed=seed) % folds for s in tokens]
    starts = np.concatenate([[0], np.cumsum([len(s) for s in tokens])])
    x = np.zeros((int(starts[-1]), len(feature_names(lexicon.classes))), dtype=np.float32)
    for fold in range(folds):
        inside = [i for i, f in enumerate(fold_of) if f == fold]
        if not inside:
            continue
        others = [i for i, f in enumerate(fold_of) if f != fold]
        fold_lexicon = Lexicon.fit([tokens[i] for i in others], [labels[i] for i in others], lexicon.classes,
                                   words=lexicon.words)
        rows = np.concatenate([np.arange(starts[i], starts[i + 1]) for i in inside])
        x[rows] = features([tokens[i] for i in inside], fold_lexicon)
    return x


def class_weights(labels: Sequence[str], classes: Sequence[str], power: float, cap: float) -> dict[str, float]:
    """Weight of each class: (count of the most frequent class / its count) ** power, at most `cap`."""
    counts = {c: 0 for c in classes}
    for label in labels:
        counts[label] += 1
    most = max(counts.values())
    return {c: min(cap, (most / n) ** power) if n else 1.0 for c, n in counts.items()}


def _evaluate(tagger: Tagger, root: str, split: str) -> dict[str, Any]:
    tokens, labels, trivial = read_eval_sentences(root, split)
    if not tokens:
        return {}
    predicted = [p.cls for sentence in tagger.predict(tokens) for p in sentence]
    return class_metrics([c for s in labels for c in s], predicted, trivial, tagger.classes)


def xgboost_device(name: str) -> str:
    """The xgboost device for `--device` (cpu, cuda, cuda:N); ValueError, in one line, when CUDA is asked for
    and this xgboost has no CUDA or sees no GPU (xgboost itself would only warn and fall back to the CPU)."""
    import xgboost

    device = (name or "cpu").strip().lower()
    if device == "cpu":
        return device
    if not re.fullmatch(r"cuda(:\d+)?", device):
        raise ValueError(f"--device {name}: unknown device (use cpu, cuda or cuda:N)")
    if not xgboost.build_info().get("USE_CUDA"):
        raise ValueError(f"--device {name}: this xgboost ({xgboost.__version__}) is built without CUDA; "
                         "use --device cpu")
    probe = xgboost.DMatrix(np.zeros((2, 1), dtype=np.float32), label=np.asarray([0.0, 1.0]))
    booster = xgboost.train({"device": device, "tree_method": "hist", "verbosity": 0}, probe, num_boost_round=1)
    used = json.loads(booster.save_config())["learner"]["generic_param"].get("device", "cpu")
    if not used.startswith("cuda"):  # xgboost fell back to the CPU: it sees no GPU
        raise ValueError(f"--device {name}: xgboost sees no CUDA GPU on this machine; use --device cpu")
    return device


def fit_tagger(tokens: Sequence[Sequence[str]], labels: Sequence[Sequence[str]], config: TaggerConfig,
               dev: tuple[Sequence[Sequence[str]], Sequence[Sequence[str]]] | None = None) -> Tagger:
    """Train a tagger on sentences (tokens and their classes) in memory; early stopping on `dev` when given
    and config.patience > 0. Deterministic for a seed."""
    import xgboost

    if not tokens:
        raise ValueError("no train sentences to learn from")
    classes = _classes(labels)
    lexicon = Lexicon.fit(tokens, labels, classes, max_words=config.max_words)
    index = {c: i for i, c in enumerate(classes)}
    flat = [c for s in labels for c in s]
    weights = class_weights(flat, classes, config.class_weight, config.max_weight)
    names = feature_names(classes)
    dtrain = xgboost.DMatrix(out_of_fold_features(tokens, labels, lexicon, config.folds, config.seed),
                             label=np.asarray([index[c] for c in flat], dtype=np.float32),
                             weight=np.asarray([weights[c] for c in flat], dtype=np.float32), feature_names=names)
    params = {"objective": "multi:softprob", "num_class": len(classes), "eta": config.learning_rate,
              "max_depth": config.max_depth, "colsample_bytree": config.colsample, "tree_method": "hist",
              "nthread": config.threads, "seed": config.seed, "eval_metric": "mlogloss", "verbosity": 0,
              "device": xgboost_device(config.device)}
    evals, stopping = [], None
    dev_flat = [c for s in dev[1] for c in s] if dev else []
    # Early stopping judges the dev tokens of the classes the train split has: a class only dev holds (a rare
    # ADDRESS) cannot be scored, and is left out of the stopping set rather than turning early stopping off.
    known = np.asarray([c in index for c in dev_flat], dtype=bool)
    if config.patience and known.any():
        ddev = xgboost.DMatrix(features(dev[0], lexicon)[known], feature_names=names,
                               label=np.asarray([index[c] for c in dev_flat if c in index], dtype=np.float32))
        evals, stopping = [(ddev, "dev")], config.patience
    booster = xgboost.train(params, dtrain, num_boost_round=config.rounds, evals=evals,
                            early_stopping_rounds=stopping, verbose_eval=False)
    if stopping:
        booster = booster[: booster.best_iteration + 1]
    settings = {k: v for k, v in asdict(config).items() if k not in ("data", "out", "overwrite")}
    unseen = sorted({c for c in dev_flat if c not in index})
    return Tagger(booster, lexicon, {"training": {"train_tokens": len(flat), "rounds": booster.num_boosted_rounds(),
                                                  "early_stopping": bool(stopping),
                                                  "dev_tokens_left_out": int((~known).sum()),
                                                  "dev_classes_left_out": unseen,
                                                  "config": settings, "class_weights": weights}})


def train_tagger(config: TaggerConfig) -> TaggerReport:
    """Train a tagger on `config.data`'s train split, write it to `config.out`, report dev and test figures."""
    check_not_corpus(config.data)
    require_dataset(config.data)
    xgboost_device(config.device)
    out = Path(config.out)
    if out.is_dir() and any(out.iterdir()) and not config.overwrite:
        raise ValueError(f"{out} is not empty (an earlier run?): add --overwrite to replace it")
    run = prepare_run_directory(out, resume=False, overwrite=config.overwrite, files=TAGGER_FILES)
    started = time.monotonic()
    tokens, labels = read_train_sentences(config.data)
    if not tokens:
        raise ValueError(f"{config.data}: no train sentences to learn from")
    dev_tokens, dev_labels, _ = read_eval_sentences(config.data, "dev")
    tagger = fit_tagger(tokens, labels, config, (dev_tokens, dev_labels))
    calibration = calibrate_on(tagger, dev_tokens, dev_labels)
    training = tagger.description["training"]
    report = TaggerReport(run, list(tagger.classes), training["train_tokens"], training["rounds"], 0.0,
                          _evaluate(tagger, config.data, "dev"), _evaluate(tagger, config.data, "test"),
                          training_notes(training))
    report.seconds = round(time.monotonic() - started, 1)
    tagger.save(run, {
        "training": {"data": os.path.abspath(config.data), "manifest_sha256": manifest_sha256(config.data),
                     **training},
        "metrics": {"dev": report.dev, "test": report.test},
        **({"calibration": calibration} if calibration else {}),
    })
    markdown = _report_markdown(report)
    if calibration:
        from tnforge.trainers.tagger.calibration import reliability_markdown, reliability_plot

        reliability_plot(calibration, run / "reliability.png")
        markdown += "\n" + reliability_markdown(calibration)
    (run / "dev.md").write_text(markdown, encoding="utf-8")
    return report


def calibrate_on(tagger: Tagger, tokens: Sequence[Sequence[str]], labels: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Fit the tagger's temperature on dev tokens of the classes it knows (`calibration.calibrate`) and keep it
    in the tagger's description; {} when dev has no such token (the probabilities stay the trees')."""
    from tnforge.trainers.tagger.calibration import calibrate

    index = {c: i for i, c in enumerate(tagger.classes)}
    flat = [c for sentence in labels for c in sentence]
    known = np.asarray([c in index for c in flat], dtype=bool)
    if not known.any():
        return {}
    probabilities = tagger.probabilities(tokens, calibrated=False)[known]
    calibration = calibrate(probabilities, [index[c] for c in flat if c in index])
    tagger.description["calibration"] = calibration
    return calibration


def training_notes(training: dict[str, Any]) -> list[str]:
    """Lines about early stopping a user should see: dev tokens it could not score, or no dev tokens at all."""
    notes = []
    if training["dev_tokens_left_out"]:
        notes.append(f"early stopping left out {training['dev_tokens_left_out']} dev token(s) of classes the train "
                     f"split lacks ({', '.join(training['dev_classes_left_out'])}): the tagger cannot predict them")
    if not training["early_stopping"] and training["config"].get("patience"):
        notes.append(f"no dev tokens to stop early on: all {training['rounds']} rounds ran (build with a dev split)")
    return notes


def _report_markdown(report: TaggerReport) -> str:
    parts = [f"# Tagger run {report.run}\n\n{report.train_tokens} train tokens, {report.rounds} rounds, "
             f"{report.seconds} s, classes: {', '.join(report.classes)}\n"]
    for name, metrics in (("dev", report.dev), ("test", report.test)):
        if metrics:
            parts.append(markdown(metrics, name))
    return "\n".join(parts)


def describe(report: TaggerReport) -> tuple[str, str]:
    """(a note for stderr, a summary for stdout) of a finished run."""
    note = "\n".join([f"tagger: {report.train_tokens} train tokens, {report.rounds} rounds in {report.seconds} s → "
                      f"{report.run}", *report.notes])
    lines = []
    for name, m in (("dev", report.dev), ("test", report.test)):
        if m:
            lines.append(f"{name}: accuracy {m['accuracy']:.4%} ({m['errors']} errors of {m['tokens']}), "
                         f"non-trivial {m.get('non_trivial_accuracy', 0):.4%} "
                         f"({m.get('non_trivial_errors', 0)} of {m.get('non_trivial_tokens', 0)})")
    lines.append(f"per-class figures and confusions: {report.run / 'dev.md'}")
    return note, "\n".join(lines)


def summary_json(report: TaggerReport) -> str:
    """The report as JSON (benchmarks)."""
    return json.dumps({"run": str(report.run), "rounds": report.rounds, "seconds": report.seconds,
                       "dev": report.dev, "test": report.test}, indent=1)
