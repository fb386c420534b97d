"""Sampling, negatives and synthetic data."""
