"""Benchmark the covering grammars against the issue's targets, on the shared English sample.

Measures, pinned to one CPU core:
  * cold compile: tables → number FSTs → FAR in an empty cache (target ≤ 10 s);
  * warm load: a fresh process importing pynini and reading the FAR (target ≤ 0.5 s), and in-process;
  * coverage: share of gold readings licensed per class (target ≥ 99.5% in each number-bearing class);
  * rejection: share of meaning-changing corruptions of gold readings rejected (target ≥ 99.9%);
  * throughput: pair checks per CPU second on the deduplicated corpus, starting from an empty token cache
    (target ≥ 50,000/s): gold pairs of every class, gold pairs of the number classes, and corruptions
    (best of three runs; CPU time, because wall time on a shared machine mostly measures the neighbours).

    python benchmarks/grammars.py                 # prints a table
    python benchmarks/grammars.py --json out.json # also writes the figures
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "en_sample.tsv"


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=SAMPLE, help="corpus TSV (CLASS, before, after)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    import pynini

    from tnforge.gold_pairs import read_corpus_pairs
    from tnforge.grammars import lattice as lattice_module
    from tnforge.grammars.corruptions import corruptions
    from tnforge.grammars.coverage import NUMBER_CLASSES, measure_coverage
    from tnforge.grammars.grammar import Grammar

    figures: dict[str, object] = {"pynini": pynini.__version__}
    with tempfile.TemporaryDirectory() as cache:
        cold, figures["cold_compile_s"] = timed(lambda: Grammar(cache_dir=cache))
        assert not cold.from_cache
        warm, figures["warm_load_in_process_s"] = timed(lambda: Grammar(cache_dir=cache))
        assert warm.from_cache
        code = (
            "import time; t, c = time.perf_counter(), time.process_time(); "
            "from tnforge.grammars.grammar import Grammar; "
            f"g = Grammar(cache_dir={cache!r}); assert g.from_cache; "
            "print(time.perf_counter() - t, time.process_time() - c)"
        )
        runs = [tuple(map(float, subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                                text=True).stdout.split())) for _ in range(3)]
        figures["warm_load_fresh_process_s"] = min(wall for wall, _ in runs)
        figures["warm_load_fresh_process_cpu_s"] = min(cpu for _, cpu in runs)

        pairs = read_corpus_pairs(args.corpus)
        number_pairs = [p for p in pairs if p[0] in NUMBER_CLASSES]
        items = [(b, a, c) for c, b, a, _ in pairs]
        number_items = [(b, a, c) for c, b, a, _ in number_pairs]
        bad = [(b, x, c) for c, b, a, _ in number_pairs for _kind, x in corruptions(warm, a)]

        def throughput(batch, runs: int = 3):
            """Best of `runs`, each on a fresh grammar (warm FAR, empty token cache), in CPU seconds."""
            best = float("inf")
            for _ in range(runs):
                fresh = Grammar(cache_dir=cache)
                lattice_module._SPLIT.clear()
                started = time.process_time()
                verdicts = fresh.licenses_batch(batch)
                best = min(best, time.process_time() - started)
            return verdicts, len(batch) / best, best

        _, figures["checks_per_s_all_pairs"], _ = throughput(items)
        _, figures["checks_per_s_number_pairs"], _ = throughput(number_items)
        verdicts, figures["checks_per_s_corruptions"], _ = throughput(bad)
        figures["distinct_pairs"] = len(items)
        figures["distinct_number_pairs"] = len(number_items)
        figures["corruptions"] = len(bad)
        figures["corruptions_rejected"] = 1 - sum(verdicts) / max(len(verdicts), 1)

        coverage = measure_coverage(pairs, Grammar(cache_dir=cache))
        figures["coverage"] = {
            cls: {"share": s.share, "licensed": s.licensed, "total": s.total, "mean_readings": s.mean_readings}
            for cls, s in sorted(coverage.items())
        }

    print(f"{'cold compile (s)':<36}{figures['cold_compile_s']:>12.3f}   target ≤ 10")
    print(f"{'warm load, fresh process (s)':<36}{figures['warm_load_fresh_process_s']:>12.3f}   target ≤ 0.5")
    print(f"{'warm load, fresh process (CPU s)':<36}{figures['warm_load_fresh_process_cpu_s']:>12.3f}")
    print(f"{'warm load, in process (s)':<36}{figures['warm_load_in_process_s']:>12.3f}")
    for name in ("all_pairs", "number_pairs", "corruptions"):
        print(f"{'checks/s, ' + name.replace('_', ' '):<36}{figures['checks_per_s_' + name]:>12,.0f}   target ≥ 50,000")
    print(f"{'corruptions rejected':<36}{figures['corruptions_rejected']:>12.4%}   of {len(bad):,}; target ≥ 99.9%")
    print(f"{'class':<12}{'licensed':>10}{'total':>8}{'share':>10}{'readings/token':>16}")
    for cls, row in figures["coverage"].items():  # type: ignore[union-attr]
        mark = "  (number class)" if cls in NUMBER_CLASSES else ""
        print(f"{cls:<12}{row['licensed']:>10,}{row['total']:>8,}{row['share']:>10.2%}{row['mean_readings']:>16.1f}{mark}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
