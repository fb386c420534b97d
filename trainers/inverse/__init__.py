"""The inverse family: a window seq2seq over spoken words that scores written forms (inverse text normalization)."""
