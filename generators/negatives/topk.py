"""Top-k negatives: a trained model's wrong hypotheses (`generators.topk`), read from `--topk-from`, taken
as found (not budgeted by the ratio) before any other candidate (`input_negatives._collect`)."""

from tnforge.generators.negatives import HYPOTHESES, register_generator
from tnforge.schemas.negative_kinds import TOPK

register_generator(TOPK, subtypes=(), needs=(HYPOTHESES,), budgeted=False)
