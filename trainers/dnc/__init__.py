"""The memory-augmented seq2seq family: a differentiable neural computer that reads characters and writes words."""
