"""Quantities said in other words: the claim read with the premise's spelling of the same value.

Both models read how a number is spelled, not what it is worth: the English model reads "The
bridge is three hundred metres long." against "The bridge is 300 metres long." as 0.97
contradiction, and the cascade's reader "one queen" against "a single queen" in a list as 0.92
(docs/rules.md, "Quantities said in other words"). So before a model reads a pair, a quantity of
the claim that the premise gives with the same value and the same following word, spelled
otherwise, is respelled as the premise spells it. A value that differs is left as written, so a
swapped number is read as before. Only the model's input changes: the claim that the rules, the
quote and the user see stays as written. English number words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["respell_quantities"]

_UNITS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_WORDS = {**_UNITS, **_TENS, **_SCALES, "dozen": 12}

_WORD = "|".join(sorted(_WORDS, key=len, reverse=True))
_SCALE = "|".join(_SCALES)
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SPELLED = rf"(?:{_WORD})(?:(?:\s+and\s+|\s+|-)(?:{_WORD}))*"
# A quantity and the word after it: "300 metres", "1.2 million people", "three hundred and fifty
# seats", "a dozen paintings", "a single queen".
_QUANTITY = re.compile(
    rf"\b(?P<number>(?:{_DIGITS})(?:\s+(?:{_SCALE}))?|a\s+single|a\s+{_SPELLED}|{_SPELLED})"
    rf"\s+(?P<next>[^\W\d_]+)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class _Quantity:
    start: int
    end: int
    spelled: str  # as written, lower-cased
    value: float
    next_word: str


def _value(spelled: str) -> float | None:
    """The value of a quantity as written, or None for a word it does not know."""
    words = re.split(r"\s+and\s+|\s+|-", spelled.lower())
    if words[0][0].isdigit():
        number = float(words[0].replace(",", ""))
        # Rounded: 1.2 million is 1199999.9999999998 in floating point, 1,200,000 is not.
        return round(number * _SCALES[words[1]], 6) if len(words) > 1 else number
    if words[0] == "a":
        if words[1:] == ["single"]:
            return 1.0
        words = ["one", *words[1:]]
    total = current = 0
    for word in words:
        worth = _WORDS.get(word)
        if worth is None:
            return None
        if word == "hundred":
            current = (current or 1) * 100
        elif word == "dozen":
            current = (current or 1) * 12
        elif word in _SCALES:
            total, current = total + (current or 1) * worth, 0
        else:
            current += worth
    return float(total + current)


# A claim is read against every window of its pages, and a window by the claim and its atomic
# claims: each text is searched once while it is being read.
@lru_cache(maxsize=4096)
def _quantities(text: str) -> tuple[_Quantity, ...]:
    found = []
    for m in _QUANTITY.finditer(text):
        value = _value(m.group("number"))
        if value is not None:
            found.append(
                _Quantity(
                    m.start("number"),
                    m.end("number"),
                    m.group("number").lower(),
                    value,
                    m.group("next").lower(),
                )
            )
    return tuple(found)


def respell_quantities(premise: str, claim: str) -> str:
    """`claim` with each quantity that `premise` gives with the same value and the same next word
    in another spelling written as `premise` writes it; `claim` itself when there is none."""
    mine = _quantities(claim)
    theirs = _quantities(premise) if mine else ()
    if not theirs:
        return claim
    out, at = [], 0
    for quantity in mine:
        same = [q for q in theirs if q.value == quantity.value and q.next_word == quantity.next_word]
        if not same or any(q.spelled == quantity.spelled for q in same):
            continue
        spelling = premise[same[0].start : same[0].end]
        # "A dozen" opening the premise is "a dozen" inside the claim, and the other way round.
        first = spelling[:1].upper() if quantity.start == 0 else spelling[:1].lower()
        out += [claim[at : quantity.start], first + spelling[1:]]
        at = quantity.end
    return "".join(out) + claim[at:] if out else claim
