"""How one claim lines up with one source sentence, computed once (issue 26): which of the
claim's words the sentence holds and where, in order; which cue words it holds (a frame, a
negation, a partial word), each placed against the run of the claim's words; and its numbers and
words for the direction checks. The rules of meaning (meaning.py) are small predicates over these
records, computed for every sentence they read before any of them runs (`Relations`); none of
them re-splits, re-aligns or relates a sentence.

Sentences are the Document's own (pysbd), analysed once with their page (text.analysis), as the
reading passes them; the claim is analysed once when the statement is made (claim.py). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import Match, SequenceMatcher
from typing import Literal

from ..records import Words
from ..text.language import Lexicon, lexicon
from .claim import Claim
from .reading import SourceWindows
from .rulebook import RuleBook

__all__ = ["RESTATED", "Cue", "Relation", "Relations", "may_restate", "relate", "relate_sources", "relation"]

# A sentence restates the claim when it holds this share of its words in order, and a cue bears
# on it within this many words of a run of them.
RESTATED = 0.6
_NEAR = 3
# The window rules that read a window's closest sentence and the one after it (meaning._negates,
# meaning._framed_then_negated); without them in the book, those sentences are not related.
_READ_AFTER_CLOSEST = frozenset({"negates", "framed_refuted"})
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
    cue_kinds: frozenset[CueKind]  # the kinds of its cues
    terms: tuple[str, ...]
    coverage: float  # the share of the claim's distinct content terms the sentence holds
    term_starts: tuple[int, ...]
    term_ops: tuple[tuple[str, int, int, int, int], ...]
    terms_matched: int
    numbers: frozenset[str]


@dataclass(frozen=True, slots=True)
class Relations:
    """The claim's relations to every source sentence a rule reads, computed once before any rule
    runs (`relate`): the rules (meaning.py) look them up here and never relate a sentence
    themselves. Keyed by the sentence's text, so a sentence two windows share is related once."""

    claim: Claim
    rules: RuleBook
    language: Lexicon  # the claim's (claim.ClaimLanguage), which the rules read words in
    words: Mapping[str, frozenset[str]]  # each sentence's rules' words
    restating: frozenset[str]  # the sentences that may restate the claim (may_restate)
    relations: Mapping[str, Relation]  # each sentence a rule reads as related to the claim
    # Per group of sentences the rules read together (a window, the most entailing text), the
    # index of the one that holds most of the claim's words (the shortest, then the first, of equals).
    closest: Mapping[tuple[str, ...], int]


def relate(
    claim: Claim,
    rules: RuleBook,
    language: Lexicon,
    texts: Iterable[Sequence[Words]],
    singles: Iterable[Words] = (),
    windows: Iterable[Sequence[Words]] = (),
) -> Relations:
    """The claim related to the sentences the rules read, those the book's rules read only:
    every one that may restate the claim; of each of `texts` (a text read as support:
    meaning.support_findings) its closest sentence, and each that gives the claim's numbers; of
    each of `windows` (meaning.window_findings) its closest sentence and the one after it."""
    texts = [g for g in texts if g]
    windows = [g for g in windows if g]
    families = {r.family for r in rules.rules}
    words: dict[str, frozenset[str]] = {}
    restating: set[str] = set()
    relations: dict[str, Relation] = {}
    closest: dict[tuple[str, ...], int] = {}

    def related(sentence: Words) -> None:
        if sentence.text not in relations:
            relations[sentence.text] = _relate(claim, rules, language, sentence, words[sentence.text])

    for sentence in (*singles, *(s for g in (*texts, *windows) for s in g)):
        if sentence.text not in words:
            words[sentence.text] = frozenset(rules.word.findall(sentence.lowered))
            if may_restate(claim, sentence):
                restating.add(sentence.text)
                related(sentence)
    said = claim.word_set
    for group, is_window in [(g, False) for g in texts] + [(g, True) for g in windows]:
        at = max(range(len(group)), key=lambda i: (len(words[group[i].text] & said), -len(group[i].text), -i))
        closest[tuple(s.text for s in group)] = at
        if not is_window:
            related(group[at])
            if "framed_numbers" in families and claim.numbers:
                for sentence in group:
                    if claim.numbers <= sentence.numbers:
                        related(sentence)
        elif families & _READ_AFTER_CLOSEST:
            for sentence in group[at : at + 2]:
                related(sentence)
    return Relations(claim, rules, language, words, frozenset(restating), relations, closest)


def relate_sources(
    claim: Claim, rules: RuleBook, language: Lexicon, sources: Iterable[SourceWindows]
) -> Relations:
    """The claim related to what the rules read of each source (meaning.source_findings): the text
    the model found most entailing, each on-topic window, and each sentence of those windows and
    of the joined top sentences."""
    texts: list[Sequence[Words]] = []
    windows: list[Sequence[Words]] = []
    singles: list[Words] = []
    for source in sources:
        sentences = source.sentences
        texts.append([sentences[i] for i in source.most_entailing])
        singles += [sentences[i] for i in source.joined_indices]
        for window, on_topic in zip(source.windows, source.on_topic):
            if on_topic:
                windows.append(sentences[window.first : window.last + 1])
    return relate(claim, rules, language, texts, singles, windows)


def may_restate(claim: Claim, sentence: Words) -> bool:
    """False only where the sentence's relation is sure not to be `restated`: too few of the
    claim's terms are on it. Spares relating the many sentences no restating rule can use."""
    terms = claim.terms
    return sum(t in sentence.term_set for t in terms) >= RESTATED * len(terms)


def relation(claim: Claim, rules: RuleBook, sentence: Words) -> Relation:
    """The claim against one sentence alone, its words as its page's analysis gives them."""
    words = frozenset(rules.word.findall(sentence.lowered))
    return _relate(claim, rules, lexicon(rules.language), sentence, words)


def _relate(
    claim: Claim, rules: RuleBook, language: Lexicon, analysed: Words, words: frozenset[str]
) -> Relation:
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
        words,
        restated,
        tuple(cues),
        frozenset(c.kind for c in cues),
        terms,
        len(claim_terms & held) / len(claim_terms) if claim_terms else 1.0,
        tuple(at for at, word in spans if claim_terms & set(language.terms(word))),
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
