"""Retry safety of every step that writes (a Beam runner retries a failed bundle on the same elements):
each step run twice on the same element leaves the same files with the same bytes, deletes nothing a retry
reads, and leaves no temporary file — on the local disk and in a bucket (the session's GCS emulator)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.gcs_emulator import local_or_gs_root
from tnforge.filesystems import join, remove_temporaries, write_atomically
from tnforge.generators.sampling import make_plan
from tnforge.pipelines.build import _BuildFn, _ParseFn, cache_path
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.writer import _AssignShards, _WriteShard, remove_stale_shards
from tnforge.sources import name_inputs


@pytest.fixture(params=["local", "gs"])
def root(request, tmp_path: Path) -> str:
    return local_or_gs_root(request, tmp_path, "retries", "ds")


def snapshot(root: str) -> dict[str, bytes]:
    """Every file below root (hidden ones too), by relative name, with its bytes."""
    if root.startswith("gs://"):
        from tnforge.filesystems import matching_all, read_bytes

        return {path[len(root) + 1:]: read_bytes(path) for path in matching_all(f"{root}/**")}
    return {os.path.relpath(os.path.join(folder, name), root): Path(folder, name).read_bytes()
            for folder, _, names in os.walk(root) for name in names}


def twice(step, element) -> tuple[list, list]:
    return list(step(element)), list(step(element))


def test_every_build_write_step_twice_on_the_same_element_gives_the_same_files(root, bundled_tsv):
    config = BuildConfig(inputs=(str(bundled_tsv),), out=root, shards=1, split="hash")
    [source] = name_inputs([(str(bundled_tsv), bundled_tsv.stat().st_size)])

    # Pass 1: parse a file into its cache (a temporary name, then the final one).
    parse = _ParseFn(config, 1).process
    first, again = twice(parse, (0, source))
    after_parse = snapshot(root)
    assert list(after_parse) == [".tnforge-cache/000000.arrow"]
    assert [type(x).__name__ for x in first] == [type(x).__name__ for x in again]
    assert list(parse((0, source))) and snapshot(root) == after_parse

    # Pass 2 reads the cache and deletes nothing: a retried pass 2 reads it again.
    stats = next(x for x in first if type(x).__name__ == "FileStats")
    plan = make_plan(stats.train, config.sampling)
    build = _BuildFn(config, 1)
    tables, tables_again = (list(build.process((source, cache_path(root, 0)), plan)) for _ in range(2))
    assert [(k, t.num_rows) for k, t in _main(tables)] == [(k, t.num_rows) for k, t in _main(tables_again)]
    assert all(t.equals(u) for (_, t), (_, u) in zip(_main(tables), _main(tables_again), strict=True))
    assert snapshot(root) == after_parse

    # The writer: spill pieces to scratch (named by their keys), then write each shard from its pieces.
    layout = {"examples": 1, "sentences": 1, "positive_pairs": 1, "rejects": 1}
    assign = _AssignShards(layout, join(root, ".tnforge-cache", "pieces")).process
    halves = [(key, part) for key, table in _main(tables)  # two pieces per shard, as from two input files
              for part in (table.slice(0, table.num_rows // 2), table.slice(table.num_rows // 2))]
    spilled = [piece for element in halves for piece in assign(element)]
    assert spilled == [piece for element in halves for piece in assign(element)]
    after_spill = snapshot(root)
    by_shard: dict = {}
    for key, path in spilled:
        by_shard.setdefault(key, []).append(path)
    write = _WriteShard(root, layout).process
    reports = [twice(write, (key, paths)) for key, paths in sorted(by_shard.items())]
    assert all(a == b for a, b in reports)
    written = snapshot(root)
    assert {name: data for name, data in written.items() if name in after_spill} == after_spill  # inputs kept
    shards = sorted(name for name in written if name.endswith(".parquet"))
    assert shards and all(name.split("/")[-1].startswith("part-") for name in shards)
    for key, paths in sorted(by_shard.items()):  # a third attempt, pieces in another order: the same bytes
        list(write((key, list(reversed(paths)) + [None])))
    assert snapshot(root) == written

    # Removing stale shards (another shard count's) twice removes them once and nothing else.
    with write_atomically(join(root, "examples", "train", "part-00000-of-00005.parquet")) as handle:
        handle.write(b"stale")
    for _ in range(2):
        remove_stale_shards(root, "examples", "train", 1)
    assert snapshot(root) == written
    assert remove_temporaries(root) == [] and snapshot(root) == written


def _main(outputs: list) -> list:
    """The main output of a DoFn's process: ((dataset, split), table) elements, no tagged outputs."""
    return [x for x in outputs if isinstance(x, tuple)]


def test_an_interrupted_rename_leaves_a_temporary_that_is_removed_after_the_run(root):
    """A worker that dies between writing its temporary file and renaming it leaves `.tmp-…`; the retry writes
    the final name; the end of the run removes the leftover, and readers never see it."""
    from tnforge.datasets import dataset_files
    from tnforge.filesystems import write_bytes

    leftover = join(root, "examples", "train", ".tmp-0123456789ab-part-00000-of-00001.parquet")
    write_bytes(leftover, b"half")  # what the dead attempt left
    write_bytes(join(root, "examples", "train", "part-00000-of-00001.parquet"), b"PAR1")
    assert [str(p).rsplit("/", 1)[-1] for p in dataset_files(root, "examples", "train")] == ["part-00000-of-00001.parquet"]
    assert remove_temporaries(root) == [leftover]
    assert list(snapshot(root)) == [os.path.join("examples", "train", "part-00000-of-00001.parquet")
                                    if not root.startswith("gs://") else "examples/train/part-00000-of-00001.parquet"]
