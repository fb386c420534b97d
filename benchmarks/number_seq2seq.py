"""The window seq2seq on (number, verbalization) pairs, for the comparison of Gorman & Sproat (2016), Tables 3
and 6: trained on the same 300 minimal pairs as the induced grammars, and on the paper's 9,000 random-trn
numbers (those that are test numbers left out), tested on the same 1,000 Appendix-A numbers. Used by
`benchmarks/number_grammars.py --seq2seq LANGS`; each run's figures are kept in a JSON cache, so a rerun
trains only what is missing.

The model is the project's default window seq2seq (characters of `<norm> 2012 </norm>` in, words out, the
CPU-sized network), trained for a fixed wall-clock budget with no dev split (no early stopping: the last
weights are tested), beam-5 decoding. Output words are whole space-separated words, so
a test reading with a word no training reading has (German "dreihunderteinundzwanzig") cannot be produced:
`reachable` counts the test readings whose every word occurs in the training readings.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from tnforge import schemas
from tnforge.datasets import dataset_path, write_sharded
from tnforge.hashing import stable_hash64
from tnforge.manifest import mark_complete, write_manifest
from tnforge.windows import window_input

Pairs = list[tuple[int, str]]


def examples_table(pairs: Pairs, split: str) -> pa.Table:
    """EXAMPLES rows: one one-token sentence per pair, CARDINAL, input `<norm> N </norm>`."""
    rows: dict[str, list] = {name: [] for name in schemas.EXAMPLES.names}
    for index, (number, text) in enumerate(pairs):
        values = {"key": stable_hash64("numbers", split, number), "split": split, "source": "numbers",
                  "line": index + 1, "sentence_id": index, "token_index": 0, "copy": 0, "class": "CARDINAL",
                  "before": str(number), "after": text, "trivial": False, "input": window_input([str(number)], 0)}
        for name, value in values.items():
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.EXAMPLES)


def write_dataset(root: Path, train: Pairs) -> Path:
    """A complete dataset directory: the train pairs, and an empty dev split (no early stopping)."""
    write_sharded(examples_table(train, "train"), dataset_path(root, "examples", "train"), schemas.EXAMPLES)
    write_sharded(examples_table([], "dev"), dataset_path(root, "examples", "dev"), schemas.EXAMPLES)
    write_manifest(root, mark_complete({}))
    return root


def train_and_test(train: Pairs, test: Pairs, work: Path, minutes: float, threads: int, seed: int = 13) -> dict[str, Any]:
    """Train the seq2seq on `train` for `minutes` (CPU, `threads` torch threads); its exact match on `test`."""
    import torch

    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.families import load
    from tnforge.trainers.seq2seq.train import Seq2SeqTrainConfig
    from tnforge.trainers.seq2seq.train import train as fit

    if work.exists():
        shutil.rmtree(work)
    data = write_dataset(work / "data", train)
    config = Seq2SeqTrainConfig(data=str(data), out=str(work / "run"), device="cpu", epochs=100_000, max_minutes=minutes,
                         threads=threads, progress=False, seed=seed)
    result = fit(config)
    torch.set_num_threads(max(threads, 1))
    _family, loaded = load(work / "run", "cpu", kind="decoder")
    said = decode_windows(loaded, [window_input([str(n)], 0) for n, _ in test])
    words = {word for _, text in train for word in text.split()}
    return {"train": len(train), "test": len(test), "exact": sum(s == t for s, (_, t) in zip(said, test, strict=True)),
            "reachable": sum(set(t.split()) <= words for _, t in test), "steps": result.steps,
            "epochs": result.epochs, "minutes": round(result.seconds / 60, 2), "stopped": result.stopped,
            "examples": [(n, s, t) for s, (n, t) in zip(said, test, strict=True) if s != t][:3]}


def run_all(langs: list[str], sets: dict[str, list[int]], test: list[int], say: Callable[[int, str], str],
            work: Path, cache: Path, minutes: float, threads: int) -> dict[str, dict[str, Any]]:
    """Every (language, training set) run, from the cache where it holds the same settings; the cache updated."""
    results: dict[str, dict[str, Any]] = json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else {}
    for lang in langs:
        test_pairs = [(n, say(n, lang)) for n in test]
        for name, numbers in sets.items():
            key = f"{lang} {name} {minutes:g} min {threads} thread(s)"
            if key in results:
                continue
            print(f"training the seq2seq: {key}", flush=True)
            where = f"{datetime.date.today()}, {platform.node()}, {os.cpu_count()} CPUs (load {os.getloadavg()[0]:.1f})"
            results[key] = {"lang": lang, "set": name, "trained": where, **train_and_test(
                [(n, say(n, lang)) for n in numbers], test_pairs, work / f"{lang}-{name}", minutes, threads)}
            cache.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return results


def table(results: dict[str, dict[str, Any]], grammar_exact: dict[str, tuple[float, float]], minutes: float,
          threads: int) -> list[str]:
    """The comparison as Markdown lines (Tables 3 and 6: exact match on the 1,000 test numbers); `grammar_exact`:
    the induced grammar's exact match per language, (from the examples alone, with the allomorph model)."""
    rows = ["| language | model | training pairs | exact match | reachable (every word seen in training) "
            "| steps / epochs in the budget |", "|---|---|---|---|---|---|"]
    suffix = f" {minutes:g} min {threads} thread(s)"
    langs = list(dict.fromkeys(r["lang"] for k, r in results.items() if k.endswith(suffix)))
    for lang in langs:
        if lang in grammar_exact:
            alone, with_lm = grammar_exact[lang]
            lm = f" ({with_lm:.1f}% with the allomorph model)" if with_lm != alone else ""
            rows.append(f"| {lang} | induced grammar | 300 | {alone:.1f}%{lm} | | |")
        for key, r in results.items():
            if r["lang"] == lang and key.endswith(suffix):
                rows.append(f"| {lang} | window seq2seq | {r['train']:,} | {100 * r['exact'] / r['test']:.1f}% | "
                            f"{100 * r['reachable'] / r['test']:.1f}% | {r['steps']:,} / {r['epochs']:,} |")
    wrong = [f"{r['lang']} ({r['train']:,}): {n} → {s!r} (reference {t!r})"
             for key, r in results.items() if key.endswith(suffix) for n, s, t in r["examples"][:1]]
    trained = sorted({r.get("trained", "?") for key, r in results.items() if key.endswith(suffix)})
    return [*rows, "", f"Trained: {'; '.join(trained)}.", "", "A wrong answer of each seq2seq run:", "",
            *(f"* {line}" for line in wrong)]
