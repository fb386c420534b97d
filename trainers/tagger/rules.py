"""Token patterns whose class the corpus never disputes, applied over the model's prediction.

Rare classes (MONEY: 12 tokens of the 46k-token sample, TIME: 2) are too thin for the trees to learn, yet
their written forms are unambiguous: in the shared sample every token matching each pattern below has
that class (docs/explanation/tagger.md, "Rules"; tests/trainers/tagger/test_tagger.py checks). A rule fires only on the whole token; `context_class`
adds the one rule that looks at the neighbours (a colon between numbers: PLAIN in 9 of the 10 in train + dev).
Numbers with thousands separators (CARDINAL), road codes such as "M25" (ADDRESS) and hashtags (ELECTRONIC)
are decided too: the trees, which see almost none, took "299,792,458" for a telephone number, "C18" for a
measure and "#Olympics" for a word, each an unrecoverable reading (docs/results/safe-normalize.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tnforge.abbreviations import abbreviation
from tnforge.tokenizer import UNIT, span_pattern

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_DOMAINS = r"com|org|net|edu|gov|info|io|uk|de|fr|jp|cz|au|ca|sg|ru|it|nl|es|in|cn|tv"

#: (class, pattern of the whole token), tried in order.
RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((cls, re.compile(pattern)) for cls, pattern in (
    ("MONEY", rf"[$€£¥₹] ?{_NUMBER}(?:[mk]|bn)?(?: (?:hundred|thousand|million|billion|trillion))?(?: [A-Z]{{3}})?"),
    ("MONEY", span_pattern("money")),  # "US$5 million", "$500M", "Rs 10 lakh", "86 million USD"
    ("TIME", r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?: ?[AaPp]\.?[Mm]\.?)?"),
    ("TIME", r"(?:[01]?\d|2[0-3])\.[0-5]\d ?[AaPp]\.?[Mm]\.?"),  # "10.30pm"
    ("TIME", span_pattern("time")),  # "10 a.m.", "4pm", "12:32 UTC", "4:06 PM ET"
    ("TIME", r"(?:[01]?\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?Z?|[0-5]?\d:[0-5]\d\.\d{1,3}"),  # "18:00:00Z", "2:34.19"
    ("FRACTION", span_pattern("fraction")),  # "½", "3¾", "4 ½", "8 1/2"
    ("MEASURE", rf"-?{_NUMBER}(?: (?:million|billion|thousand))? ?(?:{UNIT}(?:/(?:s|h|hr|min|day|yr|year))?|%)"),
    ("DATE", r"(?:[0-2]?\d|3[01])/(?:0?[1-9]|1[0-2])/\d{4}|(?:0?[1-9]|1[0-2])/(?:[0-2]?\d|3[01])/\d{4}"
             r"|\d{4}-(?:0?[1-9]|1[0-2])-(?:[0-2]?\d|3[01])"),
    ("ORDINAL", r"\d+(?:st|nd|rd|th)"),
    ("DATE", r"\d+s"),  # decades ("1990s", "40s")
    ("FRACTION", r"\d+/\d+"),  # after the dates: "1527/8", "3/4"
    ("DECIMAL", r"\.\d+"),  # ".1996"
    ("DECIMAL", span_pattern("scaled")),  # "480 million", "2.5 billion"
    ("DECIMAL", span_pattern("scientific")),  # "3.66E-49"
    ("ELECTRONIC", rf"[A-Za-z][\w-]*(?:\.[\w-]+)*\.(?:{_DOMAINS})"),  # host names: "nascar.com", "BioLib.cz"
    ("VERBATIM", r"_"),
    ("DIGIT", r"0\d{2,4}"),  # "001", "0008": read digit by digit
    ("TELEPHONE", span_pattern("telephone")),
    ("TELEPHONE", r"(?:1-)?\d{3}-\d{3}-\d{4}"),  # "212-555-0148", "1-800-555-0199"
    ("CARDINAL", r"\d{1,3}(?:,\d{3})+"),  # thousands separated: "21,000", "299,792,458" (never a phone number)
    ("ADDRESS", r"(?!AM|PM)[A-Z]{1,2}-?\d{1,4}"),  # road and route codes: "C18", "M25", "I-95", "B4391" (not "PM2")
    ("ELECTRONIC", r"#[A-Za-z]\w*"),  # hashtags: "#Selfie"
))


def rule_class(token: str) -> str | None:
    """The class a rule gives `token`, or None when no rule fires."""
    text = token.strip()
    for cls, pattern in RULES:
        if pattern.fullmatch(text):
            return cls
    return None


#: A Roman numeral in capitals ("II", "XLVIII").
ROMAN = re.compile(r"(?=[MDCLXVI])M*(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})")
#: Words after which the corpus reads a Roman numeral as a number ("War II", "Part I", "Volume IV": CARDINAL
#: in each of the 14 in the shared sample's train and dev splits).
NUMBERED = frozenset({"war", "part", "volume", "class", "division"})


def context_class(tokens: Sequence[str], index: int) -> str | None:
    """A class decided by the token and its neighbours, or None: a colon between two numbers ("1 : 1",
    "94 : 501") is PLAIN (read "to"), not PUNCT; a Roman numeral after a word that numbers things ("World War
    II", "Part I": `NUMBERED`) is CARDINAL; an abbreviation the corpus expands (`tnforge.abbreviations`: St,
    Dr, Mt, Vol, Ltd, …) is PLAIN, as the corpus always has it."""
    if tokens[index].strip() == ":" and 0 < index < len(tokens) - 1 and \
            tokens[index - 1].strip().isdigit() and tokens[index + 1].strip().isdigit():
        return "PLAIN"
    if index > 0 and ROMAN.fullmatch(tokens[index].strip()) and tokens[index - 1].strip().lower() in NUMBERED:
        return "CARDINAL"
    if abbreviation(tokens[index]) is not None:
        return "PLAIN"
    return rule_class(tokens[index])
