"""Ranks a source's sentences and short windows for a claim with a cheap lexical scorer.

Only the best few windows reach the NLI model, which is what makes checking a long page fast.
The scorer is idf-weighted coverage of the claim's content words (stemmed), with a bonus for
numbers and names, because those are what an unsupported claim usually gets wrong.
Pure text processing: no I/O.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .records import Document, PageIndex, Sentence, Window

__all__ = [
    "Overlap",
    "content_terms",
    "index_page",
    "join_sentences",
    "overlap",
    "overlap_pages",
    "page_index",
    "rank_windows",
    "top_sentences",
]

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[A-Z][a-zA-Z'’-]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

# Function words carry no evidence; a short list beats a library for this job.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves s t may might must shall one many
    much well however thus therefore although though according like including include includes
    included""".split()
)


def _stem(word: str) -> str:
    """A light suffix stripper: enough to match "sings"/"sang" no, "songs"/"song" yes."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""), ("ed", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + keep
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def content_terms(text: str) -> list[str]:
    """Stemmed, lower-cased content words and numbers of `text`, in order."""
    terms = []
    for raw in _WORD.findall(text):
        word = raw.lower().strip("'’-").replace(",", "")
        if word and word not in STOPWORDS:
            terms.append(_stem(word))
    return terms


def index_page(document: Document) -> Document:
    """The document with its PageIndex: each sentence's terms and the page's idf, terms, numbers
    and lower-cased text, computed once when the page is read rather than for every claim."""
    terms = tuple(frozenset(content_terms(s.text)) for s in document.sentences)
    df: Counter[str] = Counter()
    for own in terms:
        df.update(own)
    n = len(terms)
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    index = PageIndex(
        sentence_terms=terms,
        idf=idf,
        terms=frozenset(content_terms(document.text)),
        numbers=frozenset(_numbers(document.text)),
        lowered=document.text.lower(),
    )
    return Document(document.url, document.title, document.text, document.sentences, index)


def page_index(document: Document) -> PageIndex:
    """The document's index; built on the spot for a document that was not read by the loader
    (evaluation scripts, tests)."""
    index = document.index or index_page(document).index
    assert index is not None
    return index


def rank_windows(
    document: Document,
    claim: str,
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
    claim_terms = set(content_terms(claim))
    if not claim_terms:
        claim_terms = {t.lower() for t in claim.split()}
    weight = {t: idf.get(t, default_idf) for t in claim_terms}
    # fsum: a set's order changes with each process's hash seed, and a plain sum's last bits with
    # it, which flipped ties between windows from one run to the next.
    total = math.fsum(weight.values()) or 1.0
    sentence_terms = [own & claim_terms for own in terms]
    hinted = _hinted(sentences, hint)
    # The page's own title (and the heading repeating it) restates the topic: it would lend its
    # words to every claim about the topic without saying anything about it.
    title = " ".join(document.title.split()).lower()
    is_title = [bool(title) and " ".join(s.text.split()).lower() == title for s in sentences]

    scored: list[tuple[float, int, int]] = []  # texts are joined for the chosen few only
    for first in range(len(sentences)):
        covered: set[str] = set()
        for last in range(first, min(first + max_sentences, len(sentences))):
            if is_title[last]:
                break
            covered |= sentence_terms[last]
            if len(sentences[first].text) < min_chars and last == first:
                continue
            score = math.fsum(weight[t] for t in covered) / total
            score -= 0.04 * (last - first)
            if hinted & set(range(first, last + 1)):
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


@dataclass(frozen=True, slots=True)
class Overlap:
    """Cheap signals of what a claim says that the evidence does not (combiner features)."""

    coverage: float  # idf-free share of the claim's content terms found in the evidence
    missing_numbers: float  # share of the claim's numbers absent from the evidence
    missing_names: float  # share of the claim's capitalised names absent from the evidence


def overlap(claim: str, evidence: str) -> Overlap:
    """Overlap of a claim with a short evidence text (a window, the joined top sentences)."""
    terms, numbers = frozenset(content_terms(evidence)), frozenset(_numbers(evidence))
    return _overlap(claim, terms, numbers, [evidence.lower()])


def overlap_pages(claim: str, pages: Sequence[PageIndex]) -> Overlap:
    """Overlap of a claim with whole pages, read from their indexes."""
    terms = frozenset().union(*(p.terms for p in pages))
    numbers = frozenset().union(*(p.numbers for p in pages))
    return _overlap(claim, terms, numbers, [p.lowered for p in pages])


def _overlap(claim: str, terms: frozenset[str], numbers: frozenset[str], lowered: Sequence[str]) -> Overlap:
    claim_terms = set(content_terms(claim))
    coverage = len(claim_terms & terms) / len(claim_terms) if claim_terms else 1.0
    wanted = set(_numbers(claim))
    missing_numbers = len(wanted - numbers) / len(wanted) if wanted else 0.0
    names = {m.lower() for m in _NAME.findall(claim) if m.lower() not in STOPWORDS}
    missing = sum(1 for n in names if not any(n in text for text in lowered))
    missing_names = missing / len(names) if names else 0.0
    return Overlap(coverage, missing_numbers, missing_names)


def _numbers(text: str) -> list[str]:
    return [n.replace(",", "") for n in _NUMBER.findall(text)]
