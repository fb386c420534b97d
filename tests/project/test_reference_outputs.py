"""Refactors keep the bytes: builds of fixed inputs give the files recorded in tests/data/reference_*.json.

The references were recorded with the layout they name. File bytes are compared when this pyarrow is the
one that wrote them (Parquet files carry the writer's version); otherwise the decoded contents are.
A deliberate change of outputs re-records them with `python -m tests.project.test_reference_outputs` (from the repository root).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.paths import SHARED_DATA, TEST_DATA
from tnforge.cli import cli

DATA = TEST_DATA
#: reference name → build arguments (None: the bundled sample; else a file of ../shared/data).
BUILDS: dict[str, tuple[str | None, list[str]]] = {
    "sample": (None, ["--negatives", "synthetic,random", "--ratio", "10"]),
    "en_sample": ("en_sample.tsv", ["--shards", "3", "--negatives", "synthetic,random", "--ratio", "3"]),
}


def content_hash(path: Path) -> str:
    """sha256 of a Parquet file's decoded rows and schema (metadata left out)."""
    table = pq.read_table(path).replace_schema_metadata(None)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def hashes(root: Path) -> dict:
    """{relative path: {bytes, content}} of every Parquet file under a dataset directory."""
    return {f.relative_to(root).as_posix(): {"bytes": hashlib.sha256(f.read_bytes()).hexdigest(),
                                             "content": content_hash(f)}
            for f in sorted(root.rglob("*.parquet"))}


def build(name: str, out: Path, shared: Path) -> Path:
    source, options = BUILDS[name]
    inputs = [] if source is None else [str(shared / source)]
    cli.main(args=["build", *inputs, "--out", str(out), *options], prog_name="tnforge", standalone_mode=False)
    return out


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_build_outputs_match_the_reference(name, tmp_path):
    source = BUILDS[name][0]
    if source is not None and not (SHARED_DATA / source).exists():
        pytest.skip(f"needs ../shared/data/{source} (the shared sample beside the checkout)")
    reference = json.loads((DATA / f"reference_{name}.json").read_text(encoding="utf-8"))
    found = hashes(build(name, tmp_path / name, SHARED_DATA))
    assert sorted(found) == sorted(reference["files"])
    field = "bytes" if reference["pyarrow"] == pa.__version__ else "content"
    changed = [path for path in found if found[path][field] != reference["files"][path][field]]
    assert not changed, f"{field} differ from the reference: {changed}"


if __name__ == "__main__":  # re-record the references after a deliberate change of outputs
    import tempfile

    for reference in sorted(BUILDS):
        with tempfile.TemporaryDirectory() as tmp:
            record = {"pyarrow": pa.__version__, "files": hashes(build(reference, Path(tmp) / reference, SHARED_DATA))}
        path = DATA / f"reference_{reference}.json"
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"recorded {path}")
