"""Plain text → corpus-style tokens, the way the Sproat & Jaitly corpus tokenizes its `written` text.

The corpus splits punctuation off words ("word ," not "word,"), keeps contractions and possessives whole
("wasn't", "Girls'"), and keeps some multi-word spans as one token: dates ("12 May 2019", "May 12, 2019",
"September 2014"), measures ("5 km", "1.06 sq mi"), money and large numbers ("$90 billion", "2.5 million"),
spelled initials ("S. R. C."). `tokenize` reproduces that from raw text; `detokenize` makes the raw text a
person would write from corpus tokens (the input used to measure the tokenizer: docs/explanation/tagger.md, "The tokenizer it works with").
Pure standard library: used by the tagger, the normalizer and benchmarks alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

__all__ = ["ABBREVIATIONS", "boundary_scores", "corpus_sentences", "detokenize", "measure", "span_pattern", "token_spans",
           "tokenize"]

# --- detokenization: corpus tokens → the raw text a person would write ---------------------------------

#: Tokens written against the previous word ("word ," → "word,").
_CLOSERS = frozenset({",", ".", ";", ":", "!", "?", ")", "]", "}", "»", "%", "...", "…"})
#: Tokens written against the next word ("( word" → "(word").
_OPENERS = frozenset({"(", "[", "{", "«", "$", "£", "€", "#"})
#: Tokens written against both neighbours ("AC / DC" → "AC/DC", "2003 - 04" → "2003-04").
_JOINERS = frozenset({"/", "-"})
#: Quotes alternate: an odd one opens (attached to the next token), an even one closes (to the previous).
_QUOTES = frozenset({'"', "'", "“", "”", "‘", "’"})


def detokenize(tokens: Sequence[str]) -> str:
    """The raw text of corpus tokens: tokens joined by spaces, punctuation attached as in normal text."""
    parts: list[str] = []
    glue_next = True  # no space before the first token
    open_quotes: dict[str, bool] = {}
    for raw in tokens:
        token = raw.strip()
        if not token:
            continue
        glue_before = glue_next
        glue_next = False
        if token in _CLOSERS:
            glue_before = True
        elif token in _OPENERS:
            glue_next = True
        elif token in _JOINERS:
            glue_before = glue_next = True
        elif token.endswith("-"):  # "STS-" of "STS-121"
            glue_next = True
        elif token in _QUOTES:
            kind = '"' if token in '"“”' else "'"
            if open_quotes.get(kind):
                glue_before = True
            else:
                glue_next = True
            open_quotes[kind] = not open_quotes.get(kind)
        parts.append(token if glue_before or not parts else " " + token)
    return "".join(parts)


# --- tokenization ---------------------------------------------------------------------------------------

_MONTH_NAME = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
               r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)")
_MONTH = rf"{_MONTH_NAME}\.?"
_WEEKDAY = r"(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|Mon|Tue|Wed|Thu|Fri|Sat|Sun)\.?,? "
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?(?!\d)"
_YEAR = r"\d{3,4}(?!\d)"
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_NUM_CORE = r"\d+(?:[.,:/]\d+)*"
_SCALE = r"(?:hundred|thousand|million|billion|trillion)"
#: A scale word in any case the corpus keeps in a money token ("$7.0 Million", "$612 MILLION", "Rs 10 lakh").
_MONEY_SCALE = (r"(?:[Hh]undred|[Tt]housand|[Mm]illion|[Bb]illion|[Tt]rillion|HUNDRED|THOUSAND|MILLION|BILLION|"
                r"TRILLION|[Ll]akhs?|[Cc]rores?|[Cc]r)")
#: A scale letter or abbreviation glued to an amount ("$500M", "$3bn", "£295m").
_GLUED_SCALE = r"(?:[mMkKbBtT]|bn|Bn|BN|mn|tn)"
#: Currency signs, alone or after a country's letters ("US$5 million", "HK$330 million", "A$2").
CURRENCY_SIGN = r"(?:(?<![A-Za-z])(?:US|HK|NZ|NT|AU|CA|RD|EC|[ACJRSZ])?\$|[€£¥₹₨])"
#: Currency codes the corpus keeps with their amount ("USD 5 million", "88.5 million HRK", "Rs 10 lakh"); PHP
#: is left out on purpose ("PHP 5.1" is far more often the language than Philippine pesos).
CURRENCY_CODE = (r"(?:USD|EUR|GBP|JPY|CNY|RMB|INR|AUD|CAD|CHF|HKD|SGD|NZD|SEK|NOK|DKK|ISK|ZAR|BRL|MXN|RUB|KRW|PKR|BDT|"
                 r"LKR|NPR|IDR|MYR|THB|VND|NGN|KES|EGP|TRY|PLN|CZK|HUF|HRK|RON|BGN|UAH|ILS|AED|SAR|QAR|TWD|ARS|CLP|"
                 r"COP|Rs\.?|Tk)")
#: An amount: a number, or thousands grouped by spaces after a currency sign or code ("$120 000").
_AMOUNT = rf"(?:\d{{1,3}}(?: \d{{3}})+(?![\d.,])|{_NUMBER})"
#: Units the corpus keeps in one token with their number ("5 km"); it splits others ("6 in", "170 acres").
UNIT = (r"(?:sq\.? (?:mi|km|ft|yd|m)|fl\.? ?oz|"
        r"(?:km|cm|mm|nm|μm|µm|m|mi|ft|yd|kg|mg|μg|µg|ng|g|lb|lbs|oz|kt|Mt|ml|mL|μL|µL|dL|cl|gal|ha)"
        r"(?:[²³23](?![\d]))?|km/h|mph|kph|kmh|m/s|ft/s|g/cm3|g/cm³|kg/m3|kg/m³|"
        r"ms|μs|µs|ns|Hz|kHz|MHz|GHz|THz|"
        r"mA|kA|mV|kV|MV|kW|MW|GW|TW|mW|Wh|kWh|MWh|GWh|TWh|mAh|kJ|MJ|GJ|eV|keV|MeV|GeV|TeV|cal|kcal|"
        r"hPa|kPa|MPa|GPa|mbar|atm|mmHg|kN|MN|dB|rpm|bpd|"
        r"kB|KB|MB|GB|TB|PB|kb|Kb|Mb|Gb|Tb|kbps|Kbps|Mbps|Gbps|kb/s|Mb/s|Gb/s|MB/s|GB/s|"
        r"mol|mmol|μmol|Da|kDa|Bq|kBq|MBq|Gy|mGy|Sv|mSv|μSv|AU|ly|kpc|Mpc|hp|bhp|cc|°C|°F|"
        r"min|mins|sec|secs|hr|hrs)")  # time units the corpus reads with their number ("20 min": twenty minutes)
#: Time zones the corpus keeps with a time ("12:32 UTC", "4:06 PM ET", "8 pm AEST").
TIME_ZONE = (r"(?:UTC|GMT|[ECMP][SD]?T|IST|JST|KST|HKT|SGT|MSK|CET|CEST|EET|EEST|WET|WEST|BST|AEST|AEDT|ACST|ACDT|"
             r"AWST|NZST|NZDT|HST|AKST|AKDT)")
#: a.m. / p.m. in any of the forms the corpus keeps with the time ("10 a.m.", "4:30 PM", "10.30pm").
AM_PM = r"(?:[ap]\.m\.|[AP]\.M\.|(?:[ap]m|[AP]M)(?!\w))"
#: Vulgar fraction signs ("½", "3¾").
VULGAR_FRACTIONS = "¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
#: Words the corpus keeps with their period. It splits the period off every other word ("Dr .", "pp .",
#: "etc ."), keeping it only on single capital initials ("M." of "M. Smith") and dotted acronyms ("U.S.").
ABBREVIATIONS: frozenset[str] = frozenset({"usa."})
_RULES: list[tuple[str, str]] = [
    ("date", rf"(?:{_WEEKDAY})?(?:{_MONTH} {_DAY},? {_YEAR}|{_DAY} {_MONTH},? {_YEAR}|{_MONTH} {_YEAR}"
             rf"|{_MONTH} {_DAY}|{_DAY} {_MONTH_NAME}(?!\w))"),
    ("url", r"(?:[a-zA-Z][a-zA-Z0-9+.-]*://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]']"),
    ("email", r"\w[\w.+-]*@[\w-]+(?:\.[\w-]+)+"),
    ("time", rf"(?:[01]?\d|2[0-3])(?:[:.][0-5]\d(?::[0-5]\d)?)? ?{AM_PM}(?: {TIME_ZONE}\b)?"
             rf"|(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)? {TIME_ZONE}\b"),
    ("money", rf"(?:{CURRENCY_SIGN} ?|{CURRENCY_CODE} ?){_AMOUNT}(?:{_GLUED_SCALE}\b| ?{_MONEY_SCALE}\b)?"
              rf"|(?:{_NUMBER})(?: {_MONEY_SCALE})? {CURRENCY_CODE}\b"
              rf"|(?:{_NUMBER}) {_MONEY_SCALE} (?:dollars?|euros?|yen|yuan|won|rupees?)\b"),  # "1 billion yen"
    ("fraction", rf"(?:\d+ ?)?[{VULGAR_FRACTIONS}]|\d{{1,3}} \d{{1,2}}/\d{{1,3}}(?![\d/])"),
    ("scaled", rf"(?:{_NUMBER}) {_SCALE}\b(?! ?{UNIT}(?![\w²³/]))"),
    ("measure", rf"(?:(?<!\S)-)?(?:{_NUMBER})(?: {_SCALE})? (?:{UNIT}(?:/(?:s|h|hr|min|day|yr|year))?(?![\w²³/])|%)"),
    # Telephone numbers the corpus keeps whole: "(555) 123-4567", "+44 20 7946 0958", "020 7946 0958",
    # and two groups after a leading zero, which no year range has ("0891-1851", an ISSN; "06-323").
    ("telephone", r"\(\d{3}\) ?\d{3}-\d{4}(?!\d)|\+\d{1,3}(?:[ -]\d{1,4}){2,5}(?![\d-])|0\d{2,4} \d{3,4} \d{4}(?!\d)"
                  r"|(?<![\w-])0\d{1,3}-\d{2,}(?![\w-])"),
    ("scientific", r"(?:(?<!\S)-)?\d+(?:\.\d+[eE][-−+]?|[eE][-−+])\d+(?!\w|\.\d)"),  # "3.66E-49", "2e+6"
    # A range of two numbers is three tokens ("1914 - 1918"); three or more parts stay one (2008-09-30, ISBNs).
    ("number", rf"(?:(?<!\S)-)?(?:{_NUM_CORE}(?:-{_NUM_CORE}){{2,}}|{_NUM_CORE}|(?<!\S)\.\d+)"
               r"(?:/(?:km|mi)[²2]|'s|[A-Za-z%°²³]+\d*)?"),
    ("prefix", r"[A-Z]{1,4}-(?=\d)"),  # "STS-" of "STS-121"
    ("initials", r"(?:[A-Z]\. )+[A-Z]\.(?!\s*$)"),
    ("acronym", r"(?:[A-Za-z]\.){2,}"),
    # A capitalised word glued on after the domain stays in it ("wolframalpha.comDensity", a reference's
    # missing space), as in the corpus.
    ("domain", r"[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|info|cz)"
               r"(?:[A-Z][a-z]+)?\b"),
    ("hashtag", r"#[^\W\d_]\w*"),  # "#Selfie" (but "# 7", "# 1": the corpus splits a number sign off)
    ("word", r"\w+(?:['’&]\w+|-(?=[^\W\d_])\w+)*(?:'(?!\w))?\.?"),  # "Doom-50" is three tokens
    ("other", r"\S"),
]
_PATTERN = re.compile("|".join(f"(?P<{name}>{rule})" for name, rule in _RULES))


def span_pattern(name: str) -> str:
    """The regular expression of one of the tokenizer's span rules ("time", "money", "fraction", "measure", …):
    the forms the corpus keeps in one token, which the tagger's rules also use to decide their class."""
    return dict(_RULES)[name]


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of each corpus-style token of `text`, in order."""
    spans: list[tuple[int, int]] = []
    open_quote = False  # inside '…': a word's trailing ' closes the quote, it is no possessive
    for match in _PATTERN.finditer(text):
        start, end = match.span()
        token = match.group(0)
        if token == "'":
            open_quote = not open_quote
        elif match.lastgroup == "word" and open_quote and token.rstrip(".").endswith("'") \
                and not token.rstrip(".").endswith("s'"):
            quote = start + len(token.rstrip(".")) - 1  # "term'." of "'error term'.": word, quote, period
            spans.extend([(start, quote), (quote, quote + 1), *([(quote + 1, end)] if end > quote + 1 else [])])
            open_quote = False
            continue
        if match.lastgroup == "word" and token.endswith(".") and len(token) > 1:
            if token.lower() not in ABBREVIATIONS and not single_initial(text, start, end):
                spans.extend([(start, end - 1), (end - 1, end)])
                continue
        spans.append((start, end))
    return spans


_LOWER_WORD = re.compile(r"\s*[a-z]{4,}")


def single_initial(text: str, start: int, end: int) -> bool:
    """Whether the capital and period `text[start:end]` ("M.") is an initial that keeps its period: before a
    capitalised word or punctuation ("M. Smith", "A. ("), or before a lower-case word of four letters or more
    not after another abbreviation ("D. grimaldii", a genus; but "N. p.", "Ph. D. from" and a sentence's
    last "B." split)."""
    if end - start != 2 or not text[start].isupper():
        return False
    following = text[end:].lstrip()[:1]
    if following and not following.islower():
        return True
    return bool(_LOWER_WORD.match(text, end)) and not re.search(r"\.\s*$", text[:start])


def tokenize(text: str) -> list[str]:
    """Split plain text into corpus-style tokens."""
    return [text[start:end] for start, end in token_spans(text)]


# --- measuring -------------------------------------------------------------------------------------------


def _boundaries(tokens: Iterable[str]) -> set[tuple[int, int]]:
    """Token extents as offsets into the tokens' characters with spaces removed (comparable across
    tokenizations of the same text)."""
    extents, offset = set(), 0
    for token in tokens:
        length = len("".join(token.split()))
        if length:
            extents.add((offset, offset + length))
            offset += length
    return extents


def boundary_scores(pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> dict[str, float]:
    """Token precision / recall / F1 (a token counts when both its ends match gold) and the share of sentences
    tokenized exactly, over (gold tokens, predicted tokens) pairs of the same text."""
    correct = predicted = gold_total = exact = sentences = 0
    for gold, found in pairs:
        g, f = _boundaries(gold), _boundaries(found)
        correct += len(g & f)
        predicted += len(f)
        gold_total += len(g)
        exact += g == f
        sentences += 1
    precision = correct / predicted if predicted else 0.0
    recall = correct / gold_total if gold_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "exact_sentences": exact / sentences if sentences else 0.0, "sentences": sentences, "tokens": gold_total}


def corpus_sentences(path: str) -> Iterator[list[str]]:
    """The gold tokens of each sentence of a corpus file (TSV or CSV, any source `tnforge build` reads)."""
    from tnforge.readers import read_corpus_file
    from tnforge.token_blocks import TokenBlock

    for item in read_corpus_file(path):
        if isinstance(item, TokenBlock):
            befores = item.befores.to_pylist()
            for start, end in zip(item.offsets[:-1], item.offsets[1:], strict=True):
                yield befores[int(start):int(end)]


#: The two halves of a corpus when measuring: rules are tuned on "tune", "held_out" is only scored.
HALVES = ("tune", "held_out")


def half_of(tokens: Sequence[str]) -> str:
    """Which half a sentence falls in (a stable hash of its tokens)."""
    from tnforge.hashing import stable_hash64

    return HALVES[stable_hash64(" ".join(tokens)) % 2]


def measure(path: str) -> dict[str, dict[str, float]]:
    """Boundary scores of `tokenize(detokenize(gold))` against gold, per half of the corpus file (`half_of`)."""
    pairs: dict[str, list[tuple[list[str], list[str]]]] = {half: [] for half in HALVES}
    for gold in corpus_sentences(path):
        pairs[half_of(gold)].append((gold, tokenize(detokenize(gold))))
    return {half: boundary_scores(found) for half, found in pairs.items()}
