"""Benchmark: training throughput of the window seq2seq on the training engine — examples/s, output tokens/s,
peak memory and an estimate of the hardware's use (achieved FLOP/s over a measured matmul peak), by model
size, global batch and process count (torchrun with gloo on the CPU, NCCL on GPUs).

Each configuration is a real `tnforge train seq2seq` run (under torchrun for several processes) for a fixed
wall-clock budget on a build of the shared sample; its speed is the median of timing.jsonl's windows after
the first two (warm-up). FLOPs per example are counted once per model size on the CPU (forward and backward
of sample batches, torch's FlopCounterMode); the peak is the best of a few large matmuls on the device
(bfloat16 on a GPU, float32 on the CPU).

    python benchmarks/train_throughput.py --work /tmp/tp                            # CPU: 1×1, 1×2 threads, 2×1
    python benchmarks/train_throughput.py --work /tmp/tp --device cuda --sizes large --batch-sizes 512,2048 \\
        --processes 1,2 --write-docs docs/results/training-throughput.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "en_sample.tsv"


def build(tsv: Path, out: Path) -> None:
    if not (out / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "tnforge", "build", str(tsv), "--out", str(out), "--overwrite"],
                       check=True, stdout=subprocess.DEVNULL)


def train(data: Path, out: Path, size: str, batch: int, processes: int, threads: int, device: str,
          seconds: float) -> dict | None:
    """One timed run; its median examples/s and tokens/s after warm-up, and its peak memory."""
    command = ["-m", "tnforge", "train", "seq2seq", "--data", str(data), "--out", str(out), "--overwrite",
               "--size", size, "--batch-size", str(batch), "--device", device, "--epochs", "1000",
               "--max-minutes", f"{seconds / 60:.4f}", "--dev-limit", "1", "--threads", str(threads),
               "--no-progress"]
    launcher = (["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(processes)]
                if processes > 1 else [])
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    subprocess.run([sys.executable, *launcher, *command], check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    timing = out / "timing.jsonl"
    windows = [json.loads(line) for line in timing.read_text().splitlines()][2:] if timing.exists() else []
    if not windows:
        print(f"{out}: fewer than 3 timing windows in {seconds:.0f} s: left out (give wide batches more "
              "--seconds)", file=sys.stderr)
        return None
    return {"examples_per_s": statistics.median(w["examples_per_s"] for w in windows),
            "tokens_per_s": statistics.median(w["units_per_s"] for w in windows),
            "peak_memory_mb": max(w["peak_memory_mb"] for w in windows), "windows": len(windows)}


def flops_per_example(data: Path, size: str) -> float:
    """Forward + backward FLOPs per train example of a model of `size` (counted on the CPU, 8 batches)."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from tnforge.trainers.seq2seq.train import Seq2SeqTask, Seq2SeqTrainConfig
    from tnforge.trainers.training.distributed import ProcessGroup

    task = Seq2SeqTask(Seq2SeqTrainConfig(data=str(data), out="", device="cpu", size=size, progress=False))
    task.setup(ProcessGroup(), None)  # resolves the size's network
    model = task.build_model()
    counted = examples = 0
    for index, (batch, _done) in enumerate(task.batches(list(range(len(task.units))), [0], 64)):
        if index == 8:
            break
        with FlopCounterMode(display=False) as counter:
            loss, _units, count = task.loss(model, batch, torch.device("cpu"))
            loss.backward()
        counted += counter.get_total_flops()
        examples += count
    return counted / max(examples, 1)


def matmul_peak(device: str) -> float:
    """The best FLOP/s of a few large matmuls: bfloat16 on a GPU, float32 on the CPU."""
    import torch

    on_gpu = device.startswith("cuda") or (device == "auto" and torch.cuda.is_available())
    size, dtype = (8192, torch.bfloat16) if on_gpu else (2048, torch.float32)
    target = torch.device("cuda" if on_gpu else "cpu")
    a = torch.randn(size, size, device=target, dtype=dtype)
    b = torch.randn(size, size, device=target, dtype=dtype)
    best = 0.0
    for _ in range(5):
        if on_gpu:
            torch.cuda.synchronize()
        started = time.perf_counter()
        (a @ b).sum().item()
        best = max(best, 2 * size**3 / (time.perf_counter() - started))
    return best


def machine(device: str) -> str:
    import torch

    if device.startswith("cuda") or (device == "auto" and torch.cuda.is_available()):
        return f"{torch.cuda.get_device_name(0)} ×{torch.cuda.device_count()}, torch {torch.__version__}"
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "CPU")
    return f"{cpu}, {os.cpu_count()} cores, torch {torch.__version__}"


def table(rows: list[dict]) -> str:
    lines = ["| size | global batch | processes × threads | examples/s | tokens/s | peak memory (MB) | "
             "FLOP/s achieved | of peak |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['size']} | {r['batch']} | {r['processes']} × {r['threads']} | {r['examples_per_s']:,.0f} | "
                     f"{r['tokens_per_s']:,.0f} | {r['peak_memory_mb']:,.0f} | {r['flops_per_s'] / 1e9:,.1f} G | "
                     f"{100 * r['utilisation']:.1f}% |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-throughput"))
    parser.add_argument("--corpus", type=Path, default=SAMPLE, help="corpus TSV to build from")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--sizes", default="small")
    parser.add_argument("--batch-sizes", default="64,256")
    parser.add_argument("--processes", default="1,2", help="process counts (torchrun for more than 1)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads per process (0: the machine's cores divided among the processes)")
    parser.add_argument("--seconds", type=float, default=40.0, help="wall-clock budget of each run")
    parser.add_argument("--write-docs", type=Path, help="write the results section (markdown) here")
    args = parser.parse_args()
    if not args.corpus.exists():
        sys.exit(f"{args.corpus}: corpus not found")
    data = args.work / "dataset"
    build(args.corpus, data)
    peak = matmul_peak(args.device)
    on_cpu = args.device == "cpu"
    rows = []
    for size in args.sizes.split(","):
        flops = flops_per_example(data, size)
        for batch in map(int, args.batch_sizes.split(",")):
            counts = [int(p) for p in args.processes.split(",")]
            shapes = [(p, args.threads or max(1, (os.cpu_count() or 1) // p)) for p in counts]
            if on_cpu and 1 in counts and not args.threads and (os.cpu_count() or 1) > 1:
                shapes.insert(0, (1, 1))  # one process on one core: the per-core baseline
            for processes, threads in shapes:
                run = args.work / f"run-{size}-{batch}-{processes}x{threads}"
                figures = train(data, run, size, batch, processes, threads, args.device, args.seconds)
                if figures is None:
                    continue
                row = {"size": size, "batch": batch, "processes": processes, "threads": threads, **figures,
                       "flops_per_example": flops, "flops_per_s": flops * figures["examples_per_s"]}
                row["utilisation"] = row["flops_per_s"] / peak
                rows.append(row)
                print(json.dumps(row), flush=True)
    print(table(rows))
    if args.write_docs:
        when = datetime.date.today().isoformat()
        text = (f"# Training throughput\n\nWritten by `benchmarks/train_throughput.py` on {when}: "
                f"{machine(args.device)}; peak {peak / 1e9:,.1f} GFLOP/s measured by matmul "
                f"({'bfloat16' if not on_cpu else 'float32'}); load average before the runs "
                f"{os.getloadavg()[0]:.2f}.\n\nThe window seq2seq on a build of the shared English sample, "
                f"{args.seconds:.0f} s a run; speeds are medians of 20-step windows after warm-up.\n\n"
                f"{table(rows)}\n")
        args.write_docs.parent.mkdir(parents=True, exist_ok=True)
        args.write_docs.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
