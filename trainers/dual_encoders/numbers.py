"""Number words in readings: which digit strings a reading spells ("nineteen ninety five" → 1995), for the
dual encoders' pair-matching features."""

from __future__ import annotations

#: Number words of readings (cardinal value, ordinal flag) for the pair-matching features.
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINAL_UNITS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                  "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9, "trillion": 10 ** 12}
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)}
NUMBER_WORDS.update({w: 20 + 10 * i for i, w in enumerate(_TENS)})
NUMBER_WORDS.update({w: i for i, w in enumerate(_ORDINAL_UNITS)})
NUMBER_WORDS.update({w[:-1] + "ieth": 20 + 10 * i for i, w in enumerate(_TENS)})
NUMBER_WORDS.update({"o": 0, "oh": 0})
NUMBER_WORDS.update({w + "th": v for w, v in _SCALES.items()})
ORDINAL_WORDS = frozenset([*_ORDINAL_UNITS, *(w[:-1] + "ieth" for w in _TENS), *(w + "th" for w in _SCALES)])
MONTHS = ("january february march april may june july august september october november december").split()


def number_word(word: str) -> int | None:
    """The value of a number word ("ninety", "fifth", "twenties"), None for any other word."""
    if word in NUMBER_WORDS or word in _SCALES:
        return NUMBER_WORDS.get(word, _SCALES.get(word))
    if word.endswith("s") and word[:-1] in NUMBER_WORDS:  # "fives", "twenties" (after the ies → y fix below)
        return NUMBER_WORDS[word[:-1]]
    if word.endswith("ies") and word[:-3] + "y" in NUMBER_WORDS:
        return NUMBER_WORDS[word[:-3] + "y"]
    return None


def _cardinal(words: list[str]) -> int | None:
    """Value of number words read as one cardinal ("twenty eight thousand four hundred"), None if not one."""
    total = current = 0
    last = None  # kind of the previous word: unit, teen, tens, hundred, scale
    for word in words:
        value = number_word(word)
        if value is None:
            return None
        base = word[:-1] if word.endswith("th") and word[:-2] in _SCALES else word
        if base in _SCALES:
            if base == "hundred":
                if last == "hundred":
                    return None
                current = (current or 1) * 100
                last = "hundred"
            else:
                total += (current or 1) * _SCALES[base]
                current = 0
                last = "scale"
            continue
        if value >= 20 and value % 10 == 0 and value < 100:
            if last in ("unit", "tens", "teen"):
                return None
            current += value
            last = "tens"
        else:
            if last in ("unit", "teen") or (last == "tens" and value >= 10):
                return None
            current += value
            last = "teen" if value >= 10 else "unit"
    return total + current


def reading_numbers(reading: str) -> tuple[set[str], list[set[str]]]:
    """Digit strings a reading may spell: (every reading of every stretch of number words, and per maximal run
    the readings of the whole run). A run reads as a cardinal, digit by digit, or as a year ("nineteen
    ninety five", "nineteen o five"); one ending in a large scale word also without it ("ninety billion" → 90)."""
    found: set[str] = set()
    whole: list[set[str]] = []
    run: list[str] = []
    for word in reading.split() + [""]:
        if word and number_word(word) is not None:
            run.append(word)
            continue
        if run:
            parts, full = _run_numbers(run)
            found |= parts
            whole.append(full)
        run = []
    return found, whole


def _run_numbers(run: list[str]) -> tuple[set[str], set[str]]:
    out: set[str] = set()
    full: set[str] = set()
    for start in range(len(run)):
        for end in range(start + 1, len(run) + 1):
            part = run[start:end]
            value = _cardinal(part)
            if value is None:
                continue
            forms = {str(value)}
            if part[-1] in ("million", "billion", "trillion") and len(part) > 1:
                forms.add(str(_cardinal(part[:-1])))
            out |= forms
            if start == 0 and end == len(run):
                full |= forms
    before_years = set(out)
    values = [number_word(w) for w in run]
    if all(v is not None and v < 10 for v in values):
        out.add("".join(str(v) for v in values))
    if len(run) >= 2:  # years and digit pairs: "nineteen ninety five", "nineteen o five", "twenty fifteen"
        for split in range(1, len(run)):
            left, right = _cardinal(run[:split]), run[split:]
            if left is None or not 10 <= left <= 99:
                continue
            if right[0] in ("o", "oh") and len(right) == 2 and _cardinal(right[1:]) is not None:
                tail = _cardinal(right[1:])
                if tail is not None and tail < 10:
                    out.add(f"{left}0{tail}")
            else:
                tail = _cardinal(right)
                if tail is not None and 10 <= tail <= 99:
                    out.add(f"{left}{tail:02d}")
            if right == ["hundred"]:
                out.add(f"{left}00")
    full |= out - before_years
    return out, full
