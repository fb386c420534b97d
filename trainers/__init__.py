"""PyTorch models, training, decoding and evaluation (never imports Beam)."""
