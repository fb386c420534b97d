"""`InverseNormalizer`: spoken text as ASR writes it → written text (inverse text normalization), by the grammar
route, with a trained inverse model (`tnforge train inverse`) choosing among the grammar route's licensed
written forms (`reading.inverse_model`), or with a span tagger (`tnforge train span-tagger`) deciding which spans
are written otherwise and of which class (`reading.inverse_spans`). Beside `Normalizer`, the other direction:

    from tnforge import InverseNormalizer

    inverse = InverseNormalizer.learn("out/sample")            # conventions counted on the train split
    inverse = InverseNormalizer.learn("out/sample", model="runs/inverse-model")   # … and the model's choices
    inverse = InverseNormalizer.learn("out/sample", tagger="runs/span-tagger")    # … or the tagger's spans
    inverse.save("runs/inverse")                               # one folder: inverse.json + conventions.json
    inverse = InverseNormalizer.load("runs/inverse")           # every part's sha256 checked
    inverse.denormalize("it weighs three kilograms")           # 'it weighs 3 kg'
    inverse.explain("it weighs three kilograms")               # each written token: its spoken words, class, why

The folder: `inverse.json` (format, version, tnforge and grammar versions, what it learned from, each part's
sha256; written last), `conventions.json` (`reading.inverse_conventions`), written with sorted keys: the same
dataset gives the same bytes; with a model, `model.pt` (the inverse run's best checkpoint, as trained); with a
span tagger, `tagger.pt` (the span tagger run's best checkpoint).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from tnforge.itn_sentences import asr_words
from tnforge.reading.inverse_conventions import Conventions, learn
from tnforge.reading.inverse_route import InverseToken, Router

FORMAT = "tnforge-inverse-normalizer"
VERSION = 1
MANIFEST = "inverse.json"
CONVENTIONS = "conventions.json"
MODEL = "model.pt"
TAGGER = "tagger.pt"


def _inversion():
    from tnforge.grammars import adapter

    try:
        return adapter.inversion(asr_words), adapter.version(), adapter.language()
    except adapter.GrammarUnavailable as error:
        raise ValueError(f"the inverse normalizer needs the covering grammar: {error}") from error


def _number(value: float | None) -> float:
    """A margin or weight as the manifest records it (None: ∞)."""
    return math.inf if value is None else float(value)


def _dumps(data: dict) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


class InverseNormalizer:
    """Spoken words → written tokens with conventions learned from a train split, guarded by the covering
    grammar: a written form is chosen only when its class's grammar reads it as the span."""

    def __init__(self, conventions: Conventions, trained_on: dict | None = None, model: Path | None = None,
                 margin: float = 0.0, tagger: Path | None = None) -> None:
        """`model`: an inverse model's checkpoint file (`tnforge train inverse`), loaded on the CPU; its best
        candidate replaces the route's choice when it scores more than `margin` above it. `tagger`: a span
        tagger's checkpoint file (`tnforge train span-tagger`): its spans and classes are written, the grammar
        route's tags weighing `margin`, and `model` chooses among a tagged span's written forms
        (`reading.inverse_spans.TaggerRoute`)."""
        inversion, self.grammar_version, self.grammar_language = _inversion()
        self.conventions = conventions
        self.trained_on = trained_on or {}
        self.router = Router(conventions, inversion)
        self.model_file = model
        self.chooser = None
        self.tuning: dict = {}
        self.tagger_file = tagger
        self.span_tagger = None
        if model is not None:
            from tnforge.reading.inverse_model import ModelChooser, load_inverse_model

            self.chooser = ModelChooser(load_inverse_model(str(model)), margin)
        if tagger is not None:
            from tnforge.reading.inverse_spans import TaggerRoute
            from tnforge.trainers.families import load

            self.span_tagger = TaggerRoute(load(str(tagger), "cpu", kind="spans")[1], margin, self.chooser)
            self.chooser = None

    def __repr__(self) -> str:
        return (f"InverseNormalizer({len(self.conventions.spans):,} spans, {len(self.conventions.patterns):,} "
                f"patterns from {self.conventions.sentences:,} sentences"
                + (f", span tagger {self.tagger_file}" if self.tagger_file else "")
                + (f", model {self.model_file})" if self.model_file else ")"))

    @classmethod
    def learn(cls, data: str | os.PathLike, split: str = "train", model: str | os.PathLike | None = None,
              tagger: str | os.PathLike | None = None) -> InverseNormalizer:
        """Count the written conventions of a built dataset's split (`tnforge build`); with `model`, an inverse
        run (`tnforge train inverse`: its folder or checkpoint) chooses among the licensed written forms, with the
        margin that reads the dev split best (`reading.inverse_model.tune_margin`; none without dev sentences);
        with `tagger`, a span tagger run (`tnforge train span-tagger`) decides the spans and their classes, with the
        weight of the grammar route's tags that reads the dev split best (`reading.inverse_spans.tune_weight`), and
        `model`, if given too, chooses among a tagged span's written forms."""
        from tnforge.itn_sentences import read_itn

        sentences = read_itn(data, split)
        if not sentences:
            raise ValueError(f"{data}: no {split} sentences to learn conventions from")
        if model is not None or tagger is not None:
            from tnforge.trainers.training.checkpoints import checkpoint_file

            model = checkpoint_file(model) if model is not None else None
            tagger = checkpoint_file(tagger) if tagger is not None else None
        inversion = _inversion()[0]
        trained_on = {"data": str(data), "split": split, "sentences": len(sentences),
                      **({"model": str(model)} if model is not None else {}),
                      **({"tagger": str(tagger)} if tagger is not None else {})}
        inverse = cls(learn(sentences, inversion.numbers), trained_on, model, tagger=tagger)
        dev = read_itn(data, "dev") if (inverse.chooser or inverse.span_tagger) is not None and split != "dev" else []
        if dev and inverse.span_tagger is not None:
            from tnforge.reading.inverse_spans import tune_weight

            inverse.span_tagger.weight, accuracy = tune_weight(inverse.span_tagger, inverse.router, dev)
            inverse.tuning = {"split": "dev", "sentences": len(dev), "sentence_accuracy": accuracy}
        elif dev:
            from tnforge.reading.inverse_model import tune_margin

            inverse.chooser.margin, accuracy = tune_margin(inverse.chooser, inverse.router, dev)
            inverse.tuning = {"split": "dev", "sentences": len(dev), "sentence_accuracy": accuracy}
        return inverse

    def save(self, out: str | os.PathLike, overwrite: bool = False) -> Path:
        """Write the folder `out` (the manifest last); ValueError when `out` holds something and not `overwrite`."""
        import tnforge
        from tnforge.filesystems import write_atomically

        out = Path(out)
        if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not overwrite)):
            raise ValueError(f"{out} is not an empty folder: add --overwrite to replace it")
        out.mkdir(parents=True, exist_ok=True)
        parts = {CONVENTIONS: _dumps(self.conventions.to_json())}
        if self.tagger_file is not None:
            parts[TAGGER] = Path(self.tagger_file).read_bytes()
        if self.model_file is not None:
            parts[MODEL] = Path(self.model_file).read_bytes()
        for name, body in parts.items():
            with write_atomically(str(out / name)) as handle:
                handle.write(body)
        for name in {MODEL, TAGGER} - set(parts):
            (out / name).unlink(missing_ok=True)  # an overwritten folder keeps no model it no longer names
        manifest = {"format": FORMAT, "version": VERSION, "tnforge": tnforge.__version__,
                    "grammar": {"version": self.grammar_version, "language": self.grammar_language},
                    "trained_on": self.trained_on,
                    "route": "tagger" if TAGGER in parts else "model" if MODEL in parts else "grammar",
                    **({"margin": None if math.isinf(self.chooser.margin) else self.chooser.margin,
                        "tuning": self.tuning} if self.chooser else {}),
                    **({"weight": None if math.isinf(self.span_tagger.weight) else self.span_tagger.weight,
                        "tuning": self.tuning} if self.span_tagger else {}),
                    "parts": {name: hashlib.sha256(body).hexdigest() for name, body in parts.items()}}
        with write_atomically(str(out / MANIFEST)) as handle:
            handle.write(_dumps(manifest))
        return out

    @classmethod
    def load(cls, path: str | os.PathLike) -> InverseNormalizer:
        """Open a saved folder, checking its format and every part's sha256 (ValueError, one line, if not)."""
        path = Path(path)
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            run = " (a training run: pass it as --model to `tnforge denormalizer learn`)" if (
                path / "run.json").is_file() else ""
            raise ValueError(f"{path}: not an inverse normalizer{run} (no {MANIFEST}; make one with "
                             "`tnforge denormalizer learn`)")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{manifest_path}: not a readable manifest ({error})") from None
        if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
            raise ValueError(f"{manifest_path}: format {manifest.get('format')!r} version {manifest.get('version')!r}, "
                             f"expected {FORMAT!r} version {VERSION}")
        parts = manifest.get("parts") or {}
        for name, digest in sorted(parts.items()):
            body = (path / name).read_bytes() if (path / name).is_file() else b""
            if hashlib.sha256(body).hexdigest() != digest:
                raise ValueError(f"{path / name}: missing or changed since it was saved (sha256 differs)")
        if CONVENTIONS not in parts:
            raise ValueError(f"{manifest_path}: names no {CONVENTIONS}")
        conventions = json.loads((path / CONVENTIONS).read_bytes())
        inverse = cls(Conventions.from_json(conventions), manifest.get("trained_on"),
                      path / MODEL if MODEL in parts else None,
                      _number(manifest.get("weight" if TAGGER in parts else "margin", 0.0)),
                      path / TAGGER if TAGGER in parts else None)
        inverse.tuning = manifest.get("tuning", {})
        return inverse

    def read(self, text: str) -> list[InverseToken]:
        """The written tokens of one spoken text (made ASR-style first: lower case, no punctuation)."""
        return self.read_words(asr_words(text))

    def read_words(self, words: Sequence[str]) -> list[InverseToken]:
        """The written tokens of words already ASR-style."""
        return self.read_batch([words])[0]

    def read_batch(self, sentences: Sequence[Sequence[str]]) -> list[list[InverseToken]]:
        """The written tokens of several sentences of ASR-style words (with a model: scored in one pass; with
        the margin ∞ that dev may choose, the grammar route itself, the model not run; with a span tagger, the
        sentences tagged in one pass)."""
        if self.span_tagger is not None:
            return self.span_tagger.read_batch(self.router, sentences)
        if self.chooser is None or math.isinf(self.chooser.margin):
            return [self.router.read(words) for words in sentences]
        return self.chooser.read_batch(self.router, sentences)

    def read_texts(self, texts: Sequence[str]) -> list[list[InverseToken]]:
        """`read` of several spoken texts."""
        return self.read_batch([asr_words(text) for text in texts])

    def denormalize(self, text: str) -> str:
        """Spoken text → written text: the written tokens joined by single spaces."""
        return " ".join(token.written for token in self.read(text))

    def denormalize_batch(self, texts: Iterable[str]) -> list[str]:
        return [" ".join(token.written for token in tokens) for tokens in self.read_texts(list(texts))]

    def denormalize_stream(self, texts: Iterable[str]) -> Iterator[str]:
        return (self.denormalize(text) for text in texts)

    def explain(self, text: str) -> list[InverseToken]:
        """Each written token with the spoken words it came from (`words`, `start`..`end` in the ASR-style
        words), its class and its source (convention, pattern, letters, as spoken; model: the inverse model
        chose it among the span's licensed written forms; tagger: the span tagger chose its span and class)."""
        return self.read(text)
