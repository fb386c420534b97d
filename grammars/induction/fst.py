"""Compile induced number rules into pynini FSTs: digits → the readings they license (`readings`: the rules'
reading, and with the joiners' words optional), and its inverse (`read`: "two thousand twelve" → 2012).

The FST for d-digit numbers is built as the rules say them: factored by the largest base S (n = q × S + r),
the head of q as a string map (at most 900 entries, each said by the rules), then, unless r = 0, the
joiner and the FST of r's digit count after r's leading zeros are deleted. A q of more than three digits
(Spanish "mil doscientos millones") is its own FST in the context "multiplier of S". Bounded depth: a plain
FST, no pushdown operations.
"""

from __future__ import annotations

from tnforge.grammars.induction.rules import NumberRules, Refusal, bucket, join_pieces


class _Builder:
    def __init__(self, rules: NumberRules, relaxed: bool):
        import pynini

        self.pynini, self.rules, self.relaxed = pynini, rules, relaxed
        self.memo: dict = {}

    def text(self, n: int, ctx: tuple[int, bool] | None, composed: bool) -> str | None:
        rules = self.rules
        try:
            if ctx is None:
                return rules.say(n)
            base, final = ctx
            return join_pieces(rules.composed_head(n, base, final) if composed else rules.head(n, base, final))
        except Refusal:
            return None

    def smap(self, items: list[tuple[str, str]]):
        """A union of (digits, text) pairs; relaxed, each text also with the joiners inside it relaxed (a
        multiplier's "one hundred and thirty" thousand also "one hundred thirty")."""
        pynini = self.pynini
        if self.relaxed:
            items = [(a, v) for a, b in items for v in self.variants(b)]
        return pynini.union(*(pynini.cross(a, b) for a, b in items)) if items else pynini.Fst()  # faster than string_map

    def relax(self, text: str) -> str:
        """A joiner with its words left out (" and " → " ", ", " → " ")."""
        return " " if text.strip(" ,") else text.replace(",", "")

    def variants(self, text: str) -> list[str]:
        """The text, and with any of the learned joiners that stand in it relaxed."""
        found = {text}
        for joiner in sorted({j for j in self.rules.joiners.values() if self.relax(j) != j}):
            found |= {v.replace(joiner, self.relax(joiner)) for v in found}  # every occurrence, or none
        return sorted(found)

    def joiner(self, text: str):
        pynini = self.pynini
        options = {text}
        if self.relaxed:
            options.add(self.relax(text))
        return pynini.union(*(pynini.cross("", option) for option in sorted(options)))

    def numbers(self, d: int, ctx: tuple[int, bool] | None = None, composed: bool = False):
        """The FST of d-digit numbers (no leading zero), said alone (ctx None) or as a multiplier of a base."""
        key = (d, ctx, composed)
        if key in self.memo:
            return self.memo[key]
        pynini, rules = self.pynini, self.rules
        base = bucket(10 ** (d - 1), rules.bases)
        low, high = 10 ** (d - 1), 10 ** d
        if base == 1 or d <= 3 and ctx is not None or d <= 3 and rules.bases[0] > 10 ** (d - 1):
            items = [(str(n), t) for n in range(low, high) if (t := self.text(n, ctx, composed)) is not None]
            fst = self.smap(items).optimize()
        else:
            width = len(str(base)) - 1
            q_digits = d - width
            fst = pynini.union(self.heads(q_digits, base, ctx, composed, final=True) + pynini.cross("0" * width, ""))
            rests = [pynini.cross("0" * (width - rd), "") + self.joiner(rules.joiners.get((base, bucket(10 ** (rd - 1), rules.bases)), " "))
                     + self.numbers(rd, ctx, True if ctx is not None else composed) for rd in range(1, width + 1)]
            fst |= self.heads(q_digits, base, None, composed, final=False) + pynini.union(*rests)
        self.memo[key] = fst
        return fst

    def heads(self, q_digits: int, base: int, ctx, composed: bool, final: bool):
        """q × base said (q of q_digits digits): ctx None → HEAD(q, base); else the whole as a multiplier."""
        low, high = 10 ** (q_digits - 1), 10 ** q_digits
        if ctx is None:
            if q_digits > 3:
                return self.numbers(q_digits, (base, final), False)
            items = [(str(q), join_pieces(self.rules.head(q, base, final))) for q in range(low, high) if self._sayable(q, base, final)]
        else:
            items = [(str(q), t) for q in range(low, high) if (t := self.text(q * base, ctx, composed)) is not None]
        return self.smap(items).optimize()

    def _sayable(self, q: int, base: int, final: bool) -> bool:
        try:
            self.rules.head(q, base, final)
            return True
        except Refusal:
            return False


def compile_fsts(rules: NumberRules) -> dict:
    """{"readings": digits → every reading the grammar licenses (the rules' one, and with the joiners' words
    left out: "two thousand twelve"), "read": its inverse, words → digits}."""
    import pynini

    builder = _Builder(rules, relaxed=True)
    parts = [builder.numbers(d) for d in range(1, len(str(rules.limit - 1)) + 1)]
    if 0 in rules.atoms:
        parts.append(pynini.cross("0", rules.atoms[0]))
    readings = pynini.union(*parts).optimize()
    return {"readings": readings.copy().arcsort("ilabel"), "read": readings.invert().optimize().arcsort("ilabel")}
