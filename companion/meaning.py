"""What a small NLI model misses and a reader does not: a source that mentions a claim without
asserting it, or asserts its opposite (issue 10: word overlap must never outvote meaning).

The shipped model, trained on SNLI, reads "Opponents warned that the charge would drive shoppers
away" as entailing "The charge drove shoppers away", "imported 2.3 million tonnes" as entailing
"exported 2.3 million tonnes", and "some of the 214 paintings are on display" as entailing "all
of them are". These checks read the window the model found most entailing:
- framed: the source reports the claim as a myth, a saying, an allegation, a warning or a rumour,
  and the statement states it as fact;
- scope: the statement says all / every / only / most / the whole, and the source does not;
- direction: the statement says rose / exported / won where the source says fell / imported /
  lost (and not the statement's word);
- negation (`negates`): the source's sentence about the claim says "not", "never", "no longer",
  "is false"… and the statement does not; the judge counts it as a refutation when the model
  also reads that window as a contradiction (config.Judging.negated_contradiction).
A framed or narrower source cannot completely support the statement; an opposite direction or a
negation the model confirms contradicts it. Measured on the meaning pairs and the calib and held
parts (models/citelens-minilm-nli/README.md). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Reading", "negates", "read_meaning"]

# Reported, not asserted: the source mentions the claim to doubt or attribute it.
_FRAME = re.compile(
    r"\b(myths?|misconceptions?|legends?|legendary|folklore|folk (wisdom|belief|tale)s?|"
    r"old wives'? tales?|urban legends?|popular (belief|notion|idea|claim)s?|the story goes|"
    r"often (said|claimed|repeated)|commonly (believed|thought|said)|widely (believed|repeated)|"
    r"(it is|is often|are often) (said|claimed|believed|thought)|old saying|"
    r"(is|are|was|were) (widely |commonly |often )?(thought|believed|rumou?red|alleged|supposed|reputed) to|"
    r"claims? (that|holds)|claimed|claiming|alleged(ly)?|alleges|accused|warned|suggest(s|ed)? that|"
    r"rumou?r(s|ed)?|tipped|in (early )?talks|reportedly|supposedly|convinced that|is false|"
    r"unfounded|unproven|debunked|hoax|speculat\w+|predicted|forecasts?|proposed|mooted)\b",
    re.IGNORECASE,
)
_UNIVERSAL = frozenset(
    """all every both entire entirely whole always most majority completely fully solely
    exclusively""".split()
)
_OPPOSITES = (
    ("rose", "fell"), ("rise", "fall"), ("rises", "falls"), ("risen", "fallen"),
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("grew", "shrank"), ("growing", "shrinking"), ("grow", "shrink"), ("gained", "lost"),
    ("higher", "lower"), ("above", "below"), ("exported", "imported"), ("export", "import"),
    ("exports", "imports"), ("promoted", "relegated"), ("won", "lost"), ("win", "lose"),
    ("approved", "rejected"), ("accepted", "rejected"), ("expanded", "contracted"),
    ("raised", "lowered"), ("cheaper", "dearer"), ("strengthened", "weakened"),
    ("improved", "worsened"), ("acquitted", "convicted"), ("gains", "losses"),
    ("rose", "declined"), ("rise", "decline"), ("grew", "declined"), ("increased", "reduced"),
    ("rose", "dropped"), ("profit", "loss"), ("surplus", "deficit"), ("bought", "sold"),
    ("buy", "sell"), ("hired", "fired"), ("passed", "failed"),
    ("succeeded", "failed"), ("allowed", "banned"), ("permitted", "prohibited"), ("legal", "illegal"),
    ("larger", "smaller"), ("bigger", "smaller"), ("longer", "shorter"), ("faster", "slower"),
    ("older", "younger"), ("majority", "minority"), ("maximum", "minimum"),
)
_OPPOSITE: dict[str, frozenset[str]] = {}
for _a, _b in _OPPOSITES:
    _OPPOSITE[_a] = _OPPOSITE.get(_a, frozenset()) | {_b}
    _OPPOSITE[_b] = _OPPOSITE.get(_b, frozenset()) | {_a}
# Negation and its cousins (issue 10's list): a sentence that says "not X" mentions X too.
_NEGATION = re.compile(
    r"\b(not|never|no longer|no|none|nor|neither|nothing|nobody|cannot|isn't|wasn't|aren't|weren't|"
    r"doesn't|didn't|don't|hasn't|haven't|won't|is false|contrary to|withdrawn|retracted|found no|"
    r"ceased|stopped|ruled out|fail(s|ed)? to|denied|denies|refuted|disproved|abandoned|cancelled|"
    r"scrapped|without|rarely|seldom|hardly)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“‘(])")


@dataclass(frozen=True, slots=True)
class Reading:
    """Whether the source asserts what the statement says, as far as these checks can tell."""

    hedged: str = ""  # why it cannot completely support the statement: "framed" or "scope"
    opposite: str = ""  # the source's word that says the opposite of the statement's

    @property
    def asserts(self) -> bool:
        return not self.hedged and not self.opposite


def read_meaning(statement: str, source_text: str) -> Reading:
    """Checks the source text the model found most entailing against the statement as written."""
    said, found = _words(statement), _words(source_text)
    for word in sorted(said):
        opposite = _OPPOSITE.get(word, frozenset()) & found
        if opposite and word not in found:
            return Reading(opposite=min(opposite))
    # The frame must sit on the sentence that holds the statement's words: a window that quotes
    # the myth and then refutes it supports the refutation, not the myth.
    if _FRAME.search(_closest(statement, source_text)) and not _FRAME.search(statement):
        return Reading(hedged="framed")
    if said & _UNIVERSAL and not found & _UNIVERSAL:
        return Reading(hedged="scope")
    return Reading()


def negates(statement: str, source_text: str) -> bool:
    """The sentence of `source_text` that holds most of the statement's words negates, and the
    statement does not: with the model's contradiction on that text, a refutation."""
    return bool(_NEGATION.search(_closest(statement, source_text))) and not _NEGATION.search(statement)


def _closest(statement: str, source_text: str) -> str:
    said = _words(statement)
    return max(_SENTENCE_END.split(source_text), key=lambda s: (len(_words(s) & said), -len(s)))


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))
