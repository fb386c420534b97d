"""The names of the built-in negative kinds and the types pairs carry (the contract trainers read).

Which generators exist, their defaults and the inputs they need are registrations in `generators/negatives/`
(one module each, plug-ins too); this module only names the built-in kinds and the subtypes pairs carry.
"""

from __future__ import annotations

#: The label of a positive pair in summaries (its `negative_type` column is empty).
POSITIVE = "positive"

SYNTHETIC = "synthetic"  # edits of the positive reading (generators.edit_arrays: meaning, generic and suffix edits; trivial confusions)
RANDOM = "random"  # readings of other inputs (generators.candidate_arrays.draw_grid)
TOPK = "topk"  # wrong hypotheses of a trained model (generators.topk)

#: The built-in kinds, in order (the `negative_type` of their DIR/pairs rows); plug-ins may add others
#: (`generators.negatives.kinds()` lists them all).
KINDS: tuple[str, ...] = (SYNTHETIC, RANDOM, TOPK)

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

