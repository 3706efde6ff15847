"""Ranks a source's sentences and short windows for a claim with a cheap lexical scorer.

Only the best few windows reach the NLI model, which is what makes checking a long page fast.
The scorer is idf-weighted coverage of the claim's content words (stemmed), with a bonus for
numbers and names, because those are what an unsupported claim usually gets wrong.
The claim arrives analysed (text.analysis), the page's sentences with their terms (PageIndex).
`candidates` hands the judge's reading stage all it reads of one page for one claim, in one call.
Pure text processing: no I/O.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ..config import Retrieval
from ..records import Document, PageIndex, Sentence, Window, Words
from .analysis import sentence_words
from .language import Lexicon, lexicon

__all__ = [
    "Candidates",
    "Cues",
    "candidates",
    "index_page",
    "join_sentences",
    "page_index",
    "rank_windows",
    "read_on",
    "reports_unsettled",
    "top_sentences",
]


class Cues(Protocol):
    """A language's cue words for a sentence that reports a claim (a myth, a saying, an
    allegation) and for a negation: judging.rulebook.RuleBook holds them, from the language's file."""

    @property
    def frame(self) -> re.Pattern[str]: ...

    @property
    def negation(self) -> re.Pattern[str]: ...


@dataclass(frozen=True, slots=True)
class Candidates:
    """What retrieval picks in one page for one claim: the windows the model reads, best first,
    and the top sentences it reads together (ALCE's joined evidence)."""

    page: PageIndex
    windows: tuple[Window, ...]
    top: tuple[int, ...]  # the joined sentences, in page order
    joined: str  # their text
    # The windows the top sentences were taken from (_joining) that hold one of them.
    joined_from: tuple[Window, ...]
    sentences: tuple[Words, ...]  # the page's sentences' words in the claim's language


def candidates(
    document: Document,
    claim: Words,
    language: Lexicon,
    cues: Cues,
    retrieval: Retrieval,
    *,
    limit: int,
    hint: str = "",
) -> Candidates:
    """The `limit` best windows of `document` for `claim` (rank_windows), each read on past a
    sentence that reports something unsettled (read_on), the top sentences of those that share a
    word with the claim, and the page's sentences read in the claim's `language`."""
    found = rank_windows(
        document,
        claim,
        limit=limit,
        max_sentences=retrieval.max_window_sentences,
        min_chars=retrieval.min_sentence_chars,
        hint=hint,
    )
    found = read_on(document, found, cues)
    joining = _joining(found)
    top = tuple(top_sentences(joining, retrieval.joined_sentences))
    return Candidates(
        page_index(document),
        tuple(found),
        top,
        " ".join(document.sentences[i].text for i in top),
        tuple(w for w in joining if any(w.first <= i <= w.last for i in top)),
        sentence_words(document, language),
    )


def _joining(windows: Sequence[Window]) -> list[Window]:
    """The windows the joined top sentences are taken from: those that share a word with the claim
    (a sentence beside the article that shares none must not change what the model reads
    together, issue 36), or the best-ranked alone."""
    return [w for w in windows if w.relevance > 0] or list(windows[:1])


def reports_unsettled(sentence: str, cues: Cues) -> bool:
    """Whether the sentence reports something as a myth, a saying, an allegation or a rumour
    without saying itself whether it holds (no negation in it): the next sentence usually does.
    Read here, with the cue words of the claim's language (judging.claim.ClaimLanguage.cues),
    because retrieval reads it before any rule runs; the quote (judging/evidence.py) and the rules
    read it too."""
    return bool(cues.frame.search(sentence)) and not cues.negation.search(sentence)


def read_on(document: Document, windows: Sequence[Window], cues: Cues) -> list[Window]:
    """Windows that end on a sentence reporting the claim as a myth, a saying or an allegation,
    read on to the sentence after it. Pages state a myth to refute it next ("It is often said
    that X. It is not."); read alone, the myth's sentence entails the claim word for word."""
    read: list[Window] = []
    for window in windows:
        last = window.last + 1
        if last < len(document.sentences) and reports_unsettled(document.sentences[window.last].text, cues):
            window = Window(
                window.first, last, join_sentences(document, window.first, last), window.relevance
            )
        if all((w.first, w.last) != (window.first, window.last) for w in read):
            read.append(window)
    return read


def index_page(document: Document) -> Document:
    """The document with its PageIndex: each sentence's terms and the page's idf, terms, numbers
    and lower-cased text, computed once when the page is read rather than for every claim. Its
    sentences' analysis in the page's own language is kept with it (text.analysis)."""
    words = lexicon(document.language)
    terms = tuple(s.term_set for s in sentence_words(document, document.language))
    df: Counter[str] = Counter()
    for own in terms:
        df.update(own)
    n = len(terms)
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    # The page's own title (and the heading repeating it) restates the topic: it would lend its
    # words to every claim about the topic without saying anything about it.
    title = " ".join(document.title.split()).lower()
    index = PageIndex(
        titles=tuple(bool(title) and " ".join(s.text.split()).lower() == title for s in document.sentences),
        sentence_terms=terms,
        idf=idf,
        terms=frozenset(words.terms(document.text)),
        numbers=frozenset(words.numbers(document.text)),
        lowered=document.text.lower(),
    )
    return replace(document, index=index, analysed=document.analysed)


def page_index(document: Document) -> PageIndex:
    """The document's index; built on the spot for a document that was not read by the loader
    (evaluation scripts, tests)."""
    index = document.index or index_page(document).index
    assert index is not None
    return index


def rank_windows(
    document: Document,
    claim: Words,
    *,
    limit: int,
    max_sentences: int = 3,
    min_chars: int = 12,
    hint: str = "",
) -> list[Window]:
    """The `limit` best windows of 1..max_sentences consecutive sentences, best first.

    A window scores the idf-weighted share of the claim's terms it covers; longer windows pay a
    small price so that a single sentence wins when it says it all (the model reads the least text).
    """
    sentences = document.sentences
    if not sentences:
        return []
    index = page_index(document)
    terms, idf = index.sentence_terms, index.idf
    default_idf = math.log(1 + (len(sentences) + 0.5) / 0.5)
    claim_terms = set(claim.term_set)
    if not claim_terms:
        claim_terms = {t.lower() for t in claim.text.split()}
    weight = {t: idf.get(t, default_idf) for t in claim_terms}
    # fsum: a set's order changes with each process's hash seed, and a plain sum's last bits with
    # it, which flipped ties between windows from one run to the next.
    total = math.fsum(weight.values()) or 1.0
    sentence_terms = [own & claim_terms for own in terms]
    hinted = _hinted(sentences, hint)
    is_title = index.titles

    scored: list[tuple[float, int, int]] = []  # texts are joined for the chosen few only
    for first in range(len(sentences)):
        covered: set[str] = set()
        found = 0.0
        for last in range(first, min(first + max_sentences, len(sentences))):
            if is_title[last]:
                break
            if not sentence_terms[last] <= covered:  # most sentences add none of the claim's terms
                covered |= sentence_terms[last]
                found = math.fsum(weight[t] for t in covered)
            if len(sentences[first].text) < min_chars and last == first:
                continue
            # A window begins and ends on a sentence that shares a word with the claim: one that
            # reaches into the next paragraph's unrelated sentences reads differently for what
            # merely sits beside the article (issue 36: a site's other paragraphs changed 10 % of
            # verdicts).
            if last > first and not (sentence_terms[first] and sentence_terms[last]):
                continue
            score = found / total
            score -= 0.04 * (last - first)
            if hinted and hinted & set(range(first, last + 1)):
                score += 0.5
            scored.append((-score, first, last))
    scored.sort()
    return [
        Window(first, last, join_sentences(document, first, last), -negative)
        for negative, first, last in _distinct(scored, limit)
    ]


def _hinted(sentences: Sequence[Sentence], hint: str) -> set[int]:
    if not hint:
        return set()
    needle = " ".join(hint.split()).lower()[:80]
    return {i for i, s in enumerate(sentences) if needle and needle in " ".join(s.text.split()).lower()}


def _distinct(ranked: Iterable[tuple[float, int, int]], limit: int) -> list[tuple[float, int, int]]:
    """Drops windows that only pad a better window with sentences that added nothing; its parts
    stay, since a single sentence of a good window may be the whole evidence on its own."""
    chosen: list[tuple[float, int, int]] = []
    for window in ranked:
        if len(chosen) >= limit:
            break
        _, first, last = window
        if any(first <= f and end <= last for _, f, end in chosen):
            continue
        chosen.append(window)
    return chosen


def join_sentences(document: Document, first: int, last: int) -> str:
    return " ".join(s.text for s in document.sentences[first : last + 1])


def top_sentences(windows: Sequence[Window], count: int) -> list[int]:
    """Indices of the sentences of the best windows, at most `count`, in document order."""
    picked: list[int] = []
    for window in windows:
        for i in range(window.first, window.last + 1):
            if i not in picked and len(picked) < count:
                picked.append(i)
    return sorted(picked)
