"""Class probabilities at the training data's own class frequencies, for unknown Title-case words, a kind of
token whose class the tagger's class weights turn around.

The trees train with class weights (rare classes count up to 20 times a PLAIN token: `train.class_weights`), so
their probabilities are those of a corpus where LETTERS is 18 times commoner than it is. For most kinds of token
this changes nothing the trees decide, but for Title-case words of 2–5 letters that no pronouncing dictionary
holds ("Fuu", "Daf") it turns the majority around: the shared sample's train split reads them PLAIN 232 times,
LETTERS 16 and VERBATIM 8, which weighted as the trees see them is LETTERS 295, PLAIN 232, VERBATIM 160
(docs/results/safe-normalize.md, "Can a decision from the written form be right every time?"). For those tokens
alone each class's probability is divided by its training weight and renormalised: the trees' own evidence at
the train split's priors. Undoing the weights on every token spells fewer capitals right than it fixes words
(measured there too), so it is kept to this kind. The only other kind the results page finds turned around,
a one-letter Roman numeral after a name, is 15 train tokens read PLAIN (initials: "Let M") where the bundled
sample reads "Stephen V" and "Elizabeth I" as ordinals: no decision at any priors reads both right.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from tnforge.trainers.tagger.dictionary import dictionary_key, dictionary_traits

_TITLE = re.compile(r"[A-Z][a-z]{1,4}")


def unknown_title_word(token: str) -> bool:
    """A Title-case word of 2–5 letters that the CMU Pronouncing Dictionary does not hold ("Fuu", not "Ska")."""
    text = token.strip()
    return bool(_TITLE.fullmatch(text)) and not dictionary_traits(dictionary_key(text))[0]


def at_train_priors(probabilities: np.ndarray, tokens: Sequence[str], classes: Sequence[str],
                    weights: Mapping[str, float]) -> np.ndarray:
    """(tokens × classes) probabilities with the rows of `unknown_title_word` tokens divided by each class's
    training weight and renormalised; the other rows, and every row without `weights`, unchanged."""
    rows = [i for i, token in enumerate(tokens) if unknown_title_word(token)]
    if not rows or not weights:
        return probabilities
    divide = np.asarray([float(weights.get(cls, 1.0)) for cls in classes], dtype=np.float64)
    out = probabilities.copy()
    scaled = out[rows].astype(np.float64) / divide
    out[rows] = (scaled / scaled.sum(axis=1, keepdims=True)).astype(out.dtype)
    return out
