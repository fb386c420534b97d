"""tnforge: a workbench for neural text normalization data and models."""

__version__ = "0.1.0"
