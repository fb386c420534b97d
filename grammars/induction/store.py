"""A grammar directory: `rules.tsv` (the learned rules, readable), `grammar.far` (the compiled FSTs) and
`manifest.json` (language, the examples' SHA-256, the pynini version, what was learned), each written to a
temporary name and renamed; and the grammar loaded back from it."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from tnforge.grammars.induction.examples import Example, InductionError, examples_hash
from tnforge.grammars.induction.learn import InductionReport
from tnforge.grammars.induction.rules import NumberRules, Refusal

RULES, FAR, MANIFEST = "rules.tsv", "grammar.far", "manifest.json"


def _write_atomically(path: Path, data: bytes) -> None:
    handle, temp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def save(rules: NumberRules, report: InductionReport, examples: list[Example], out: str | os.PathLike,
         lm_lines: int = 0) -> dict:
    """Compile the rules and write the grammar directory; returns the manifest."""
    import pynini

    from tnforge.grammars.induction.fst import compile_fsts

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    fsts = compile_fsts(rules)
    compile_seconds = time.perf_counter() - started
    handle, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".far", dir=out)
    os.close(handle)
    try:
        with pynini.Far(temp, mode="w") as far:
            for name in sorted(fsts):
                far[name] = fsts[name]
        os.replace(temp, out / FAR)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _write_atomically(out / RULES, rules.to_tsv().encode("utf-8"))
    manifest = {"kind": "tnforge induced number grammar", "lang": rules.lang, "examples": len(examples),
                "examples_sha256": examples_hash(examples), "allomorph_text_lines": lm_lines,
                "pynini": pynini.__version__, "bases": list(rules.bases), "limit": rules.limit,
                "ambiguous_examples": report.ambiguous, "joiners_backed_off": report.backed_off,
                "compile_seconds": round(compile_seconds, 3), "files": [RULES, FAR],
                "sha256": {name: _sha256(out / name) for name in (RULES, FAR)}}
    _write_atomically(out / MANIFEST, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return manifest


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class InducedGrammar:
    """A loaded grammar directory: the rules say a number, the FSTs list its readings and read words back."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise InductionError(f"{directory}: not a grammar directory (a file; make one with `tnforge grammar induce`)")
        try:
            self.manifest = self._read_manifest()
            self._check_digests()
            self.rules = self._read_rules()
        except FileNotFoundError as error:
            raise InductionError(f"{directory}: not a grammar directory ({Path(error.filename).name} is missing; "
                                 f"make one with `tnforge grammar induce`)") from error
        self._fsts: dict | None = None

    def _damaged(self, name: str, why: str) -> InductionError:
        return InductionError(f"{self.directory / name}: damaged ({why}); induce the grammar again")

    def _read_manifest(self) -> dict:
        try:
            manifest = json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise self._damaged(MANIFEST, f"not JSON: {error}") from error
        if not isinstance(manifest, dict) or manifest.get("kind") != "tnforge induced number grammar":
            raise InductionError(f"{self.directory}: not a grammar directory (its manifest.json is not a grammar's; "
                                 "make one with `tnforge grammar induce`)")
        return manifest

    def _check_digests(self) -> None:
        """Each file against the SHA-256 the manifest records (grammars written before it recorded them: unchecked)."""
        for name, digest in (self.manifest.get("sha256") or {}).items():
            if _sha256(self.directory / name) != digest:
                raise self._damaged(name, "its SHA-256 is not the one manifest.json records")

    def _read_rules(self) -> NumberRules:
        try:
            return NumberRules.from_tsv((self.directory / RULES).read_text(encoding="utf-8"))
        except (ValueError, IndexError, KeyError, TypeError) as error:
            raise self._damaged(RULES, f"{type(error).__name__}: {error}") from error

    @property
    def fsts(self) -> dict:
        if self._fsts is None:
            import pynini

            with pynini.Far(str(self.directory / FAR), mode="r") as far:
                self._fsts = {name: far[name] for name in ("readings", "read")}
        return self._fsts

    def say(self, number: str | int) -> str:
        """The reading of a number (a Refusal, one line, for one the examples do not teach)."""
        return self.rules.say(_value(number))

    def readings(self, number: str | int) -> list[str]:
        """Every reading the grammar licenses for the number, the rules' own first."""
        best = self.say(number)
        return [best, *sorted(set(self._paths(str(_value(number)), "readings")) - {best})]

    def read(self, text: str) -> int:
        """The number a reading denotes (a Refusal when the grammar cannot read it)."""
        found = sorted({int(d) for d in self._paths(" ".join(text.split()), "read")})
        if not found:
            raise Refusal(f"{text!r}: not a reading this {self.rules.lang} grammar knows")
        return found[0]

    def _paths(self, text: str, name: str) -> list[str]:
        import pynini

        try:
            lattice = pynini.compose(pynini.accep(text), self.fsts[name])
        except pynini.FstOpError:  # a symbol outside the grammar's alphabet
            return []
        if lattice.start() == pynini.NO_STATE_ID:
            return []
        return list(lattice.paths().ostrings())


def _value(number: str | int) -> int:
    if isinstance(number, int):
        return number
    digits = number.strip().replace(",", "")
    if not digits.isascii() or not digits.isdigit():
        raise Refusal(f"{number!r}: not a number written in digits")
    return int(digits)
