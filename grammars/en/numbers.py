"""Number verbalization: factorization, then a lexical map (Gorman & Sproat 2016), compiled with pynini.

Python factors a digit string into groups of three (units, thousands, millions, … up to 10^18) and lists the
lexical entries of each group ("one hundred five", "one hundred and five"); pynini compiles them into small
string maps and concatenates them into the cardinal FST. The year FST covers "nineteen o five"-style
readings, the digit FST one digit read alone ("o", "zero", "oh"). All FSTs are cached in a FAR (cache.py).
"""

from __future__ import annotations

import itertools
import re
from functools import cached_property

from tnforge.grammars.tables import Tables

#: Maximum number of three-digit groups (10^18 - 1).
MAX_GROUPS = 6
_GROUPED = re.compile(r"^[1-9]\d{0,2}(,\d{3})+$")
_PLAIN_INT = re.compile(r"^(0|[1-9]\d*)$")


def plural(word: str) -> str:
    """English plural of a number word: ninety → nineties, six → sixes, one → ones."""
    if word.endswith("y"):
        return word[:-1] + "ies"
    if word.endswith(("x", "s")):
        return word + "es"
    if word == "half":
        return "halves"
    return word + "s"


def integer_digits(text: str) -> str | None:
    """The digits of a written integer ("1,532" → "1532"), or None when it is not one."""
    if _PLAIN_INT.match(text):
        return text if len(text) <= 3 * MAX_GROUPS else None
    if _GROUPED.match(text):
        digits = text.replace(",", "")
        return digits if len(digits) <= 3 * MAX_GROUPS else None
    return None


class NumberWords:
    """The number lexicon of the `numbers` and `digit_words` tables."""

    def __init__(self, tables: Tables):
        self.ones: dict[int, str] = {}
        self.teens: dict[int, str] = {}
        self.tens: dict[int, str] = {}
        self.scales: dict[int, str] = {}
        self.ordinal_of: dict[str, str] = {}
        for row in tables["numbers"]:
            kind, digits, word = row[0], int(row[1]), row[2]
            {"ones": self.ones, "teens": self.teens, "tens": self.tens, "scale": self.scales}[kind][digits] = word
            if len(row) > 3:
                self.ordinal_of[word] = row[3]
        self.digit_words: dict[str, tuple[str, ...]] = {}
        for digit, word in tables["digit_words"]:
            self.digit_words[digit] = self.digit_words.get(digit, ()) + (word,)

    def two(self, n: int) -> list[str]:
        """Readings of 1..99."""
        if n < 10:
            return [self.ones[n]]
        if n < 20:
            return [self.teens[n]]
        tens, unit = divmod(n, 10)
        return [self.tens[tens]] if unit == 0 else [f"{self.tens[tens]} {self.ones[unit]}"]

    def three(self, n: int) -> list[str]:
        """Readings of 1..999, with and without "and" after "hundred"."""
        if n < 100:
            return self.two(n)
        hundreds, rest = divmod(n, 100)
        head = f"{self.ones[hundreds]} {self.scales[2]}"
        if rest == 0:
            return [head]
        return [f"{head} {w}" for w in self.two(rest)] + [f"{head} and {w}" for w in self.two(rest)]

    def scale_word(self, group: int) -> str:
        return self.scales[3 * group] if group else ""

    def ordinalize(self, reading: str) -> str | None:
        """The ordinal of a cardinal reading: its last word made ordinal (twenty one → twenty first)."""
        head, _, last = reading.rpartition(" ")
        ordinal = self.ordinal_of.get(last)
        if ordinal is None:
            return None
        return f"{head} {ordinal}" if head else ordinal


class NumberFsts:
    """Compiled number FSTs (from the FAR cache) and cached queries on them."""

    #: FSTs small enough to expand into a Python dict (input → outputs) on first use: lookups then cost
    #: nanoseconds instead of a composition (~60 µs). The full `cardinal` union is composed instead.
    EXPANDED = frozenset({"zero", "digit", "year", "colloquial"} | {f"{kind}{k}" for kind in ("lead", "group")
                                                                      for k in range(MAX_GROUPS)})

    def __init__(self, fsts: dict, words: NumberWords):
        self.fsts = fsts
        self.words = words
        self._memo: dict[tuple[str, str], tuple[str, ...]] = {}
        self._expanded: dict[str, dict[str, tuple[str, ...]]] = {}

    def expand(self, name: str) -> dict[str, tuple[str, ...]]:
        """Every (input, outputs) of an acyclic FST, by enumerating its paths once."""
        found = self._expanded.get(name)
        if found is None:
            collected: dict[str, set[str]] = {}
            paths = self.fsts[name].paths()
            while not paths.done():
                collected.setdefault(paths.istring(), set()).add(paths.ostring())
                paths.next()
            found = {key: tuple(sorted(values)) for key, values in collected.items()}
            self._expanded[name] = found
        return found

    def expand_all(self) -> dict[str, dict[str, tuple[str, ...]]]:
        """Every expandable FST as (input → outputs)."""
        return {name: self.expand(name) for name in sorted(self.EXPANDED)}

    def preload(self, expanded: dict[str, dict[str, tuple[str, ...]]]) -> None:
        """Install expansions read from the cache."""
        self._expanded.update(expanded)

    def query(self, name: str, digits: str) -> tuple[str, ...]:
        """All output strings of FST `name` for input `digits` (sorted; numbers have few readings)."""
        if name in self.EXPANDED:
            return self.expand(name).get(digits, ())
        key = (name, digits)
        cached = self._memo.get(key)
        if cached is None:
            import pynini

            try:
                lattice = pynini.compose(pynini.accep(digits), self.fsts[name])
            except pynini.FstOpError:
                lattice = None
            if lattice is None or lattice.start() == pynini.NO_STATE_ID:
                cached = ()
            else:
                cached = tuple(sorted(set(lattice.paths().ostrings())))
            self._memo[key] = cached
        return cached

    def cardinal(self, digits: str) -> tuple[str, ...]:
        """Cardinal readings of a digit string without commas or leading zeros (factored into groups)."""
        key = ("#cardinal", digits)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if digits == "0":
            cached = self.query("zero", digits)
        elif not digits or digits[0] == "0" or len(digits) > 3 * MAX_GROUPS:
            cached = ()
        else:
            head = len(digits) % 3 or 3
            groups = [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
            last = len(groups) - 1
            parts = [self.query(f"lead{last}", groups[0])]
            parts += [self.query(f"group{last - i}", g) for i, g in enumerate(groups[1:], start=1)]
            readings = {"".join(combo) for combo in itertools.product(*parts)}
            if len(digits) == 4:
                readings.update(self.query("colloquial", digits))
            cached = tuple(sorted(readings))
        self._memo[key] = cached
        return cached

    def year(self, digits: str) -> tuple[str, ...]:
        """Paired readings of a 3- or 4-digit year (nineteen eighty four), excluding the cardinal ones."""
        return self.query("year", digits)

    @cached_property
    def digit_slots(self) -> dict[str, tuple[str, ...]]:
        return {d: self.query("digit", d) for d in "0123456789"}


def compile_fsts(words: NumberWords) -> dict:
    """Compile the number FSTs from the lexicon: `cardinal`, `year` and `digit` (one digit read alone).

    Built by concatenating tiny maps (units, teens, tens, scale insertions), so compiling takes well
    under a second; a big string map of every group would take a minute.
    """
    import pynini

    def smap(pairs: list[tuple[str, str]]) -> pynini.Fst:
        return pynini.string_map(pairs)

    def ins(text: str) -> pynini.Fst:
        return pynini.cross("", text)

    def delete(text: str) -> pynini.Fst:
        return pynini.cross(text, "")

    ones = smap([(str(d), w) for d, w in words.ones.items() if d])  # 1-9
    teens = smap([(str(d), w) for d, w in words.teens.items()])  # 10-19
    tens = smap([(str(d), w) for d, w in words.tens.items()])  # 2-9 → twenty-ninety
    two = pynini.union(teens, tens + pynini.union(delete("0"), ins(" ") + ones))  # "10".."99"
    teens_nz = smap([(str(d), w) for d, w in words.teens.items() if d != 10])
    two_nz = pynini.union(teens_nz, tens + ins(" ") + ones)  # 11-99 but no multiple of ten
    upto99 = pynini.union(delete("0") + ones, two)  # "01".."99"
    and_ = pynini.union(ins(" "), ins(" and "))
    hundred = ins(f" {words.scales[2]}")
    hundreds = ones + hundred + pynini.union(delete("00"), and_ + upto99)  # "100".."999"
    three = pynini.union(hundreds, delete("0") + upto99)  # "001".."999"
    lead_body = pynini.union(ones, two, hundreds)  # "1".."999"

    fsts = {"zero": pynini.cross("0", words.ones[0])}
    chains = [fsts["zero"]]
    for k in range(MAX_GROUPS):
        scale = words.scale_word(k)
        suffix = ins(f" {scale}") if scale else pynini.accep("")
        fsts[f"lead{k}"] = lead_body + suffix
        group = delete("000") | (ins(" ") + three + suffix)
        if k == 0:
            group = group | (delete("0") + ins(" and ") + upto99)
        fsts[f"group{k}"] = group
    for groups in range(1, MAX_GROUPS + 1):
        chain = fsts[f"lead{groups - 1}"]
        for k in range(groups - 2, -1, -1):
            chain = chain + fsts[f"group{k}"]
        chains.append(chain)
    # Colloquial hundreds: 1532 → fifteen hundred (and) thirty two.
    fsts["colloquial"] = two_nz + hundred + pynini.union(delete("00"), and_ + upto99)
    chains.append(fsts["colloquial"])
    fsts["cardinal"] = pynini.union(*chains)

    zero_words = [w for w in words.digit_words["0"] if w != words.ones[0]]
    o_digit = pynini.union(*(ins(f"{z} ") for z in zero_words)) if zero_words else ins("zero ")
    tail = pynini.union(delete("0") + o_digit + ones, two)  # "01".."99" of a year
    year = pynini.union(
        two_nz + pynini.union(ins(" ") + tail, ins(f" {words.scales[2]}") + delete("00")),  # 1905, 1900
        two + ins(" ") + tail,  # 2016, 1990 (2000 is cardinal only)
        ones + ins(" ") + pynini.union(two, delete("0") + o_digit + ones),  # 990, 235, 905
    )
    fsts["year"] = year
    fsts["digit"] = smap([(d, w) for d, alternatives in words.digit_words.items() for w in alternatives])
    for name, fst in fsts.items():
        fsts[name] = fst.optimize().arcsort("ilabel")
    return fsts
