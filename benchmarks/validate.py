"""Benchmark: validate the examples of a 10M-token-sized build (target ≤ 30 s).

A 10M-token build yields about 1.8M example rows. This script builds the sample corpus (or reuses a built
directory), replicates its examples with fresh keys up to the wanted row count (keeping every share and
count ratio, so a good build stays good), scales the manifest to match, and times
`validate_directory(..., only=["examples", "manifest"])`.

  python benchmarks/validate.py                       # build the sample, 1.8M rows
  python benchmarks/validate.py --source out/sample --rows 3600000 --shards 16
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from tnforge import datasets, schemas
from tnforge.hashing import mix64
from tnforge.manifest import read_manifest, write_manifest

SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "en_sample.tsv"


def replicate_examples(source: Path, target: Path, rows: int, shards: int) -> int:
    """Write source's examples `factor` times with fresh keys and sentence ids; returns the factor."""
    table = datasets.read_dataset(source, "examples")
    factor = max(1, math.ceil(rows / table.num_rows))
    keys = table.column("key").to_numpy()
    sentence_ids = table.column("sentence_id").to_numpy()
    span = int(sentence_ids.max()) + 1
    for split in schemas.SPLITS:
        mask = (table.column("split").to_numpy(zero_copy_only=False) == split)
        part = table.filter(pa.array(mask))
        copies = []
        for replica in range(factor):
            fresh = mix64(keys[mask] ^ np.uint64(replica * 0x9E3779B97F4A7C15 % 2**64)) if replica else keys[mask]
            copy = part.set_column(part.schema.get_field_index("key"), "key", pa.array(fresh, pa.uint64()))
            copy = copy.set_column(copy.schema.get_field_index("sentence_id"), "sentence_id",
                                   pa.array(sentence_ids[mask] + replica * span, pa.int64()))
            copies.append(copy)
        datasets.write_sharded(pa.concat_tables(copies), datasets.dataset_path(target, "examples", split),
                               schemas.EXAMPLES, shards)
    return factor


def scaled_manifest(source: Path, target: Path, factor: int) -> None:
    """The source manifest with every count the validation checks multiplied by the replication factor."""
    manifest = read_manifest(source)
    for stats in manifest["splits"].values():
        for section in ("tokens", "examples"):
            stats[section] = {cls: n * factor for cls, n in stats[section].items()}
        for key in ("trivial_tokens", "trivial_examples", "copies", "sampled_out"):
            if key in stats:
                stats[key] *= factor
    for key in ("input_records", "kept", "sampled_out", "excluded", "rejected", "copies_added"):
        manifest["accounting"][key] *= factor
    manifest["datasets"] = {"examples": {s: n * factor for s, n in manifest["datasets"]["examples"].items()}}
    manifest.pop("rejects_by_reason", None)
    write_manifest(target, manifest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, help="a built dataset directory (default: build the sample)")
    parser.add_argument("--rows", type=int, default=1_800_000, help="example rows to validate")
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--work", type=Path, help="scratch directory (default: a temporary one)")
    parser.add_argument("--docs", action="store_true", help="also render the Data Docs")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="tnforge-validate-bench-"))
    source = args.source
    if source is None:
        source = work / "sample"
        command = shutil.which("tnforge") or str(Path(sys.executable).parent / "tnforge")
        subprocess.run([command, "build", str(SAMPLE), "--out", str(source)], check=True, capture_output=True)
    big = work / "big"
    shutil.rmtree(big, ignore_errors=True)
    big.mkdir(parents=True)
    clock = time.perf_counter()
    factor = replicate_examples(source, big, args.rows, args.shards)
    scaled_manifest(source, big, factor)
    print(f"wrote {factor} replicas of {source}'s examples in {time.perf_counter() - clock:.1f} s", file=sys.stderr)

    clock = time.perf_counter()
    import great_expectations  # noqa: F401  (timed apart: paid once per process)

    from tnforge.validation import validate_directory

    imported = time.perf_counter() - clock
    report = validate_directory(big, only=["examples", "manifest"], render_docs=args.docs)
    rows = report.results["examples"].rows
    print(report.format_table())
    print(f"\nexample rows: {rows:,}  files: {len(datasets.dataset_files(big, 'examples'))}")
    print(f"import great_expectations: {imported:.1f} s")
    for name, seconds in report.timings.items():
        print(f"  {name:<10} {seconds:6.1f} s")
    print(f"validate_directory total: {report.seconds:.1f} s  (target ≤ 30 s)  success={report.success}")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
