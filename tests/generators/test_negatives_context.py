"""The context's array-built tables equal those of the plain per-row definition (the oracle below: every
(suffix, entry) in a list per suffix, the SUFFIX_ENTRIES smallest kept; readings and `str.split()` words in
sets per class), on the shared sample and on readings with odd whitespace and non-ASCII text."""

from __future__ import annotations

import heapq
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pytest

from tnforge import datasets
from tnforge.generators.negative_context import SUFFIX_ENTRIES, SUFFIX_MAX, build_context
from tnforge.hashing import combine64


def reference_tables(table: pa.Table, seed: int) -> tuple[dict, dict, dict]:
    """suffix table, class → readings, class → words of one split's positives, row by row."""
    pair_hashes = combine64(seed, table.column("key").to_numpy().astype(np.uint64)).tolist()
    entries: dict[str, list] = defaultdict(list)
    readings: dict[str, set] = defaultdict(set)
    words: dict[str, set] = defaultdict(set)
    columns = [table.column(c).to_pylist() for c in ("class", "before", "after")]
    for cls, before, after, pair_hash in zip(*columns, pair_hashes, strict=True):
        readings[cls].add(after)
        words[cls].update(after.split())
        for length in range(1, min(len(before), SUFFIX_MAX) + 1):
            entries[before[-length:]].append((pair_hash, before, after))
    suffixes = {suffix: tuple((b, a) for _, b, a in heapq.nsmallest(SUFFIX_ENTRIES, found))
                for suffix, found in entries.items() if len({b for _, b, _ in found}) > 1}
    return suffixes, readings, words


@pytest.fixture(scope="module")
def shared_tsv_build(tmp_path_factory, shared_tsv):
    from click.testing import CliRunner

    from tnforge.cli import cli

    out = tmp_path_factory.mktemp("context") / "built"
    result = CliRunner().invoke(cli, ["build", str(shared_tsv), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _odd_table() -> pa.Table:
    befores = ["ab", "cb", "b", "héllo", "jello", "€5", "5", "x", "y", "12", "112", "", "Straße", "Maße", "ab"]
    afters = ["a  b", " lead", "trail ", "", "e\u00a0f", "five\x1cfive", "f\tg\nh", "ü ö", "\u2003x y",
              "twelve", "one twelve", "", "s t", "m", "a b"]
    n = len(befores)
    return pa.table({"key": pa.array([(i * 7919) % 1009 for i in range(n)], pa.uint64()), "split": ["train"] * n,
                     "class": ["PLAIN", "PLAIN", "LETTERS", "PLAIN", "PLAIN", "MONEY", "CARDINAL", "PLAIN",
                               "PLAIN", "CARDINAL", "CARDINAL", "PUNCT", "PLAIN", "PLAIN", "VERBATIM"],
                     "before": befores, "after": afters})


@pytest.mark.parametrize("seed", [0, 3])
def test_context_tables_equal_the_row_by_row_definition(shared_tsv_build, seed):
    positives = datasets.read_dataset(shared_tsv_build, "positive_pairs",
                                      columns=["key", "split", "class", "before", "after"])
    for table in (positives, _odd_table()):
        contexts = build_context([table], seed)
        for split, context in contexts.items():
            part = table.filter(pa.compute.equal(table.column("split"), split))
            part = part.sort_by([("key", "ascending")])
            suffixes, readings, words = reference_tables(part, seed)
            assert context.suffix_table == suffixes and list(context.suffix_table) == list(suffixes)
            assert context.suffix_table  # suffixes shared by several inputs exist
            for cls, found in readings.items():
                assert set(context.class_pools[cls]) <= found and len(context.class_pools[cls]) == min(len(found), 8192)
            for cls, found in words.items():
                assert set(context.class_vocab[cls]) == found or len(found) > 50_000  # every class has its key
    odd = build_context([_odd_table()], 0)["train"]
    assert "" not in odd.global_vocab and "five\x1cfive" not in odd.global_vocab and "five" in odd.global_vocab
    assert {"e", "f", "ü", "ö", "x", "y"} <= set(odd.global_vocab)  # non-breaking and em spaces split too
