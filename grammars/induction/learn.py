"""Induce a number grammar from (number, verbalization) examples.

Examples are read in increasing order. A number below 100 is a numeral (`atoms`). A power of ten that the
rules learned so far cannot say is a new *base* (hundred, thousand, million, billion; Spanish has no base
10^9: "mil millones" is said by the rules already). Any other number n is factored by the largest base S
at or below it, n = q × S + r, and must end with the reading of r, which the rules already say: what is left
is the head of q × S and the joiner before r. A head is then aligned with the reading of q to learn how q's
last word and S's word stand together (два → две тысячи): a *scale rule*. An example no factorization
explains is an InductionError naming its line; examples that several splits explain, or that contradict an
earlier one, are reported as ambiguous, and only the first reading is kept.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from tnforge.grammars.induction.examples import Example, InductionError
from tnforge.grammars.induction.rules import NumberRules, Refusal, bucket, join_pieces, split_pieces

#: What may stand between a head and the rest: nothing, or separators with at most one word ("and", "y").
_JOINER = re.compile(r"(?:[ ,\-]+(?:[^ ,\-]+[ ,\-]+)?)?")
_TRAILING_SEPARATORS = re.compile(r"^(.*?)([ ,\-]*)$", re.DOTALL)
_WORDS = re.compile(r"[^ ,\-]+")
_SPACED = re.compile(r"^([^ ,\-]+)([ \-]+)(.+)$")
SMALLEST_BASE = 100


@dataclass
class InductionReport:
    """What the induction learned, and what it could not decide."""

    examples: int = 0
    ambiguous: list[str] = field(default_factory=list)  # "FILE:LINE: why"
    backed_off: list[str] = field(default_factory=list)  # joiners no example showed, taken from a neighbour

    def lines(self, rules: NumberRules) -> list[str]:
        scale = sum(len(t) for t in rules.scale_rules.values())
        out = [f"{rules.lang}: {self.examples} examples → {len(rules.atoms)} numerals, bases "
               f"{', '.join(f'{b:,}' for b in rules.bases)}, {len(rules.heads)} heads, {scale} scale rules, "
               f"{len(rules.joiners)} joiners, {sum(len(f) for f in rules.allomorphs.values())} allomorphs; "
               f"says numbers below {rules.limit:,}",
               "compound multipliers stand before a base as their last word alone: "
               + {True: "yes", False: "no", None: "no example tells"}[rules.compound_as_alone],
               f"ambiguous examples: {len(self.ambiguous)}"]
        out += [f"  {line}" for line in self.ambiguous]
        out += [f"joiner without an example: {line}" for line in self.backed_off]
        return out


class _Learner:
    def __init__(self, lang: str, limit: int):
        self.rules = NumberRules(lang=lang, limit=limit)
        self.report = InductionReport()
        self.scale_seen: dict[tuple[int, bool], dict[str, Counter]] = {}
        self.joiners_seen: dict[tuple[int, int], Counter] = {}
        self.allomorphs: dict[str, set[str]] = {}
        self.pending: list[tuple[int, int, bool, str]] = []
        self.compounds: list[tuple[str, int, bool, tuple[str, str, str]]] = []  # (last word, base, final, rule)

    # --- one example ----------------------------------------------------------------------------------
    def learn(self, example: Example) -> None:
        rules, v, text = self.rules, example.value, example.text
        if v < SMALLEST_BASE:
            rules.atoms[v] = text
            return
        if _is_power_of_ten(v) and self._new_base(v, text):
            rules.bases = (*rules.bases, v)
            rules.heads[1, v, True] = text
            self.refresh()
            return
        base = bucket(v, rules.bases)
        if base == 1:
            raise InductionError(f"{example.where}: no factorization explains {v} {text!r}: no base at or below it "
                                 f"(the examples must say {SMALLEST_BASE} first)")
        q, r = divmod(v, base)
        head, joiner = text, None
        if r:
            head, joiner = self._split(example, q, base, r)
            self.joiners_seen.setdefault((base, bucket(r, rules.bases)), Counter())[joiner] += 1
        key = (q, base, r == 0)
        if key in rules.heads and rules.heads[key] != head:
            self.report.ambiguous.append(f"{example.where}: {v} says {q:,} × {base:,} as {head!r}, an earlier "
                                         f"example as {rules.heads[key]!r}; the earlier one is kept")
        else:
            rules.heads[key] = head
        if q >= 2 and not self._align(q, base, r == 0, head):
            self.pending.append((q, base, r == 0, head))
        self.refresh()

    def _new_base(self, v: int, text: str) -> bool:
        """Whether a power of ten names a new base: its text does not begin as its factor q = v / S reads
        (десять миллионов begins as десять: no base 10^7; one billion does not begin as one thousand)."""
        base = bucket(v, self.rules.bases)
        if base == 1:
            return True
        try:
            body = self.rules.pieces(v // base)
        except Refusal:
            return True
        sep, word = body[-1]
        stem = word[: max(len(word) - 2, min(len(word), 3))]
        return not text.startswith(join_pieces(body[:-1]) + sep + stem)

    def _said(self, v: int) -> str | None:
        try:
            return self.rules.say(v)
        except Refusal:
            return None

    def _split(self, example: Example, q: int, base: int, r: int) -> tuple[str, str]:
        """(head, joiner) of an example q × base + r whose text ends with the reading of r."""
        v, text = example.value, example.text
        tail = self._said(r)
        if tail is None:
            raise InductionError(f"{example.where}: no factorization explains {v} {text!r}: the examples before it do "
                                 f"not teach how to say its rest, {r:,}")
        if not text.endswith(tail) or len(tail) == len(text):
            raise InductionError(f"{example.where}: no factorization explains {v} {text!r}: as {q:,} × {base:,} + {r:,} "
                                 f"it should end with the reading of {r:,}, {tail!r}")
        prefix = text[: -len(tail)]
        found: list[tuple[str, str]] = []
        known = [self.rules.heads.get((q, base, False)), self.rules.heads.get((q, base, True))]
        try:
            known.append(join_pieces(self.rules.head(q, base, False)))
        except Refusal:
            pass
        for head in known:
            if head and prefix.startswith(head) and _JOINER.fullmatch(prefix[len(head):]):
                found.append((head, prefix[len(head):]))
        match = _TRAILING_SEPARATORS.match(prefix)
        if not found and match.group(1):  # a head not seen yet: up to the separators before the rest
            found.append((match.group(1), match.group(2)))
        if not found:
            raise InductionError(f"{example.where}: no factorization explains {v} {text!r}: nothing before "
                                 f"{tail!r} reads as {q:,} × {base:,}")
        if len(set(found)) > 1:
            self.report.ambiguous.append(f"{example.where}: {v} splits as " + " or ".join(
                f"{h!r} + {j!r}" for h, j in dict.fromkeys(found)) + f"; took {found[0][0]!r} + {found[0][1]!r}")
        return found[0]

    def _align(self, q: int, base: int, final: bool, head: str) -> bool:
        """Learn how q's last word stands before the base from one head; False when it cannot tell yet."""
        try:
            body = self.rules.pieces(q)
        except Refusal:
            return False
        prefix = join_pieces(body[:-1])
        sep, word = body[-1]
        if not head.startswith(prefix + sep):
            return False
        rest = head[len(prefix) + len(sep):]
        rule = None
        if rest.startswith(word) and len(rest) > len(word):
            scale = rest[len(word):]
            stripped = scale.lstrip(" -")
            rule = (word, scale[: len(scale) - len(stripped)], stripped)
        else:
            forms = {f for table in self.scale_seen.get((base, final), {}).values() for _, _, f in table}
            forms |= {f for table in self.scale_seen.get((base, not final), {}).values() for _, _, f in table}
            for form in sorted(forms, key=len, reverse=True):
                if rest.endswith(form) and len(rest) > len(form):
                    match = _TRAILING_SEPARATORS.match(rest[: -len(form)])
                    if match.group(1) and not any(c in match.group(1) for c in " ,-"):
                        rule = (match.group(1), match.group(2), form)
                        break
            spaced = _SPACED.match(rest)
            if rule is None and spaced:  # another form of the word, then the base's word (две тысячи)
                rule = spaced.groups()
        if rule is None or not rule[2]:
            return False
        self.scale_seen.setdefault((base, final), {}).setdefault(word, Counter())[rule] += 1
        if len(body) > 1:
            self.compounds.append((word, base, final, rule))
        if rule[0] != word:
            self.allomorphs.setdefault(word, set()).add(rule[0])
        return True

    def _numeral_allomorphs(self) -> None:
        for word, form in _decade_allomorphs(self.rules.atoms).items():
            self.allomorphs.setdefault(word, set()).add(form)
        self.rules.allomorphs = {w: tuple(sorted(forms)) for w, forms in sorted(self.allomorphs.items())}

    def _compound_as_alone(self) -> bool | None:
        """Whether compound multipliers stand before a base as their last word alone does, by the examples where
        the two guesses differ: двадцать одна тысяча as одна тысяча (yes); vingt et un mille, not mille (no)."""
        rules, votes = self.rules, Counter()
        for word, base, final, rule in self.compounds:
            alone = rules.alone_rule(word, base, final)
            default = rules.scale_default.get((base, final))
            if alone is None or default is None or alone == (word, *default):
                continue
            if rule == alone:
                votes[True] += 1
            elif rule == (word, *default):
                votes[False] += 1
        if votes[True] == votes[False]:
            return None
        return votes[True] > votes[False]

    # --- derived tables -------------------------------------------------------------------------------
    def refresh(self) -> None:
        rules = self.rules
        rules.scale_rules = {table: {word: _most_common(c) for word, c in sorted(words.items())}
                             for table, words in self.scale_seen.items()}
        rules.scale_default = {}
        for table, words in self.scale_seen.items():
            forms: Counter = Counter()
            for counter in words.values():  # each word counts once, however many examples show it
                _, sep, scale = _most_common(counter)
                forms[sep, scale] += 1
            rules.scale_default[table] = _most_common(forms)
        rules.same_final = {}
        for (q, base, final), text in rules.heads.items():
            other = rules.heads.get((q, base, not final))
            if q >= 2 and final and other is not None:
                rules.same_final[base] = rules.same_final.get(base, True) and other == text
        for base in rules.bases:
            rules.same_final.setdefault(base, True)
        rules.joiners = {key: _most_common(c) for key, c in self.joiners_seen.items()}
        rules.allomorphs = {w: tuple(sorted(forms)) for w, forms in sorted(self.allomorphs.items())}
        rules.__post_init__()

    def finish(self, texts: list[str]) -> None:
        for _ in range(2):  # heads that needed a scale word learned later
            pending, self.pending = self.pending, []
            self.pending = [p for p in pending if not self._align(*p)]
            self.refresh()
        rules = self.rules
        seen = dict(rules.joiners)
        for base in rules.bases:
            for r_base in [1, *(b for b in rules.bases if b < base)]:
                if (base, r_base) in seen:
                    continue
                same = sorted((abs(_digits(b) - _digits(r_base)), b < r_base, b) for s, b in seen if s == base)
                other = sorted((abs(_digits(s) - _digits(base)), s) for s, b in seen if b == r_base)
                source = (base, same[0][2]) if same else (other[0][1], r_base) if other else None
                if source is not None:
                    rules.joiners[base, r_base] = seen[source]
                    self.report.backed_off.append(f"{base:,} + a rest from {r_base:,}: {seen[source]!r} "
                                                  f"(as after {source[0]:,} before {source[1]:,})")
        self._numeral_allomorphs()
        rules.__post_init__()
        rules.compound_as_alone = self._compound_as_alone()
        rules.lm = dict(sorted(_bigrams(texts).items()))
        rules.__post_init__()


def _decade_allomorphs(atoms: dict[int, str]) -> dict[str, str]:
    """Forms a decade's last word takes before a unit: quatre-vingts (80) → quatre-vingt-un (81)."""
    found: dict[str, str] = {}
    for n, text in atoms.items():
        decade, unit = n - n % 10, n % 10
        if not unit or decade not in atoms or unit not in atoms or not text.endswith(atoms[unit]):
            continue
        match = _TRAILING_SEPARATORS.match(text[: -len(atoms[unit])])
        head, whole = split_pieces(match.group(1)), split_pieces(atoms[decade])
        if match.group(2) and len(head) == len(whole) and head[:-1] == whole[:-1] and head[-1] != whole[-1]:
            found[whole[-1][1]] = head[-1][1]
    return found


def _most_common(counter: Counter):
    return max(sorted(counter.items()), key=lambda item: item[1])[0]


def _digits(n: int) -> int:
    return len(str(n))


def _is_power_of_ten(v: int) -> bool:
    return str(v).strip("0") == "1"


def _bigrams(texts: list[str]) -> Counter:
    counts: Counter = Counter()
    for text in texts:
        words = _WORDS.findall(text)
        counts.update(zip(words, words[1:], strict=False))
        counts.update(zip(words, words[1:], words[2:], strict=False))
    return counts


def induce(examples: list[Example], lang: str, lm_text: list[str] = ()) -> tuple[NumberRules, InductionReport]:
    """Learn a number grammar from examples; `lm_text` adds number-name text to the allomorph model."""
    ordered = sorted(examples, key=lambda e: e.value)
    learner = _Learner(lang, 10 ** len(str(ordered[-1].value)))
    for example in ordered:
        learner.learn(example)
    learner.finish([e.text for e in ordered] + list(lm_text))
    learner.report.examples = len(ordered)
    return learner.rules, learner.report
