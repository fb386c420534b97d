"""The one registry of negative kinds: what `tnforge negatives` generates and the types pairs carry.

The generators, the negatives pipeline and CLI, the validation suites and the dual-encoder trainers all read
these names from here. A new negative generator adds its kind (and any new pair type) here, once.
"""

from __future__ import annotations

#: The label of a positive pair in summaries (its `negative_type` column is empty).
POSITIVE = "positive"

SYNTHETIC = "synthetic"  # edits of the positive reading (generators.edit_arrays: meaning, generic and suffix edits; trivial confusions)
RANDOM = "random"  # readings of other inputs (generators.candidate_arrays.draw_grid)
TOPK = "topk"  # wrong hypotheses of a trained model (generators.topk)

#: Kinds `tnforge negatives --kinds` can generate, in order; they are the `negative_type` of DIR/pairs rows.
KINDS: tuple[str, ...] = (SYNTHETIC, RANDOM, TOPK)
#: Kinds generated when none are named (they need nothing but the dataset).
DEFAULT_KINDS: tuple[str, ...] = (SYNTHETIC, RANDOM)
#: Kinds read from a hypotheses file (`--topk-from`) rather than made from the corpus.
FROM_HYPOTHESES: frozenset[str] = frozenset({TOPK})
#: Kinds taken as found rather than budgeted by the ratio (validation checks the ratio of the others).
UNBUDGETED: frozenset[str] = frozenset({TOPK})

#: Random subtypes: a reading drawn from inputs of the same class, or from any input.
CLASS = "class"
GLOBAL = "global"
#: Synthetic subtypes involving trivial readings: a token left unread (`<self>`), a `<self>` token spelled
#: out, a silent token voiced.
UNREAD = "unread"
SPELLED = "spelled"
VOICED = "voiced"
TRIVIAL_SUBTYPES: tuple[str, ...] = (UNREAD, SPELLED, VOICED)

#: `negative_type` values of DIR/pairs (sequence dual encoder) and DIR/vocab_pairs (vocabulary filter).
PAIR_NEGATIVE_TYPES: tuple[str, ...] = KINDS
VOCAB_NEGATIVE_TYPES: tuple[str, ...] = (CLASS, GLOBAL, TOPK, UNREAD)
#: Negative types each dual encoder kind trains on (its `--negatives` choices).
NEGATIVE_TYPES: dict[str, tuple[str, ...]] = {"sequence": PAIR_NEGATIVE_TYPES, "vocabulary": VOCAB_NEGATIVE_TYPES}
#: Columns of the summary tables: positives first, then each negative type.
PAIR_TYPES: tuple[str, ...] = (POSITIVE, *PAIR_NEGATIVE_TYPES)
VOCAB_TYPES: tuple[str, ...] = (POSITIVE, *VOCAB_NEGATIVE_TYPES)

