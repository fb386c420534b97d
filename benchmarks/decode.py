"""Benchmark: decoding speed (corpus tokens per second) of batched beam search, beam 5, on CPU and on CUDA
when present. Aim: ≥ 500 tokens/s on 2 CPU cores.

Uses the model and dataset of benchmarks/train_seq2seq.py (run that first), or --model/--data:

    python benchmarks/decode.py --work /tmp/s2s-bench
    python benchmarks/decode.py --model runs/s2s --data out/sample --splits dev,test --threads 1,2
    python benchmarks/decode.py --work /tmp/s2s-bench --write-docs docs/results/decoding-speed.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

from train_throughput import machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tnforge-bench-seq2seq"))
    parser.add_argument("--model", type=Path, default=None, help="run directory (default WORK/run)")
    parser.add_argument("--data", type=Path, default=None, help="dataset directory (default WORK/dataset)")
    parser.add_argument("--splits", default="dev,test")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--top-k", default="1,10", help="comma-separated top-k values to time")
    parser.add_argument("--threads", default="1,2", help="comma-separated CPU thread counts to time")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--write-docs", type=Path, help="write the results page (Markdown) here")
    args = parser.parse_args()

    import torch

    from tnforge.trainers.decoding.decode import decode_files
    from tnforge.trainers.families import load
    from tnforge.trainers.kernel.examples import example_files

    model = args.model or args.work / "run"
    data = args.data or args.work / "dataset"
    if not model.exists() or not data.exists():
        sys.exit(f"{model} or {data} missing: run benchmarks/train_seq2seq.py --work {args.work} first")
    files = [f for split in args.splits.split(",") for f in example_files(data, split)]
    devices = [("cpu", int(t)) for t in args.threads.split(",")]
    if torch.cuda.is_available():
        devices.append(("cuda", 0))
    results = []
    load_before = os.getloadavg()[0]
    for device, threads in devices:
        if threads:
            torch.set_num_threads(threads)
        _family, loaded = load(model, device, kind="decoder")
        for top_k in (int(k) for k in args.top_k.split(",")):
            list(decode_files(loaded, files[:1], beam=args.beam, top_k=top_k, batch_size=args.batch_size))  # warm-up
            tokens = hypotheses = 0
            started = time.monotonic()
            for _rows, ranked, _counts in decode_files(loaded, files, beam=args.beam, top_k=top_k,
                                              batch_size=args.batch_size, originals_only=True):
                tokens += len(ranked)
                hypotheses += sum(len(r) for r in ranked)
            if device == "cuda":
                torch.cuda.synchronize()
            seconds = time.monotonic() - started
            results.append({"device": device if device == "cuda" else f"cpu ×{threads} threads",
                            "beam": args.beam, "top_k": top_k, "tokens": tokens, "hypotheses": hypotheses,
                            "seconds": round(seconds, 2), "tokens_per_s": round(tokens / seconds, 1)})
            print(json.dumps(results[-1]), flush=True)
    best_cpu = max((r["tokens_per_s"] for r in results if r["device"].startswith("cpu") and r["top_k"] == 1),
                   default=0.0)
    print(f"best CPU speed, beam {args.beam}, top-1: {best_cpu:.0f} tokens/s "
          f"(aim ≥ 500: {'met' if best_cpu >= 500 else 'NOT met'})")
    if args.write_docs:
        conditions = (f"{machine('cpu')}; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
                      + (f"; {torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else ""))
        args.write_docs.write_text(results_page(results, args, model, data, conditions), encoding="utf-8")
        print(f"wrote {args.write_docs}", file=sys.stderr)


def results_page(results: list[dict], args: argparse.Namespace, model: Path, data: Path, conditions: str) -> str:
    """The results page: tokens per second of the batched beam search, by device, threads and top-k."""
    lines = ["# Decoding speed", "",
             f"Written by `benchmarks/decode.py` on {datetime.date.today().isoformat()}: {conditions}.", "",
             f"The seq2seq at `{model}` (by default the run of `benchmarks/train_seq2seq.py`: the shared sample, the "
             f"trainer's defaults) decodes the {args.splits.replace(',', ' and ')} splits of `{data}` "
             f"({results[0]['tokens']:,} tokens, "
             f"up-sampling copies left out) with beam {args.beam}, batches of {args.batch_size}, after one warm-up "
             "file.", "",
             "| device | top-k | seconds | tokens/s |", "|---|---:|---:|---:|"]
    lines += [f"| {r['device']} | {r['top_k']} | {r['seconds']:.2f} | {r['tokens_per_s']:,.0f} |" for r in results]
    lines += ["", "On a CPU that other work shares, one torch thread is often faster than two fighting for two "
              "cores; `--threads 1` sets it for `tnforge decode`, `evaluate` and `normalize`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
