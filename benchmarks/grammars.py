"""Benchmark the covering grammars against the issue's targets, on the shared English sample and on tokens
the grammar has never seen.

Measures, pinned to one CPU core:
  * cold compile: tables → number FSTs → FAR in an empty cache (target ≤ 10 s);
  * warm load: a fresh process importing pynini and reading the FAR (target ≤ 0.5 s), and in-process;
  * coverage: share of gold readings licensed per class (target ≥ 99.5% in each number-bearing class), on
    the sample's first and second halves (both were studied while writing the grammars) and on the
    held-out file tests/data/kestrel_heldout_en.tsv (real gold readings the grammars were not written from);
  * rejection: share of meaning-changing corruptions of gold readings rejected (target ≥ 99.9%), of the
    sample's and of the fresh tokens' readings;
  * throughput: pair checks per CPU second starting from an empty token cache (target ≥ 50,000/s): gold
    pairs of every class, gold pairs of the number classes, corruptions, and above all *fresh* tokens:
    the sample's number-class tokens re-drawn (tnforge.grammars.redraw: new values, not in the sample, with
    gold-style readings), checked once each and with their corruptions (best of three runs; CPU time,
    because wall time on a shared machine mostly measures the neighbours).

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
HELD_OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "kestrel_heldout_en.tsv"


def halves(path: Path) -> tuple[list, list]:
    """(class, before, after, count) pairs of the first and the second half of a corpus's sentences (the
    first half takes the odd one)."""
    from collections import Counter

    from diverse_corpus import read_sentences

    sentences = read_sentences(path)
    middle = (len(sentences) + 1) // 2
    return tuple(  # type: ignore[return-value]
        [(c, b, a, n) for (c, b, a), n in sorted(Counter(t for s in part for t in s).items())]
        for part in (sentences[:middle], sentences[middle:]))


def fresh_pairs(grammar, pairs, rounds: int) -> list[tuple[str, str, str]]:
    """Number-class tokens re-drawn `rounds` times from the gold pairs: (before, after, cls), none of whose
    tokens occurs in `pairs`."""
    from tnforge.grammars.redraw import REDRAWN, Redrawer

    seen = {before for _, before, _, _ in pairs}
    redrawer = Redrawer(grammar)
    items = {}
    for round_ in range(rounds):
        for cls, before, after, _ in pairs:
            if cls in REDRAWN:
                new = redrawer.redraw(cls, before, after, "benchmark", round_)
                if new is not None and new[0] not in seen:
                    items[(new[0], new[1], cls)] = None
    return list(items)


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=SAMPLE, help="corpus TSV (CLASS, before, after)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--rounds", type=int, default=4, help="re-draws of each number-class token")
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
        fresh = fresh_pairs(Grammar(cache_dir=cache), pairs, args.rounds)
        fresh_bad = [(b, x, c) for b, a, c in fresh for _kind, x in corruptions(warm, a)]
        fresh_mixed = [item for b, a, c in fresh for item in
                       [(b, a, c)] + [(b, x, c) for _kind, x in corruptions(warm, a)]]

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
        fresh_verdicts, figures["checks_per_s_fresh_pairs"], _ = throughput(fresh)
        _, figures["checks_per_s_fresh_with_corruptions"], _ = throughput(fresh_mixed)
        bad_verdicts, _, _ = throughput(fresh_bad, runs=1)
        figures["distinct_pairs"] = len(items)
        figures["distinct_number_pairs"] = len(number_items)
        figures["fresh_pairs"] = len(fresh)
        figures["fresh_pairs_licensed"] = sum(fresh_verdicts) / max(len(fresh), 1)
        figures["corruptions"] = len(bad)
        figures["corruptions_rejected"] = 1 - sum(verdicts) / max(len(verdicts), 1)
        figures["fresh_corruptions"] = len(fresh_bad)
        figures["fresh_corruptions_rejected"] = 1 - sum(bad_verdicts) / max(len(bad_verdicts), 1)

        def table(rows):
            result = measure_coverage(rows, Grammar(cache_dir=cache))
            return {cls: {"share": s.share, "licensed": s.licensed, "total": s.total,
                          "mean_readings": s.mean_readings, "misses": s.misses[:10]}
                    for cls, s in sorted(result.items())}

        first, second = halves(args.corpus)
        figures["coverage"] = table(pairs)
        figures["coverage_first_half"] = table(first)
        figures["coverage_second_half"] = table(second)
        if HELD_OUT.exists():
            figures["coverage_held_out"] = table(read_corpus_pairs(HELD_OUT))

    print(f"{'cold compile (s)':<36}{figures['cold_compile_s']:>12.3f}   target ≤ 10")
    print(f"{'warm load, fresh process (s)':<36}{figures['warm_load_fresh_process_s']:>12.3f}   target ≤ 0.5")
    print(f"{'warm load, fresh process (CPU s)':<36}{figures['warm_load_fresh_process_cpu_s']:>12.3f}")
    print(f"{'warm load, in process (s)':<36}{figures['warm_load_in_process_s']:>12.3f}")
    for name in ("all_pairs", "number_pairs", "corruptions", "fresh_pairs", "fresh_with_corruptions"):
        print(f"{'checks/s, ' + name.replace('_', ' '):<36}{figures['checks_per_s_' + name]:>12,.0f}   target ≥ 50,000")
    print(f"{'fresh tokens (pairs)':<36}{len(fresh):>12,}   licensed {figures['fresh_pairs_licensed']:.2%}")
    print(f"{'corruptions rejected':<36}{figures['corruptions_rejected']:>12.4%}   of {len(bad):,}; target ≥ 99.9%")
    print(f"{'fresh corruptions rejected':<36}{figures['fresh_corruptions_rejected']:>12.4%}   of {len(fresh_bad):,}")
    names = [n for n in ("coverage", "coverage_first_half", "coverage_second_half", "coverage_held_out")
             if n in figures]
    print(f"{'class':<12}" + "".join(f"{n.replace('coverage', 'all').replace('_', ' ').strip():>22}" for n in names))
    for cls in sorted(figures["coverage"]):  # type: ignore[arg-type]
        cells = []
        for name in names:
            row = figures[name].get(cls)  # type: ignore[union-attr]
            cells.append(f"{row['licensed']:>7,}/{row['total']:<6,}{row['share']:>8.2%}" if row else f"{'':>22}")
        mark = "  (number class)" if cls in NUMBER_CLASSES else ""
        print(f"{cls:<12}" + "".join(f"{c:>22}" for c in cells) + mark)
    for cls, row in figures.get("coverage_held_out", {}).items():  # type: ignore[union-attr]
        for before, after, _count in row["misses"]:
            print(f"held-out miss {cls}\t{before}\t{after}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
