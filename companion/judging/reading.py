"""What the NLI model reads of each cited source for one claim, and what it says.

Retrieval ranks a source's windows for the claim; the best few, and the joined top sentences,
are scored as (premise = source text, hypothesis = claim) pairs in one call to the backend, so
the backend batches and caches across sources. No I/O: documents arrive read, the model behind
the NLIBackend protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from ..config import Judging, Retrieval
from ..records import Document, Entailment, Window
from ..text.language import lexicon
from ..text.retrieve import join_sentences, rank_windows, top_sentences
from ..typedefs import NLIBackend
from .meaning import reports_unsettled

__all__ = ["SourceReading", "given_elsewhere", "read_sources"]

_NO_SCORE = Entailment(0.0, 1.0, 0.0)


@dataclass(frozen=True, slots=True)
class SourceReading:
    """The windows the model read in one source for one claim, and its scores for each."""

    url: str
    document: Document
    windows: tuple[Window, ...]
    window_scores: tuple[Entailment, ...]
    joined_text: str
    joined_score: Entailment
    on_topic: tuple[bool, ...]  # per window: does it hold enough of the claim's words to contradict it?
    language: str = "en"  # the claim's, whose words were looked for
    joined_indices: tuple[int, ...] = ()  # the Document's sentences `joined_text` joins

    @property
    def best_reading(self) -> Entailment:
        """The model's reading of the text it found most entailing (a window or the joined top
        sentences), with that text's neutral and contradiction beside it."""
        return max([*self.window_scores, self.joined_score], key=lambda s: s.entailment)

    @property
    def best_entailment(self) -> float:
        return self.best_reading.entailment

    @property
    def contradiction(self) -> float:
        """Contradiction by a window that is about the claim: an unrelated page reads as
        "contradiction" to an SNLI-trained model, but it only fails to support."""
        return max([s.contradiction for s, t in zip(self.window_scores, self.on_topic) if t], default=0.0)

    def contradicting_window(self) -> Window | None:
        """The shortest on-topic window among those that contradict the claim the most."""
        relevant = [(w, s) for w, s, t in zip(self.windows, self.window_scores, self.on_topic) if t]
        if not relevant:
            return None
        top = max(s.contradiction for _, s in relevant)
        return min((w for w, s in relevant if s.contradiction >= top - 0.05), key=lambda w: w.last - w.first)

    def best_window(self) -> Window | None:
        """The window the model found most entailing (first ranked on ties)."""
        if not self.windows:
            return None
        best = max(range(len(self.windows)), key=lambda i: (self.window_scores[i].entailment, -i))
        return self.windows[best]

    def most_entailing_sentences(self) -> tuple[str, ...]:
        """The sentences (a window's, or the joined top ones) the model found most entailing, as
        the Document split them: the rules read these, never a re-split of the joined text."""
        joined = tuple(self.document.sentences[i].text for i in self.joined_indices)
        texts = [
            (s.entailment, -i, self.window_sentences(w))
            for i, (w, s) in enumerate(zip(self.windows, self.window_scores))
        ]
        texts.append((self.joined_score.entailment, 1, joined))
        return max(texts)[2] if self.windows else joined

    def window_sentences(self, window: Window) -> tuple[str, ...]:
        return tuple(s.text for s in self.document.sentences[window.first : window.last + 1])

    @property
    def first_reading(self) -> Entailment:
        """The model's 3-way reading of the best-ranked window, before any gating or combining."""
        return self.window_scores[0] if self.window_scores else self.joined_score


@dataclass(frozen=True, slots=True)
class _Plan:
    url: str
    document: Document
    windows: tuple[Window, ...]
    joined: str
    top: tuple[int, ...]


def read_sources(
    nli: NLIBackend,
    claim: str,
    documents: Sequence[tuple[str, Document, str]],
    retrieval: Retrieval,
    judging: Judging,
    *,
    limit: int | None = None,
    language: str = "en",
) -> dict[str, SourceReading]:
    """Each (url, document, hint) read for `claim`, with one backend call for all of them."""
    plans = []
    for url, document, hint in documents:
        found = rank_windows(
            document,
            claim,
            limit=limit or retrieval.candidates,
            max_sentences=retrieval.max_window_sentences,
            min_chars=retrieval.min_sentence_chars,
            hint=hint,
            language=language,
        )
        found = _read_on(document, found, language)
        top = tuple(top_sentences(found, retrieval.joined_sentences))
        joined = " ".join(document.sentences[i].text for i in top)
        plans.append(_Plan(url, document, tuple(found), joined, top))
    pairs = [(w.text, claim) for plan in plans for w in plan.windows]
    pairs += [(plan.joined, claim) for plan in plans if plan.joined]
    scores = iter(nli.score(pairs))
    # Pairs went in plan by plan, windows first, then the joined texts: taken back in that order.
    own = [tuple(_take(scores, len(plan.windows))) for plan in plans]
    readings: dict[str, SourceReading] = {}
    for plan, window_scores in zip(plans, own, strict=True):
        joined_score = next(scores) if plan.joined else _NO_SCORE
        on_topic = tuple(_about(claim, w.text, language) >= judging.on_topic for w in plan.windows)
        readings[plan.url] = SourceReading(
            plan.url,
            plan.document,
            plan.windows,
            window_scores,
            plan.joined,
            joined_score,
            on_topic,
            language,
            plan.top,
        )
    return readings


def given_elsewhere(document: Document, window: Window, claim: str, language: str, limit: int = 2) -> str:
    """The page's sentences outside `window` that give the claim's numbers and names the window
    lacks (at most `limit`, in page order); "" when the window lacks none or the page has none.

    An SNLI-trained model reads a date missing from the premise as a conflicting one: "When it
    opened, the tower was 300 metres tall" contradicts "When it opened in 1889 it was 300 metres
    tall" at 0.99 for it, and at 0.12 once "The tower was completed in March 1889" comes first."""
    words = lexicon(language)
    numbers = set(words.numbers(claim)) - set(words.numbers(window.text))
    names = {n for n in words.names(claim) if n not in window.text.lower()}
    given: dict[int, set[str]] = {}
    for i, sentence in enumerate(document.sentences):
        if not window.first <= i <= window.last:
            lowered = sentence.text.lower()
            found = (numbers & set(words.numbers(sentence.text))) | {n for n in names if n in lowered}
            if found:
                given[i] = found
    chosen: list[int] = []
    while given and len(chosen) < limit:
        best = max(given, key=lambda i: (len(given[i]), -i))
        chosen.append(best)
        covered = given.pop(best)
        given = {i: rest for i, found in given.items() if (rest := found - covered)}
    return " ".join(document.sentences[i].text for i in sorted(chosen))


# How often a thing happens says nothing of what it is about: "Snow is rare and seldom stays on
# the ground" is not about "Paris is rarely windy, so the tower seldom sways", and an SNLI-trained
# model reads the pair as a contradiction (0.97).
_HOW_OFTEN = {
    "en": "rarely rare seldom often usually always sometimes frequently occasionally",
    "fr": "rarement rare souvent habituellement toujours parfois fréquemment",
}


@cache
def _how_often_terms(language: str) -> frozenset[str]:
    words = lexicon(language)
    return frozenset(words.terms(_HOW_OFTEN.get(words.language, "")))


def _about(claim: str, text: str, language: str) -> float:
    """Share of the claim's content words, words of frequency aside, that `text` holds."""
    words = lexicon(language)
    terms = set(words.terms(claim)) - _how_often_terms(language)
    return len(terms & set(words.terms(text))) / len(terms) if terms else 1.0


def _read_on(document: Document, windows: list[Window], language: str) -> list[Window]:
    """Windows that end on a sentence reporting the claim as a myth, a saying or an allegation,
    read on to the sentence after it. Pages state a myth to refute it next ("It is often said
    that X. It is not."); read alone, the myth's sentence entails the claim word for word."""
    read: list[Window] = []
    for window in windows:
        last = window.last + 1
        if last < len(document.sentences) and reports_unsettled(
            document.sentences[window.last].text, language
        ):
            window = Window(
                window.first, last, join_sentences(document, window.first, last), window.relevance
            )
        if all((w.first, w.last) != (window.first, window.last) for w in read):
            read.append(window)
    return read


def _take(scores: Iterator[Entailment], count: int) -> Iterator[Entailment]:
    for _ in range(count):
        yield next(scores)
