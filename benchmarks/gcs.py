"""Benchmark: a build and a full read of its examples, on the local disk and on gs:// (a GCS API emulator on
a loopback port, `gcp-storage-emulator` from the test extra), with the same corpus and options.

The emulator is no model of Cloud Storage's latency or throughput; the figures show what tnforge's own
remote path costs (temporary name + copy per file, listings, ranged Parquet reads) against local files.

    python benchmarks/gcs.py                                  # the shared sample (../shared/data/en_sample.tsv)
    python benchmarks/gcs.py --input tnforge/data/sample.tsv
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(label: str, action) -> float:
    start = time.monotonic()
    action()
    seconds = time.monotonic() - start
    print(f"{label:<44} {seconds:7.2f} s")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=str(ROOT.parent / "shared" / "data" / "en_sample.tsv"))
    parser.add_argument("--shards", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # the tests package (tests/support)
    from tests.support.gcs_emulator import GcsEmulator
    from tnforge import datasets
    from tnforge.pipelines.build_config import BuildConfig
    from tnforge.pipelines.build_job import run_build

    corpus = Path(args.input)
    with tempfile.TemporaryDirectory() as temp, GcsEmulator() as gcs:
        bucket = gcs.bucket("bench")
        remote_corpus = gcs.upload(corpus, f"{bucket}/in/{corpus.name}")
        local, remote = str(Path(temp) / "ds"), f"{bucket}/ds"
        print(f"corpus {corpus} ({corpus.stat().st_size / 1e6:.1f} MB), {args.shards} shard(s)")
        figures = {
            "build local": timed("build, local in → local out", lambda: run_build(
                BuildConfig(inputs=(str(corpus),), out=local, shards=args.shards))),
            "build gs": timed("build, gs:// in → gs:// out", lambda: run_build(
                BuildConfig(inputs=(remote_corpus,), out=remote, shards=args.shards))),
        }
        rows = datasets.read_dataset(local, "examples").num_rows
        figures["read local"] = timed(f"read examples ({rows:,} rows), local", lambda: datasets.read_dataset(
            local, "examples"))
        figures["read gs"] = timed(f"read examples ({rows:,} rows), gs://", lambda: datasets.read_dataset(
            remote, "examples"))
        objects = len(gcs.names("bench", "ds/"))
        print(f"objects in gs://bench/ds: {objects}; gs:// / local: build {figures['build gs'] / figures['build local']:.2f}×, "
              f"read {figures['read gs'] / figures['read local']:.2f}×")


if __name__ == "__main__":
    main()
