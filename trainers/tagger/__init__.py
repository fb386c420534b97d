"""The semiotic-class tagger: gradient-boosted trees (xgboost) over context features predict each token's
class from raw-text tokens, so the covering-grammar constraint can be driven without gold classes.

Importing this package imports neither xgboost nor torch (its registration, `family.py`, is read by
`tnforge train --help`): the training names load `train` on first use; training and prediction import xgboost.
"""

from __future__ import annotations

import importlib
from typing import Any

from tnforge.trainers.tagger.features import FEATURES_VERSION, Lexicon, feature_names, features
from tnforge.trainers.tagger.model import Prediction, Tagger, load_tagger

_TRAINING = ("TaggerConfig", "TaggerReport", "fit_tagger", "train_tagger")

__all__ = ["FEATURES_VERSION", "Lexicon", "Prediction", "Tagger", "TaggerConfig", "TaggerReport", "feature_names",
           "features", "fit_tagger", "load_tagger", "train_tagger"]


def __getattr__(name: str) -> Any:
    if name not in _TRAINING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.train"), name)
