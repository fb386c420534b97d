"""Decoding a seq2seq model: batched beam search, its constraint hooks, the constraints, decoding files and text."""
