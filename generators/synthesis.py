"""Grammar-synthesized train examples for rare classes (`tnforge build --synthesize N`).

A class with fewer than `below` train tokens (MONEY, TELEPHONE, FRACTION… in a small sample) gets about N new
written forms, drawn from what the covering grammar covers: each train token's shape (and, for TIME and
TELEPHONE, the common layouts: `TEMPLATES`) with its digits drawn anew (zeros kept, so round amounts stay
round; a clock's hours kept on the clock), its currency or unit swapped for another the grammar knows (MONEY,
MEASURE). A form the grammar does not read in its class is
dropped. Its reading is the one the corpus would use: among the grammar's licensed readings, the one the
conventions learned from the train split prefer (`Conventions`: per class, which words the corpus's reading
says where the grammar also allows others: "dollars" over "dollar", "o" over "zero" in a phone number, no
"and" in "one hundred thirty"), or the one the grammar commits to, where it commits to one.
Never a reading the grammar does not license.

Everything is drawn by stable hashes of (seed, class, token, number): the same train tokens and seed give
the same forms and readings on any runner. Pass 2 places them into the real train sentences of the class, in
place of its tokens: as window examples (`pipelines.build_steps`, source `SOURCE#synthesized`) and, the same
forms in the same places, as whole train sentences (`synthesized_sentences`, source `SOURCE#synthesized-N`).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from tnforge.generators.augmentation import AugmentedCopy, substituted_copy
from tnforge.hashing import key64, mix64, stable_hash64
from tnforge.sources import SYNTHESIZED_MARK, synthesized_source

#: The classes whose tokens can be drawn anew (digits, a currency or unit). Not ELECTRONIC: addresses with
#: their letters drawn anew taught the window model to spell unfamiliar words out (PLAIN "Chu" → "c h u") and
#: fixed no address (docs/results/synthesis.md).
SYNTHESIZABLE = ("MONEY", "MEASURE", "TELEPHONE", "DIGIT", "FRACTION", "TIME", "DATE", "DECIMAL", "ORDINAL",
                 "CARDINAL", "ADDRESS")
#: Written shapes drawn from besides the train split's own, for classes whose few train tokens show few of the
#: shapes the grammar reads: the common clock and phone-number layouts (digits drawn anew like the train's).
TEMPLATES = {
    "TIME": ("1:05", "11:45 pm", "6:30 am", "9.15pm", "3 pm", "18:20", "21:05", "7:00 a.m."),
    "TELEPHONE": ("212-555-0148", "1-800-555-0199", "020 7946 0958", "(555) 412-3456", "0-415-92718-8",
                  "978-0-571-33208-3"),
}
_CLOCK = re.compile(r"(\d{1,2})[:.](\d{2})|(\d{1,2}) ?[ap]\.?m")
#: Classes whose symbols are swapped for others of the grammar's table (`Grammar.currencies`, `.units`).
SWAPPED = ("MONEY", "MEASURE")
#: Train tokens per class read to learn its conventions (a bottom-k sample by stable hash: `SubstitutionPool`).
LEARN_LIMIT = 400
#: Forms drawn per synthesized example wanted (some are dropped: the grammar does not read them, or repeats).
DRAWS_PER_FORM = 3
#: The grammar's first (most common) currencies and units a symbol may be swapped for, besides the train's own.
COMMON_SYMBOLS = 24

#: The feature of a plural word where another licensed reading has its singular ("dollars" / "dollar"): a
#: convention that carries over to units and currencies the train split never showed.
PLURAL = "<plural>"

Readings = Callable[[str, str], Sequence[str]]
Committed = Callable[[str, str], str | None]
_SYMBOL = re.compile(r"[^\d\s.,/:\-]+")


@dataclass
class Conventions:
    """Per class, how much each word of a licensed reading speaks for it: log((times the corpus's reading said
    it where the grammar allowed a reading without it + 1) / (times a reading the corpus did not choose said it
    where the corpus's did not + 1)). Classes share what one has not seen (`general`)."""

    by_class: dict[str, dict[str, float]] = field(default_factory=dict)
    general: dict[str, float] = field(default_factory=dict)
    learned_from: dict[str, int] = field(default_factory=dict)  # train tokens of each class with a choice

    def score(self, cls: str, reading: str, others: Sequence[str] = ()) -> float:
        """How much the conventions speak for `reading` among `others` (its words, and its plurals where an
        other reading has the singular: `PLURAL`)."""
        own = self.by_class.get(cls, {})
        words = [*reading.split(), *[PLURAL] * len(plurals(reading, others))]
        return sum(own.get(word, self.general.get(word, 0.0)) for word in words)

    def choose(self, cls: str, readings: Sequence[str]) -> str | None:
        """The licensed reading the conventions prefer; on a tie the shortest (where the train split says
        nothing, as of a clock's "one o nine" against "one hour nine minute"), then the grammar's first."""
        if not readings:
            return None
        return max(readings, key=lambda r: (self.score(cls, r, readings), -len(r.split())))

    def strongest(self, cls: str, count: int = 5) -> list[tuple[str, float]]:
        """The words that speak most for or against a reading in `cls` (what was learned, for reports)."""
        weights = {word: value for word, value in self.by_class.get(cls, {}).items() if value}
        return sorted(weights.items(), key=lambda item: (-abs(item[1]), item[0]))[:count]


def learn_conventions(pairs: Mapping[str, Sequence[tuple[str, str]]], readings: Readings,
                      limit: int = LEARN_LIMIT) -> Conventions:
    """Conventions from train (before, after) pairs by class: each pair whose reading the grammar licenses
    among others counts the words that set the chosen reading apart, for it and against the others."""
    chosen: dict[str, Counter] = defaultdict(Counter)
    passed: dict[str, Counter] = defaultdict(Counter)
    learned: Counter = Counter()
    for cls, examples in sorted(pairs.items()):
        for before, after in list(examples)[:limit]:
            options = readings(before, cls)
            if after not in options or len(options) < 2:
                continue
            learned[cls] += 1
            gold = set(after.split())
            for other in options:
                if other == after:
                    continue
                words = set(other.split())
                chosen[cls].update(gold - words)
                passed[cls].update(words - gold)
                chosen[cls][PLURAL] += len(plurals(after, [other]))
                passed[cls][PLURAL] += len(plurals(other, [after]))
    def weights(yes: Counter, no: Counter) -> dict[str, float]:
        return {w: math.log((yes[w] + 1) / (no[w] + 1)) for w in sorted(set(yes) | set(no))}

    every_yes, every_no = Counter(), Counter()
    for cls in chosen.keys() | passed.keys():
        every_yes.update(chosen[cls])
        every_no.update(passed[cls])
    return Conventions({cls: weights(chosen[cls], passed[cls]) for cls in sorted(chosen.keys() | passed.keys())},
                       weights(every_yes, every_no), dict(sorted(learned.items())))


_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)\b")


def _suffix(number: str) -> str:
    """The English ordinal suffix of a number written in digits."""
    if number[-2:] in ("11", "12", "13"):
        return "th"
    return {"1": "st", "2": "nd", "3": "rd"}.get(number[-1], "th")


def plurals(reading: str, others: Iterable[str]) -> set[str]:
    """The words of `reading` ending in "s" whose singular (without it) another reading says where it does not."""
    words = set(reading.split())
    singulars = {w for other in others if other != reading for w in set(other.split()) - words}
    return {w for w in words if w.endswith("s") and w[:-1] in singulars}


def _draw(key: int, count: int) -> int:
    return int(mix64(key) % count)


def plausible(form: str, cls: str) -> bool:
    """False for a drawn TIME the clock has not got (hour 24 or more; over 12 before am/pm); the grammar
    reads minutes past 59 as nothing already."""
    if cls != "TIME":
        return True
    match = _CLOCK.search(form)
    if match is None:
        return True
    hour = int(match.group(1) or match.group(3))
    twelve = re.search(r"[ap]\.?m", form, re.I) is not None
    return 1 <= hour <= 12 if twelve else hour <= 23


def variant(before: str, cls: str, key: int, swaps: Sequence[str] = ()) -> str:
    """One new written form of `before`'s shape, drawn by `key`: each non-zero digit drawn anew (1–9), zeros
    kept; a symbol of `swaps` (a currency, a unit) swapped for another of them."""
    out = []
    for index, char in enumerate(before):
        if char.isdigit() and char != "0":
            out.append(str(1 + _draw(key ^ (index * 0x9E3779B97F4A7C15 & (2**64 - 1)), 9)))
        else:
            out.append(char)
    form = "".join(out)
    if cls == "ORDINAL":
        form = _ORDINAL.sub(lambda m: m.group(1) + _suffix(m.group(1)), form)
    if swaps:
        found = [m for m in _SYMBOL.finditer(form) if m.group() in swaps]
        if found:
            match = found[_draw(key ^ 0x5A5A, len(found))]
            replacement = swaps[_draw(key ^ 0xA5A5, len(swaps))]
            form = form[:match.start()] + replacement + form[match.end():]
    return form


@dataclass
class Synthesis:
    """What pass 2 needs to place synthesized examples: per rare class, its (before, after) forms and how many
    to place for each of its train tokens; what was learned, for the manifest."""

    seed: int
    forms: dict[str, list[tuple[str, str]]]
    per_token: dict[str, int]
    conventions: Conventions
    train_tokens: dict[str, int]
    held_out: frozenset[int] = frozenset()  # dev/test sentence text hashes: a synthesized sentence never reads so

    def section(self) -> dict:
        """The manifest's record of how the examples were made (the counts placed are added by the build)."""
        return {
            "rare_classes": {cls: {"train_tokens": self.train_tokens[cls], "forms": len(self.forms[cls]),
                                   "per_token": self.per_token[cls]} for cls in sorted(self.forms)},
            "conventions": {cls: {"learned_from": self.conventions.learned_from.get(cls, 0),
                                  "strongest_words": [[w, round(v, 2)] for w, v in self.conventions.strongest(cls)]}
                            for cls in sorted(self.forms)},
            "marked_by": f"source SOURCE{SYNTHESIZED_MARK} (examples dataset, train split only; copy 1..N) and "
                         f"SOURCE{SYNTHESIZED_MARK}-N (sentences dataset, train split only: copy N of a sentence)",
        }


def rare_classes(train_tokens: Mapping[str, int], below: int) -> list[str]:
    """The synthesizable classes with at least one and fewer than `below` train tokens."""
    return [cls for cls in SYNTHESIZABLE if 0 < train_tokens.get(cls, 0) < below]


def synthesize(pairs: Mapping[str, Sequence[tuple[str, str]]], train_tokens: Mapping[str, int], wanted: int,
               below: int, seed: int, readings: Readings, committed: Committed,
               tables: Mapping[str, Sequence[str]]) -> Synthesis:
    """The forms of every rare class (`rare_classes`): about `wanted` distinct (before, reading) pairs each,
    drawn from its train tokens' shapes and the class's `TEMPLATES` (`variant`), read by the grammar
    (`readings`; `committed`: the one reading it commits to, when it does) and chosen by the conventions
    learned from every class's `pairs`."""
    conventions = learn_conventions(pairs, readings)
    forms: dict[str, list[tuple[str, str]]] = {}
    per_token: dict[str, int] = {}
    for cls in rare_classes(train_tokens, below):
        own = sorted({before for before, _after in pairs.get(cls, ())})
        if not own:
            continue
        shapes = [*own, *(t for t in TEMPLATES.get(cls, ()) if t not in own)]
        seen_in_train = {m.group() for shape in own for m in _SYMBOL.finditer(shape)}
        table = [s for s in tables.get(cls, ()) if s] if cls in SWAPPED else []
        swaps = tuple(dict.fromkeys([*(s for s in table if s in seen_in_train), *table[:COMMON_SYMBOLS]]))
        made: dict[str, str] = {}
        for number in range(wanted * DRAWS_PER_FORM):
            if len(made) >= wanted:
                break
            shape = shapes[number % len(shapes)]
            form = variant(shape, cls, stable_hash64("synthesize", cls, shape, number, seed=seed), swaps)
            if form in made or form in own or not plausible(form, cls):
                continue
            reading = committed(form, cls) or conventions.choose(cls, readings(form, cls))
            if reading:
                made[form] = reading
        if made:
            forms[cls] = sorted(made.items())
            per_token[cls] = max(1, math.ceil(wanted / train_tokens[cls]))
    return Synthesis(seed, forms, per_token, conventions, {cls: int(train_tokens.get(cls, 0)) for cls in forms})


def chosen_forms(plan: Synthesis, cls: str, keys: Iterable[int], copy: int) -> list[tuple[str, str]]:
    """The form placed as synthesized copy `copy` of each train token (by its key) of class `cls`."""
    forms = plan.forms[cls]
    return [forms[_draw(stable_hash64("place", key, copy, seed=plan.seed), len(forms))] for key in keys]


def synthesis_keys(key_name: str, sentence_ids: np.ndarray, token_index: np.ndarray) -> np.ndarray:
    """The keys of a file's train tokens that `chosen_forms` draws by (examples and sentences alike)."""
    return key64(stable_hash64(key_name, "synthesized"), sentence_ids, token_index)


def synthesized_sentences(tokens: pa.RecordBatch, trivial: np.ndarray, key_name: str, source: str,
                          plan: Synthesis) -> Iterator[AugmentedCopy]:
    """Copy N (1..the largest `per_token`) of the train sentences (`tokens`: pass 1's cache columns of whole
    sentences; `trivial`: the `<self>`/`sil` mask) with each token of a rare class whose `per_token` reaches N
    replaced by the form and reading of its synthesized example N (`chosen_forms`), the sentence's other tokens
    unchanged; sentences without such a token left out, and those that read like a dev/test sentence."""
    rare_mask = ~trivial & np.isin(np.asarray(tokens.column("class").to_pylist(), dtype=object), list(plan.forms))
    if not rare_mask.any():
        return
    sentence_ids = tokens.column("sentence_id").to_numpy()
    within = np.isin(sentence_ids, np.unique(sentence_ids[rare_mask]))  # only the sentences that change
    tokens, rare_mask = tokens.filter(pa.array(within)), rare_mask[within]
    classes = tokens.column("class").to_pylist()
    rare = np.nonzero(rare_mask)[0].tolist()
    keys = synthesis_keys(key_name, tokens.column("sentence_id").to_numpy(), tokens.column("token_index").to_numpy())
    befores, afters = tokens.column("before").to_pylist(), tokens.column("after").to_pylist()
    for copy in range(1, max(plan.per_token[classes[i]] for i in rare) + 1):
        new_b, new_a = list(befores), list(afters)
        changed = np.zeros(len(befores), dtype=bool)
        for i in rare:
            if plan.per_token[classes[i]] >= copy:
                new_b[i], new_a[i] = chosen_forms(plan, classes[i], [int(keys[i])], copy)[0]
                changed[i] = True
        made = substituted_copy(tokens, new_b, new_a, changed, plan.held_out, copy, synthesized_source(source, copy),
                                stable_hash64(key_name, "synthesized", copy))
        if made is not None:
            yield made
