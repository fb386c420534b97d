"""tnforge: a workbench for neural text normalization data and models."""

from tnforge import library_noise as _library_noise

__version__ = "0.1.0"

_library_noise.install()  # before any library is imported: Beam warns about a client tnforge never uses
