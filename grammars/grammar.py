"""The grammar object: tables, compiled number FSTs, per-class covering grammars and the per-token cache."""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from functools import cached_property

from tnforge.collector import gc_paused
from tnforge.grammars.en.electronic_reading import verbalize
from tnforge.grammars.en.letters import reading as letters_reading
from tnforge.grammars.en.plain import reading as american_reading
from tnforge.grammars.lattice import Lattice, TokenReadings
from tnforge.grammars.tables import Tables, load_tables
from tnforge.schemas.classes import GRAMMAR_MODULES

#: The environment variable naming the process-wide grammar's language (`languages.resolve`).
LANG_ENVIRONMENT = "TNFORGE_LANG"
#: Semiotic class → module (under tnforge.grammars.en) whose `lattice(grammar, token)` gives its readings.
CLASS_MODULES: dict[str, str] = GRAMMAR_MODULES


#: Classes whose one reading the corpus's rules give: class → the rule (token → reading, "" for none).
_RULES: dict[str, Callable[[str], str | None]] = {"ELECTRONIC": verbalize, "LETTERS": letters_reading,
                                                  "PLAIN": american_reading}
#: Classes read as written unless a rule says otherwise (`Grammar.reading`; the tagger's confidence decides).
_AS_WRITTEN = frozenset({"PLAIN", "PUNCT"})
#: Classes whose only licensed reading, when there is one, is the reading (`Grammar.reading`).
DETERMINISTIC: frozenset[str] = frozenset(CLASS_MODULES) - _AS_WRITTEN - frozenset(_RULES)
#: Readings licensed for every token of a class (the pass-through classes' trivial targets).
_ALWAYS: dict[str, frozenset[str]] = {"PLAIN": frozenset({"<self>"})}


def normalize_reading(reading: str) -> str:
    """Collapse whitespace; decode the corpus's letter-by-letter ELECTRONIC encoding (`b_letter …`)."""
    if "_letter" in reading:
        from tnforge.grammars.en.electronic import decode_letters

        reading = decode_letters(reading)
    return " ".join(reading.split())


#: Token readings kept per grammar (`Grammar.token_readings`), the oldest dropped first.
TOKEN_CACHE = 20_000


class Grammar:
    """Covering grammars over one table directory, with compiled FSTs from (or into) the FAR cache."""

    def __init__(self, table_dir: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None,
                 cardinal_grammar: str | os.PathLike | None = None, lang: str | None = None,
                 grammar_dir: str | os.PathLike | None = None):
        """`lang`: the grammar language (`languages.resolve`: `en`, or an induced number grammar under the
        grammars home); `grammar_dir` (alias `cardinal_grammar`): an induced number grammar directory whose
        readings replace the hand-written cardinals (and so the ordinals) of every class (`induced_cardinals`).
        An unknown language or a directory that is no grammar raises LanguageError (one line)."""
        from tnforge.grammars.cache import load_or_compile, load_or_expand
        from tnforge.grammars.en.numbers import NumberFsts, NumberWords, compile_fsts
        from tnforge.grammars.languages import resolve

        started = time.perf_counter()
        self.language = resolve(lang, grammar_dir if grammar_dir is not None else cardinal_grammar)
        #: What manifests, normalizer.json and the FAR cache keys record (`Language.identity`).
        self.language_identity = self.language.identity
        self.tables: Tables = load_tables(table_dir)
        self.words = NumberWords(self.tables)
        fsts, self.from_cache = load_or_compile(self.tables, lambda: compile_fsts(self.words), cache_dir,
                                                self.language_identity)
        if self.language.directory is not None:
            from tnforge.grammars.induced_cardinals import InducedNumberFsts

            self.numbers: NumberFsts = InducedNumberFsts(fsts, self.words, self.language.directory)
        else:
            self.numbers = NumberFsts(fsts, self.words)
        self.cardinal_grammar = None if self.language.directory is None else str(self.language.directory)
        # Part of loading: the small maps' (input → outputs) lists, expanded from the FSTs once and cached
        # beside the FAR, so number lookups are dict reads from here on.
        self.numbers.preload(load_or_expand(self.tables, self.numbers, cache_dir, self.language_identity))
        # The latest tokens' readings, oldest dropped past TOKEN_CACHE: a reader of an endless stream of new
        # tokens keeps bounded memory, while the tokens a text repeats stay cached.
        self._cache: dict[tuple[str, str], TokenReadings] = {}
        #: Per-grammar memos of derived tables and sub-lattices (see memo.per_grammar).
        self.memos: dict[str, dict] = {}
        self._modules = {cls: importlib.import_module(f"tnforge.grammars.en.{name}") for cls, name in CLASS_MODULES.items()}
        # Also part of loading: the derived tables, and what a class module prepares (date: every day and
        # month), so the first check of a token does not pay for them.
        for table in ("units", "units_folded", "unit_names", "currencies", "currency_names", "months", "weekdays", "money_scales"):
            getattr(self, table)
        for module in dict.fromkeys(self._modules.values()):
            if callable(getattr(module, "preload", None)):
                module.preload(self)
        self.load_seconds = time.perf_counter() - started

    @property
    def fsts(self) -> dict:
        """The compiled FSTs (cardinal, year, digit, group maps) by name."""
        return self.numbers.fsts

    # --- table indexes -------------------------------------------------------------------------------
    def _multimap(self, name: str, key: int = 0, value: int = 1) -> dict[str, tuple[str, ...]]:
        result: dict[str, tuple[str, ...]] = {}
        for row in self.tables[name]:
            result[row[key]] = result.get(row[key], ()) + (row[value],)
        return result

    @cached_property
    def months(self) -> dict[str, tuple[int, str]]:
        """Lowercase written month (name or abbreviation) → (number, spoken)."""
        return {row[0].lower(): (int(row[1]), row[2]) for row in self.tables["months"]}

    @cached_property
    def month_names(self) -> dict[int, str]:
        return {number: spoken for number, spoken in self.months.values()}

    @cached_property
    def weekdays(self) -> dict[str, str]:
        return {row[0].lower(): row[1] for row in self.tables["weekdays"]}

    @cached_property
    def units(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Unit symbol → ((singular, plural), …): the units table, the SI units, and every SI prefix with
        every SI unit, read joined or apart (mA → milliamperes, milli amperes), unless the units table has the
        symbol (ft, pt, dB, kt: feet, pints, decibels, knots — never femtotonnes, picotonnes, decibytes)."""
        result: dict[str, tuple[tuple[str, str], ...]] = {}

        def add(symbol: str, singular: str, plural: str) -> None:
            if (singular, plural) not in result.get(symbol, ()):
                result[symbol] = result.get(symbol, ()) + ((singular, plural),)

        for symbol, singular, plural in self.tables["units"] + self.tables["si_units"]:
            add(symbol, singular, plural)
        # The units table's own meaning of a symbol wins: ft is feet, not femtotonnes (but mA, a milliampere
        # there too, also reads milliamp, as the SI unit A does).
        written: dict[str, set[str]] = {}
        si_names: dict[str, set[str]] = {}
        for symbol, singular, _ in self.tables["units"]:
            written.setdefault(symbol, set()).add(singular)
        for symbol, singular, _ in self.tables["si_units"]:
            si_names.setdefault(symbol, set()).add(singular)
        for prefix, spoken in self.tables["si_prefixes"]:
            for symbol, singular, plural in self.tables["si_units"]:
                if prefix + symbol in written and not written[prefix + symbol] & {spoken + n for n in si_names[symbol]}:
                    continue
                add(prefix + symbol, spoken + singular, spoken + plural)
                add(prefix + symbol, f"{spoken} {singular}", f"{spoken} {plural}")
        for symbol, names in list(result.items()):  # a capital K for kilo: KV, Kg, KHz, KWh
            if symbol.startswith("k") and len(symbol) > 1 and "K" + symbol[1:] not in result:
                result["K" + symbol[1:]] = names
        return result

    @cached_property
    def units_folded(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Lowercased unit symbol → the names of every unit written so (hz, khz, db), for units written in
        another case than the tables'."""
        result: dict[str, tuple[tuple[str, str], ...]] = {}
        for symbol, names in self.units.items():
            result[symbol.lower()] = tuple(dict.fromkeys(result.get(symbol.lower(), ()) + names))
        return result

    @cached_property
    def unit_names(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """A unit's spoken name (singular or plural, as written out: mile, feet) → its (singular, plural)."""
        result: dict[str, tuple[tuple[str, str], ...]] = {}
        for pairs in self.units.values():  # millisieverts also reads "milli sieverts", as mSv does
            for name in {name for pair in pairs for name in pair}:
                for key in (name, name.replace(" ", "")):
                    result[key] = tuple(dict.fromkeys(result.get(key, ()) + pairs))
        return result

    @cached_property
    def currency_names(self) -> dict[str, tuple[tuple[str, str, str, str], ...]]:
        """A currency's spoken name (singular or plural: euros, dollar) → its table rows."""
        result: dict[str, tuple[tuple[str, str, str, str], ...]] = {}
        for rows in self.currencies.values():
            for row in rows:
                for name in row[:2]:
                    if row not in result.get(name, ()):
                        result[name] = result.get(name, ()) + (row,)
        return result

    @cached_property
    def currencies(self) -> dict[str, tuple[tuple[str, str, str, str], ...]]:
        """Currency symbol or code → ((singular, plural, minor singular, minor plural), …)."""
        result: dict[str, tuple[tuple[str, str, str, str], ...]] = {}
        for row in self.tables["currencies"]:
            result[row[0]] = result.get(row[0], ()) + (tuple(row[1:5]),)  # type: ignore[assignment]
        return result

    @cached_property
    def money_scales(self) -> dict[str, tuple[str, ...]]:
        return self._multimap("money_scales")

    @cached_property
    def symbols(self) -> dict[str, tuple[str, ...]]:
        return self._multimap("symbols")

    @cached_property
    def plain(self) -> dict[str, tuple[str, ...]]:
        return self._multimap("plain")

    # --- queries -------------------------------------------------------------------------------------
    def token_readings(self, before: str, cls: str) -> TokenReadings:
        """The (cached) readings of a token in a class."""
        key = (cls, before)
        found = self._cache.get(key)
        if found is None:
            module = self._modules.get(cls)
            if module is None:
                raise ValueError(f"unknown semiotic class {cls!r}; expected one of {', '.join(CLASS_MODULES)}")
            found = TokenReadings(module.lattice(self, before))
            while self._cache and len(self._cache) >= TOKEN_CACHE:
                del self._cache[next(iter(self._cache))]
            self._cache[key] = found
        return found

    def lattice(self, before: str, cls: str) -> Lattice:
        return self.token_readings(before, cls).lattice

    def readings(self, before: str, cls: str | None = None, limit: int = 1000) -> list[str]:
        """Up to `limit` licensed readings of a token (all classes when cls is None)."""
        if cls is not None:
            return self.token_readings(before, cls).first(limit)
        result: dict[str, None] = {}
        for name in CLASS_MODULES:
            for reading in self.token_readings(before, name).first(limit - len(result)):
                result.setdefault(reading, None)
            if len(result) >= limit:
                break
        return list(result)[:limit]

    def readings_note(self, before: str, cls: str | None, found: int) -> str:
        """How many readings were listed (and of how many paths, when a class is given and there are more)."""
        size = self.token_readings(before, cls).size if cls else None
        more = f" of {size:,} paths" if size is not None and size > found else ""
        return f"{found} reading(s){more} for {before!r} in {cls or 'any class'}"

    def licenses(self, before: str, reading: str, cls: str | None = None) -> bool:
        """Whether the grammar of `cls` (any class when None) licenses `reading` for `before`."""
        reading = normalize_reading(reading)
        if not reading:
            return False
        if cls is not None:
            if reading in _ALWAYS.get(cls, ()):  # pass-through: no lattice needed
                return True
            return reading in self.token_readings(before, cls)
        return any(reading in self.token_readings(before, name) for name in CLASS_MODULES)

    def licenses_batch(self, items: Iterable[tuple[str, str, str | None]]) -> list[bool]:
        """`licenses` for many (before, reading, cls) triples. A token asked more than once in the batch has
        its readings listed once (`TokenReadings.strings`) and each reading answered from that set; a token
        asked once is checked along its lattice's paths; the verdicts are `licenses`'s either way.

        The cyclic garbage collector is paused for the batch: parsing allocates many small tuples (none in
        cycles, so reference counting frees them) and each collection would re-scan the token cache."""
        items = list(items)
        groups: dict[tuple[str | None, str], list[int]] = {}
        for index, (before, _reading, cls) in enumerate(items):
            groups.setdefault((cls, before), []).append(index)
        verdicts = [False] * len(items)
        with gc_paused():
            for (cls, before), indices in groups.items():
                strings = self.token_readings(before, cls).strings if cls is not None and len(indices) > 1 else None
                for index in indices:
                    if strings is None:
                        verdicts[index] = self.licenses(*items[index])
                    else:
                        reading = normalize_reading(items[index][1])
                        verdicts[index] = bool(reading) and (reading in _ALWAYS.get(cls, ()) or reading in strings)
        return verdicts

    def reading_words(self, before: str, cls: str | None = None, limit: int = 1000) -> frozenset[tuple[str, ...]]:
        """Licensed readings as word tuples (capped): what a constrained decoder may produce."""
        return frozenset(tuple(r.split()) for r in self.readings(before, cls, limit))

    def reading(self, before: str, cls: str | None) -> str | None:
        """The one reading the grammar commits to for a token in a class, in the corpus's spelling, or None
        when it leaves the choice to a model: ELECTRONIC, LETTERS and PLAIN by the corpus's rules
        (`verbalize`, `letters.reading`, `plain.reading`: a URL spelt `_letter` by `_letter`, `NTDs` → n t
        d's, a lone `T` as written, `colours` → colors); another class (not PUNCT) when it licenses exactly
        one reading. Always a licensed reading."""
        if cls is None:
            return None
        rule = _RULES.get(cls)
        if rule is not None:
            found = rule(before)
            return found if found and self.licenses(before, found, cls) else None
        if cls not in DETERMINISTIC:
            return None
        only = self.token_readings(before, cls).first(2)
        return only[0] if len(only) == 1 else None

    def clear_cache(self, memos: bool = True) -> None:
        """Forget every token's readings and (unless `memos` is False) every memoized sub-lattice."""
        self._cache.clear()
        if memos:
            self.memos.clear()


_default: Grammar | None = None
_lock = threading.Lock()
_selected: tuple[str | None, str | None] | None = None  # (lang, grammar_dir) chosen in-process


def default_grammar() -> Grammar:
    """The process-wide grammar over the shipped tables (built on first use), in the language `use_language`
    chose, else the one $TNFORGE_LANG / $TNFORGE_GRAMMAR_DIR (or $TNFORGE_CARDINAL_GRAMMAR) name: `en` by default."""
    global _default
    if _default is None:
        with _lock:
            if _default is None:
                lang, directory = selected_language()
                _default = Grammar(lang=lang, grammar_dir=directory)
    return _default


def selected_language() -> tuple[str | None, str | None]:
    """The (lang, grammar_dir) the process-wide grammar is built in (None, None: `en`)."""
    from tnforge.grammars.induced_cardinals import configured

    if _selected is not None:
        return _selected
    return os.environ.get(LANG_ENVIRONMENT) or None, configured()


def cardinal_grammar() -> str | None:
    """The induced grammar directory the process-wide grammar takes its cardinals from (None: hand-written)."""
    from tnforge.grammars.languages import resolve

    lang, directory = selected_language()
    found = resolve(lang, directory).directory
    return None if found is None else str(found)


def use_language(lang: str | None, grammar_dir: str | os.PathLike | None = None) -> None:
    """Build the process-wide grammar in language `lang` (None: `en`) or from the induced number grammar in
    `grammar_dir`. Checked now: an unknown language or a directory that is no grammar raises LanguageError (one
    line). The grammar is rebuilt on its next use."""
    global _default, _selected
    from tnforge.grammars.languages import resolve

    resolve(lang, grammar_dir)
    with _lock:
        _selected = None if lang is None and grammar_dir is None else (lang, None if grammar_dir is None else str(grammar_dir))
        _default = None


def use_cardinal_grammar(directory: str | os.PathLike | None) -> None:
    """Take the process-wide grammar's cardinals (and ordinals) from an induced number grammar directory
    (`tnforge grammar induce`), or from the hand-written FSTs again (None): `use_language(None, directory)`."""
    use_language(None, directory)


__all__ = ["Grammar", "default_grammar", "use_language", "use_cardinal_grammar", "cardinal_grammar",
           "selected_language", "normalize_reading", "CLASS_MODULES", "DETERMINISTIC", "LANG_ENVIRONMENT"]
