"""tnforge: a workbench for neural text normalization data and models.

    from tnforge import Normalizer          # the reading layer (`tnforge.reading`): raw text → spoken text
    from tnforge import InverseNormalizer   # and back: spoken words as ASR writes them → written text
"""

from typing import Any

from tnforge import library_noise as _library_noise

__version__ = "0.1.0"

_library_noise.install()  # before any library is imported: Beam warns about a client tnforge never uses

__all__ = ["InverseNormalizer", "Normalizer", "TokenReading", "UnguardedWarning", "__version__"]


def __getattr__(name: str) -> Any:
    """The public API, imported on first use (so `import tnforge` and `tnforge --help` stay instant)."""
    if name in ("InverseNormalizer", "Normalizer", "TokenReading", "UnguardedWarning"):
        from tnforge import reading

        return getattr(reading, name)
    raise AttributeError(f"module 'tnforge' has no attribute {name!r}")
