"""The reading layer: raw text → spoken text with a trained normalizer, as a library.

    from tnforge import Normalizer

    normalizer = Normalizer.load("runs/normalizer")
    normalizer.normalize("It costs $3.50.")          # 'It costs three dollars and fifty cents'
    normalizer.explain("It costs $3.50.")            # each token: span, class, probability, reading, route

`Normalizer` (`reading.normalizer`) loads an assembled normalizer (or a model run with a tagger), attaches the
covering grammar itself and reads text; `reading.streams` reads files and pipes with it; `reading.lexicon`
holds run-time written → reading overrides; `reading.card` writes the model card beside a saved normalizer.
`InverseNormalizer` (`reading.inverse_normalizer`) goes the other way — spoken words as ASR writes them →
written text — by the grammar route (`reading.inverse_conventions`, `reading.inverse_route`).
The CLI (`normalize`, `decode --raw`, `evaluate --raw`, `normalizer assemble`) and the benchmarks call this
layer; none wires a reader of its own.
"""

from tnforge.reading.explanation import TokenReading
from tnforge.reading.inverse_normalizer import InverseNormalizer
from tnforge.reading.normalizer import Normalizer, UnguardedWarning

__all__ = ["InverseNormalizer", "Normalizer", "TokenReading", "UnguardedWarning"]
