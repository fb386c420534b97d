"""Benchmark: inverse text normalization (`tnforge.InverseNormalizer`) by the grammar route, by the neural
route (an inverse model choosing among the grammar route's licensed candidates) and by the tagger route (a span
tagger deciding which spans are written otherwise and of which class), side by side, on one thread.

For each dataset (default: the shared sample `../shared/data/en_sample.tsv` and the bundled sample, each built
under build/benchmarks/ when missing) the conventions are learned from its train split, an inverse model is
trained on it (`tnforge train inverse`, `--train-minutes` on one CPU thread, into
build/benchmarks/inverse-model-NAME; a finished run there is reused), and so is a span tagger (`tnforge train
span-tagger`, `--train-minutes`, into build/benchmarks/span-tagger-NAME), and its test split is
turned around (`tnforge.itn_sentences`: spoken words as ASR writes them → the written sentence). Measured:
sentence accuracy and WER of the written output (scoring: `tnforge.reading.inverse_scoring`), per class,
meaning-changing errors as the gold class's grammar judges them, sentences/s on one thread (the first pass,
caches cold, and a second one), and how many wrong sentences hinge on a span the train split itself writes two
ways or more (`tnforge.itn_windows.written_ways`: "organized" / "organised", "two" / "2"). NeMo-text-processing's `InverseNormalizer` runs on the same spoken sentences
with the same scoring when its virtual environment exists (`--nemo-venv`, default build/nemo-venv: `python3.11
-m venv build/nemo-venv && build/nemo-venv/bin/pip install nemo-text-processing==1.2.0`). Writes
docs/results/inverse.{md,json}, with a learning curve (`benchmarks/inverse_curve.py`: the grammar and tagger
routes learned from 25%, 50% and 100% of the shared sample's train split, and from the sample plus Proteno's
sentences) as the page's last section; `--curve-only` measures the curve alone and replaces only that section (and
the JSON's "curve").

    python benchmarks/inverse.py
    python benchmarks/inverse.py --curve-only
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import inverse_curve

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
SHARED = ROOT.parent / "shared" / "data" / "en_sample.tsv"
#: Targets of issue #37 on the reversed shared test split.
TARGETS = {"sentence_accuracy": 0.95, "meaning_errors_class_right": 0, "sentences_per_s": 300.0}
#: The routes: the grammar's conventions alone, the inverse model choosing among their candidates, the span tagger
#: choosing spans and classes, and the span tagger with the inverse model choosing among a tagged span's forms.
ROUTES = ("grammar", "neural", "tagger", "tagger + model")


def built(name: str, corpus: Path | None) -> Path:
    """A dataset built once under build/benchmarks/NAME (corpus None: the bundled sample)."""
    out = ROOT / "build" / "benchmarks" / name
    if not (out / "manifest.json").exists():
        command = [sys.executable, "-m", "tnforge", "build", *([str(corpus)] if corpus else []), "--out", str(out),
                   "--overwrite"]
        subprocess.run(command, check=True)
    return out


def nemo(venv: Path, spoken: list[str], timeout: int) -> dict | None:
    """NeMo's written sentences and seconds (after loading), or None when its venv is missing or fails."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        source, out = Path(scratch) / "in.txt", Path(scratch) / "out.txt"
        source.write_text("".join(line + "\n" for line in spoken), encoding="utf-8")
        cache = ROOT / "build" / "nemo-cache"
        cache.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        try:
            done = subprocess.run([str(python), str(Path(__file__).with_name("nemo_inverse_peer.py")), str(source),
                                   str(out), str(cache)], capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return None
        seconds = float(done.stderr.strip().splitlines()[-1].split()[-1])
        return {"written": out.read_text(encoding="utf-8").splitlines(), "seconds": seconds}


def trained_run(folder: str, data: Path, minutes: float, module: str, config: str) -> Path:
    """A dataset's run of a family (`module`'s `train` with its `config` class) under build/benchmarks/FOLDER: a
    finished run reused, else trained (one thread, `minutes` at most)."""
    import importlib

    family = importlib.import_module(module)
    run = ROOT / "build" / "benchmarks" / folder
    record = run / "run.json"
    if not (record.exists() and json.loads(record.read_text(encoding="utf-8")).get("outcome")):
        family.train(getattr(family, config)(data=str(data), out=str(run), device="cpu", threads=1,
                                             max_minutes=minutes, progress=False), overwrite=True)
    return run


def trained_model(name: str, data: Path, minutes: float) -> Path:
    """The inverse model of a dataset (`trained_run`)."""
    return trained_run(f"inverse-model-{name.split()[0]}", data, minutes, "tnforge.trainers.inverse.train",
                       "InverseTrainConfig")


def trained_tagger(name: str, data: Path, minutes: float) -> Path:
    """The span tagger of a dataset (`trained_run`)."""
    return trained_run(f"span-tagger-{name.split()[0]}", data, minutes, "tnforge.trainers.span_tagger.train",
                       "SpanTaggerTrainConfig")


def gold_tags_bound(router, sentences: list) -> dict:
    """Sentence accuracy of the tagger route given the gold tags (`tnforge.itn_tags.span_tags`): the most a
    perfect span tagger reaches with the written forms the route then chooses."""
    from tnforge.itn_tags import span_tags
    from tnforge.reading.inverse_scoring import score_texts
    from tnforge.reading.inverse_spans import read_tagged

    written = [" ".join(t.written for t in read_tagged(router, s.words, span_tags(s), router.read(s.words)))
               for s in sentences]
    return score_texts([s.written for s in sentences], written)


def model_record(run: Path) -> dict:
    """What the page says of a trained inverse model: its budget, where it stopped, its best dev figures."""
    record = json.loads((run / "run.json").read_text(encoding="utf-8"))
    config = record.get("config", {})
    return {"run": str(run.relative_to(ROOT)), "max_minutes": config.get("max_minutes"),
            "threads": config.get("threads"), "network": config.get("model"), "outcome": record.get("outcome") or {}}


def covering(tokens: list, start: int, end: int) -> str | None:
    """The written text of the predicted tokens that tile exactly words start..end (None when none do)."""
    inside = [t for t in tokens if start <= t.start and t.end <= end]
    if not inside or inside[0].start != start or inside[-1].end != end or any(
            a.end != b.start for a, b in zip(inside, inside[1:], strict=False)):
        return None
    return " ".join(t.written for t in inside)


def ambiguity(sentences: list, predicted: list[list], ways: dict) -> dict:
    """Of the wrong sentences: how many have a wrong gold token whose span the train split writes ≥ 2 ways (some
    of their wrong tokens, all of them), and the spans that recur most."""
    from tnforge.itn_windows import scored
    from tnforge.reading.inverse_scoring import score_texts

    wrong = some = every = 0
    spans: dict[str, int] = {}
    for sentence, tokens in zip(sentences, predicted, strict=True):
        if score_texts([sentence.written], [" ".join(t.written for t in tokens)])["sentence_accuracy"] == 1:
            continue
        wrong += 1
        missed = []
        for token in sentence.tokens:
            if token.start == token.end:
                continue
            written = covering(tokens, token.start, token.end)
            if written is None or scored(written) != scored(token.written):
                missed.append(" ".join(sentence.words[token.start:token.end]))
        both = [span for span in missed if len(ways.get(span, ())) > 1]
        some += bool(both)
        every += bool(missed) and len(both) == len(missed)
        for span in both:
            spans[span] = spans.get(span, 0) + 1
    top = sorted(spans.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    return {"wrong": wrong, "some_ambiguous": some, "all_ambiguous": every,
            "spans": [[span, count, dict(ways[span].most_common(3))] for span, count in top]}


def oracle(router, sentences: list) -> dict:
    """Sentence accuracy of a chooser that always took, among each span's candidates (`Router.proposals`, loose),
    the one written as the gold tokens that tile the span (the route's choice where none is): the most the neural
    route can reach with these candidates."""
    from tnforge.itn_windows import scored
    from tnforge.reading.inverse_scoring import score_texts

    written = []
    for sentence in sentences:
        spoken = [t for t in sentence.tokens if t.start < t.end]
        out = []
        for proposal in router.proposals(sentence.words, loose=True):
            gold = covering(spoken, proposal.start, proposal.end)
            out.append(next((c.written for c in proposal.candidates if gold is not None
                             and scored(c.written) == scored(gold)), proposal.candidates[0].written))
        written.append(" ".join(out))
    return score_texts([s.written for s in sentences], written)


def route_row(inverse, sentences: list, ways: dict) -> dict:
    """One route's figures on the sentences (read in one batch: the neural route scores them together)."""
    from tnforge.reading.inverse_scoring import score_texts, score_tokens

    gold = [s.written for s in sentences]
    words = [s.words for s in sentences]
    started = time.perf_counter()
    predicted = inverse.read_batch(words)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    again = inverse.read_batch(words)
    warm = time.perf_counter() - started
    assert again == predicted
    written = [" ".join(t.written for t in tokens) for tokens in predicted]
    row = {**score_texts(gold, written),
           "sentences_per_s": len(sentences) / max(cold, 1e-9), "sentences_per_s_warm": len(sentences) / max(warm, 1e-9),
           "classes": score_tokens(sentences, predicted, inverse.router.inversion.licenses_span),
           "ambiguity": ambiguity(sentences, predicted, ways),
           "wrong": [[s.spoken, g, w] for s, g, w in zip(sentences, gold, written, strict=True)
                     if score_texts([g], [w])["sentence_accuracy"] < 1][:12]}
    row["meaning_errors_class_right"] = sum(c["meaning_errors_class_right"] for c in row["classes"].values())
    row["meaning_errors"] = sum(c["meaning_errors"] for c in row["classes"].values())
    return row


def measure(name: str, data: Path, split: str, venv: Path, timeout: int, minutes: float) -> dict:
    import torch

    from tnforge import InverseNormalizer
    from tnforge.itn_sentences import read_itn
    from tnforge.itn_windows import written_ways
    from tnforge.reading.inverse_scoring import score_texts

    torch.set_num_threads(1)
    model = trained_model(name, data, minutes)
    tagger = trained_tagger(name, data, minutes)
    sentences = read_itn(data, split)
    ways = written_ways(read_itn(data, "train"))
    grammar = InverseNormalizer.learn(data)
    neural = InverseNormalizer.learn(data, model=model)
    tagged = InverseNormalizer.learn(data, tagger=tagger)
    both = InverseNormalizer.learn(data, model=model, tagger=tagger)
    row = {"name": name, "data": str(data), "split": split, "train_sentences": grammar.conventions.sentences,
           "model": model_record(model), "tagger": model_record(tagger),
           "routes": {"grammar": route_row(grammar, sentences, ways),
                      "neural": route_row(neural, sentences, ways),
                      "tagger": route_row(tagged, sentences, ways),
                      "tagger + model": route_row(both, sentences, ways)},
           "margin": None if math.isinf(neural.chooser.margin) else neural.chooser.margin, "tuning": neural.tuning,
           "weight": None if math.isinf(tagged.span_tagger.weight) else tagged.span_tagger.weight,
           "tagger_tuning": tagged.tuning,
           "weight_with_model": None if math.isinf(both.span_tagger.weight) else both.span_tagger.weight,
           "oracle": oracle(grammar.router, sentences), "gold_tags": gold_tags_bound(grammar.router, sentences)}
    gold = [s.written for s in sentences]
    peer = nemo(venv, [s.spoken for s in sentences], timeout)
    if peer is not None:
        row["nemo"] = {**score_texts(gold, peer["written"]), "sentences_per_s": len(sentences) / max(peer["seconds"], 1e-9)}
    return row


def _shown(value: float | None) -> str:
    """A margin or weight as the page shows it (None: ∞)."""
    return "∞" if value is None else f"{value:g}"


def _percent(part: int, whole: int) -> str:
    return f"{part} ({part / whole:.0%})" if whole else "0"


def markdown(report: dict) -> str:
    lines = ["# Inverse text normalization: the grammar route, the neural route and the tagger route", "",
             f"Measured {report['date']} on {report['machine']} (load average at start {report['load_average'][0]:.1f}), "
             "one thread, by `benchmarks/inverse.py`. Conventions learned from each dataset's train split; scored on "
             "its test split turned around (spoken words as ASR writes them → the written sentence). The **grammar** "
             "route writes each span in the form the train split mostly used; the **neural** route lets an inverse "
             "model (`tnforge train inverse`, trained on the same train split) choose, in context, among the written "
             "forms the grammar route proposes and the class's covering grammar licenses (and the words as spoken); the "
             "**tagger** route lets a span tagger (`tnforge train span-tagger`, trained on the same train split) say, "
             "per spoken word, whether it is written as spoken or is part of a token of which class written otherwise, "
             "and writes each tagged span in the class's licensed form the train split offers for exactly that span "
             "(the grammar route's where it reads the span so; the grammar route over the span where there is none); "
             "**tagger + model**: the same, the inverse model choosing where a tagged span has two such forms or more.",
             "",
             "**Scoring.** Written texts are compared lower-cased, every punctuation character (Unicode category P) "
             "made a space, split on whitespace (`$`, `%`, `°` kept): a sentence is right when its words equal the "
             "gold's; WER is the word edit distance over the gold words. Per class, a gold token is right when a "
             "written token covers exactly its spoken span with the same words. A written form for exactly a gold "
             "token's span that differs from the gold is *meaning-changing* when the gold class's covering grammar "
             "does not read it as the span and it is not the spoken words themselves; *class right*: among tokens "
             "written in the gold class. NeMo-text-processing 1.2.0's `InverseNormalizer` (lower-cased English "
             "grammars, its own virtual environment) reads the same spoken sentences and is scored the same way "
             "(sentence level only: it gives no spans).", "",
             "| data | route | sentences | sentence accuracy | WER | meaning-changing (class right / all) "
             "| sentences/s (cold / warm) |", "|---|---|---|---|---|---|---|"]
    for row in report["datasets"]:
        for route in ROUTES:
            r = row["routes"][route]
            lines.append(f"| {row['name']} ({row['split']}) | {route} | {r['sentences']} | {r['sentence_accuracy']:.1%} | "
                         f"{r['wer']:.2%} | {r['meaning_errors_class_right']} / {r['meaning_errors']} | "
                         f"{r['sentences_per_s']:,.0f} / {r['sentences_per_s_warm']:,.0f} |")
        peer = row.get("nemo")
        if peer:
            lines.append(f"| {row['name']} ({row['split']}) | NeMo 1.2.0 | {peer['sentences']} | "
                         f"{peer['sentence_accuracy']:.1%} | {peer['wer']:.2%} | | {peer['sentences_per_s']:,.0f} |")
        else:
            lines.append(f"| {row['name']} ({row['split']}) | NeMo 1.2.0 | not run (no {report['nemo_venv']}) | | | | |")
    lines += ["", "Sentences/s: the neural route reads the split in one batch (its candidates scored together), the "
              "grammar route sentence by sentence, the tagger route tags the split in one batch (and reads it with the grammar "
              "route first, for its tags; with the model, its choices are scored in one batch too); cold is the first "
              "pass (grammar caches empty), warm the second.",
              "", "## The inverse models and their training budget", "",
              "Each trained by `tnforge train inverse` (the seq2seq network over spoken window characters → the "
              "written form's characters, digits as 0) on one CPU thread of a machine shared with other work, within "
              "the budget below; a finished run in the folder is reused.", "",
              "| data | run | budget (minutes) | network | stopped | epochs / steps | best dev (greedy written form) |",
              "|---|---|---|---|---|---|---|"]
    for row in report["datasets"]:
        m = row["model"]
        outcome = m["outcome"]
        best = outcome.get("best") or {}
        network = ", ".join(f"{k} {v}" for k, v in sorted((m["network"] or {}).items()))
        dev = f"{best['dev_accuracy']:.1%} at step {best['step']}" if "dev_accuracy" in best else "—"
        lines.append(f"| {row['name']} | `{m['run']}` | {m['max_minutes']:g} | {network} | {outcome.get('stopped', '—')} "
                     f"| {outcome.get('epochs', '—')} / {outcome.get('steps', '—')} | {dev} |")
    lines += ["", "## The span taggers and their training budget", "",
              "Each trained by `tnforge train span-tagger` (word embeddings, a character CNN and the tag the train "
              "split's lexicon of spans written otherwise gives each word — in training the lexicon of the other "
              "folds of the train split — "
              "through a bidirectional LSTM, a tag a word: O, B-CLASS, I-CLASS) on one CPU thread of a machine shared "
              "with other work, within the budget below; a finished run in the folder is reused. Dev: the share of "
              "dev sentences whose every tag is right, and the F1 of the tagged spans.", "",
              "| data | run | budget (minutes) | network | stopped | epochs / steps | best dev (sentences tagged right; spans F1) |",
              "|---|---|---|---|---|---|---|"]
    for row in report["datasets"]:
        m = row["tagger"]
        outcome = m["outcome"]
        best = outcome.get("best") or {}
        network = ", ".join(f"{k} {v}" for k, v in sorted((m["network"] or {}).items()))
        dev = (f"{best['dev_sentence_accuracy']:.1%}; {best['dev_span_f1']:.1%} at step {best['step']}"
               if "dev_sentence_accuracy" in best else "—")
        lines.append(f"| {row['name']} | `{m['run']}` | {m['max_minutes']:g} | {network} | {outcome.get('stopped', '—')} "
                     f"| {outcome.get('epochs', '—')} / {outcome.get('steps', '—')} | {dev} |")
    lines += ["", "## Targets (issue #37, the reversed shared test split)", "", "| target | route | measured | met |",
              "|---|---|---|---|"]
    for target in report["targets"]:
        lines.append(f"| {target['target']} | {target['route']} | {target['measured']} | {'yes' if target['met'] else 'no'} |")
    lines += ["", "## How many errors hinge on a choice the train split makes both ways", "",
              "Of the wrong test sentences: those with a wrong gold token whose spoken span the *train* split itself "
              "writes in two ways or more (after scoring: \"organized\" / \"organised\", \"two\" / \"2\" / \"II\", "
              "\"and\" / \"&\"), and those whose every wrong token is such a span. Counts only; the scoring is "
              "unchanged. ∅: a form that scores as no word (`&`, `-`: punctuation).", "",
              "| data | route | wrong sentences | with a span written both ways in train | only such spans | most frequent such spans (train's forms) |",
              "|---|---|---|---|---|---|"]
    for row in report["datasets"]:
        for route in ROUTES:
            a = row["routes"][route]["ambiguity"]
            spans = "; ".join(f"{span} ×{count} ({', '.join(f'{k or chr(8709)} {v}' for k, v in forms.items())})"
                              for span, count, forms in a["spans"]).replace("|", "\\|")
            lines.append(f"| {row['name']} | {route} | {a['wrong']} | {_percent(a['some_ambiguous'], a['wrong'])} | "
                         f"{_percent(a['all_ambiguous'], a['wrong'])} | {spans} |")
    lines += ["", "**The candidates' bound.** Choosing, in every span the route proposes, the candidate written as the "
              "gold (where there is one) would give the sentence accuracy below: the most a better model can reach "
              "with these candidates; the rest needs spans or written forms the grammar route does not propose. "
              "**Gold tags' bound**: the tagger route given the gold tags (a perfect span tagger). "
              "**Margin**: the neural route writes the model's best candidate only when its log-probability is more "
              "than this above the grammar route's choice (chosen on the dev split among "
              "0, 0.5, 1, 2, 3, 4, 6, 8, 12 and ∞ — ∞ is the grammar route itself; the largest of equals). "
              "**Weight**: the tagger route adds this to the log-probability of the grammar route's own tag of each "
              "word before decoding the tags (chosen on the dev split among 0, 0.5, 1, 2, 3, 4, 6, 8 and ∞ — ∞ is the "
              "grammar route itself; the smallest of equals; chosen again with the model for tagger + model).", "",
              "| data | candidates' bound | gold tags' bound | margin chosen on dev | dev sentence accuracy at that "
              "margin / at ∞ | weight chosen on dev | dev sentence accuracy at that weight / at 0 "
              "| weight chosen on dev (tagger + model) |",
              "|---|---|---|---|---|---|---|---|"]
    for row in report["datasets"]:
        tuning = row["tuning"].get("sentence_accuracy", {})
        margin = row["margin"]
        at = tuning.get("inf" if margin is None else str(float(margin)))
        dev = f"{at:.1%} / {tuning['inf']:.1%}" if at is not None else "no dev split"
        tagger_tuning = row["tagger_tuning"].get("sentence_accuracy", {})
        weight = row["weight"]
        at = tagger_tuning.get("inf" if weight is None else str(float(weight)))
        tagger_dev = f"{at:.1%} / {tagger_tuning['0.0']:.1%}" if at is not None else "no dev split"
        lines.append(f"| {row['name']} | {row['oracle']['sentence_accuracy']:.1%} | "
                     f"{row['gold_tags']['sentence_accuracy']:.1%} | "
                     f"{'∞' if margin is None else f'{margin:g}'} | {dev} | "
                     f"{_shown(weight)} | {tagger_dev} | "
                     f"{_shown(row['weight_with_model'])} |")
    for row in report["datasets"]:
        routes = [row["routes"][route] for route in ROUTES]
        lines += ["", f"## Per class: {row['name']}", "",
                  "| class | tokens | right (grammar / neural / tagger) | written in the gold class (grammar / neural / "
                  "tagger) | meaning-changing, class right / all (grammar; neural; tagger) | examples (tagger) |",
                  "|---|---|---|---|---|---|"]
        for cls, g in routes[0]["classes"].items():
            found = [r["classes"][cls] for r in routes]
            examples = "; ".join(found[-1]["examples"]).replace("|", "\\|")
            right = " / ".join(f"{c['right'] / c['tokens']:.1%}" for c in found)
            in_class = " / ".join(f"{c['class_right'] / c['tokens']:.1%}" for c in found)
            changing = "; ".join(f"{c['meaning_errors_class_right']} / {c['meaning_errors']}" for c in found)
            lines.append(f"| {cls} | {g['tokens']} | {right} | {in_class} | {changing} | {examples} |")
        lines += ["", "Some sentences the tagger route writes wrong (spoken → gold | written):", ""]
        lines += [f"- `{spoken}` → `{gold}` | `{written}`" for spoken, gold, written in routes[-1]["wrong"]]
    return "\n".join(lines) + "\n"


def targets(rows: list[dict]) -> list[dict]:
    shared = next((row for row in rows if row["name"] == "shared sample"), None)
    if shared is None:
        return []
    found = []
    for route in ROUTES:
        r = shared["routes"][route]
        found += [{"target": "sentence accuracy ≥ 95%", "route": route, "measured": f"{r['sentence_accuracy']:.1%}",
                   "met": r["sentence_accuracy"] >= TARGETS["sentence_accuracy"]},
                  {"target": "0 meaning-changing errors where the class is right", "route": route,
                   "measured": str(r["meaning_errors_class_right"]), "met": r["meaning_errors_class_right"] == 0},
                  {"target": "≥ 300 sentences/s on one thread (cold)", "route": route,
                   "measured": f"{r['sentences_per_s']:,.0f}", "met": r["sentences_per_s"] >= TARGETS["sentences_per_s"]}]
        peer = shared.get("nemo")
        if peer:
            found.append({"target": "ahead of NeMo's WFST", "route": route,
                          "measured": f"{r['sentence_accuracy']:.1%} vs {peer['sentence_accuracy']:.1%}",
                          "met": r["sentence_accuracy"] > peer["sentence_accuracy"]})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="test")
    parser.add_argument("--nemo-venv", type=Path, default=ROOT / "build" / "nemo-venv")
    parser.add_argument("--nemo-timeout", type=int, default=900, help="seconds NeMo may take per dataset")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--train-minutes", type=float, default=4.0,
                        help="budget of each inverse model's training (one CPU thread)")
    parser.add_argument("--curve-only", action="store_true",
                        help="measure the learning curve alone and replace only its section of the page")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    load = os.getloadavg()
    if args.curve_only:
        return curve_only(args, load)
    datasets = [("bundled sample", built("bundled", None))]
    if SHARED.exists():
        datasets.insert(0, ("shared sample", built("en", SHARED)))
    rows = [measure(name, data, args.split, args.nemo_venv, args.nemo_timeout, args.train_minutes)
            for name, data in datasets]
    report = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": f"{os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, shared",
              "load_average": load, "nemo_venv": str(args.nemo_venv.relative_to(ROOT) if args.nemo_venv.is_relative_to(ROOT)
                                                      else args.nemo_venv),
              "datasets": rows, "targets": targets(rows)}
    if SHARED.exists():
        report["curve"] = curve(args, load)
    from tnforge.filesystems import write_text_files

    page = markdown(report) + ("\n" + "\n".join(inverse_curve.section(report["curve"], report["curve"]["stamp"]))
                               if "curve" in report else "")
    write_text_files(args.out, {"inverse.json": json.dumps(report, indent=1, ensure_ascii=False) + "\n", "inverse.md": page})
    print(page)


def curve(args: argparse.Namespace, load: tuple[float, float, float]) -> dict:
    """The learning curve (`inverse_curve.measure`) of the shared sample, with the stamp its section shows."""
    import torch

    torch.set_num_threads(1)
    report = inverse_curve.measure(built("en", SHARED), args.train_minutes, tagger=True, proteno=True)
    report["stamp"] = (f"Measured {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')} on "
                       f"{os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, shared (load average "
                       f"at start {load[0]:.1f}), one thread, by `benchmarks/inverse.py --curve-only`.")
    return report


def curve_only(args: argparse.Namespace, load: tuple[float, float, float]) -> None:
    """`--curve-only`: measure the curve and replace only its section of the page (the page's last) and its key
    of the JSON beside it."""
    if not SHARED.exists():
        sys.exit(f"no {SHARED}: the learning curve needs the shared sample")
    report = curve(args, load)
    page_file, json_file = args.out / "inverse.md", args.out / "inverse.json"
    head = page_file.read_text(encoding="utf-8").partition(inverse_curve.HEADING)[0].rstrip("\n") if page_file.exists() else ""
    figures = json.loads(json_file.read_text(encoding="utf-8")) if json_file.exists() else {}
    figures["curve"] = report
    section = "\n".join(inverse_curve.section(report, report["stamp"]))
    from tnforge.filesystems import write_text_files

    write_text_files(args.out, {"inverse.json": json.dumps(figures, indent=1, ensure_ascii=False) + "\n",
                                "inverse.md": (head + "\n\n" if head else "") + section})
    print(section)


if __name__ == "__main__":
    main()
