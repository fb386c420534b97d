"""Dual encoders (Gokcen et al. 2019): hashed features, the two-tower network, training, scoring, pair metrics."""
