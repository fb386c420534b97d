"""Run every CUDA path of the trainers on built datasets and time it: seq2seq training, both dual encoders,
the tagger (xgboost on the GPU), decoding with top-k, constrained decoding (grammar + both DEs), raw-text
normalization and its evaluation. Each step is a real `tnforge` command (or a benchmark script) in its own
process; a failing step is reported and the next one runs.

    python benchmarks/cuda_paths.py --data sample=out/sample --data en=out/en --work /tmp/cuda --log-dir LOGS

Prints one table (step, seconds, exit status, peak GPU memory, the step's figure) and writes the full output
of every step to LOGS/steps.log and the table to LOGS/summary.json. How to check a GPU machine: docs/guides/train-at-scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent


class GpuMemory:
    """The largest GPU memory use nvidia-smi reports while a step runs (MiB; None without nvidia-smi)."""

    def __init__(self) -> None:
        self.peak: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                     capture_output=True, text=True, timeout=5).stdout
                used = max(int(v) for v in out.split())
                self.peak = used if self.peak is None else max(self.peak, used)
            except (OSError, ValueError, subprocess.SubprocessError):
                return
            self._stop.wait(0.5)

    def __enter__(self) -> GpuMemory:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


def tnforge(*args: str) -> list[str]:
    return [sys.executable, "-m", "tnforge", *args]


def benchmark(name: str, *args: str) -> list[str]:
    return [sys.executable, str(BENCHMARKS / name), *args]


def steps(name: str, data: Path, run: Path, device: str, epochs: int, de_epochs: int) -> list[tuple[str, list[str]]]:
    """The commands run on one dataset, in order (later ones use the runs of earlier ones)."""
    s2s, seq_de, voc_de, tagger = run / "s2s", run / "seq-de", run / "voc-de", run / "tagger"
    large = run / "s2s-large"
    common = ["--device", device]
    return [
        (f"{name}: train seq2seq (GPU recipe)", tnforge(
            "train", "seq2seq", "--data", str(data), "--out", str(s2s), "--batch-size", "256", "--max-minutes", "0",
            "--epochs", str(epochs), "--no-progress", "--overwrite", *common)),
        (f"{name}: train seq-de", tnforge("train", "seq-de", "--data", str(data), "--out", str(seq_de),
                                          "--epochs", str(de_epochs), "--no-progress", "--overwrite", *common)),
        (f"{name}: train voc-de", tnforge("train", "voc-de", "--data", str(data), "--out", str(voc_de),
                                          "--epochs", str(de_epochs), "--no-progress", "--overwrite", *common)),
        (f"{name}: train tagger", tnforge("train", "tagger", "--data", str(data), "--out", str(tagger),
                                          "--overwrite", *common)),
        (f"{name}: train tagger (cpu)", tnforge("train", "tagger", "--data", str(data), "--out",
                                                str(run / "tagger-cpu"), "--overwrite", "--device", "cpu")),
        (f"{name}: evaluate dev", tnforge("evaluate", "--model", str(s2s), "--data", str(data), "--split", "dev",
                                          "--report", str(run / "eval-dev"), *common)),
        (f"{name}: evaluate dev, grammar + seq-de + voc-de", tnforge(
            "evaluate", "--model", str(s2s), "--data", str(data), "--split", "dev", "--grammar-constraint",
            "--seq-de", str(seq_de), "--voc-de", str(voc_de), "--report", str(run / "eval-dev-constrained"),
            *common)),
        (f"{name}: decode train top-10", tnforge("decode", "--model", str(s2s), "--data", str(data), "--split",
                                                 "train", "--top-k", "10", "--out", str(run / "hyps_train"),
                                                 *common)),
        (f"{name}: normalize", tnforge("normalize", "--model", str(s2s), "--tagger", str(tagger),
                                       "--grammar-constraint", "Train 540 leaves at 4:45", *common)),
        (f"{name}: evaluate --raw test", tnforge(
            "evaluate", "--raw", "--model", str(s2s), "--tagger", str(tagger), "--grammar-constraint", "--data",
            str(data), "--split", "test", *common)),
        (f"{name}: benchmark decode", benchmark("decode.py", "--model", str(s2s), "--data", str(data),
                                                "--threads", "1")),
        (f"{name}: benchmark constrained decoding", benchmark(
            "constrained_decoding.py", "--model", str(s2s), "--data", str(data), "--split", "dev", "--seq-de",
            str(seq_de), "--voc-de", str(voc_de), "--device", device)),
        (f"{name}: benchmark normalize", benchmark("normalize.py", "--model", str(s2s), "--tagger", str(tagger),
                                                   "--data", str(data), "--threads", "1", "--device", device)),
        (f"{name}: train seq2seq batch 64", tnforge(
            "train", "seq2seq", "--data", str(data), "--out", str(run / "s2s-64"), "--max-minutes", "0",
            "--epochs", str(epochs), "--no-progress", "--overwrite", *common)),
        (f"{name}: train seq2seq batch 64 again", tnforge(
            "train", "seq2seq", "--data", str(data), "--out", str(run / "s2s-64-again"), "--max-minutes", "0",
            "--epochs", str(epochs), "--no-progress", "--overwrite", *common)),
        (f"{name}: train seq2seq batch 64 no AMP", tnforge(
            "train", "seq2seq", "--data", str(data), "--out", str(run / "s2s-64-fp32"), "--max-minutes", "0",
            "--epochs", str(epochs), "--no-amp", "--no-progress", "--overwrite", *common)),
        (f"{name}: train seq2seq large", tnforge(
            "train", "seq2seq", "--data", str(data), "--out", str(large), "--batch-size", "256", "--max-minutes", "0",
            "--epochs", str(epochs), "--encoder-hidden", "256", "--decoder-hidden", "512", "--encoder-layers", "2",
            "--no-progress", "--overwrite", *common)),
        (f"{name}: evaluate --raw test (large)", tnforge(
            "evaluate", "--raw", "--model", str(large), "--tagger", str(tagger), "--grammar-constraint", "--data",
            str(data), "--split", "test", *common)),
    ]


#: Lines that carry a step's figure (evaluate's tables, the benchmarks' summaries), and progress-bar lines.
HEADLINES = ("| all tokens", "| raw text", "best CPU speed", "+seqDE+vocDE+grammar:", '{"device": "cuda"')
PROGRESS = ("evaluate:", "decode:", "normalize:", "train:")

#: Step-name fragments and the run folder whose metrics give the step's figure (first match wins).
RUN_FOLDERS = (("large", "s2s-large"), ("no AMP", "s2s-64-fp32"), ("again", "s2s-64-again"), ("batch 64", "s2s-64"))


def weight_difference(one: Path, two: Path) -> float:
    """The largest absolute difference between two runs' best.pt weights."""
    import torch

    first, second = (torch.load(run / "best.pt", map_location="cpu", weights_only=True)["model"] for run in (one, two))
    return max(float((first[k].float() - second[k].float()).abs().max()) for k in first)


def figure(name: str, run: Path, output: str) -> str:
    """The step's headline figure, read from what it wrote."""
    lines = [line for line in output.strip().splitlines() if line.strip() and not line.startswith(PROGRESS)]
    last = lines[-1:] or [""]
    headline = next((line for line in lines if line.startswith(HEADLINES)), None)
    if headline is not None:
        return " ".join(headline.replace("|", " ").split())[:160]  # no table bars inside the summary table
    if "train seq2seq" in name:
        folder = run / next((f for key, f in RUN_FOLDERS if key in name), "s2s")
        metrics = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
        speeds = sorted(m["examples_per_s"] for m in metrics if m.get("event") == "train")
        dev = [m for m in metrics if m.get("event") == "dev"]
        best = max(dev, key=lambda m: m.get("dev_accuracy", 0)) if dev else {}
        speed = f"{speeds[len(speeds) // 2]:.0f}" if speeds else "?"
        text = (f"{len(dev)} evals, median {speed} ex/s, best dev "
                f"{best.get('dev_accuracy', 0):.4f} / non-trivial {best.get('dev_nontrivial_accuracy', 0):.4f}")
        if name.endswith("again"):
            text += f"; weights max |diff| vs the first batch-64 run: {weight_difference(run / 's2s-64', folder):.3g}"
        return text
    return last[0][:160]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", action="append", required=True, help="NAME=DATASET_DIR (repeatable)")
    parser.add_argument("--work", type=Path, required=True, help="folder for the runs")
    parser.add_argument("--log-dir", type=Path, required=True, help="steps.log and summary.json go here")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--epochs", type=int, default=40, help="seq2seq epochs (the GPU recipe's 40)")
    parser.add_argument("--de-epochs", type=int, default=30, help="dual-encoder epochs (their default 30)")
    parser.add_argument("--budget", type=float, default=540, help="seconds; later steps are skipped after it")
    parser.add_argument("--step-timeout", type=float, default=240)
    parser.add_argument("--only", default="", help="comma-separated substrings (=NAME: the exact step name): "
                        "run only matching steps")
    args = parser.parse_args()

    args.log_dir.mkdir(parents=True, exist_ok=True)
    log = (args.log_dir / "steps.log").open("w", encoding="utf-8")
    started, rows = time.monotonic(), []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for spec in args.data:
        name, _, folder = spec.partition("=")
        run = args.work / name
        run.mkdir(parents=True, exist_ok=True)
        for step, argv in steps(name, Path(folder), run, args.device, args.epochs, args.de_epochs):
            if args.only and not any(step == part[1:] if part.startswith("=") else part in step
                                     for part in args.only.split(",")):
                continue
            if time.monotonic() - started > args.budget:
                rows.append({"step": step, "status": "skipped (budget)"})
                continue
            log.write(f"\n===== {step}\n$ {' '.join(argv)}\n")
            log.flush()
            t0 = time.monotonic()
            with GpuMemory() as memory:
                try:
                    limit = max(30.0, min(args.step_timeout, args.budget - (time.monotonic() - started)))
                    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=limit)
                    status, output = done.returncode, done.stdout + done.stderr
                except subprocess.TimeoutExpired as stopped:
                    status = "timeout"
                    output = "".join(x.decode() if isinstance(x, bytes) else (x or "")
                                     for x in (stopped.stdout, stopped.stderr))
            seconds = time.monotonic() - t0
            log.write(output + f"\n----- exit {status} in {seconds:.1f} s, peak GPU memory {memory.peak} MiB\n")
            log.flush()
            try:
                headline = figure(step, run, output) if status == 0 else output.strip().splitlines()[-1][:160]
            except (OSError, ValueError, IndexError, KeyError) as error:
                headline = f"(no figure: {error})"
            rows.append({"step": step, "status": status, "seconds": round(seconds, 1), "gpu_mib": memory.peak,
                         "figure": headline})
            print(json.dumps(rows[-1]), flush=True)
    (args.log_dir / "summary.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    print("\n| step | s | exit | GPU MiB | figure |\n|---|---:|---|---:|---|")
    for row in rows:
        print(f"| {row['step']} | {row.get('seconds', '')} | {row['status']} | {row.get('gpu_mib') or ''} | "
              f"{row.get('figure', '')} |")
    if shutil.which("nvidia-smi") is None:
        print("(nvidia-smi not found: no GPU memory figures)")


if __name__ == "__main__":
    main()
