"""Aligned text without classes: build the whole of proteno_en, and measure how reliable class inference is.

1. `tnforge build ../shared/data/proteno_en/train.tsv` (the library call, in this process): wall time, peak
   memory, the inferred class distribution, how many tokens the shape rules decided (the grammar licensed
   none of their classes), how many multi-word tokens were restored and in how many sentences.
2. Agreement with gold classes: the shared sample (`en_sample.tsv`, Kestrel's tokens and classes) and the
   bundled sample with their class column stripped, classes inferred again, compared token by token
   (non-trivial tokens; `<self>`/`sil` tokens are PLAIN/PUNCT by rule); and how many tokens restoring joins
   there although Kestrel kept them apart.
3. With `--augment N`, the same build with `--augment-sentences N`: its time and what it added.

    python benchmarks/aligned_text.py --augment 2 --write-docs docs/results/aligned-text.md
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import tempfile
import time
from collections import Counter
from importlib import resources
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PROTENO = SHARED / "proteno_en" / "train.tsv"
EN_SAMPLE = SHARED / "en_sample.tsv"


def machine() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        model = ""
    return f"{model or platform.processor() or 'CPU'}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"


def build_proteno(out: Path, augment: int) -> tuple[dict, float, float]:
    """The manifest, wall seconds and peak MB of a build of the whole proteno_en file."""
    from tnforge.pipelines.build_config import BuildConfig
    from tnforge.pipelines.build_job import run_build

    options = {"augment_sentences": augment} if augment else {}
    start = time.perf_counter()
    manifest = run_build(BuildConfig(inputs=(str(PROTENO),), out=str(out), **options))
    seconds = time.perf_counter() - start
    return manifest, seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def restored_sentences(out: Path) -> tuple[int, int]:
    """(sentences with a restored token, sentences) of a build: proteno's own tokens never hold a space."""
    from tnforge.datasets import read_dataset

    table = read_dataset(str(out), "sentences", columns=["tokens", "source"])
    original = [tokens for tokens, source in zip(table.column("tokens").to_pylist(), table.column("source").to_pylist(),
                                                  strict=True) if "#augment" not in source]
    return sum(any(" " in t for t in tokens) for tokens in original), len(original)


def agreement(path: Path) -> tuple[Counter, Counter, tuple[int, int]]:
    """(per gold class: tokens, per gold class: tokens whose inferred class agrees) over non-trivial tokens of a
    TSV with gold classes, its class column stripped and the classes inferred again (no restoring: Kestrel's
    tokens); and (tokens restoring would join although Kestrel kept them apart, Kestrel's multi-word tokens)."""
    from tnforge.class_inference import ClassInference
    from tnforge.generators.grammar_classes import GrammarClasses
    from tnforge.readers import read_corpus_file
    from tnforge.token_blocks import TokenBlock

    def tokens(file: str, **options) -> list[tuple[str, str, str]]:
        found = []
        for item in read_corpus_file(file, **options):
            if isinstance(item, TokenBlock):
                found += zip(item.classes.to_pylist(), item.befores.to_pylist(), item.afters.to_pylist(), strict=True)
        return found

    with tempfile.TemporaryDirectory() as folder:
        stripped = Path(folder) / "aligned.tsv"
        with open(path, encoding="utf-8") as source, open(stripped, "w", encoding="utf-8") as target:
            for line in source:
                target.write(line.split("\t", 1)[1] if line.count("\t") == 2 and not line.startswith("<eos>") else line)
        inferred = tokens(str(stripped), flavour="aligned", infer=ClassInference(GrammarClasses(), restore=False))
        restored = tokens(str(stripped), flavour="aligned", infer=ClassInference(GrammarClasses()))
    gold = tokens(str(path))
    multi_word = sum(" " in before.strip() for _, before, _ in gold)
    total, agree = Counter(), Counter()
    for (cls, before, after), (guess, before2, _) in zip(gold, inferred, strict=True):
        assert before == before2
        if after in ("<self>", "sil"):
            continue
        total[cls] += 1
        agree[cls] += cls == guess
    return total, agree, (len(gold) - len(restored), multi_word)


def agreement_table(name: str, total: Counter, agree: Counter, joins: tuple[int, int]) -> list[str]:
    all_total, all_agree = sum(total.values()), sum(agree.values())
    lines = [f"**{name}**: {all_agree:,} of {all_total:,} non-trivial tokens agree "
             f"({all_agree / all_total:.2%}). With restoring on, {joins[0]:,} of its tokens would be folded into "
             f"the token before them although Kestrel kept them apart (it has {joins[1]:,} multi-word tokens).",
             "", "| gold class | tokens | inferred the same |", "|---|---|---|"]
    lines += [f"| {cls} | {n:,} | {agree[cls] / n:.1%} |" for cls, n in total.most_common()]
    return [*lines, ""]


def report(manifest: dict, seconds: float, peak_mb: float, restored: tuple[int, int],
           agreements: list[tuple[str, Counter, Counter, tuple[int, int]]],
           augmented: tuple[dict, float] | None = None) -> str:
    section = manifest["class_inference"]
    tokens: Counter = Counter()
    for split in manifest["splits"].values():
        tokens.update(split["tokens"])
    total = sum(tokens.values())
    lines = [
        "# Aligned text: class inference and restored tokens",
        "",
        f"Written by `benchmarks/aligned_text.py` on {dt.date.today().isoformat()}: {machine()} "
        "(a shared 2-core machine, other sessions running).",
        "",
        "## Building the whole of proteno_en",
        "",
        f"`tnforge build ../shared/data/proteno_en/train.tsv` (one process, local runner): "
        f"**{seconds:.1f} s**, peak memory {peak_mb:,.0f} MB; {manifest['accounting']['input_records']:,} token lines "
        f"→ {total:,} tokens in {sum(s['sentences'] for s in manifest['splits'].values()):,} sentences; "
        f"accounting {'reconciles' if manifest['accounting']['reconciles'] else 'DOES NOT reconcile'}.",
        "",
        f"- {section['trivial']['self']:,} `<self>` tokens → PLAIN (PUNCT when wordless), "
        f"{section['trivial']['sil']:,} `sil` tokens → PUNCT;",
        f"- {section['grammar']:,} tokens took a class the covering grammar licenses, "
        f"**{section['fallback']:,} fell back to the shape rules** ({section['fallback_share']:.2%} of the "
        f"non-trivial tokens): " + ", ".join(f"{c} {n:,}" for c, n in section["fallback_by_class"].items()) + ";",
        f"- **{section['restored']:,} multi-word tokens restored** from "
        f"{section['restored'] + section['restored_lines']:,} lines (" +
        ", ".join(f"{c} {n:,}" for c, n in section["restored_by_class"].items()) +
        f"), in {restored[0]:,} of {restored[1]:,} sentences ({restored[0] / restored[1]:.1%}).",
        "",
        "Inferred class distribution (all splits):",
        "",
        "| class | tokens | share |",
        "|---|---|---|",
        *[f"| {cls} | {n:,} | {n / total:.2%} |" for cls, n in tokens.most_common()],
        "",
        "## How reliable inference is: agreement with gold classes",
        "",
        "The class column stripped from corpora that have one, the classes inferred again, compared token by "
        "token (no restoring: these files already have Kestrel's tokens).",
        "",
    ]
    for name, total_by_class, agree, joins in agreements:
        lines += agreement_table(name, total_by_class, agree, joins)
    if augmented:
        aug, aug_seconds = augmented
        section = aug["augmentation"]
        train = manifest["datasets"]["sentences"]["train"]
        lines += ["## Sentence augmentation", "",
                  f"The same build with `--augment-sentences {section['copies']}`: **{aug_seconds:.1f} s** (in the same "
                  "process, the covering grammar already loaded); "
                  f"{section['sentences']:,} augmented sentences added to the {train:,} train sentences, "
                  f"{section['substituted']:,} tokens substituted, {section['dropped_as_held_out']:,} copies left out "
                  "as they read like a dev or test sentence; substitutes per class: " +
                  ", ".join(f"{c} {n:,}" for c, n in section["substitutes_per_class"].items()) + ".", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--augment", type=int, default=0, help="also augment the train sentences (N copies)")
    parser.add_argument("--keep", help="build into this folder (kept)")
    parser.add_argument("--write-docs", help="write the results page here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(args.keep or folder) / "proteno"
        manifest, seconds, peak = build_proteno(out, 0)
        restored = restored_sentences(out)
        augmented = None
        if args.augment:
            aug_manifest, aug_seconds, _ = build_proteno(Path(args.keep or folder) / "proteno_augmented", args.augment)
            augmented = (aug_manifest, aug_seconds)
    agreements = [(f"shared sample `{EN_SAMPLE.name}`", *agreement(EN_SAMPLE)),
                  ("bundled sample `tnforge/data/sample.tsv`", *agreement(Path(str(resources.files("tnforge") / "data" / "sample.tsv"))))]
    text = report(manifest, seconds, peak, restored, agreements, augmented)
    print(text)
    if args.write_docs:
        Path(args.write_docs).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
