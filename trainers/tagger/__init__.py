"""The semiotic-class tagger: gradient-boosted trees (xgboost) over context features predict each token's
class from raw-text tokens, so the covering-grammar constraint can be driven without gold classes.

Importing this package imports neither xgboost nor torch; training and prediction import xgboost.
"""

from __future__ import annotations

from tnforge.trainers.tagger.features import FEATURES_VERSION, Lexicon, feature_names, features
from tnforge.trainers.tagger.model import Prediction, Tagger, load_tagger
from tnforge.trainers.tagger.train import TaggerConfig, TaggerReport, fit_tagger, train_tagger

__all__ = ["FEATURES_VERSION", "Lexicon", "Prediction", "Tagger", "TaggerConfig", "TaggerReport", "feature_names",
           "features", "fit_tagger", "load_tagger", "train_tagger"]
