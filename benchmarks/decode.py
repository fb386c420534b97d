"""Benchmark: decoding speed (corpus tokens per second) of batched beam search, beam 5, on CPU and on CUDA
when present. Aim: ≥ 500 tokens/s on 2 CPU cores.

Uses the model and dataset of benchmarks/train_seq2seq.py (run that first), or --model/--data:

    python benchmarks/decode.py --work /tmp/s2s-bench
    python benchmarks/decode.py --model runs/s2s --data out/sample --splits dev,test --threads 1,2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


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
    args = parser.parse_args()

    import torch

    from tnforge.trainers.decoding.decode import decode_files
    from tnforge.trainers.seq2seq.data import example_files
    from tnforge.trainers.seq2seq.loading import load_model

    model = args.model or args.work / "run"
    data = args.data or args.work / "dataset"
    if not model.exists() or not data.exists():
        sys.exit(f"{model} or {data} missing: run benchmarks/train_seq2seq.py --work {args.work} first")
    files = [f for split in args.splits.split(",") for f in example_files(data, split)]
    devices = [("cpu", int(t)) for t in args.threads.split(",")]
    if torch.cuda.is_available():
        devices.append(("cuda", 0))
    results = []
    for device, threads in devices:
        if threads:
            torch.set_num_threads(threads)
        loaded = load_model(model, device)
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


if __name__ == "__main__":
    main()
