"""Benchmark: batch-mode normalization speed (sentences per second) of raw text → tokenizer → tagger →
seq2seq with the covering-grammar constraint by predicted class, on CPU. Aim: ≥ 50 sentences/s on 2 cores.

Input: the dev + test sentences of a dataset, detokenized to raw text (what a user would pipe in), repeated
to --sentences lines; each configuration is run once to warm up (grammar compilation, trie caches), then
timed through `trainers.normalize.normalize_lines`, the very loop `tnforge normalize --file` runs.

    python benchmarks/normalize.py --model runs/en-s2s --tagger runs/en-tagger --data out/en
    python benchmarks/normalize.py --model runs/s2s --tagger runs/tagger --data out/sample --threads 1,2
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def raw_sentences(data: Path, splits: list[str]) -> list[str]:
    from tnforge.tokenizer import detokenize
    from tnforge.trainers.evaluation.raw_text import gold_sentences
    from tnforge.trainers.seq2seq.data import example_files

    return [detokenize(s.tokens) for split in splits for s in gold_sentences(example_files(data, split), split)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--tagger", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True, help="dataset directory (dev and test sentences)")
    parser.add_argument("--splits", default="dev,test")
    parser.add_argument("--sentences", type=int, default=2000, help="lines normalized per timing")
    parser.add_argument("--threads", default="1,2", help="comma-separated torch CPU thread counts")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (the model's device)")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()

    import torch

    from tnforge.grammars import adapter
    from tnforge.trainers.decoding.constraint_sets import grammar_constraint
    from tnforge.trainers.normalize import Normalizer, normalize_lines
    from tnforge.trainers.seq2seq.loading import load_model
    from tnforge.trainers.tagger import load_tagger

    texts = raw_sentences(args.data, args.splits.split(","))
    lines = (texts * (args.sentences // max(len(texts), 1) + 1))[: args.sentences]
    tagger = load_tagger(args.tagger)
    results = []
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        loaded = load_model(args.model, args.device)
        for grammar in (True, False):
            constraint = reading_words = None
            if grammar:  # as `normalize --grammar-constraint`: the mask, and the grammar's one readings
                reading_words, covered = adapter.reading_words()
                constraint = grammar_constraint(loaded, reading_words, covered)
            normalizer = Normalizer(loaded, tagger, constraint, args.beam, args.batch_size,
                                    reading_words=reading_words)
            started = time.monotonic()
            normalize_lines(normalizer, iter(texts), lambda _text: None)  # warm-up: grammar, caches
            warm_up = time.monotonic() - started
            done = normalize_lines(normalizer, iter(lines), lambda _text: None)
            results.append({"device": args.device, "threads": threads, "grammar": grammar, "sentences": done.sentences,
                            "tokens": done.tokens, "decoded": done.decoded, "seconds": round(done.seconds, 2),
                            "sentences_per_s": round(done.sentences / done.seconds, 1),
                            "warm_up_s": round(warm_up, 1)})
            print(json.dumps(results[-1]), flush=True)
    print(json.dumps({"load_average": os.getloadavg(), "cpus": os.cpu_count(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
