"""Benchmark `tnforge build` on a scaled corpus (~10M tokens, the Kaggle size) against plain pyarrow reading.

The corpus is the shared English sample (../shared/data/en_sample.csv) replicated with fresh sentence ids
and split into several Kaggle-CSV files. In one run it times (a) `tnforge build` end to end on the local
runner (a child process, so its peak memory is measured alone) and (b) reading the same files with
pyarrow.csv, then prints times, tokens per second, peak memory and their ratio.

    python benchmarks/build.py                       # 10M tokens, 8 files
    python benchmarks/build.py --negatives synthetic,random --ratio 10   # also time the negatives step
"""

from __future__ import annotations

import argparse
import csv
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "en_sample.csv"


def make_corpus(folder: Path, tokens: int, files: int) -> tuple[list[Path], int]:
    """Replicate the sample with fresh sentence ids until about `tokens` tokens, over `files` files."""
    with open(SAMPLE, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    sentences: list[list[list[str]]] = []
    for row in rows:
        if not sentences or sentences[-1][0][0] != row[0]:
            sentences.append([])
        sentences[-1].append(row)
    copies = max(1, round(tokens / len(rows)))
    paths = [folder / f"kaggle-{i:02d}-of-{files:02d}.csv" for i in range(files)]
    writers = [csv.writer(open(p, "w", newline="", encoding="utf-8"), quoting=csv.QUOTE_NONNUMERIC) for p in paths]
    for writer in writers:
        writer.writerow(["sentence_id", "token_id", "class", "before", "after"])
    sentence_id = 0
    total = 0
    for copy in range(copies):
        writer = writers[copy * files // copies]
        for sentence in sentences:
            for _, token_id, cls, before, after in sentence:
                writer.writerow([sentence_id, int(token_id), cls, before, after])
            sentence_id += 1
            total += len(sentence)
    del writers
    return paths, total


def time_build(paths: list[Path], out: Path, extra: list[str]) -> tuple[float, float]:
    """Seconds and peak resident MB of `tnforge build` in a child process."""
    start = time.perf_counter()
    command = [sys.executable, "-m", "tnforge", "build", *map(str, paths), "--out", str(out), *extra]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak_mb


def time_pyarrow(paths: list[Path]) -> float:
    """Seconds to read the same files with pyarrow.csv."""
    import pyarrow.csv as pacsv

    start = time.perf_counter()
    for path in paths:
        pacsv.read_csv(path)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=10_000_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--negatives", default="", help="also generate negatives of these kinds")
    parser.add_argument("--ratio", default="10")
    parser.add_argument("--keep", help="keep the corpus and output in this folder")
    args = parser.parse_args()
    if not SAMPLE.exists():
        sys.exit(f"{SAMPLE} not found: the benchmark needs ../shared/data")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tnforge-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths, tokens = make_corpus(folder, args.tokens, args.files)
    size_mb = sum(p.stat().st_size for p in paths) / 1e6
    print(f"corpus: {tokens:,} tokens in {len(paths)} CSV files, {size_mb:.0f} MB", flush=True)
    extra = ["--workers", str(args.workers)]
    build_s, peak_mb = time_build(paths, folder / "out", extra)
    print(f"tnforge build:  {build_s:7.1f} s  {tokens / build_s:12,.0f} tokens/s  peak {peak_mb:,.0f} MB", flush=True)
    if args.negatives:
        start = time.perf_counter()
        command = [sys.executable, "-m", "tnforge", "negatives", str(folder / "out"), "--kinds", args.negatives,
                   "--ratio", args.ratio]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        neg_s = time.perf_counter() - start
        print(f"negatives ({args.negatives}, ratio {args.ratio}) on the built dataset: {neg_s:7.1f} s "
              f"= {100 * neg_s / build_s:.0f}% of the build (target ≤ 100%)", flush=True)
    read_s = time_pyarrow(paths)
    print(f"pyarrow read:   {read_s:7.1f} s  {tokens / read_s:12,.0f} tokens/s")
    print(f"ratio build / read: {build_s / read_s:.1f}x; target ≤ 60 s and ≤ 1,000 MB for 10M tokens")
    if not args.keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
