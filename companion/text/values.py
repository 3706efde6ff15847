"""A source sentence that gives a claim's quantity another value (issue 58 item 2).

Both models read how a number is spelled more than what it is worth: the multilingual model read
"Arbeiterinnen leben etwa sechs Monate" against "… etwa sechs Wochen" as complete support (0.91),
and "soixante millions de baguettes" against "six millions" too. A sentence says otherwise about
a claim's quantity where it is about the claim (it shares at least half of the claim's other
content words) and gives the same slot another value:
- a year (four digits, 1000-2100) against another year next to the same word ("completed in
  1901" / "completed in 1889"), or the sentence's only year where the claim has one year and the
  sentence shares at least two of the claim's words ("première ascension … 1865" / "… 1786");
- a count or measure before the same word ("forty hours" / "ten hours", "doce años" / "entre tres
  y cuatro años") more than 10 % apart from every value the sentence gives there;
- the same number of another unit of the same kind ("sechs Monate" / "sechs Wochen").
A claim's number that the page gives anywhere is not refuted by it ("now 330 metres" beside "300
metres when it opened" is about another time), nor one the claim bounds ("more than 2,000" where
the page says 4,500). Numbers are read in the claim's language: its number and unit words come
from companion/languages/<code>.json; a language without one reads digits only. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..languages import Language, language
from ..records import Words
from .language import lexicon

__all__ = ["Quantity", "another_value", "quantities"]

_YEAR = re.compile(r"\d{4}")
_APPROXIMATE = 0.1  # numbers within 10 % of each other are one approximate figure


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    written: str  # as the text writes it
    before: str  # the content term before it ("" at the start)
    after: str  # the content term after it, numbers skipped ("" at the end)
    unit: str  # the word after it as written, lower-cased, where it is a unit (its dimension's word)
    year: bool


@dataclass(frozen=True, slots=True)
class _Token:
    raw: str
    term: str  # its content term, "" for a stop word
    value: float | None  # a number's value; None for a word
    spelled: str  # "units", "tens", ... for a number word; "" otherwise


def _tokens(text: str, code: str) -> list[_Token]:
    words = lexicon(code)
    spelled = language(code)
    tokens = []
    for raw in words.word.findall(text):
        low = raw.lower()
        value, kind = _number(raw, words.to_number), ""
        if value is None and spelled is not None:
            value, kind = _word_value(low, spelled)
        terms = words.terms(raw)
        tokens.append(_Token(raw, terms[0] if terms else "", value, kind))
    return tokens


def _number(raw: str, to_number) -> float | None:  # type: ignore[no-untyped-def]
    if not raw[:1].isdecimal():
        return None
    try:
        return float(to_number(raw))
    except ValueError:
        return None


def _word_value(word: str, spelled: Language) -> tuple[float | None, str]:
    n = spelled.numbers
    for kind, table in (("units", n.units), ("tens", n.tens), ("hundreds", n.hundreds), ("other", n.other)):
        if word in table:
            return float(table[word]), kind
    if word in n.scales:
        return float(n.scales[word]), "scales"
    return None, ""


@lru_cache(maxsize=4096)
def quantities(text: str, code: str) -> tuple[Quantity, ...]:
    """The quantities of a text in order: digits ("1,230", "2.000", "3.5 million") and spelled
    numbers ("soixante millions", "forty"), each with the words on either side."""
    tokens = _tokens(text, code)
    spelled = language(code)
    joiners = spelled.numbers.joiners if spelled else frozenset()
    found, i = [], 0
    while i < len(tokens):
        if tokens[i].value is None:
            i += 1
            continue
        j, total, group = i, 0.0, 0.0
        digits = tokens[i].spelled == ""
        while j < len(tokens):
            token = tokens[j]
            if token.value is None:
                # "treinta y dos", "vingt et un", "hundred and fifty": one number; "tres y cuatro"
                # (a range) two.
                if (
                    token.raw.lower() in joiners
                    and j > i
                    and tokens[j - 1].spelled in ("tens", "hundreds", "scales")
                    and j + 1 < len(tokens)
                    and tokens[j + 1].spelled in ("units", "tens")
                ):
                    j += 1
                    continue
                break
            if token.spelled == "" and j > i:  # a second run of digits is another number
                break
            if token.spelled == "scales":
                total, group = total + (group or 1) * token.value, 0.0
            elif token.spelled == "hundreds":
                group = (group or 1) * token.value if token.value == 100 else group + token.value
            else:
                group += token.value
            j += 1
            if digits and (j >= len(tokens) or tokens[j].spelled != "scales"):
                break
        value = total + group
        # The words either side, past numbers and joiners: "tres y cuatro años" counts years twice.
        words = [t for t in tokens if t.value is None and t.raw.lower() not in joiners]
        before = next((t.term for t in reversed(tokens[:i]) if t in words and t.term), "")
        rest = [t for t in tokens[j:] if t in words]
        after = next((t.term for t in rest if t.term), "")
        unit = rest[0].raw.lower() if rest and spelled and rest[0].raw.lower() in spelled.units else ""
        written = " ".join(t.raw for t in tokens[i:j])
        year = digits and j == i + 1 and bool(_YEAR.fullmatch(tokens[i].raw)) and 1000 <= value <= 2100
        found.append(Quantity(value, written, before, after, unit, year))
        i = j
    return tuple(found)


def another_value(
    claim: Words, mine: Sequence[Quantity], sentence: Words, page_numbers: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """(the claim's quantity, the sentence's), as written, where the sentence gives the claim's
    quantity another value (module docstring); None where it does not. `claim` and `sentence` are
    analysed already (text.analysis), `mine` is quantities(claim.text): nothing is read again."""
    if not mine:
        return None
    code = claim.language
    theirs = quantities(sentence.text, code)
    if not theirs:
        return None
    numbers = {n for q in mine for n in _terms_of(q, code)}
    others = [t for t in claim.terms if not t[:1].isdecimal() and t not in numbers]
    held = sentence.term_set
    shared = sum(t in held for t in others)
    names = _name_terms(claim)  # once: inside the set comprehension it was redone for every term
    named = {t for t in others if t in names}
    plain = sum(t in held and t not in named for t in others)
    about = shared * 2 >= len(others)
    # Short of half, two fifths and two words, for a year alone ("La première ascension du mont
    # Blanc … en 1865" / "Sa première ascension … en 1786"); less is another topic that shares a
    # word or two ("The Suez Canal was opened in 1869" / "In 2016 … larger locks opened").
    if not others or not (about or (shared >= 2 and shared * 5 >= 2 * len(others))):
        return None
    spelled = language(code)
    to_number = lexicon(code).to_number
    for q in mine:
        if to_number(q.written) in page_numbers or _bounded(claim.text, q, spelled):
            continue
        found = _refuting(q, mine, theirs, spelled, about, plain >= 2)
        if found is not None:
            # "sechs Monate" / "sechs Wochen": where the unit is what differs, say it.
            if found.unit and found.unit != q.unit:
                return f"{q.written} {q.unit}", f"{found.written} {found.unit}"
            return q.written, found.written
    return None


@lru_cache(maxsize=1024)
def _terms_of(q: Quantity, code: str) -> tuple[str, ...]:
    """A spelled number's own terms ("soixante millions" -> "soix", "million"): not the claim's
    other words."""
    return tuple(lexicon(code).terms(q.written))


def _name_terms(claim: Words) -> frozenset[str]:
    """The claim's terms that are names, which a year alone may not rest on ("mont Blanc")."""
    return frozenset(t for t in claim.terms if any(t and name.startswith(t[:4]) for name in claim.names))


def _refuting(
    q: Quantity,
    mine: Sequence[Quantity],
    theirs: Sequence[Quantity],
    spelled: Language | None,
    about: bool,
    two: bool,
) -> Quantity | None:
    """The sentence's quantity that gives `q` another value. `about`: the sentence holds half of
    the claim's other words; `two`: two of them at least, names aside, which a claim's one year
    against the sentence's one year needs when the words next to them differ ("Le tunnel du
    Mont-Blanc, ouvert en 1965" shares only the name of "La première ascension du mont Blanc …
    en 1865")."""
    if q.year:
        # Beside another quantity a year says when ("300 metres tall in 1889"): a sentence with
        # another year is about another time ("330 metres tall in 1957"), not a refutation.
        if len(mine) > 1:
            return None
        years = [p for p in theirs if p.year]
        slot = [p for p in years if (q.before and p.before == q.before) or (q.after and p.after == q.after)]
        if not about:
            slot = []
        if not slot and two and len(years) == 1 and sum(m.year for m in mine) == 1:
            slot = years
        if slot and all(p.value != q.value for p in slot):
            return slot[0]
        return None
    if not about:
        return None
    slot = [p for p in theirs if not p.year and q.after and p.after == q.after]
    if slot and not any(_close(p.value, q.value) for p in slot):
        return slot[0]
    if not q.unit or spelled is None or any(o.unit == q.unit and _close(o.value, q.value) for o in theirs):
        return None
    kind = spelled.units[q.unit]
    return next(
        (p for p in theirs if p.unit and spelled.units[p.unit] == kind and _close(p.value, q.value)), None
    )


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _APPROXIMATE * max(abs(a), abs(b))


def _bounded(claim: str, q: Quantity, spelled: Language | None) -> bool:
    """Whether the claim gives the number as a floor or a ceiling ("more than 2,000")."""
    if spelled is None:
        return False
    before = claim[: claim.find(q.written)].lower().rstrip() if q.written in claim else ""
    return any(before.endswith(b) for b in (*spelled.lower_bounds, *spelled.upper_bounds))
