"""Number-name grammars induced from a few hundred (number, verbalization) pairs (Gorman & Sproat 2016).

    from tnforge.grammars.induction import induce, load
    rules, report = induce(read_pairs("en.tsv"), lang="en")   # learn the rules
    rules.say(2012)                                         # 'two thousand and twelve'
    # tnforge grammar induce writes a directory (store.save); load it:
    load("out/en").read("two thousand twelve")              # 2012 (the compiled FST, inverted)

`examples` reads and checks the pairs, `learn` induces the rules, `rules` says numbers with them, `fst`
compiles them into pynini FSTs (a FAR), `store` writes and loads a grammar directory, `sampling` draws test
numbers by the paper's Appendix A. pynini is imported only by `fst` and `store`.
"""

from __future__ import annotations

from tnforge.grammars.induction.examples import InductionError, read_pairs
from tnforge.grammars.induction.learn import induce
from tnforge.grammars.induction.rules import NumberRules, Refusal


def load(directory):
    """A grammar directory written by `tnforge grammar induce` (`store.InducedGrammar`)."""
    from tnforge.grammars.induction.store import InducedGrammar

    return InducedGrammar(directory)

__all__ = ["InductionError", "NumberRules", "Refusal", "induce", "load", "read_pairs"]
