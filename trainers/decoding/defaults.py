"""Decoding defaults, one place: every decoding function and the decoding commands' options read them."""

#: Beam width.
BEAM = 5
#: Inputs decoded together.
BATCH_SIZE = 256
#: Distinct hypotheses kept per input when writing hypotheses files.
TOP_K = 10
#: Tagger probability at or above which a token tagged PLAIN or PUNCT is read as written (no seq2seq).
THRESHOLD = 0.9
#: Calibrated tagger probability at which a token's most probable class is taken alone; below it the token is
#: read within the union of its likely classes (the fewest most probable classes holding this much).
CONFIDENCE = 0.99
