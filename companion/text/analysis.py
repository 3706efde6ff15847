"""The words of a text as the judging reads them, worked out once (issue 38).

A claim's terms, numbers and names are worked out when the statement is made, a page's sentences
once per Document and language (and kept with the Document), and every later stage reads these
records: retrieval, the model's reading, the rules, the lexical features and the quote. Before,
each of them asked the lexicon again for the same claim and the same sentences.

Pure text processing: no I/O.
"""

from __future__ import annotations

from ..records import Document, Words
from .language import Lexicon, lexicon

__all__ = ["Words", "analyse", "content_terms", "sentence_words"]


def analyse(text: str, language: str | Lexicon) -> Words:
    """`text`'s words in `language` (a code, or its lexicon resolved already): its terms in order,
    its numbers and names."""
    return _lexicon(language).words(text)


def content_terms(text: str, language: str | Lexicon = "en") -> list[str]:
    """Stemmed, lower-cased content words and numbers of `text`, in order."""
    return _lexicon(language).terms(text)


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
