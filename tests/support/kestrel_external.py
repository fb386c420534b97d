"""Real Kestrel readings the grammars were not written from: loading and the stable studied / held-out split
(docs/guides/grammars.md). Every file's source and licence: tests/data/README.md."""

from __future__ import annotations

from pathlib import Path

from tests.support.paths import TEST_DATA
from tnforge.gold_pairs import read_corpus_pairs
from tnforge.hashing import stable_hash64, unit_interval

DATA = TEST_DATA
EXTERNAL = DATA / "kestrel_external_en.tsv"
FRESH = DATA / "kestrel_fresh_en.tsv"  # round 2: sentences 4829-5164
ROUND4 = DATA / "kestrel_round4_en.tsv"  # rounds 4-5: sentences 5229-6977 (rare classes), then the rest
ROUND7 = DATA / "kestrel_round7_en.tsv"  # round 7: docstring examples of a normalizer (indicative)
SPLIT_SEED = 15  # issue #15; fixed before any row was looked at
#: Every file of real tokens (class, written form, reading).
TOKEN_FILES = (DATA / "kestrel_heldout_en.tsv", EXTERNAL, FRESH, ROUND4, ROUND7)


def split_of(*key: str) -> str:
    """'studied' or 'held-out' by a stable hash of the row (half each, fixed seed)."""
    return "studied" if unit_interval(stable_hash64(*key, seed=SPLIT_SEED)) < 0.5 else "held-out"


def real_tokens() -> list[tuple[str, str, str]]:
    """(class, written form, reading) of the rows of every token file, each (class, written form) once."""
    rows: dict[tuple[str, str], str] = {}
    for path in TOKEN_FILES:
        for cls, before, after, _ in read_corpus_pairs(path):
            rows.setdefault((cls, before.strip()), after)
    return [(cls, written, reading) for (cls, written), reading in rows.items()]


def external_pairs(part: str | None = None, path: Path = EXTERNAL) -> list[tuple[str, str, str, int]]:
    """The full-token rows of kestrel_external_en.tsv (or of ``path``: all, or one part of the split)."""
    return [p for p in read_corpus_pairs(path) if part is None or split_of(*p[:3]) == part]


def fresh_pairs(part: str | None = None) -> list[tuple[str, str, str, int]]:
    """The rows of kestrel_fresh_en.tsv (round 2), split like the other token file."""
    return external_pairs(part, FRESH)


def round4_pairs(part: str | None = None) -> list[tuple[str, str, str, int]]:
    """The rows of kestrel_round4_en.tsv (rounds 4-5), split like the other token files."""
    return external_pairs(part, ROUND4)


def round7_pairs(part: str | None = None) -> list[tuple[str, str, str, int]]:
    """The rows of kestrel_round7_en.tsv (round 7: a normalizer's docstring examples, classes ours), split alike."""
    return external_pairs(part, ROUND7)


def round4_batches(path: Path = ROUND4) -> list[list[tuple[str, str, str]]]:
    """The (class, before, after) rows of kestrel_round4_en.tsv (or of ``path``) per batch, in file order (split at
    `# batch` lines; rows before the first one form batch 0)."""
    batches: list[list[tuple[str, str, str]]] = [[]]
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# batch "):
            batches.append([])
        elif line and not line.startswith("#"):
            cls, before, after = line.split("\t")
            batches[-1].append((cls, before, after))
    return batches


def report() -> list[str]:
    """Coverage per file, part and class of the token files, with the misses of the studied parts and of the test-file
    tokens (a fresh grammar, default cache); the fresh file's held-out misses are not printed."""
    from tnforge.grammars.coverage import measure_coverage
    from tnforge.grammars.grammar import Grammar

    grammar = Grammar()
    lines = []
    for name, pairs in (("tokens", external_pairs), ("fresh", fresh_pairs), ("round4", round4_pairs),
                        ("round7", round7_pairs)):
        for part in ("studied", "held-out"):
            for cls, stats in sorted(measure_coverage(pairs(part), grammar).items()):
                lines.append(f"{name:<7} {part:<11} {cls:<10} {stats.licensed:>4}/{stats.total:<4} {stats.share:.1%}")
                if part == "studied" or name == "tokens":
                    lines += [f"MISS    {name} {part} {cls} {m}" for m in stats.misses]
    return lines


if __name__ == "__main__":  # python -m tests.support.kestrel_external (from the repository root)
    print("\n".join(report()))
