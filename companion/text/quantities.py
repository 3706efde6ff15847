"""Quantities said in other words: the claim read with the premise's spelling of the same value.

Both models read how a number is spelled, not what it is worth: the English model reads "The
bridge is three hundred metres long." against "The bridge is 300 metres long." as 0.97
contradiction, and the cascade's reader "one queen" against "a single queen" in a list as 0.92
(docs/rules.md, "Quantities said in other words"). So before a model reads a pair, a quantity of
the claim that the premise gives with the same value and the same following word, spelled
otherwise, is respelled as the premise spells it. A value that differs is left as written, so a
swapped number is read as before. Only the model's input changes: the claim that the rules, the
quote and the user see stays as written. English number words (companion/languages/en.json).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from .. import languages

__all__ = ["respell_quantities"]

# The language whose number words are respelled: the model input is respelled before its
# language is known to the backend, and English is the language of most pairs (docs/rules.md).
_LANGUAGE = "en"
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"


@dataclass(frozen=True, slots=True)
class _Spelling:
    """The number words of `numbers` of the language's file, less plural scales: "thousands of
    people" is an amount, not a value to respell."""

    words: Mapping[str, float]
    hundreds: frozenset[str]  # multiply what came before, as "dozen" does
    scales: Mapping[str, float]  # close a group; after digits too ("1.2 million")
    # A quantity and the word after it: "300 metres", "1.2 million people", "three hundred and
    # fifty seats", "a dozen paintings", "a single queen".
    quantity: re.Pattern[str]
    parts: re.Pattern[str]  # what separates the words of a spelled number


@cache
def _spelling() -> _Spelling:
    record = languages.language(_LANGUAGE)
    assert record is not None, f"no file for {_LANGUAGE!r} in {languages.FOLDER}"
    n = record.numbers
    singular = {
        w: float(v)
        for table in (n.units, n.tens, n.hundreds, n.scales, n.other)
        for w, v in table.items()
        if not _plural(w, table)
    }
    hundreds = frozenset(w for w in (*n.hundreds, *n.other) if w in singular)
    scales = {w: v for w, v in {**n.hundreds, **n.scales}.items() if w in singular}
    word = "|".join(sorted(singular, key=len, reverse=True))
    parts = rf"\s+{_joiners(n.joiners)}\s+|\s+|-"
    spelled = rf"(?:{word})(?:(?:{parts})(?:{word}))*"
    quantity = re.compile(
        rf"\b(?P<number>(?:{_DIGITS})(?:\s+(?:{'|'.join(scales)}))?|a\s+single|a\s+{spelled}|{spelled})"
        rf"\s+(?P<next>[^\W\d_]+)",
        re.IGNORECASE,
    )
    return _Spelling(singular, hundreds, scales, quantity, re.compile(parts))


def _plural(word: str, table: Mapping[str, float]) -> bool:
    return word.endswith("s") and word[:-1] in table


def _joiners(joiners: frozenset[str]) -> str:
    return "|".join(sorted(joiners)) if len(joiners) == 1 else f"(?:{'|'.join(sorted(joiners))})"


@dataclass(frozen=True, slots=True)
class _Quantity:
    start: int
    end: int
    spelled: str  # as written, lower-cased
    value: float
    next_word: str


def _value(spelled: str) -> float | None:
    """The value of a quantity as written, or None for a word it does not know."""
    spelling = _spelling()
    words = spelling.parts.split(spelled.lower())
    if words[0][0].isdigit():
        number = float(words[0].replace(",", ""))
        # Rounded: 1.2 million is 1199999.9999999998 in floating point, 1,200,000 is not.
        return round(number * spelling.scales[words[1]], 6) if len(words) > 1 else number
    if words[0] == "a":
        if words[1:] == ["single"]:
            return 1.0
        words = ["one", *words[1:]]
    total = current = 0.0
    for word in words:
        worth = spelling.words.get(word)
        if worth is None:
            return None
        if word in spelling.hundreds:
            current = (current or 1) * worth
        elif word in spelling.scales:
            total, current = total + (current or 1) * worth, 0
        else:
            current += worth
    return float(total + current)


# A claim is read against every window of its pages, and a window by the claim and its atomic
# claims: each text is searched once while it is being read.
@lru_cache(maxsize=4096)
def _quantities(text: str) -> tuple[_Quantity, ...]:
    found = []
    for m in _spelling().quantity.finditer(text):
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
