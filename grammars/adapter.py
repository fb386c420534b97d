"""The one way other parts of tnforge use the covering grammar: as plain callables, never as pynini objects.

* `resolve(wanted)`: whether to use the grammar (None: when it can be loaded; True: required; False: off).
* `licenser()`: a strict batch judge `[(before, reading, cls)] → [bool]`, or on Arrow columns through its
  `columns` (the negatives pipeline);
  `forget()` drops the grammar's per-token cache once a batch of tokens is done with.
* `judge(wanted)`: a tolerant batch judge `→ [bool | None]` (None: a token the grammar failed on) and a
  note for reports (evaluation, comparisons, benchmarks).
* `reading_words(limit)`: `(before, cls) → word tuples` of every licensed reading, and the covered classes
  (the constrained decoder's hard mask); the callable's `reading(before, cls)` gives the one reading the
  grammar commits to (a URL, a LETTERS token: `Grammar.reading`), which raw-text decoding uses as is; its
  `meaning(reading, token)`, the units, currencies and scales a reading says.

Importing this module imports no pynini; the grammar loads on first use (in Beam: in a DoFn's setup).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Collection, Sequence

from tnforge.schemas.classes import COVERED, UNION, union_parts

Item = tuple[str, str, str | None]
BatchJudge = Callable[[Sequence[Item]], list[bool | None]]
ReadingWords = Callable[[str, str | None], Collection[tuple[str, ...]]]
#: Readings per token taken from the grammar to build a constrained decoder's trie.
READING_LIMIT = 5000


class GrammarUnavailable(RuntimeError):
    """The covering grammar was asked for but cannot be loaded (pynini missing or the grammar broken)."""


def _grammars():  # the package's lazy public functions (tests may swap the module in sys.modules)
    return importlib.import_module("tnforge.grammars")


def unavailable_reason() -> str | None:
    """Why the grammar cannot be used here (None: it can)."""
    if importlib.util.find_spec("pynini") is None:
        return "pynini is not installed (pip install 'tnforge[grammars]')"
    try:
        grammars = _grammars()
    except Exception as error:  # noqa: BLE001 - a broken optional grammar means "not available"
        return f"tnforge.grammars cannot be imported ({error})"
    if not callable(getattr(grammars, "licenses", None)):
        return "tnforge.grammars offers no licenses()"
    return None


def version() -> str:
    """The grammar's identity: a hash of its sources, tables, language (`languages.Language.identity`: an induced
    grammar's rules and FSTs too) and pynini version (`cache.grammar_key`), as a manifest records it beside the
    labels it decided."""
    from tnforge.grammars.cache import grammar_key
    from tnforge.grammars.grammar import selected_language
    from tnforge.grammars.languages import resolve
    from tnforge.grammars.tables import load_tables

    return grammar_key(load_tables(), resolve(*selected_language()).identity)


def language() -> str:
    """The process-wide grammar's language code (`en` unless `use_language` or $TNFORGE_LANG chose another)."""
    from tnforge.grammars.grammar import selected_language
    from tnforge.grammars.languages import resolve

    return resolve(*selected_language()).code


def use_language(lang: str | None) -> None:
    """Build the process-wide grammar in `lang` (LanguageError, a ValueError, in one line when there is none)."""
    from tnforge.grammars.grammar import use_language as use

    use(lang)


def available() -> bool:
    """Whether the covering grammar can be used here."""
    return unavailable_reason() is None


def resolve(wanted: bool | None) -> bool:
    """Whether to use the grammar: None → when available; True → required (GrammarUnavailable if not)."""
    if wanted is False:
        return False
    reason = unavailable_reason()
    if reason is not None and wanted:
        raise GrammarUnavailable(f"the covering grammar was requested but is not available: {reason}")
    return reason is None


class Licenser:
    """A strict judge: for each (before, reading, cls), does the grammar license the reading? Called with
    triples (the grammar's `licenses_batch` lists a token's readings once when a batch asks it several
    times), or through `columns` with Arrow columns (`licenses_columns`: each token's lattice built once,
    readings with a word it lacks rejected by array operations)."""

    def __init__(self, grammars) -> None:
        self.grammars = grammars

    def __call__(self, items: Sequence[Item]) -> list[bool]:
        if not items:
            return []
        batch = getattr(self.grammars, "licenses_batch", None)
        if callable(batch):
            verdicts = [bool(v) for v in batch(list(items))]
        else:
            verdicts = [bool(self.grammars.licenses(b, r, c)) for b, r, c in items]
        if len(verdicts) != len(items):
            raise RuntimeError(f"the grammar judged {len(verdicts)} of {len(items)} readings")
        return verdicts

    def columns(self, befores, readings, classes):
        """The verdicts for Arrow columns of inputs, readings and classes, as a numpy bool array."""
        import numpy as np

        judge = getattr(self.grammars, "licenses_columns", None)
        if callable(judge):
            verdicts = np.asarray(judge(befores, readings, classes), dtype=bool)
        else:
            verdicts = np.array(self(list(zip(befores.to_pylist(), readings.to_pylist(), classes.to_pylist(),
                                              strict=True))), dtype=bool)
        if len(verdicts) != len(readings):
            raise RuntimeError(f"the grammar judged {len(verdicts)} of {len(readings)} readings")
        return verdicts


def licenser() -> Licenser:
    """The strict judge of the process grammar (`Licenser`)."""
    resolve(True)
    return Licenser(_grammars())


def forget() -> None:
    """Drop the grammar's per-token cache: a caller done with a batch of tokens that never come back (the
    negatives pipeline, chunk by chunk) keeps memory bounded. The memoized sub-lattices that tokens share (years,
    day and month forms, units: a few hundred, each memo bounded) are kept. A no-op when the grammar keeps no
    such cache."""
    get = getattr(_grammars(), "get_grammar", None)
    clear = getattr(get(), "clear_cache", None) if callable(get) else None
    if callable(clear):
        clear(memos=False)


def judge(wanted: bool | None = None) -> tuple[BatchJudge | None, str]:
    """A tolerant batch judge for reports, and a note on it (None and the reason when the grammar is off)."""
    if wanted is False:
        return None, "covering grammar off (--no-grammar)"
    reason = unavailable_reason()
    if reason is not None:
        if wanted:
            raise GrammarUnavailable(f"the covering grammar is not available ({reason})")
        return None, f"covering grammar unavailable ({reason}); errors not judged"
    grammars = _grammars()
    batch = getattr(grammars, "licenses_batch", None)

    def one(before: str, reading: str, cls: str | None) -> bool | None:
        try:
            return bool(grammars.licenses(before, reading, cls))
        except Exception:  # noqa: BLE001 - a grammar failure on one token leaves it unjudged
            return None

    def judge_all(items: Sequence[Item]) -> list[bool | None]:
        if callable(batch):
            try:
                return [bool(v) for v in batch(list(items))]
            except Exception:  # noqa: BLE001 - fall back to one by one
                pass
        return [one(*item) for item in items]

    return judge_all, "errors judged by the covering grammar"


class GrammarWords:
    """The grammar as the decoder sees it: called with `(before, cls)`, the licensed readings as word tuples
    (a token it cannot parse gets none, so it stays unconstrained); `reading(before, cls)`, the one reading
    it commits to in the corpus's spelling, or None (the model chooses; also when the grammar fails)."""

    def __init__(self, limit: int = READING_LIMIT):
        self.limit = limit
        self.grammars = _grammars()

    def __call__(self, before: str, cls: str | None) -> Collection[tuple[str, ...]]:
        if cls is not None and UNION in cls:
            return self.union(before, union_parts(cls))
        try:
            return self.grammars.reading_words(before, cls, self.limit)
        except Exception:  # noqa: BLE001 - a token the grammar cannot parse stays unconstrained
            return frozenset()

    def union(self, before: str, classes: Sequence[str]) -> frozenset[tuple[str, ...]]:
        """The readings of a token in any of `classes` (a token the tagger is unsure about): of each class, the
        one reading the grammar commits to when it does (a LETTERS token spelt, a British word in American,
        a URL), else every reading it licenses (none for a class it does not cover)."""
        found: set[tuple[str, ...]] = set()
        for cls in classes:
            if (one := self.reading(before, cls)) is not None:
                found.add(tuple(one.split()))
            elif cls in COVERED:
                found.update(self(before, cls))
        return frozenset(found)

    def meaning(self, reading: str, token: str) -> frozenset[str]:
        """The units, currencies and (for a token with letters) scales a reading of `token` says
        (`meaning_words.MeaningWords.of`): two readings that say different ones differ in meaning."""
        from tnforge.grammars.meaning_words import meaning_words

        return meaning_words().of(reading, token)

    def reading(self, before: str, cls: str | None) -> str | None:
        if cls is not None and UNION in cls:  # several likely classes: the one reading their union licenses
            only = self.union(before, union_parts(cls))
            return " ".join(next(iter(only))) if len(only) == 1 else None
        find = getattr(self.grammars, "reading", None)
        try:
            return find(before, cls) if callable(find) else None
        except Exception:  # noqa: BLE001 - a token the grammar cannot read is left to the model
            return None


def reading_words(limit: int = READING_LIMIT) -> tuple[ReadingWords, frozenset[str]]:
    """The grammar as `(before, cls) → licensed readings as word tuples` with its `reading` (`GrammarWords`),
    and the classes it covers."""
    resolve(True)
    return GrammarWords(limit), COVERED


def synthesis_grammar(limit: int = 50) -> tuple[Callable[[str, str], list[str]], Callable[[str, str], str | None],
                                                dict[str, list[str]]]:
    """What `generators.synthesis` draws new examples with: `(before, cls) → licensed readings` (at most
    `limit`), `(before, cls) → the one reading the grammar commits to` (an ELECTRONIC address, a LETTERS
    token; else None) and the symbol tables of the swapped classes (currencies, units: most common first)."""
    resolve(True)
    grammar = _grammars().get_grammar()
    tables = {"MONEY": list(grammar.currencies), "MEASURE": list(grammar.units)}
    return ((lambda before, cls: grammar.readings(before, cls, limit)), grammar.reading, tables)


def inversion(asr_words: Callable[[str], list[str]]):
    """The process-wide grammar turned around for inverse text normalization (`grammars.inversion.Inversion`:
    number words → digits, words → units, `licenses_span` with readings written by `asr_words`);
    GrammarUnavailable when there is no grammar."""
    reason = unavailable_reason()
    if reason is not None:
        raise GrammarUnavailable(reason)
    from tnforge.grammars import get_grammar
    from tnforge.grammars.inversion import Inversion

    return Inversion(get_grammar(), asr_words)
