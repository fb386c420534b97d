"""A trained tagger on disk and in memory: `tagger.json` (what the model is: features version, classes,
lexicon, xgboost version, the pronouncing-dictionary table's source and sha256, training data, metrics)
beside `model.json` (the xgboost booster, JSON format)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tnforge.trainers.tagger.dictionary import dictionary_version
from tnforge.trainers.tagger.features import FEATURES_VERSION, Lexicon, feature_names, features
from tnforge.trainers.tagger.priors import at_train_priors
from tnforge.trainers.tagger.rules import context_class

#: The description file and the booster file of a tagger run.
DESCRIPTION = "tagger.json"
BOOSTER = "model.json"
#: What a tagger run writes into its folder (the only files `--overwrite` removes).
TAGGER_FILES = (DESCRIPTION, BOOSTER, "dev.md", "reliability.png")
FORMAT = "tnforge-tagger"


class Prediction(NamedTuple):
    """A token's predicted semiotic class and the model's probability of it."""

    cls: str
    probability: float


class Tagger:
    """A gradient-boosted tree classifier of each token's semiotic class, from its context features."""

    def __init__(self, booster: Any, lexicon: Lexicon, description: dict[str, Any] | None = None,
                 rules: bool = True) -> None:
        self.booster = booster
        self.lexicon = lexicon
        self.description = description or {}
        self.rules = rules  # `rules.context_class` overrides the trees on the tokens it decides

    @property
    def temperature(self) -> float:
        """The calibration temperature fitted on dev (`calibration`; 1.0 for a tagger trained without one)."""
        return float(self.description.get("calibration", {}).get("temperature", 1.0))

    @property
    def calibrated(self) -> bool:
        """Whether the probabilities are calibrated on dev (tagger runs trained before calibration are not)."""
        return "calibration" in self.description

    @property
    def classes(self) -> tuple[str, ...]:
        """The classes the model tells apart, in the order of its probability columns."""
        return self.lexicon.classes

    def probabilities(self, sentences: Sequence[Sequence[str]], calibrated: bool = True) -> np.ndarray:
        """(tokens × classes) probabilities of every token of `sentences`, in order; scaled by the dev-fitted
        temperature, and for unknown Title-case words taken at the train split's class frequencies
        (`priors.at_train_priors`), unless `calibrated` is False (the trees' own probabilities)."""
        from tnforge.trainers.tagger.calibration import apply_temperature

        matrix = features(sentences, self.lexicon)
        if not len(matrix):
            return np.zeros((0, len(self.classes)), dtype=np.float32)
        if self.booster.num_features() != matrix.shape[1]:
            raise ValueError(f"the tagger's trees take {self.booster.num_features()} features, these tokens have "
                             f"{matrix.shape[1]}: retrain it with this tnforge (`tnforge train tagger`)")
        raw = np.asarray(self.booster.inplace_predict(matrix), dtype=np.float32).reshape(len(matrix), len(self.classes))
        if not calibrated:
            return raw
        weights = self.description.get("training", {}).get("class_weights", {})
        return at_train_priors(apply_temperature(raw, self.temperature), [t for s in sentences for t in s],
                               self.classes, weights)

    def use_threads(self, threads: int) -> None:
        """Predict with `threads` CPU threads (0: xgboost's default, every core). One thread is fastest for a
        sentence at a time, and on a machine whose cores other work shares."""
        if threads:
            self.booster.set_param({"nthread": threads})

    def predict(self, sentences: Sequence[Sequence[str]]) -> list[list[Prediction]]:
        """The most probable class of every token, sentence by sentence (a rule's class has probability 1)."""
        return self.tag(sentences)[0]

    def tag(self, sentences: Sequence[Sequence[str]]) -> tuple[list[list[Prediction]], np.ndarray]:
        """`predict`'s classes together with the (tokens × classes) probabilities they came from, computed once."""
        probs = self.probabilities(sentences)
        best = probs.argmax(axis=1) if len(probs) else np.zeros(0, dtype=np.int64)
        out: list[list[Prediction]] = []
        row = 0
        for tokens in sentences:
            found = []
            for i, j in zip(range(row, row + len(tokens)), range(len(tokens)), strict=True):
                ruled = context_class(tokens, j) if self.rules else None
                found.append(Prediction(ruled, 1.0) if ruled else
                             Prediction(self.classes[int(best[i])], float(probs[i, best[i]])))
            out.append(found)
            row += len(tokens)
        return out, probs

    def save(self, run: str | os.PathLike, extra: dict[str, Any] | None = None) -> Path:
        """Write model.json and tagger.json into `run` (tagger.json last: it marks a finished model)."""
        import xgboost

        run = Path(run)
        run.mkdir(parents=True, exist_ok=True)
        kept = {"calibration": self.description["calibration"]} if "calibration" in self.description else {}
        temp = run / f".tmp-{BOOSTER}"  # xgboost picks the format by the suffix: keep .json last
        self.booster.save_model(str(temp))
        os.replace(temp, run / BOOSTER)
        self.description = {
            "format": FORMAT, "features_version": FEATURES_VERSION, "classes": list(self.classes),
            "xgboost": xgboost.__version__, "dictionary": dictionary_version(),
            "booster": BOOSTER, "rules": self.rules,
            "feature_names": feature_names(self.classes),
            **kept, **(extra or {}), "lexicon": self.lexicon.to_dict(),
        }
        temp = run / f".{DESCRIPTION}.tmp"
        temp.write_text(json.dumps(self.description, indent=1, sort_keys=False, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        os.replace(temp, run / DESCRIPTION)
        return run


def load_tagger(run_dir: str | os.PathLike) -> Tagger:
    """Load a tagger run folder written by `tnforge train tagger` (ValueError when it is not one, or was made
    with other features)."""
    import xgboost

    run = Path(run_dir)
    path = run / DESCRIPTION if run.is_dir() else run
    try:
        description = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ValueError(f"{run}: not a tagger run (no {DESCRIPTION}): train one with `tnforge train tagger`") \
            from error
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: unreadable tagger description ({error})") from error
    if description.get("format") != FORMAT:
        raise ValueError(f"{path}: not a tagger description (format {description.get('format')!r})")
    if description.get("features_version") != FEATURES_VERSION:
        raise ValueError(f"{path}: made with tagger features version {description.get('features_version')}, "
                         f"this tnforge computes version {FEATURES_VERSION}: retrain the tagger")
    booster = xgboost.Booster()
    model = path.parent / description.get("booster", BOOSTER)
    try:
        booster.load_model(str(model))
    except xgboost.core.XGBoostError as error:
        why = re.sub(r"^\[[\d:]+\] \S+: ", "", str(error).splitlines()[0])  # without xgboost's time and source line
        raise ValueError(f"{model}: unreadable xgboost model, damaged or cut short ({why})") from error
    return Tagger(booster, Lexicon.from_dict(description["lexicon"]), description, rules=description.get("rules", True))


def load_tagger_run(run_dir: str | os.PathLike, device: object = None) -> Tagger:
    """`load_tagger` as the family registry calls it (a run folder and a device, which xgboost's CPU model
    ignores)."""
    return load_tagger(run_dir)
