"""Positions in the answer text, between the API's unit and Python's (docs/api.md, "Offsets").

The extension counts in UTF-16 code units (JavaScript string indices); Python's str counts code
points. They differ by one for every character beyond U+FFFF (emoji, some CJK ideographs, math
letters) before the position, so every answer position that crosses the API goes through one
Utf16Offsets: capture.py on the way in (citation offsets), export.py on the way out (statement
spans). Everything between them works on str indices.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["OffsetInvalid", "Utf16Offsets"]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class OffsetInvalid(ValueError):
    """A UTF-16 position the text does not have; the message completes "<field> …"."""


class Utf16Offsets:
    """Both ways between str indices and UTF-16 code units of one text, in O(log n) each."""

    __slots__ = ("_astral", "_astral_units", "length", "units")

    def __init__(self, text: str) -> None:
        # Where each character of two code units starts, in each unit. Lone surrogates (which
        # capture.py replaces anyway) are one code unit in both counts.
        self._astral = [m.start() for m in _ASTRAL.finditer(text)]
        self._astral_units = [index + k for k, index in enumerate(self._astral)]
        self.length = len(text)
        self.units = len(text) + len(self._astral)  # text.length in JavaScript

    def to_index(self, units: int) -> int:
        """The str index at a position given in UTF-16 code units; OffsetInvalid past the end or
        between the two halves (surrogates) of one character."""
        if not 0 <= units <= self.units:
            raise OffsetInvalid(
                f"must be a whole number between 0 and {self.units} (the answer's length in UTF-16 "
                "code units, as JavaScript counts it)"
            )
        before = bisect.bisect_left(self._astral_units, units)  # astral characters starting before
        if before and self._astral_units[before - 1] + 1 == units:
            raise OffsetInvalid(
                f"{units} falls between the two halves of a character beyond U+FFFF (an emoji?): "
                f"positions count UTF-16 code units and must stand between characters"
            )
        return units - before

    def to_units(self, index: int) -> int:
        """The UTF-16 position of a str index (0 ≤ index ≤ len(text))."""
        if not 0 <= index <= self.length:
            raise ValueError(f"index {index} is outside the text (length {self.length})")
        return index + bisect.bisect_left(self._astral, index)

    def span_to_units(self, span: tuple[int, int]) -> list[int]:
        """A [start, end) span of str indices as the API writes it."""
        return [self.to_units(span[0]), self.to_units(span[1])]
