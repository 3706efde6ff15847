"""The words of a text as the judging reads them, worked out once (issue 38).

A claim's terms, numbers and names are worked out when the statement is made, a page's sentences
once per Document and language (and kept with the Document), and every later stage reads these
records: retrieval, the model's reading, the rules, the lexical features and the quote. Before,
each of them asked the lexicon again for the same claim and the same sentences.

Pure text processing: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..records import Document, Words
from .language import Lexicon, lexicon

__all__ = ["Overlap", "Words", "analyse", "content_terms", "joined", "overlap", "sentence_words"]


def analyse(text: str, language: str | Lexicon) -> Words:
    """`text`'s words in `language` (a code, or its lexicon resolved already): its terms in order,
    its numbers and names."""
    return _lexicon(language).words(text)


def content_terms(text: str, language: str | Lexicon = "en") -> list[str]:
    """Stemmed, lower-cased content words and numbers of `text`, in order."""
    return _lexicon(language).terms(text)


def joined(parts: Sequence[Words]) -> Words:
    """Sentences read as one text (a window, the joined top sentences), from their own analyses:
    a sentence's words end where it ends."""
    terms = tuple(t for p in parts for t in p.terms)
    return Words(
        " ".join(p.text for p in parts),
        parts[0].language if parts else "en",
        terms,
        frozenset(terms),
        frozenset().union(*(p.numbers for p in parts)),
        frozenset().union(*(p.names for p in parts)),
        " ".join(p.lowered for p in parts),
    )


def sentence_words(document: Document, language: str | Lexicon) -> tuple[Words, ...]:
    """The document's sentences analysed in `language` (a claim's language may differ from the
    page's), once per Document and language: kept in the Document's own cache."""
    key = language.language if isinstance(language, Lexicon) else language
    found = document.analysed.get(key)
    if found is None:
        found = document.analysed.setdefault(
            key, tuple(analyse(s.text, language) for s in document.sentences)
        )
    return found


def _lexicon(language: str | Lexicon) -> Lexicon:
    return language if isinstance(language, Lexicon) else lexicon(language)


@dataclass(frozen=True, slots=True)
class Overlap:
    """Cheap signals of what a claim says that the evidence does not (combiner features)."""

    coverage: float  # idf-free share of the claim's content terms found in the evidence
    missing_numbers: float  # share of the claim's numbers absent from the evidence
    missing_names: float  # share of the claim's capitalised names absent from the evidence


def overlap(claim: Words, terms: frozenset[str], numbers: frozenset[str], lowered: Sequence[str]) -> Overlap:
    """Overlap of a claim with evidence: its terms, its numbers, and its lower-cased texts, where
    the claim's names are looked for."""
    coverage = len(claim.term_set & terms) / len(claim.term_set) if claim.term_set else 1.0
    missing_numbers = len(claim.numbers - numbers) / len(claim.numbers) if claim.numbers else 0.0
    missing = sum(1 for n in claim.names if not any(n in text for text in lowered))
    missing_names = missing / len(claim.names) if claim.names else 0.0
    return Overlap(coverage, missing_numbers, missing_names)
