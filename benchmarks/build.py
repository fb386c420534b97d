"""Benchmark `tnforge build` on a scaled corpus (~10M tokens, the Kaggle size) against plain pyarrow reading.

The corpus is the shared English sample (../shared/data/en_sample.csv) replicated with fresh sentence ids
and split into several Kaggle-CSV files. In one run it times (a) `tnforge build` end to end on the local
runner (a child process, so its peak memory is measured alone) and (b) reading the same files with
pyarrow.csv, then prints times, tokens per second, peak memory and their ratio. With `--shards auto,8`
it builds with each shard count in turn (auto: the default, chosen from the input size), `--repeat` times
round-robin (runs back to back, so a shared machine's load touches all alike), and `--write-docs` writes
the results page (medians, machine, date, load).

    python benchmarks/build.py                       # 10M tokens, 8 files
    python benchmarks/build.py --shards auto,2,8 --repeat 3 --write-docs docs/results/build.md
    python benchmarks/build.py --negatives synthetic,random --ratio 10   # also time the negatives step
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import statistics
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
    """Seconds and peak resident MB of `tnforge build` in a child process (this child's own peak)."""
    start = time.perf_counter()
    command = [sys.executable, "-m", "tnforge", "build", *map(str, paths), "--out", str(out), "--overwrite", *extra]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "CPU")
    return f"{cpu}, {os.cpu_count()} cores"


def results_page(rows: list[dict], tokens: int, files: int, size_mb: float, repeat: int, loads: list[float]) -> str:
    """The results page: one row per shard setting, medians of the repeats."""
    lines = ["# Build speed and memory", "",
             f"Written by `benchmarks/build.py` on {datetime.date.today().isoformat()}: {machine()}, shared with "
             f"other jobs (load average {min(loads):.1f}–{max(loads):.1f} during the runs). "
             f"{tokens:,} tokens of the shared English sample replicated into {files} Kaggle CSV files "
             f"({size_mb:.0f} MB); `tnforge build` on the local runner, one worker; each setting run {repeat} "
             "times round-robin, medians shown (peak: the build process's maximum resident memory).", "",
             "| shards | build (s) | tokens/s | peak memory (MB) | runs (s) | runs (MB) |", "|---|---:|---:|---:|---|---|"]
    for row in rows:
        seconds, peaks = row["seconds"], row["peaks"]
        lines.append(f"| {row['label']} | {statistics.median(seconds):.1f} | {tokens / statistics.median(seconds):,.0f} | "
                     f"{statistics.median(peaks):,.0f} | {', '.join(f'{x:.1f}' for x in seconds)} | "
                     f"{', '.join(f'{x:,.0f}' for x in peaks)} |")
    return "\n".join(lines) + "\n"


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
    parser.add_argument("--shards", default="auto", help="shard counts to build with, comma-separated (auto: default)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each shard setting, round-robin")
    parser.add_argument("--write-docs", type=Path, help="write the results page (markdown) here")
    args = parser.parse_args()
    if not SAMPLE.exists():
        sys.exit(f"{SAMPLE} not found: the benchmark needs ../shared/data")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tnforge-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths, tokens = make_corpus(folder, args.tokens, args.files)
    size_mb = sum(p.stat().st_size for p in paths) / 1e6
    print(f"corpus: {tokens:,} tokens in {len(paths)} CSV files, {size_mb:.0f} MB", flush=True)
    extra = ["--workers", str(args.workers)]
    settings = args.shards.split(",")
    rows = [{"label": s, "seconds": [], "peaks": []} for s in settings]
    loads = []
    for _ in range(args.repeat):
        for setting, row in zip(settings, rows, strict=True):
            loads.append(os.getloadavg()[0])
            build_s, peak_mb = time_build(paths, folder / "out", extra + ([] if setting == "auto" else ["--shards", setting]))
            if setting == "auto":
                row["label"] = f"auto ({json.loads((folder / 'out' / 'manifest.json').read_text())['config']['shards']})"
            row["seconds"].append(build_s)
            row["peaks"].append(peak_mb)
            print(f"tnforge build (shards {row['label']}):  {build_s:7.1f} s  {tokens / build_s:12,.0f} tokens/s  "
                  f"peak {peak_mb:,.0f} MB", flush=True)
    if args.write_docs:
        args.write_docs.parent.mkdir(parents=True, exist_ok=True)
        args.write_docs.write_text(results_page(rows, tokens, len(paths), size_mb, args.repeat, loads), encoding="utf-8")
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
    print(f"ratio build / read: {build_s / read_s:.1f}x; target ≤ 60 s and ≤ 600 MB for 10M tokens")
    if not args.keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
