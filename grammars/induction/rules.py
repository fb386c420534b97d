"""An induced number grammar's rules, and saying a number with them.

A number below the smallest base (100 in every language so far) is a learned *numeral* (`atoms`). A larger
one is factored by the largest base S at or below it (the powers of ten the language names: hundred,
thousand, million, …), n = q × S + r, and said as HEAD(q, S) JOINER(S, r) SAY(r):

* HEAD(q, S): the example's own head when one taught it (`heads`: "quinientos", "двести", "mil"); else
  SAY(q) with its last word replaced before S and S's word added (`scale_rules`, keyed by that word:
  два → две тысячи, cents → cent mille). For a word no example put before S, in this order: a word that
  alternates the same way and stands before S in an example (vingts/vingt as cents/cent: quatre-vingts
  millions as deux cents millions, quatre-vingt mille as deux cent mille); the head of the word's own
  value before S, where the examples show compound multipliers standing as their last word alone does
  (`compound_as_alone`: двадцать одна тысяча as одна тысяча, so двадцать один миллион as один миллион;
  not in French: vingt et un mille, not mille); the allomorph model (bigram and trigram counts of `lm`);
  S's most frequent form (`scale_default`).
* JOINER(S, r): what stands between the head and the rest, by S and the size of r (" and ", ", ", "").

Heads that end the number (`final`) may differ from heads followed by more (deux cents / deux cent un).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

#: A reading as pieces: (separator before the piece, the piece).
Pieces = tuple[tuple[str, str], ...]
_PIECE = re.compile(r"([ ,\-]*)([^ ,\-]+)")


class Refusal(ValueError):
    """A number the induced grammar will not say: past what its examples teach."""


def split_pieces(text: str) -> Pieces:
    """A reading's pieces: words with the separators before them ("twenty-one" → ("", "twenty"), ("-", "one"))."""
    return tuple((m.group(1), m.group(2)) for m in _PIECE.finditer(text))


def join_pieces(pieces: Pieces) -> str:
    return "".join(sep + word for sep, word in pieces)


def alternation(word: str, form: str) -> tuple[str, str]:
    """How two forms of a word differ, past their common beginning: ("cents", "cent") → ("s", "")."""
    common = 0
    while common < min(len(word), len(form)) and word[common] == form[common]:
        common += 1
    return word[common:], form[common:]


def bucket(r: int, bases: tuple[int, ...]) -> int:
    """The largest base at or below r, or 1 below the smallest."""
    found = 1
    for base in bases:
        if base <= r:
            found = base
    return found


@dataclass
class NumberRules:
    """The learned parts of a number grammar (see the module docstring) and the speaker built on them."""

    lang: str
    atoms: dict[int, str] = field(default_factory=dict)
    bases: tuple[int, ...] = ()
    heads: dict[tuple[int, int, bool], str] = field(default_factory=dict)
    same_final: dict[int, bool] = field(default_factory=dict)
    scale_rules: dict[tuple[int, bool], dict[str, tuple[str, str, str]]] = field(default_factory=dict)
    scale_default: dict[tuple[int, bool], tuple[str, str]] = field(default_factory=dict)
    joiners: dict[tuple[int, int], str] = field(default_factory=dict)
    limit: int = 0
    lm: dict[tuple[str, str], int] = field(default_factory=dict)
    allomorphs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Whether a compound multiplier stands before a base as its last word alone does (None: no example shows).
    compound_as_alone: bool | None = None

    def __post_init__(self) -> None:
        self._memo: dict[int, Pieces] = {}
        self._choices: dict[tuple[str, int, bool], tuple[str, str, str]] = {}
        self._values = {split_pieces(text)[0][1]: n for n, text in sorted(self.atoms.items(), reverse=True)
                        if len(split_pieces(text)) == 1}

    # --- saying -------------------------------------------------------------------------------------------
    def say(self, n: int) -> str:
        """The reading of n (a Refusal when the examples do not teach it)."""
        return join_pieces(self.pieces(n))

    def pieces(self, n: int) -> Pieces:
        found = self._memo.get(n)
        if found is None:
            found = self._pieces(n)
            if len(self._memo) < 1_000_000:
                self._memo[n] = found
        return found

    def _pieces(self, n: int) -> Pieces:
        if n < 0 or n >= self.limit:
            raise Refusal(f"{n}: past what the examples teach ({self.lang} is learned below {self.limit:,})")
        if not self.bases or n < self.bases[0]:
            if n not in self.atoms:
                raise Refusal(f"{n}: no example says it, and it is below the smallest base")
            return split_pieces(self.atoms[n])
        base = bucket(n, self.bases)
        q, r = divmod(n, base)
        head = self.head(q, base, r == 0)
        if r == 0:
            return head
        tail = self.pieces(r)
        return head + ((self.joiner(base, r), tail[0][1]),) + tail[1:]

    def joiner(self, base: int, r: int) -> str:
        key = (base, bucket(r, self.bases))
        if key not in self.joiners:
            raise Refusal(f"no example shows what joins {base:,} and {r:,}")
        return self.joiners[key]

    def head(self, q: int, base: int, final: bool) -> Pieces:
        """HEAD(q, base): q × base said, ending the number (final) or followed by more."""
        text = self.heads.get((q, base, final))
        if text is None and self.same_final.get(base):
            text = self.heads.get((q, base, not final))
        if text is not None:
            return split_pieces(text)
        return self.composed_head(q, base, final)

    def composed_head(self, q: int, base: int, final: bool) -> Pieces:
        """SAY(q) with its last word as it stands before the base's word, then that word."""
        body = self.pieces(q)
        sep, word = body[-1]
        replacement, scale_sep, scale_word = self.choose(word, base, final, body[-2][1] if len(body) > 1 else "")
        out = body[:-1] + ((sep, replacement),) if replacement else body[:-1]
        return out + ((scale_sep if out else "", scale_word),)

    def _tables(self, base: int, final: bool) -> list[tuple[int, bool]]:
        return [(base, final), (base, not final)] if self.same_final.get(base) else [(base, final)]

    def choose(self, word: str, base: int, final: bool, previous: str = "") -> tuple[str, str, str]:
        """(the word's form, separator, the base's form) for `word` (after `previous`) before `base`."""
        key = (word, base, final, previous)
        if key not in self._choices:
            self._choices[key] = self._choose(word, base, final, previous)
        return self._choices[key]

    def _choose(self, word: str, base: int, final: bool, previous: str) -> tuple[str, str, str]:
        tables = self._tables(base, final)
        for table in tables:
            rule = self.scale_rules.get(table, {}).get(word)
            if rule is not None:
                return rule
        rule = self._by_analogy(word, tables)
        if rule is None and self.compound_as_alone:
            rule = self.alone_rule(word, base, final)
        if rule is not None and len(rule) == 3:
            return rule
        if self.lm:
            forms = {(sep, scale) for table in tables for _, sep, scale in self.scale_rules.get(table, {}).values()}
            default = next((self.scale_default[t] for t in tables if t in self.scale_default), None)
            if default is not None and self.compound_as_alone is None:  # the base's word after one (один миллион)
                forms |= {(default[0], split_pieces(text)[-1][1]) for (q, b, _), text in self.heads.items() if q == 1 and b == base}
            # (trigram count with the word before, bigram count): quatre vingts millions, not vingt millions
            scored = [((self.lm.get((previous, form, scale.split()[0]), 0), self.lm.get((form, scale.split()[0]), 0)),
                       form, sep, scale) for form in (word, *self.allomorphs.get(word, ())) for sep, scale in sorted(forms)]
            best = max(scored, default=None, key=lambda s: s[0])
            if best is not None and best[0] > (0, 0):
                return best[1], best[2], best[3]
        for table in tables:
            default = self.scale_default.get(table)
            if default is not None:
                return word, *default
        raise Refusal(f"no example shows how {word!r} stands before {base:,}")

    def alone_rule(self, word: str, base: int, final: bool) -> tuple[str, ...] | None:
        """How the head of the word's own value stands before the base (один миллион → ("один", " ", "миллион"));
        a head of other than two words as (its text,) ("mille",); None where no example says that head."""
        value = self._values.get(word)
        for table in self._tables(base, final) if value is not None else ():
            text = self.heads.get((value, *table))
            if text is not None:
                pieces = split_pieces(text)
                return (pieces[0][1], *pieces[1]) if len(pieces) == 2 else (text,)
        return None

    def _by_analogy(self, word: str, tables: list[tuple[int, bool]]) -> tuple[str, str, str] | None:
        """The rule of words that alternate as this one does (cents/cent for vingts/vingt) before the base:
        each keeps its own form, or takes its alternant, as they do (a majority; None on a tie or none)."""
        votes: dict[tuple[str, str, str], int] = {}
        for form in self.allomorphs.get(word, ()):
            change = alternation(word, form)
            for table in tables:
                for other, (used, sep, scale) in self.scale_rules.get(table, {}).items():
                    if other == word:
                        continue
                    if used == other and change in {alternation(other, f) for f in self.allomorphs.get(other, ())}:
                        key = (word, sep, scale)
                    elif used != other and alternation(other, used) == change:
                        key = (form, sep, scale)
                    else:
                        continue
                    votes[key] = votes.get(key, 0) + 1
                if votes:
                    break
        ranked = sorted(votes.items(), key=lambda item: -item[1])
        if not ranked or len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            return None
        return ranked[0][0]

    # --- the readable rule file ----------------------------------------------------------------------------
    def to_tsv(self) -> str:
        """The rules as TSV rows (text fields JSON-quoted, so separators stay visible)."""
        q = json.dumps
        rows = [f"lang\t{q(self.lang)}", f"limit\t{self.limit}"]
        rows += [f"base\t{b}" for b in self.bases]
        rows += [f"atom\t{n}\t{q(t)}" for n, t in sorted(self.atoms.items())]
        rows += [f"head\t{n}\t{b}\t{int(f)}\t{q(t)}" for (n, b, f), t in sorted(self.heads.items())]
        rows += [f"same_final\t{b}\t{int(v)}" for b, v in sorted(self.same_final.items())]
        for (b, f), table in sorted(self.scale_rules.items()):
            rows += [f"scale\t{b}\t{int(f)}\t{q(w)}\t{q(r)}\t{q(s)}\t{q(x)}" for w, (r, s, x) in sorted(table.items())]
        rows += [f"scale_default\t{b}\t{int(f)}\t{q(s)}\t{q(x)}" for (b, f), (s, x) in sorted(self.scale_default.items())]
        rows += [f"joiner\t{b}\t{r}\t{q(j)}" for (b, r), j in sorted(self.joiners.items())]
        if self.compound_as_alone is not None:
            rows.append(f"compound_as_alone\t{int(self.compound_as_alone)}")
        rows += [f"allomorphs\t{q(w)}\t{q(list(forms))}" for w, forms in sorted(self.allomorphs.items())]
        rows += [f"ngram\t{q(list(words))}\t{c}" for words, c in sorted(self.lm.items())]
        return "\n".join(rows) + "\n"

    @classmethod
    def from_tsv(cls, text: str) -> NumberRules:
        rules = cls(lang="")
        load = json.loads
        bases: list[int] = []
        for row in text.splitlines():
            kind, *f = row.split("\t")
            if kind == "lang":
                rules.lang = load(f[0])
            elif kind == "limit":
                rules.limit = int(f[0])
            elif kind == "base":
                bases.append(int(f[0]))
            elif kind == "atom":
                rules.atoms[int(f[0])] = load(f[1])
            elif kind == "head":
                rules.heads[int(f[0]), int(f[1]), f[2] == "1"] = load(f[3])
            elif kind == "same_final":
                rules.same_final[int(f[0])] = f[1] == "1"
            elif kind == "scale":
                rules.scale_rules.setdefault((int(f[0]), f[1] == "1"), {})[load(f[2])] = (load(f[3]), load(f[4]), load(f[5]))
            elif kind == "scale_default":
                rules.scale_default[int(f[0]), f[1] == "1"] = (load(f[2]), load(f[3]))
            elif kind == "joiner":
                rules.joiners[int(f[0]), int(f[1])] = load(f[2])
            elif kind == "compound_as_alone":
                rules.compound_as_alone = f[0] == "1"
            elif kind == "allomorphs":
                rules.allomorphs[load(f[0])] = tuple(load(f[1]))
            elif kind == "ngram":
                rules.lm[tuple(load(f[0]))] = int(f[1])
        rules.bases = tuple(sorted(bases))
        rules.__post_init__()
        return rules
