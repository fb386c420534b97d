"""tnforge/filesystems.py, the one module that touches dataset paths: the same answers on the local disk and
in a bucket (the session's GCS emulator), malformed URIs refused in one line."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.gcs_emulator import local_or_gs_root
from tnforge import filesystems as fs


@pytest.fixture(params=["local", "gs"])
def root(request, tmp_path: Path) -> str:
    return local_or_gs_root(request, tmp_path, "filesystems", "root")


def test_listing_existence_and_atomic_writes(root):
    assert not fs.exists(root) and not fs.is_folder(root) and not fs.has_contents(root)
    assert fs.list_files(root) == [] and fs.matching(fs.join(root, "*")) == []
    fs.write_text(fs.join(root, "a", "one.txt"), "één")
    fs.write_bytes(fs.join(root, "a", "b", "two.parquet"), b"PAR1")
    fs.write_bytes(fs.join(root, "a", ".tmp-0123-three.parquet"), b"left by a dead worker")
    fs.write_bytes(fs.join(root, ".scratch", "four.parquet"), b"PAR1")
    assert fs.is_folder(root) and fs.has_contents(root) and fs.exists(fs.join(root, "a"))
    assert fs.is_file(fs.join(root, "a", "one.txt")) and not fs.is_file(fs.join(root, "a"))
    assert not fs.exists(fs.join(root, "a", "none.txt"))
    assert [fs.name_of(p) for p in fs.list_files(fs.join(root, "a"))] == ["one.txt"]  # hidden and sub-folders out
    assert [fs.name_of(p) for p in fs.list_files(root, "*.parquet", recursive=True)] == ["two.parquet"]
    assert fs.read_bytes(fs.join(root, "a", "one.txt")).decode("utf-8") == "één"
    assert [fs.name_of(p) for p in fs.remove_temporaries(root)] == [".tmp-0123-three.parquet"]
    fs.remove(fs.join(root, "a"))
    fs.remove(fs.join(root, ".scratch"))
    assert not fs.has_contents(root) and not fs.exists(fs.join(root, "a"))
    fs.remove(fs.join(root, "a"))  # a missing path is no error


def test_parquet_reads_and_text_files(root):
    table = pa.table({"key": pa.array(range(1000), pa.uint64()), "text": [f"row {i}" for i in range(1000)]})
    with fs.write_atomically(fs.join(root, "t.parquet")) as handle:
        pq.write_table(table, handle, row_group_size=100)
    assert fs.read_parquet(fs.join(root, "t.parquet")).equals(table)
    assert fs.read_parquet(fs.join(root, "t.parquet"), columns=["text"]).column_names == ["text"]
    parquet = fs.parquet_file(fs.join(root, "t.parquet"))
    assert parquet.metadata.num_row_groups == 10
    assert sum(b.num_rows for b in parquet.iter_batches(batch_size=64, columns=["key"])) == 1000
    written = fs.write_text_files(fs.join(root, "report"), {"r.md": "# r\n", "r.json": "{}\n"})
    assert [fs.name_of(p) for p in written] == ["r.md", "r.json"]
    assert all(isinstance(p, Path) for p in written) == (not fs.is_remote(root))
    assert fs.read_bytes(fs.join(root, "report", "r.md")) == b"# r\n"


@pytest.mark.parametrize(("path", "reason"), [
    ("gs://", "no bucket name"), ("gs:///a", "no bucket name"), ("gs://a/b", "'a' is not a valid bucket name"),
    ("gs:/bucket/a", "not a valid URI (a slash is missing: gs://…)"),
    ("nosuch://bucket/a", "no filesystem serves nosuch:// (is its apache-beam extra installed?)")])
def test_malformed_paths_are_one_line(path, reason):
    with pytest.raises(fs.PathError) as error:
        fs.check_path(path)
    assert str(error.value) == f"{path}: {reason}"
    assert fs.check_path("gs://bucket.name-1/a") == "gs://bucket.name-1/a"
    assert fs.check_path("relative/c:/x") == "relative/c:/x"


def test_a_missing_bucket_is_one_line(gcs):
    with pytest.raises(fs.PathError, match=r"^gs://no-such-bucket/x: cannot list \(not found: does the bucket exist\?\)$"):
        fs.list_files("gs://no-such-bucket/x")


def test_a_failed_rename_leaves_no_temporary_file(tmp_path) -> None:
    from tnforge.filesystems import write_atomically

    target = tmp_path / "taken"
    target.mkdir()
    (target / "inside").write_text("x")  # a non-empty folder: the final rename must fail
    with pytest.raises(OSError), write_atomically(str(target)) as handle:
        handle.write(b"data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_parquet_files_look_in_a_folder_and_its_sub_folders_only(tmp_path) -> None:
    """A folder of Parquet files (or of split folders of them) is read; a deeper tree is never walked."""
    from tnforge.filesystems import parquet_files

    for relative in ("a.parquet", "train/b.parquet", "x/y/deep.parquet", ".hidden.parquet", "notes.txt"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(b"")
    assert parquet_files(tmp_path) == [str(tmp_path / "a.parquet"), str(tmp_path / "train" / "b.parquet")]
    assert parquet_files(tmp_path / "x") == [str(tmp_path / "x" / "y" / "deep.parquet")]  # from x: a sub-folder


def test_a_file_that_is_not_parquet_is_named(tmp_path) -> None:
    from tnforge.filesystems import NotParquet, parquet_file, read_parquet

    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not Parquet at all\n")
    for read in (parquet_file, read_parquet):
        with pytest.raises(NotParquet, match=f"^{junk}: not a Parquet file \\(Parquet magic bytes not found"):
            read(junk)
    pq.write_table(pa.table({"x": [1]}), tmp_path / "one.parquet")
    with pytest.raises(pa.ArrowInvalid, match="No match for FieldRef"):  # a Parquet file without the column
        read_parquet(tmp_path / "one.parquet", columns=["tokens"])
