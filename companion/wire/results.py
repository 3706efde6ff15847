"""The results this companion produced, held a bounded time so that audit cards vouch only for them.

An audit card is evidence that this companion, with these models, made these verdicts. A card
built from a result the client sends back could carry any verdicts, so /v1/verify hands out a
result id with each result, and /v1/audit builds the card from the result held under that id.
Results go oldest first past `keep`, and after `ttl_s`.
"""

from __future__ import annotations

import datetime
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..records import PageInfo

__all__ = ["HeldResult", "Results", "judged_now"]


def judged_now() -> str:
    """A card's `judged_at`: ISO 8601 UTC to the second, as /v1/audit and audit-batch write it."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class HeldResult:
    id: str
    page: PageInfo
    result: dict[str, Any]  # the plain-JSON /v1/verify result (export.collect)
    judged_at: str  # ISO 8601 UTC, when the result was complete


class Results:
    def __init__(self, *, keep: int, ttl_s: float, clock: Callable[[], float] = time.monotonic):
        self.keep, self.ttl_s = keep, ttl_s
        self._clock = clock
        self._held: OrderedDict[str, tuple[float, HeldResult]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        # Unguessable: an id is no secret, but one page's script must not fetch another's cards.
        return "r_" + secrets.token_urlsafe(12)

    def put(self, result_id: str, page: PageInfo, result: dict[str, Any]) -> HeldResult:
        held = HeldResult(result_id, page, result, judged_now())
        with self._lock:
            self._expire()
            self._held[result_id] = (self._clock(), held)
            while len(self._held) > self.keep:
                self._held.popitem(last=False)
        return held

    def get(self, result_id: str) -> HeldResult | None:
        with self._lock:
            self._expire()
            entry = self._held.get(result_id)
            return entry[1] if entry else None

    def _expire(self) -> None:
        now = self._clock()
        while self._held:
            stored, _ = next(iter(self._held.values()))
            if now - stored < self.ttl_s:
                break
            self._held.popitem(last=False)
