"""How one claim lines up with one source sentence, computed once (issue 26): which of the
claim's words the sentence holds and where, in order; which cue words it holds (a frame, a
negation, a partial word), each placed against the run of the claim's words; and its numbers and
words for the direction checks. The rules of meaning (meaning.py) are small predicates over these
records; none of them re-splits or re-aligns a sentence.

Sentences are the Document's own (pysbd), analysed once with their page (text.analysis), as the
reading passes them; the claim is analysed once when the statement is made (claim.py). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import Match, SequenceMatcher
from typing import Literal

from ..records import Words
from ..text.analysis import content_terms
from .claim import Claim
from .rulebook import RuleBook

__all__ = ["RESTATED", "Cue", "Relation", "Relator"]

# A sentence restates the claim when it holds this share of its words in order, and a cue bears
# on it within this many words of a run of them.
RESTATED = 0.6
_NEAR = 3
_NOT_ONLY = re.compile(r"(not|non) (only|seulement)\b", re.IGNORECASE)

CueKind = Literal["frame", "negation", "partial"]
# Where a cue sits against the run of the claim's words in the sentence ("none": no run of two).
Place = Literal["before", "inside", "after", "none"]


@dataclass(frozen=True, slots=True)
class Cue:
    """A cue word in the sentence. `start`: its character offset; `at`: the index of the word
    it starts in; `near`: within a few words of a run of the claim's words; `place`: before,
    between or after the first and last of those runs; `not_only`: a "not only", which negates
    nothing."""

    kind: CueKind
    word: str
    start: int
    at: int
    near: bool
    place: Place
    not_only: bool


@dataclass(frozen=True, slots=True)
class Relation:
    """One claim against one sentence.

    `restated`: the sentence holds most of the claim's words in order and most of its content
    terms. `term_starts`: where the words that hold a claim term start. `term_ops` and
    `terms_matched`: the content terms of both aligned in order (difflib opcodes)."""

    sentence: str
    words: frozenset[str]
    restated: bool
    cues: tuple[Cue, ...]
    terms: tuple[str, ...]
    coverage: float  # the share of the claim's distinct content terms the sentence holds
    term_starts: tuple[int, ...]
    term_ops: tuple[tuple[str, int, int, int, int], ...]
    terms_matched: int
    numbers: frozenset[str]

    def has(self, kind: CueKind) -> bool:
        return any(c.kind == kind for c in self.cues)


class Relator:
    """The relations of one claim (as written, analysed once: claim.py), each sentence related
    once however many rules read it."""

    def __init__(self, claim: Claim, rules: RuleBook):
        self.rules = rules
        self.claim = claim
        self._words: dict[str, frozenset[str]] = {}
        self._relations: dict[str, Relation] = {}

    def words(self, sentence: Words) -> frozenset[str]:
        if (found := self._words.get(sentence.text)) is None:
            found = self._words[sentence.text] = frozenset(self.rules.word.findall(sentence.lowered))
        return found

    def closest(self, sentences: Sequence[Words]) -> int:
        """The index of the sentence that holds most of the claim's words (the shortest, then
        the first, of equals)."""
        said = self.claim.word_set
        return max(
            range(len(sentences)),
            key=lambda i: (len(self.words(sentences[i]) & said), -len(sentences[i].text), -i),
        )

    def may_restate(self, sentence: Words) -> bool:
        """False only where `relate(sentence).restated` is sure to be: too few of the claim's
        terms are on the sentence. Spares relating the many sentences no restating rule can use."""
        terms = self.claim.terms
        return sum(t in sentence.term_set for t in terms) >= RESTATED * len(terms)

    def relate(self, sentence: Words) -> Relation:
        """The claim against a sentence, its words as its page's analysis gives them."""
        if (found := self._relations.get(sentence.text)) is None:
            found = self._relations[sentence.text] = self._relate(sentence)
        return found

    def _relate(self, analysed: Words) -> Relation:
        rules, claim = self.rules, self.claim
        language = rules.language
        sentence = analysed.text
        spans = [(m.start(), m.group()) for m in rules.word.finditer(analysed.lowered)]
        matcher = SequenceMatcher(None, claim.words, [w for _, w in spans], autojunk=False)
        blocks = [b for b in matcher.get_matching_blocks() if b.size >= 2]
        aligned = sum(b.size for b in matcher.get_matching_blocks())
        terms = analysed.terms
        held = analysed.term_set
        # Most of the claim's content words as well: "It is not made of steel" restates "It is
        # made of steel", not "It is made of wrought iron", for all the little words they share.
        restated = (
            bool(claim.words)
            and bool(spans)
            and aligned >= RESTATED * len(claim.words)
            and sum(t in held for t in claim.terms) >= RESTATED * len(claim.terms)
        )
        starts = [at for at, _ in spans]
        cues = []
        for kind, cue in (
            ("frame", rules.frame),
            ("negation", rules.negation),
            ("partial", rules.partial_cue),
        ):
            for m in cue.finditer(sentence):
                at = max(0, sum(1 for s in starts if s <= m.start()) - 1)
                cues.append(
                    Cue(
                        kind,  # type: ignore[arg-type]
                        m.group(),
                        m.start(),
                        at,
                        any(b.b - _NEAR <= at < b.b + b.size + _NEAR for b in blocks),
                        _place(at, blocks),
                        bool(_NOT_ONLY.match(sentence, m.start())),
                    )
                )
        claim_terms = set(claim.terms)
        term_matcher = SequenceMatcher(None, list(claim.terms), list(terms), autojunk=False)
        return Relation(
            sentence,
            self.words(analysed),
            restated,
            tuple(cues),
            terms,
            len(claim_terms & held) / len(claim_terms) if claim_terms else 1.0,
            tuple(at for at, word in spans if claim_terms & set(content_terms(word, language))),
            tuple(term_matcher.get_opcodes()),
            sum(b.size for b in term_matcher.get_matching_blocks()),
            analysed.numbers,
        )


def _place(at: int, blocks: list[Match]) -> Place:
    if not blocks:
        return "none"
    if at <= blocks[0].b:
        return "before"
    return "inside" if at < blocks[-1].b + blocks[-1].size else "after"
