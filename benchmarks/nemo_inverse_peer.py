"""Run NeMo-text-processing's `InverseNormalizer` (a peer, never a dependency) over spoken sentences, one a line, in
its own virtual environment: `VENV/bin/python benchmarks/nemo_inverse_peer.py IN OUT CACHE` writes one written
sentence a line to OUT and the seconds spent (after loading) on its last line's stderr."""

from __future__ import annotations

import sys
import time


def main() -> None:
    source, out, cache = sys.argv[1:4]
    from nemo_text_processing.inverse_text_normalization.inverse_normalize import InverseNormalizer

    inverse = InverseNormalizer(lang="en", cache_dir=cache)
    lines = open(source, encoding="utf-8").read().splitlines()
    started = time.perf_counter()
    written = [inverse.inverse_normalize(line, verbose=False) if line else "" for line in lines]
    seconds = time.perf_counter() - started
    with open(out, "w", encoding="utf-8") as handle:
        handle.writelines(text + "\n" for text in written)
    print(f"seconds {seconds:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
