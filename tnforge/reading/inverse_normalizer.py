"""`InverseNormalizer`: spoken text as ASR writes it → written text, by the grammar route (inverse text
normalization). Beside `Normalizer`, the other direction:

    from tnforge import InverseNormalizer

    inverse = InverseNormalizer.learn("out/sample")            # conventions counted on the train split
    inverse.save("runs/inverse")                               # one folder: inverse.json + conventions.json
    inverse = InverseNormalizer.load("runs/inverse")           # every part's sha256 checked
    inverse.denormalize("it weighs three kilograms")           # 'it weighs 3 kg'
    inverse.explain("it weighs three kilograms")               # each written token: its spoken words, class, why

The folder: `inverse.json` (format, version, tnforge and grammar versions, what it learned from, each part's
sha256; written last) and `conventions.json` (`reading.inverse_conventions`), written with sorted keys: the same
dataset gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
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


def _inversion():
    from tnforge.grammars import adapter

    try:
        return adapter.inversion(asr_words), adapter.version(), adapter.language()
    except adapter.GrammarUnavailable as error:
        raise ValueError(f"the inverse normalizer needs the covering grammar: {error}") from error


def _dumps(data: dict) -> bytes:
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


class InverseNormalizer:
    """Spoken words → written tokens with conventions learned from a train split, guarded by the covering
    grammar: a written form is chosen only when its class's grammar reads it as the span."""

    def __init__(self, conventions: Conventions, trained_on: dict | None = None) -> None:
        inversion, self.grammar_version, self.grammar_language = _inversion()
        self.conventions = conventions
        self.trained_on = trained_on or {}
        self.router = Router(conventions, inversion)

    def __repr__(self) -> str:
        return (f"InverseNormalizer({len(self.conventions.spans):,} spans, {len(self.conventions.patterns):,} "
                f"patterns from {self.conventions.sentences:,} sentences)")

    @classmethod
    def learn(cls, data: str | os.PathLike, split: str = "train") -> InverseNormalizer:
        """Count the written conventions of a built dataset's split (`tnforge build`)."""
        from tnforge.itn_sentences import read_itn

        sentences = read_itn(data, split)
        if not sentences:
            raise ValueError(f"{data}: no {split} sentences to learn conventions from")
        inversion = _inversion()[0]
        return cls(learn(sentences, inversion.numbers), {"data": str(data), "split": split,
                                                        "sentences": len(sentences)})

    def save(self, out: str | os.PathLike, overwrite: bool = False) -> Path:
        """Write the folder `out` (the manifest last); ValueError when `out` holds something and not `overwrite`."""
        import tnforge
        from tnforge.filesystems import write_atomically

        out = Path(out)
        if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not overwrite)):
            raise ValueError(f"{out} is not an empty folder: add --overwrite to replace it")
        out.mkdir(parents=True, exist_ok=True)
        body = _dumps(self.conventions.to_json())
        with write_atomically(str(out / CONVENTIONS)) as handle:
            handle.write(body)
        manifest = {"format": FORMAT, "version": VERSION, "tnforge": tnforge.__version__,
                    "grammar": {"version": self.grammar_version, "language": self.grammar_language},
                    "trained_on": self.trained_on,
                    "parts": {CONVENTIONS: hashlib.sha256(body).hexdigest()}}
        with write_atomically(str(out / MANIFEST)) as handle:
            handle.write(_dumps(manifest))
        return out

    @classmethod
    def load(cls, path: str | os.PathLike) -> InverseNormalizer:
        """Open a saved folder, checking its format and every part's sha256 (ValueError, one line, if not)."""
        path = Path(path)
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            raise ValueError(f"{path}: not an inverse normalizer (no {MANIFEST}; make one with "
                             "`tnforge denormalizer learn`)")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{manifest_path}: not a readable manifest ({error})") from None
        if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
            raise ValueError(f"{manifest_path}: format {manifest.get('format')!r} version {manifest.get('version')!r}, "
                             f"expected {FORMAT!r} version {VERSION}")
        body = (path / CONVENTIONS).read_bytes() if (path / CONVENTIONS).is_file() else b""
        if hashlib.sha256(body).hexdigest() != manifest["parts"].get(CONVENTIONS):
            raise ValueError(f"{path / CONVENTIONS}: missing or changed since it was saved (sha256 differs)")
        return cls(Conventions.from_json(json.loads(body)), manifest.get("trained_on"))

    def read(self, text: str) -> list[InverseToken]:
        """The written tokens of one spoken text (made ASR-style first: lower case, no punctuation)."""
        return self.router.read(asr_words(text))

    def read_words(self, words: Sequence[str]) -> list[InverseToken]:
        """The written tokens of words already ASR-style."""
        return self.router.read(words)

    def denormalize(self, text: str) -> str:
        """Spoken text → written text: the written tokens joined by single spaces."""
        return " ".join(token.written for token in self.read(text))

    def denormalize_batch(self, texts: Iterable[str]) -> list[str]:
        return [self.denormalize(text) for text in texts]

    def denormalize_stream(self, texts: Iterable[str]) -> Iterator[str]:
        return (self.denormalize(text) for text in texts)

    def explain(self, text: str) -> list[InverseToken]:
        """Each written token with the spoken words it came from (`words`, `start`..`end` in the ASR-style
        words), its class and its source (convention, pattern, letters, as spoken)."""
        return self.read(text)
