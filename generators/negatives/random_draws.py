"""Random negatives: readings of other inputs, drawn within the class then from all (salts 0xC1A55,
0x610BA1). Vectorised in `input_negatives` (`_random`) on streams 5 and 6."""

from tnforge.generators.negatives import register_generator
from tnforge.schemas.negative_kinds import CLASS, GLOBAL, RANDOM

register_generator(RANDOM, subtypes=(CLASS, GLOBAL), default=True, streams=(5, 6))
