"""Protocols between the stages, so that I/O and the model can be swapped (httpx habit).

Only companion.model.infer imports onnxruntime and only companion.sources.fetch does network I/O; everything
else receives them through these interfaces. The fast unit tests pass a deterministic NLI backend
and an in-memory fetcher (tests/companion/fakes.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .records import Entailment, Fetched

__all__ = ["NLIBackend", "SourceFetcher"]


class NLIBackend(Protocol):
    """Scores (premise, hypothesis) pairs; must return one Entailment per pair, in order."""

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[Entailment]: ...


class SourceFetcher(Protocol):
    """Gets a cited page's bytes, or raises companion.errors.SourceUnavailable saying why."""

    async def fetch(self, url: str) -> Fetched: ...
