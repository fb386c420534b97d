"""Synthetic negatives: edits of the positive reading (meaning-changing substitutions, suffix confusions,
generic edits; trivial confusions). Vectorised in `input_negatives` (`_synthetic`) on streams 0..4."""

from tnforge.generators.edit_arrays import GENERIC_LABELS, MEANING_LABELS
from tnforge.generators.negatives import register_generator
from tnforge.schemas.negative_kinds import SYNTHETIC, TRIVIAL_SUBTYPES

register_generator(SYNTHETIC, subtypes=(*MEANING_LABELS, "suffix", *GENERIC_LABELS, *TRIVIAL_SUBTYPES),
                   default=True, streams=(0, 1, 2, 3, 4))
