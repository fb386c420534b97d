"""The bundled sample corpus, tnforge/data/sample.tsv: format, coverage and correct cardinal readings.

The file is parsed with plain Python (no project reader) so that a reader bug cannot hide a data bug.
The number-to-words check below is written independently of whatever produced the sample.
"""

from __future__ import annotations

import re
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

CLASSES = (
    "PLAIN", "PUNCT", "DATE", "LETTERS", "CARDINAL", "VERBATIM", "MEASURE", "ORDINAL",
    "DECIMAL", "ELECTRONIC", "DIGIT", "MONEY", "FRACTION", "TIME", "TELEPHONE", "ADDRESS",
)
EOS_LINE = "<eos>\t<eos>"
RARE_CLASSES = ("TIME", "TELEPHONE", "ADDRESS", "FRACTION", "MONEY", "DIGIT", "ELECTRONIC", "ORDINAL",
                "DECIMAL", "VERBATIM")
PLAIN_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
MEASURE_PARTS = re.compile(r"-?[\d,]*\.?\d+ ?(?P<unit>\S.*)")

Token = tuple[str, str, str]


def sample_path() -> Path:
    return Path(str(resources.files("tnforge") / "data" / "sample.tsv"))


# ---------------------------------------------------------------------------------------------------------
# An independent English number reader (American style, no "and"): split into groups of three digits.
_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_DECADES = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty",
            9: "ninety"}
_GROUP_NAMES = ("", "thousand", "million", "billion", "trillion", "quadrillion")


def _three_digits(group: int) -> list[str]:
    hundreds, rest = divmod(group, 100)
    words = [_SMALL[hundreds], "hundred"] if hundreds else []
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_DECADES[tens])
        if ones:
            words.append(_SMALL[ones])
    elif rest:
        words.append(_SMALL[rest])
    return words


def number_words(digits: str) -> str:
    """'1,500,000' -> 'one million five hundred thousand'."""
    text = digits.replace(",", "").lstrip("0") or "0"
    if text == "0":
        return "zero"
    groups = []
    while text:
        groups.append(int(text[-3:]))
        text = text[:-3]
    words: list[str] = []
    for index in range(len(groups) - 1, -1, -1):
        if groups[index]:
            words += _three_digits(groups[index])
            if _GROUP_NAMES[index]:
                words.append(_GROUP_NAMES[index])
    return " ".join(words)


# ---------------------------------------------------------------------------------------------------------
def read_sentences(path: Path) -> tuple[list[list[Token]], list[str]]:
    """Parse a Google-format TSV; return its sentences and a list of format problems."""
    problems: list[str] = []
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        problems.append("file starts with a byte order mark")
    if b"\r" in raw:
        problems.append("file has CR characters (LF line endings expected)")
    text = raw.decode("utf-8")
    if not text.endswith(EOS_LINE + "\n"):
        problems.append("file does not end with an <eos> line and a newline")
    sentences: list[list[Token]] = []
    current: list[Token] = []
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        if line == EOS_LINE:
            if not current:
                problems.append(f"line {number}: empty sentence")
            sentences.append(current)
            current = []
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            problems.append(f"line {number}: {len(fields)} fields instead of 3: {line!r}")
            continue
        cls, before, after = fields
        if cls not in CLASSES:
            problems.append(f"line {number}: unknown class {cls!r}")
        if not before or not after or before != before.strip() or after != after.strip():
            problems.append(f"line {number}: empty or padded field: {line!r}")
        if cls == "PUNCT" and after != "sil":
            problems.append(f"line {number}: PUNCT reading should be 'sil': {line!r}")
        if cls != "PUNCT" and after == "sil":
            problems.append(f"line {number}: 'sil' reading outside PUNCT: {line!r}")
        current.append((cls, before, after))
    if current:
        problems.append("tokens after the last <eos> line")
    return sentences, problems


def reading_problems(sentences: list[list[Token]]) -> list[str]:
    """Readings that disagree with the independent checks (cardinal digit strings, digit sequences)."""
    problems = []
    for cls, before, after in (token for sentence in sentences for token in sentence):
        if cls == "CARDINAL" and PLAIN_DIGITS.fullmatch(before) and after != number_words(before):
            problems.append(f"CARDINAL {before!r} read {after!r}, expected {number_words(before)!r}")
        if cls == "DIGIT" and before.isdigit():
            expected = " ".join("o" if d == "0" else _SMALL[int(d)] for d in before)
            if after != expected:
                problems.append(f"DIGIT {before!r} read {after!r}, expected {expected!r}")
        if re.search(r"\band\b", after) and cls in ("CARDINAL", "DECIMAL", "MONEY", "MEASURE", "DATE"):
            problems.append(f"{cls} {before!r}: American readings omit 'and': {after!r}")
    return problems


def big_cardinals(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t[0] == "CARDINAL" and PLAIN_DIGITS.fullmatch(t[1])
            and int(t[1].replace(",", "")) >= 1_000_000]


def measure_units(tokens: list[Token]) -> Counter[str]:
    units: Counter[str] = Counter()
    for cls, before, _ in tokens:
        if cls == "MEASURE":
            match = MEASURE_PARTS.fullmatch(before)
            units[match.group("unit") if match else before] += 1
    return units


@pytest.fixture(scope="module")
def sample() -> list[list[Token]]:
    path = sample_path()
    assert path.is_file(), f"{path} is missing"
    sentences, problems = read_sentences(path)
    assert problems == [], "\n".join(problems[:20])
    return sentences


@pytest.fixture(scope="module")
def tokens(sample: list[list[Token]]) -> list[Token]:
    return [token for sentence in sample for token in sentence]


def test_number_words_reference_values() -> None:
    assert number_words("7") == "seven"
    assert number_words("123") == "one hundred twenty three"
    assert number_words("1,015") == "one thousand fifteen"
    assert number_words("1,500,000") == "one million five hundred thousand"
    assert number_words("2000000") == "two million"
    assert number_words("3,100,000,000") == "three billion one hundred million"
    assert number_words("1,000,000,000,000") == "one trillion"


def test_size_and_sentences(sample: list[list[Token]], tokens: list[Token]) -> None:
    assert 300 <= len(sample) <= 400
    assert 4_000 <= len(tokens) <= 6_000
    texts = [" ".join(before for _, before, _ in sentence) for sentence in sample]
    assert len(set(texts)) == len(texts), "a sentence occurs twice"
    assert all(sentence[-1][0] == "PUNCT" for sentence in sample), "every sentence ends in punctuation"


def test_every_class_present(tokens: list[Token]) -> None:
    counts = Counter(cls for cls, _, _ in tokens)
    assert set(counts) == set(CLASSES)
    for cls in RARE_CLASSES:
        assert counts[cls] >= 5, f"{cls}: only {counts[cls]}"
    for cls in ("DATE", "LETTERS"):
        assert counts[cls] >= 20, f"{cls}: only {counts[cls]}"


def test_minimums(sample: list[list[Token]], tokens: list[Token]) -> None:
    units = measure_units(tokens)
    assert sum(units.values()) >= 30 and len(units) >= 15, units
    big = big_cardinals(tokens)
    assert len(big) >= 40
    small = [t for t in tokens if t[0] == "CARDINAL" and t not in big]
    assert len(small) >= 20
    punct_heavy = [s for s in sample if sum(cls == "PUNCT" for cls, _, _ in s) >= 4]
    assert len(punct_heavy) >= 20


def test_trivial_targets(tokens: list[Token]) -> None:
    for cls, before, after in tokens:
        if cls == "PLAIN" and after != "<self>":
            assert after == after.lower() and after != before, (before, after)
        if cls in ("CARDINAL", "DATE", "MEASURE", "MONEY", "DECIMAL", "ORDINAL", "TIME", "FRACTION"):
            assert after != "<self>" and not re.search(r"\d", after), (cls, before, after)


def test_readings_match_independent_check(sample: list[list[Token]]) -> None:
    problems = reading_problems(sample)
    assert problems == [], "\n".join(problems)
    checked = [t for s in sample for t in s if t[0] == "CARDINAL" and PLAIN_DIGITS.fullmatch(t[1])]
    assert len(checked) >= 60


def test_checks_catch_corruption(tmp_path: Path) -> None:
    """The format and reading checks reject a copy with a wrong reading or a broken line."""
    lines = sample_path().read_text(encoding="utf-8").split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("CARDINAL\t1,"))
    cls, before, after = lines[index].split("\t")
    lines[index] = f"{cls}\t{before}\t{after.replace('million', 'thousand', 1).replace('one', 'two', 1)}"
    broken = tmp_path / "wrong_reading.tsv"
    broken.write_text("\n".join(lines), encoding="utf-8")
    sentences, problems = read_sentences(broken)
    assert problems == [] and reading_problems(sentences), "a wrong cardinal reading went unnoticed"

    lines[index] = f"{cls}\t{before}"
    truncated = tmp_path / "broken_line.tsv"
    truncated.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")
    _, problems = read_sentences(truncated)
    assert any("fields instead of 3" in p for p in problems)
    assert any("does not end with an <eos>" in p for p in problems)
