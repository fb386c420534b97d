"""The learning curve of inverse text normalization (issue #37): is the 95% sentence-accuracy target data-bound?

The grammar route (and the span-tagger route, its tagger trained within a minutes budget on one thread) learned
from 25%, 50% and 100% of the shared sample's train split, and from the sample plus Proteno's English sentences
(`../shared/data/proteno_en/train.tsv`, built together with `--split hash --defer-to-first`), each scored on the
same reversed test split: sentence accuracy with its 95% Wilson interval, WER, and the candidates' bound.

A fraction of the train split is a derived dataset folder (`train_share`): the train sentences whose stable hash
of their key falls below the fraction (nested: the 25% are among the 50%), and the dev and test sentences of the
sample as they are. Only the `sentences` dataset is written: it is all that `InverseNormalizer.learn` and the
span-tagger trainer read. The accuracy is fitted as a line in log2(train sentences) over the sample's fractions;
its slope and the train size where the line reaches 95% come with 95% intervals from a bootstrap over the test
sentences (resampled by stable hashes; the fractions share one test split, so they are resampled together).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
PROTENO = ROOT.parent / "shared" / "data" / "proteno_en" / "train.tsv"
HEADING = "## Learning curve: does the train split's size bound the 95% target?"
#: Fractions of the shared sample's train split the curve learns from.
SHARES = (0.25, 0.5, 1.0)
#: Seed of the stable hash that picks a fraction's train sentences (another than the build's split hash).
SHARE_SEED = 37
BOOTSTRAP = 2000
TARGET = 0.95


def train_share(data: Path, share: float, out: Path, train_from: Path | None = None) -> Path:
    """A dataset folder `out` with the train sentences of `train_from` (default `data`) whose stable hash of
    their key (seed `SHARE_SEED`) falls below `share`, and `data`'s dev and test sentences; reused when made."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from tnforge.datasets import dataset_files, dataset_path, read_dataset
    from tnforge.hashing import TWO_64, stable_hash64
    from tnforge.manifest import require_complete

    train_from = train_from or data
    derived = {"data": str(data), "train_from": str(train_from), "train_share": share, "seed": SHARE_SEED}
    manifest = out / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text(encoding="utf-8")).get("derived") == derived:
        return out
    shutil.rmtree(out, ignore_errors=True)
    train = read_dataset(train_from, "sentences", "train")
    keep = [stable_hash64(key, seed=SHARE_SEED) / TWO_64 < share for key in train.column("key").to_pylist()]
    train = train.filter(pa.array(keep, type=pa.bool_()))
    target = Path(dataset_path(out, "sentences", "train"))
    target.mkdir(parents=True)
    pq.write_table(train, target / "part-00000-of-00001.parquet")
    for split in ("dev", "test"):
        folder = Path(dataset_path(out, "sentences", split))
        folder.mkdir(parents=True)
        for file in dataset_files(data, "sentences", split):
            shutil.copyfile(file, folder / Path(file).name)
    record = require_complete(data)
    record["derived"] = derived
    record["splits"]["train"] = {"sentences": train.num_rows,
                                 "sources": sorted(set(pc.unique(train.column("source")).to_pylist()))}
    manifest.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def built_with_proteno(out: Path) -> Path | None:
    """The shared sample and Proteno's sentences built together (None without Proteno's file)."""
    if not PROTENO.exists():
        return None
    if not (out / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "tnforge", "build", str(ROOT.parent / "shared" / "data" / "en_sample.tsv"),
                        str(PROTENO), "--split", "hash", "--defer-to-first", "--out", str(out), "--overwrite"], check=True)
    return out


def same_test(sample: Path, combined: Path) -> bool:
    """Whether the combined build's test split holds the sample's test sentences (and only Proteno's besides)."""
    from tnforge.datasets import read_dataset

    mine = read_dataset(sample, "sentences", "test", ["written"]).column("written").to_pylist()
    theirs = read_dataset(combined, "sentences", "test", ["written", "source"]).to_pylist()
    return sorted(mine) == sorted(r["written"] for r in theirs if r["source"] == "en_sample.tsv")


def tagger_run(name: str, data: Path, minutes: float) -> Path:
    """The span tagger of a curve point: a finished run under build/benchmarks/ reused, else trained."""
    from tnforge.trainers.span_tagger.train import SpanTaggerTrainConfig, train

    run = ROOT / "build" / "benchmarks" / name
    record = run / "run.json"
    if not (record.exists() and json.loads(record.read_text(encoding="utf-8")).get("outcome")):
        train(SpanTaggerTrainConfig(data=str(data), out=str(run), device="cpu", threads=1, max_minutes=minutes,
                                    progress=False), overwrite=True)
    return run


def _bits(right: list[bool]) -> str:
    """Which test sentences are right, as a string of 1 and 0 (in the JSON beside the page)."""
    return "".join("1" if r else "0" for r in right)


def route_point(inverse, sentences: list) -> dict:
    """Sentence accuracy (with its Wilson interval and which sentences are right) and WER of one route."""
    from tnforge.reading.inverse_scoring import score_texts
    from tnforge.trainers.evaluation.significance import wilson_interval

    gold = [s.written for s in sentences]
    written = [" ".join(t.written for t in tokens) for tokens in inverse.read_batch([s.words for s in sentences])]
    right = [score_texts([g], [w])["sentence_accuracy"] == 1 for g, w in zip(gold, written, strict=True)]
    return {**score_texts(gold, written), "right": _bits(right), "interval": wilson_interval(sum(right), len(right))}


def bound(router, sentences: list) -> dict:
    """The candidates' bound (`inverse.oracle`), with which sentences it reads right."""
    from inverse import oracle

    from tnforge.trainers.evaluation.significance import wilson_interval

    right = [oracle(router, [s])["sentence_accuracy"] == 1 for s in sentences]
    return {"sentence_accuracy": sum(right) / len(right), "right": _bits(right),
            "interval": wilson_interval(sum(right), len(right))}


def point(label: str, data: Path, sentences: list, tagger: Path | None) -> dict:
    """One point of the curve: the grammar route (and the tagger route) learned from `data`'s train split."""
    from inverse import model_record

    from tnforge import InverseNormalizer

    grammar = InverseNormalizer.learn(data)
    row = {"label": label, "data": str(data.relative_to(ROOT)), "train_sentences": grammar.conventions.sentences,
           "grammar": route_point(grammar, sentences), "bound": bound(grammar.router, sentences)}
    if tagger is not None:
        tagged = InverseNormalizer.learn(data, tagger=tagger)
        row["tagger"] = {**route_point(tagged, sentences), "run": model_record(tagger),
                         "weight": None if math.isinf(tagged.span_tagger.weight) else tagged.span_tagger.weight}
    return row


def fit(points: list[dict], route: str) -> dict:
    """Accuracy = a + b·log2(train sentences) over the points (least squares); b per doubling, and the train
    sentences where the line reaches `TARGET`, with 95% bootstrap intervals over the test sentences."""
    import numpy as np

    from tnforge.hashing import combine64, stable_hash64

    x = np.log2([p["train_sentences"] for p in points])
    right = np.array([[c == "1" for c in p[route]["right"]] for p in points], dtype=float)  # points × test sentences
    n = right.shape[1]

    def line(accuracy: np.ndarray) -> tuple[float, float]:
        slope, intercept = np.polyfit(x, accuracy, 1)
        return round(float(slope), 12), float(intercept)  # a flat line's float noise (1e-17) is no rise

    def needed(slope: float, intercept: float) -> float:
        doublings = (TARGET - intercept) / slope if slope > 0 else math.inf
        return 2 ** doublings if doublings < 60 else math.inf

    slope, intercept = line(right.mean(axis=1))
    slopes, sizes = [], []
    for b in range(BOOTSTRAP):
        rows = np.asarray(combine64(stable_hash64("inverse-curve", b), np.arange(n, dtype=np.uint64))) % np.uint64(n)
        s, i = line(right[:, rows.astype(np.int64)].mean(axis=1))
        slopes.append(s)
        sizes.append(needed(s, i))
    slopes, sizes = sorted(slopes), sorted(sizes)
    low, high = slopes[int(0.025 * BOOTSTRAP)], slopes[int(0.975 * BOOTSTRAP) - 1]
    size_low, size_high = sizes[int(0.025 * BOOTSTRAP)], sizes[int(0.975 * BOOTSTRAP) - 1]
    return {"slope": slope, "intercept": intercept, "slope_interval": [float(low), float(high)],
            "needed": needed(slope, intercept), "needed_interval": [float(size_low), float(size_high)],
            "positive_share": float(np.mean(np.array(slopes) > 0))}


def measure(sample: Path, minutes: float, tagger: bool, proteno: bool) -> dict:
    """Every point of the curve (`SHARES` of the sample's train split, then the sample plus Proteno) and the fits."""
    from tnforge.itn_sentences import read_itn

    sentences = read_itn(sample, "test")
    work = ROOT / "build" / "benchmarks"
    points = []
    for share in SHARES:
        data = sample if share == 1 else train_share(sample, share, work / f"en-train-{round(share * 100)}")
        run = None
        if tagger:
            run = tagger_run("span-tagger-shared" if share == 1 else f"span-tagger-train-{round(share * 100)}", data,
                             minutes)
        points.append(point(f"{share:.0%} of the sample's train split", data, sentences, run))
    report = {"test_sentences": len(sentences), "minutes": minutes, "points": points,
              "fits": {route: fit(points, route) for route in ("grammar", "tagger", "bound") if route in points[0]}}
    combined = built_with_proteno(work / "en-proteno") if proteno else None
    if combined is not None:
        report["proteno_same_test"] = same_test(sample, combined)
        data = train_share(sample, 1.0, work / "en-plus-proteno", train_from=combined)
        run = tagger_run("span-tagger-plus-proteno", data, minutes) if tagger else None
        report["beyond"] = point("the sample + Proteno (train)", data, sentences, run)
    return report


def _size(value: float) -> str:
    return "never (or over 10¹⁸)" if math.isinf(value) else f"{value:,.0f}" if value < 1e7 else f"{value:.1e}"


def summary(report: dict) -> str:
    """What the curve shows, in words drawn from its figures."""
    whole = report["points"][-1]
    g, b = report["fits"]["grammar"], report["fits"]["bound"]
    times = g["needed"] / whole["train_sentences"]
    text = ("**What it shows.** The grammar route " + (
        f"still rises with data ({g['slope']:+.2%} per doubling; its slope's 95% interval "
        f"{'lies above 0' if g['slope_interval'][0] > 0.001 else 'only just excludes no rise'}, from "
        f"{g['slope_interval'][0]:+.2%})" if g["slope_interval"][0] > 0 else
        f"rises with data in {g['positive_share']:.0%} of the resamples, but its slope's interval includes no rise")
        + (f"; extrapolated along the line, 95% would need about {_size(g['needed'])} train sentences of the sample's "
           f"kind, {times:,.0f} times its train split (95% interval {_size(g['needed_interval'][0])} to "
           f"{_size(g['needed_interval'][1])}) — a long extrapolation from three points." if not math.isinf(g["needed"])
           else "; along the fitted line it does not reach 95%."))
    if whole["bound"]["sentence_accuracy"] < TARGET:
        text += (f" With the full train split even a perfect chooser among the grammar route's candidates reads "
                 f"{whole['bound']['sentence_accuracy']:.1%}: below 95%, so no better model alone meets the target; the "
                 f"candidates' bound rises {b['slope']:+.2%} per doubling (interval {b['slope_interval'][0]:+.2%} to "
                 f"{b['slope_interval'][1]:+.2%}), its line reaching 95% at {_size(b['needed'])} train sentences "
                 f"(interval {_size(b['needed_interval'][0])} to {_size(b['needed_interval'][1])}).")
    t = report["fits"].get("tagger")
    if t:
        text += (f" The tagger route {'rises too' if t['slope_interval'][0] > 0 else 'does not rise clearly'} "
                 f"({t['slope']:+.2%} per doubling, interval {t['slope_interval'][0]:+.2%} to "
                 f"{t['slope_interval'][1]:+.2%}; rising in {t['positive_share']:.0%} of the resamples).")
    beyond = report.get("beyond")
    if beyond:
        change = beyond["grammar"]["sentence_accuracy"] - whole["grammar"]["sentence_accuracy"]
        text += (f" Adding Proteno's {beyond['train_sentences'] - whole['train_sentences']:,} train sentences moves the "
                 f"grammar route by {change:+.1%} and the bound to {beyond['bound']['sentence_accuracy']:.1%}"
                 + (f", the tagger route by {beyond['tagger']['sentence_accuracy'] - whole['tagger']['sentence_accuracy']:+.1%}"
                    if "tagger" in beyond and "tagger" in whole else "")
                 + ": more sentences, but of other conventions (below).")
    return text


def section(report: dict, stamp: str) -> list[str]:
    """The page's section (from `HEADING` on)."""
    rows = report["points"] + ([report["beyond"]] if "beyond" in report else [])
    tagger = "tagger" in report["points"][0]
    lines = [HEADING, "", stamp, "",
             "The grammar route" + (" and the tagger route" if tagger else "") + " learned from a fraction of the "
             "shared sample's train split — the train sentences whose stable hash of their key falls below it "
             "(nested; `benchmarks/inverse_curve.py`) — with the same dev split (the tagger route's weight) and "
             f"scored on the same reversed test split ({report['test_sentences']} sentences). Interval: 95% Wilson. "
             "Candidates' bound: the grammar route's candidates with a perfect chooser (as above)."
             + (f" Each span tagger trained {report['minutes']:g} minutes at most on one CPU thread of a shared "
                "machine (the 100% tagger is the run above)." if tagger else ""), "",
             "| train data | train sentences | grammar: sentence accuracy (95% interval) | WER | candidates' bound"
             + (" | tagger: sentence accuracy (95% interval) | WER | tagger run: stopped, epochs / steps |" if tagger
                else " |"),
             "|---|---|---|---|---|" + ("---|---|---|" if tagger else "")]
    for row in rows:
        g = row["grammar"]
        line = (f"| {row['label']} | {row['train_sentences']:,} | {g['sentence_accuracy']:.1%} "
                f"({g['interval'][0]:.1%}–{g['interval'][1]:.1%}) | {g['wer']:.2%} | {row['bound']['sentence_accuracy']:.1%} |")
        if tagger:
            t = row.get("tagger")
            if t:
                outcome = t["run"]["outcome"]
                line += (f" {t['sentence_accuracy']:.1%} ({t['interval'][0]:.1%}–{t['interval'][1]:.1%}) | "
                         f"{t['wer']:.2%} | {outcome.get('stopped', '—')}, {outcome.get('epochs', '—')} / "
                         f"{outcome.get('steps', '—')} |")
            else:
                line += " | | |"
        lines.append(line)
    lines.append("")
    for route, f in report["fits"].items():
        what = "the candidates' bound" if route == "bound" else f"{route} route"
        lines.append(
            f"**Fit ({what}, the sample's fractions):** accuracy = {f['intercept']:.3f} + {f['slope']:.3f} · "
            f"log2(train sentences): {f['slope']:+.2%} per doubling (95% bootstrap interval {f['slope_interval'][0]:+.2%}"
            f" to {f['slope_interval'][1]:+.2%}; rising in {f['positive_share']:.0%} of {BOOTSTRAP} resamples of the "
            f"test sentences); the line reaches {TARGET:.0%} at {_size(f['needed'])} train sentences (95% interval "
            f"{_size(f['needed_interval'][0])} to {_size(f['needed_interval'][1])}).")
        lines.append("")
    lines += [summary(report), ""]
    if "beyond" in report:
        lines.append("**Beyond the sample.** The sample plus Proteno's English sentences (`../shared/data/proteno_en/"
                     "train.tsv`) built together (`tnforge build ../shared/data/en_sample.tsv ../shared/data/proteno_en/"
                     "train.tsv --split hash --defer-to-first`): the sample's sentences keep their split (the test "
                     f"split's sample sentences are the same: {'yes' if report['proteno_same_test'] else 'no'}); the "
                     "point learns from its whole train split, with the sample's dev and test splits. Proteno has "
                     "conventions of its own (its README: British spellings kept, `colour`, `centre`; classes inferred, "
                     "its own tokenization): more data, but not more of the sample's conventions.")
        lines.append("")
    return lines
