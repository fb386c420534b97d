"""Grammar languages: `en` (the hand-written class grammars of `grammars/en/`, the default) or an induced number
grammar (`tnforge grammar induce`) kept as a data directory outside the source tree: `<home>/<lang>`, home
being $TNFORGE_GRAMMARS or ~/.local/share/tnforge/grammars, or any directory named by `grammar_dir`.

An induced language's CARDINAL (and so ORDINAL) readings come from its directory; the other classes stay the
`en` ones. `identity` is what manifests, `normalizer.json` and the FAR cache keys record.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from tnforge.grammars.induction.examples import InductionError

#: The language of the shipped grammars (and of old manifests and normalizers that record none).
DEFAULT = "en"
#: The environment variable naming the folder of language directories.
HOME_ENVIRONMENT = "TNFORGE_GRAMMARS"


class LanguageError(InductionError):
    """An unknown language or a directory that is no grammar: one line saying which and how to make one."""


def grammars_home() -> Path:
    """$TNFORGE_GRAMMARS, else $XDG_DATA_HOME/tnforge/grammars, else ~/.local/share/tnforge/grammars."""
    env = os.environ.get(HOME_ENVIRONMENT)
    if env:
        return Path(env).expanduser()
    data = os.environ.get("XDG_DATA_HOME")
    return (Path(data).expanduser() if data else Path.home() / ".local" / "share") / "tnforge" / "grammars"


@dataclass(frozen=True)
class Language:
    """A grammar language: its code and its induced number grammar directory (None: the hand-written one)."""

    code: str = DEFAULT
    directory: Path | None = None

    @property
    def identity(self) -> str:
        """`en`, or `<code>:<hash of the directory's rules and FSTs>` (20 hex digits)."""
        if self.directory is None:
            return self.code
        digest = hashlib.sha256()
        for name in ("rules.tsv", "grammar.far"):
            digest.update((self.directory / name).read_bytes())
        return f"{self.code}:{digest.hexdigest()[:20]}"


def _directory_language(directory: Path) -> str:
    """The language an induced grammar directory records (checked: LanguageError when it is no grammar)."""
    from tnforge.grammars.induction import load

    try:
        return str(load(directory).manifest.get("lang") or directory.name)
    except InductionError as error:
        raise LanguageError(str(error)) from error


def resolve(lang: str | None = None, grammar_dir: str | os.PathLike | None = None) -> Language:
    """The language `lang` names (its directory under `grammars_home()`), or the one `grammar_dir` holds;
    neither: `en`. LanguageError (one line) for an unknown language or a directory that is no grammar."""
    if grammar_dir is not None:
        directory = Path(grammar_dir)
        if not directory.is_dir():
            raise LanguageError(f"{directory}: no grammar directory there (make one with `tnforge grammar induce --examples "
                                f"EXAMPLES --lang LANG --out {directory}`)")
        recorded = _directory_language(directory)
        if lang is not None and lang != recorded:
            raise LanguageError(f"{directory}: a grammar of language {recorded!r}, not {lang!r}")
        return Language(recorded, directory)
    if lang is None or lang == DEFAULT:
        return Language()
    if not lang or "/" in lang or lang.startswith("."):
        raise LanguageError(f"{lang!r} is no language code (expected a name such as 'de')")
    directory = grammars_home() / lang
    if not directory.is_dir():
        raise LanguageError(f"no grammar for language {lang!r}: {directory} does not exist (make it with `tnforge "
                            f"grammar induce --examples EXAMPLES --lang {lang} --out {directory}`, or name one with "
                            "--grammar-dir)")
    _directory_language(directory)
    return Language(lang, directory)


def recorded(value: str | None) -> str:
    """The grammar language a manifest or `normalizer.json` records (`en` for one written before it did)."""
    return str(value or DEFAULT)


__all__ = ["DEFAULT", "HOME_ENVIRONMENT", "Language", "LanguageError", "grammars_home", "recorded", "resolve"]
