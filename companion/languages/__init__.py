"""What the companion knows of each language, as data: one file per language (`<code>.json`),
read through one typed record (`Language`). A language without a file is read without that
knowledge, and the judge says so where it matters.

Today the files hold how a language writes numbers and units (text/values.py reads them to find a
source that gives a claim's quantity another value). Articles ("a", "un", "ein") are left out of
the number words on purpose: read as "1" they would make every noun phrase a quantity.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["Language", "NumberWords", "language"]

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class NumberWords:
    """A language's spelled numbers: "soixante millions" is 60 x 10^6."""

    units: Mapping[str, int]  # "six" -> 6: the words that add their value
    tens: Mapping[str, int]  # "soixante" -> 60
    hundreds: Mapping[str, int]  # "cent" -> 100, "doscientos" -> 200: multiply what came before
    scales: Mapping[str, float]  # "millions" -> 10^6: close a group
    other: Mapping[str, int]  # "dozen" -> 12
    joiners: frozenset[str]  # "and", "et", "y": inside a spelled number


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    numbers: NumberWords
    units: Mapping[str, str]  # a unit word as written, lower-cased -> its dimension ("time", ...)
    lower_bounds: tuple[str, ...]  # "more than": a claim's number is a floor, not a value
    upper_bounds: tuple[str, ...]  # "up to": a ceiling


@cache
def language(code: str) -> Language | None:
    """The record of a language, or None where no file describes it."""
    path = _HERE / f"{code}.json"
    if not path.is_file():
        return None
    raw = json.loads(path.read_text(encoding="utf-8"))
    n = raw["numbers"]
    return Language(
        raw["code"],
        NumberWords(
            n["units"], n["tens"], n["hundreds"], n["scales"], n.get("other", {}), frozenset(n["joiners"])
        ),
        {word: dimension for dimension, words in raw["units"].items() for word in words},
        tuple(raw["bounds"]["lower"]),
        tuple(raw["bounds"]["upper"]),
    )
