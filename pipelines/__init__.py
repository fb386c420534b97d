"""Beam pipelines and transforms."""
