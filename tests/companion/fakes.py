"""Test doubles for the fast unit tests (test-only code): a deterministic NLI backend and an
in-memory fetcher, standing in for onnxruntime and the network behind companion.typedefs."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from companion.errors import SourceUnavailable
from companion.model.folder import ModelConfig, Thresholds
from companion.records import Entailment, Fetched
from companion.text.analysis import content_terms

__all__ = ["MemoryFetcher", "ScriptedNLI", "WordNLI", "fake_model"]

_NEGATION = re.compile(r"\b(not|never|no|cannot|isn't|wasn't)\b", re.IGNORECASE)


class WordNLI:
    """Entails when the premise holds every content word of the hypothesis; contradicts when it
    also negates and the hypothesis does not; otherwise neutral. Counts the pairs it scored."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[Entailment]:
        self.pairs.extend(pairs)
        return [self._one(premise, hypothesis) for premise, hypothesis in pairs]

    @staticmethod
    def _one(premise: str, hypothesis: str) -> Entailment:
        wanted = set(content_terms(hypothesis))
        share = len(wanted & set(content_terms(premise))) / len(wanted) if wanted else 0.0
        if share < 1.0:
            return Entailment(0.05 * share, 0.9, 0.1 - 0.05 * share)
        if _NEGATION.search(premise) and not _NEGATION.search(hypothesis):
            return Entailment(0.01, 0.01, 0.98)
        return Entailment(0.97, 0.02, 0.01)


class ScriptedNLI(WordNLI):
    """WordNLI, except for the readings given: (premise fragment, hypothesis, reading), the
    first whose fragment the premise holds wins. A test that needs a model reading on one side
    of a bar sets it well clear of the bar, instead of hoping the real model lands there."""

    def __init__(self, readings: Sequence[tuple[str, str, Entailment]]) -> None:
        super().__init__()
        self.readings = list(readings)

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[Entailment]:
        self.pairs.extend(pairs)
        return [
            next((e for part, h, e in self.readings if part in premise and h == hypothesis), None)
            or self._one(premise, hypothesis)
            for premise, hypothesis in pairs
        ]


def fake_model() -> ModelConfig:
    """No combiner: the score is the best entailment itself, so the tests read plainly."""
    return ModelConfig(
        name="word-nli",
        path=Path("word-nli"),
        labels=("entailment", "neutral", "contradiction"),
        thresholds=Thresholds(complete=0.5, partial=0.25, claim=0.5, contradiction=0.9),
    )


class MemoryFetcher:
    """Serves pages from a dict after a per-page delay, so tests choose the order of arrival."""

    def __init__(self, pages: Mapping[str, str], delays: Mapping[str, float] | None = None):
        self.pages = pages
        self.delays = delays or {}
        self.fetched: list[str] = []

    async def fetch(self, url: str) -> Fetched:
        await asyncio.sleep(self.delays.get(url, 0.0))
        self.fetched.append(url)
        if url not in self.pages:
            raise SourceUnavailable("http 404")
        body = self.pages[url].encode()
        return Fetched(url, url, 200, "text/html", body, "utf-8")


# Three small pages the word backend reads (WordNLI), shared by the judge's and the pipeline's tests.
BEES = "https://bees.example/colony"
SUN = "https://garden.example/tomatoes"
MYTH = "https://myths.example/bees"
WORD_PAGES = {
    BEES: ["A colony has a single queen.", "The queen lays up to 2,000 eggs a day.", "Drones do not sting."],
    SUN: ["Tomatoes need six hours of direct sun a day.", "Water them deeply twice a week."],
    MYTH: ["Bees are not deaf to sound.", "Queens mate in flight with many drones."],
}
