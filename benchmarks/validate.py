"""Benchmark: validate a ~10M-token build and one 4× larger, each in a fresh process (peak RSS ≤ 600 MB for
both, time ≤ the build's).

For each size the shared sample (../shared/data/en_sample.csv) is replicated with fresh sentence ids into
Kaggle CSV files (as benchmarks/build.py does), built with `tnforge build` (synthetic and random negatives)
and validated with `tnforge validate` (Data Docs included); every step is a child process, timed, with its
own peak resident memory (ru_maxrss from wait4). The import of great_expectations alone is measured too.

  python benchmarks/validate.py                         # 10M and 40M tokens
  python benchmarks/validate.py --tokens 2000000 --scales 1 --keep /tmp/bench   # a quick run, kept
  python benchmarks/validate.py --reuse /tmp/bench      # validate builds kept by an earlier run (its build
                                                        # times are reported from build-Nx.json)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET_MB = 600


def _build_module():
    spec = importlib.util.spec_from_file_location("tnforge_build_benchmark", HERE / "build.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def measured(command: list[str]) -> tuple[float, float]:
    """Run a child process; (wall seconds, its peak resident MB). Raises if it fails."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-2000:]
            raise SystemExit(f"{' '.join(command)} exited with {process.returncode}:\n{tail}")
    return seconds, usage.ru_maxrss / 1024


def tnforge(*args: str) -> list[str]:
    return [sys.executable, "-m", "tnforge", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=10_000_000, help="tokens of the smaller build")
    parser.add_argument("--scales", default="1,4", help="build sizes as multiples of --tokens")
    parser.add_argument("--files", type=int, default=8, help="CSV files per corpus")
    parser.add_argument("--keep", type=Path, help="keep corpora and builds in this folder")
    parser.add_argument("--reuse", type=Path, help="validate the builds kept in this folder (no building)")
    args = parser.parse_args()
    work = args.reuse or args.keep or Path(tempfile.mkdtemp(prefix="tnforge-validate-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    seconds, peak = measured([sys.executable, "-c", "import great_expectations"])
    print(f"import great_expectations alone: {seconds:.1f} s, peak {peak:,.0f} MB", flush=True)
    rows = []
    for scale in (int(s) for s in args.scales.split(",")):
        tokens = args.tokens * scale
        out = work / f"build-{scale}x"
        record = work / f"build-{scale}x.json"
        build_s = float("nan")
        if args.reuse is not None and record.exists():
            kept = json.loads(record.read_text())
            tokens, build_s = kept["tokens"], kept["seconds"]
        if args.reuse is None:
            corpus = work / f"corpus-{scale}x"
            corpus.mkdir(exist_ok=True)
            paths, tokens = _build_module().make_corpus(corpus, tokens, args.files)
            build_s, build_mb = measured(tnforge("build", *map(str, paths), "--out", str(out), "--overwrite",
                                                 "--negatives", "synthetic,random", "--ratio", "10"))
            print(f"{scale}x: built {tokens:,} tokens in {build_s:.1f} s (peak {build_mb:,.0f} MB)", flush=True)
            record.write_text(json.dumps({"tokens": tokens, "seconds": build_s, "peak_mb": build_mb}))
            if not args.keep:
                shutil.rmtree(corpus, ignore_errors=True)
        shutil.rmtree(out / "validation", ignore_errors=True)
        validate_s, validate_mb = measured(tnforge("validate", str(out), "-q"))
        files = sum(1 for _ in out.rglob("*.parquet"))
        size = sum(p.stat().st_size for p in out.rglob("*.parquet")) / 1e6
        print(f"{scale}x: validated {files} files ({size:,.0f} MB of Parquet) in {validate_s:.1f} s, "
              f"peak {validate_mb:,.0f} MB", flush=True)
        rows.append((scale, tokens, build_s, validate_s, validate_mb, files, size))
    print("\n| build | tokens | Parquet | build | validate | validate peak RSS |")
    print("|---|---|---|---|---|---|")
    for scale, tokens, build_s, validate_s, validate_mb, files, size in rows:
        print(f"| {scale}x | {tokens:,} | {files} files, {size:,.0f} MB | {build_s:.1f} s | {validate_s:.1f} s "
              f"| {validate_mb:,.0f} MB |")
    ok = all(mb <= TARGET_MB and (b != b or v <= b) for _, _, b, v, mb, _, _ in rows)
    print(f"\ntarget: peak RSS ≤ {TARGET_MB} MB and validate ≤ build, for every size: {'met' if ok else 'NOT met'}")
    if not (args.keep or args.reuse):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
