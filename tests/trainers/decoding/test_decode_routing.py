"""Confidence-aware routing (`trainers.decoding.routing`), meaning errors (`trainers.evaluation.meaning_errors`)
and the corpus's abbreviations (`tnforge.abbreviations`), on hand-made inputs: no model needed."""

from __future__ import annotations

import numpy as np

from tnforge.abbreviations import abbreviation, abbreviation_reading
from tnforge.schemas.classes import union_class, union_parts
from tnforge.trainers.decoding.routing import (
    adds_nothing,
    likely_classes,
    meaning_at_stake,
    union_route,
    weigh_by_class,
)
from tnforge.trainers.evaluation.meaning_errors import aligned, gate, meaning_errors

NAMES = ("PLAIN", "LETTERS", "CARDINAL", "DATE", "DIGIT")


def test_likely_classes_reach_the_confidence_with_the_fewest_classes():
    assert likely_classes(np.array([0.995, 0.004, 0.001, 0, 0]), NAMES, 0.99) == (("PLAIN",), (0.995,))
    classes, shares = likely_classes(np.array([0.0, 0.0, 0.6, 0.395, 0.005]), NAMES, 0.99)
    assert classes == ("CARDINAL", "DATE") and shares == (0.6, 0.395)  # DIGIT below 1 − 0.99 adds nothing
    classes, _ = likely_classes(np.array([0.3, 0.25, 0.2, 0.15, 0.1]), NAMES, 0.99)
    assert classes == ("PLAIN", "LETTERS", "CARDINAL", "DATE")  # at most four
    assert meaning_at_stake(("CARDINAL", "DATE")) and meaning_at_stake(("PLAIN", "MEASURE"))
    assert not meaning_at_stake(("PLAIN", "LETTERS")) and not meaning_at_stake(("CARDINAL",))
    assert union_parts(union_class(("CARDINAL", "DATE"))) == ("CARDINAL", "DATE") and union_parts("DATE|") == ("DATE",)


class Words:
    """A stand-in grammar: readings by (token, class), and the one reading a class commits to."""

    def __init__(self, table, commits=None):
        self.table, self.commits = table, commits or {}

    def __call__(self, token, cls):
        return frozenset(tuple(r.split()) for r in self.table.get((token, cls), ()))

    def reading(self, token, cls):
        return self.commits.get((token, cls))


class Vocab:
    unk_id = 0

    def __init__(self, words):
        self.ids = {w: i + 1 for i, w in enumerate(words)}

    def encode(self, text):
        return [self.ids.get(w, 0) for w in text.split()]


def test_an_unsure_token_is_read_within_its_classes_or_left_as_written():
    words = Words({("1900", "CARDINAL"): ["one thousand nine hundred"], ("1900", "DATE"): ["nineteen hundred"],
                   ("221B", "CARDINAL"): [], ("12", "CARDINAL"): ["twelve"], ("12", "DATE"): ["twelve"]})
    vocab = Vocab("one thousand nine hundred nineteen twelve".split())
    fixed, keys, scored, why = union_route("1900", ("CARDINAL", "DATE"), (0.6, 0.4), words, vocab)
    assert fixed is None and keys == ["CARDINAL|", "DATE|"] and scored == [] and "CARDINAL 0.60, DATE 0.40" in why
    assert union_route("221B", ("CARDINAL", "MEASURE"), (0.5, 0.5), words, vocab)[0] == "<self>"
    assert union_route("12", ("CARDINAL", "DATE"), (0.5, 0.5), words, vocab)[0] == "twelve"  # the one reading
    unspellable = Words({("5", "CARDINAL"): ["five"], ("5", "DIGIT"): ["five"], ("5", "DATE"): ["fifth"]})
    _, keys, scored, _ = union_route("5", ("CARDINAL", "DATE"), (0.6, 0.4), unspellable, Vocab(["five"]))
    assert keys == ["CARDINAL|"] and scored == [("DATE", "fifth")]


def test_union_readings_are_weighed_by_class_probability_times_reading_within_the_class():
    """P(r) = Σ_c P(c) · P(r | c): the seq2seq's log-probabilities are renormalised within each class's beam, so
    its near-certain `<self>` within a 2% PLAIN branch never beats the reading of a 98% DATE (as the old sum of
    the two log-probabilities did for "October 1st": −0.008 + log 0.02 > −7.6 + log 0.98)."""
    parts = {"DATE": [("october first", -7.58), ("the first of october", -15.6)], "PLAIN": [("<self>", -0.008)]}
    ranked = weigh_by_class(parts, ("DATE", "PLAIN"), (0.98, 0.02))
    assert [text for text, _ in ranked][:2] == ["october first", "<self>"]
    within = 1 / (1 + np.exp(-15.6 + 7.58))
    assert abs(ranked[0][1] - np.log(0.98 * within)) < 1e-9 and abs(ranked[1][1] - np.log(0.02)) < 1e-9
    # A reading both classes' beams hold adds up; a class with one candidate gives it its whole probability.
    shared = weigh_by_class({"CARDINAL": [("twelve", -1.0), ("one two", -1.0)], "DIGIT": [("one two", -0.5)],
                             "DATE": [("the twelfth", 0.0)]}, ("CARDINAL", "DIGIT", "DATE"), (0.5, 0.3, 0.2))
    assert shared[0][0] == "one two" and abs(shared[0][1] - np.log(0.25 + 0.3)) < 1e-9
    assert dict(shared)["the twelfth"] == np.log(0.2) and weigh_by_class({}, ("DATE",), (1.0,)) == []
    # A reading the model cannot spell has next to no probability within its class: "221B" is left as written
    # by a 7% PLAIN rather than made "two hundred twenty one byte" by a 79% MEASURE the model cannot say.
    safe = weigh_by_class({"PLAIN": [("<self>", -17.0)]}, ("MEASURE", "PLAIN"), (0.79, 0.07),
                          {"MEASURE": "two hundred twenty one byte"})
    assert [text for text, _ in safe] == ["<self>", "two hundred twenty one byte"]
    assert abs(safe[1][1] - (np.log(0.79) - 30.0)) < 1e-9


def test_abbreviations_are_read_by_their_context():
    assert abbreviation_reading(["the", "church", "of", "St", "John"], 3)[0] == "saint"
    assert abbreviation_reading(["221B", "Baker", "St", "."], 2)[0] == "street"
    assert abbreviation_reading(["Dr", "Smith"], 0)[0] == "doctor"
    assert abbreviation_reading(["Mulholland", "Dr", "."], 1)[0] == "drive"
    assert abbreviation_reading(["Acme", "Ltd."], 1)[0] == "limited"
    assert abbreviation("ST") is None and abbreviation("Mrs") is None and abbreviation("No") is None


class Reading:
    def __init__(self, tokens, classes, readings):
        self.tokens, self.classes, self.readings = tokens, classes, readings
        self.routes = [""] * len(tokens)
        self.spoken = " ".join(readings)


class Gold:
    def __init__(self, tokens, classes, afters):
        self.source, self.sentence_id = "s.tsv", 7
        self.tokens, self.classes, self.afters = tokens, classes, afters
        self.spoken = " ".join(afters)


def test_meaning_errors_per_class_with_tokenizations_aligned():
    assert aligned(["a", "3-0", "LEAD"], ["a", "3-0 LEAD"]) == ([(0, 0)], [1])
    gold = [Gold(["Train", "540", "3kg", "3-0 LEAD"], ["PLAIN", "CARDINAL", "MEASURE", "TELEPHONE"],
                 ["<self>", "five hundred forty", "three kilograms", "three sil o sil lead"])]
    read = [Reading(["Train", "540", "3kg", "3-0", "LEAD"], ["PLAIN", "DATE", "MEASURE", "PLAIN", "PLAIN"],
                    ["<self>", "five forty", "three kilogram", "<self>", "<self>"])]
    licensed = {("540", "five forty", "CARDINAL"): False, ("3kg", "three kilogram", "MEASURE"): True}
    found = meaning_errors(read, gold, lambda items: [licensed[item] for item in items])
    assert found["unrecoverable"] == 1 and found["by_class"] == {"CARDINAL": {"class_right": 0, "class_wrong": 1}}
    assert found["errors"][0]["before"] == "540" and found["not_judged_tokens"] == 1
    passed, line = gate({"meaning_errors": found}, "raw")
    assert not passed and "1 unrecoverable error(s) in raw (CARDINAL 1); 1 gold token(s) not judged" in line
    assert gate({}, "raw")[0] is False  # nothing judged it: never "passed"


def test_abbreviations_agree_with_every_corpus_token(shared_tsv, bundled_tsv):
    """Every token of the shared and bundled samples the abbreviation rule decides is PLAIN in the corpus and
    read there as the rule reads it by its context (42 of the shared sample, 3 of the bundled one)."""
    from tnforge.readers import read_corpus_file
    from tnforge.token_blocks import TokenBlock

    decided, disputed = 0, []
    for path in (shared_tsv, bundled_tsv):
        for item in read_corpus_file(str(path)):
            if not isinstance(item, TokenBlock):
                continue
            befores, classes, afters = item.befores.to_pylist(), item.classes.to_pylist(), item.afters.to_pylist()
            for start, end in zip(item.offsets[:-1], item.offsets[1:], strict=True):
                tokens = befores[int(start):int(end)]
                for i, token in enumerate(tokens):
                    if abbreviation(token):
                        decided += 1
                        got = ("PLAIN", abbreviation_reading(tokens, i)[0])
                        if got != (classes[int(start) + i], afters[int(start) + i]):
                            disputed.append((tokens[max(0, i - 2): i + 3], got))
    assert decided >= 45 and disputed == []


def test_an_unsure_token_never_says_a_unit_its_readings_disagree_on():
    """Readings that disagree on a unit, currency or scale: the best that says none, else as written; readings
    that agree (or a best one that says none) are kept as they are."""
    units = {"byte": "byte", "bytes": "byte", "dollars": "dollar", "billion": "billion"}

    def meaning(text, token):
        return frozenset(units[w] for w in text.split() if w in units)

    ranked = [("two hundred twenty one byte", -0.2), ("two two one b", -1.5), ("two hundred twenty one bytes", -2.0)]
    kept, why = adds_nothing(ranked, "221B", meaning)
    assert kept == [("two two one b", -1.5)] and "would say byte" in why and "does not make certain" in why
    only_units = [("twelve byte", -0.1), ("twelve billion", -0.5)]
    assert adds_nothing(only_units, "12B", meaning) == ([("<self>", 0.0)], adds_nothing(only_units, "12B", meaning)[1])
    agree = [("three dollars", -0.1), ("three dollars", -0.3)]
    assert adds_nothing(agree, "$3", meaning) == (agree, "")  # the text makes the currency certain
    best_says_none = [("two two one b", -0.1), ("two hundred twenty one byte", -0.5)]
    assert adds_nothing(best_says_none, "221B", meaning) == (best_says_none, "")
    assert adds_nothing(ranked, "221B", None) == (ranked, "")  # no grammar: nothing to ask
