"""Same answer, same verdict (issue 16): judging must not depend on timing, caches or hash seeds.

One realistic answer (12 sentences, 5 sources, a wrong citation, an uncited sentence, two
sources cited together) goes through separate `citelens serve` processes with different
PYTHONHASHSEED: once with the pages inline, and several times fetched from a local site that
delays each page by a different amount in every run, so the pages arrive in another order each
time and statements are judged while other pages are still being read. The second fetch of a
process comes from its page cache and its warm pair cache. Every run must give identical
statements, scores, evidence, summary and audit cards (only the elapsed time, and `via`, which
names how each page was read, may differ).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from .batch_answers import BEE_ANSWER
from .hostile_site import serve_app
from .live_companion import companion_process, post_json

pytestmark = pytest.mark.slow

_PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
_NAMES = ("dance", "colony", "history", "honey", "tomatoes")

# Sentence → the pages it cites (names from _NAMES); () cites nothing.
_ANSWER = BEE_ANSWER


def _request(base: str, *, inline: bool) -> dict[str, Any]:
    text, citations = "", []
    for sentence, cited in _ANSWER:
        text += ("" if not text else " ") + sentence
        for name in cited:
            citations.append(
                {
                    "id": f"c{len(citations)}",
                    "marker": str(_NAMES.index(name) + 1),
                    "url": f"{base}/{name}",
                    "offset": len(text),
                }
            )
    body: dict[str, Any] = {
        "page": {
            "url": "https://www.perplexity.ai/search/bees",
            "engine": "perplexity",
            "query": "how do honeybees live",
            "captured_at": "2026-11-30T09:00:00Z",
        },
        "answer": {"text": text},
        "citations": citations,
        "options": {"stream": False},
    }
    if inline:
        body["sources"] = {f"{base}/{n}": {"html": (_PAGES / f"{n}.html").read_text()} for n in _NAMES}
    return body


@asynccontextmanager
async def _slow_site(delays: dict[str, float]) -> AsyncIterator[int]:
    """The five pages, each after its own delay (set per run through `delays`)."""

    async def page(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        await asyncio.sleep(delays[name])
        return web.Response(text=(_PAGES / f"{name}.html").read_text(), content_type="text/html")

    app = web.Application()
    app.router.add_get("/{name}", page)
    async with serve_app(app) as port:
        yield port


def _comparable(verified: dict[str, Any], audit: dict[str, Any]) -> dict[str, Any]:
    for summary in (verified["summary"], audit["summary"]):
        summary.pop("elapsed_ms")
        summary.pop("result_id")  # a new one per result, by design
    # When the result was held, and under which id: the only other fields that may differ.
    assert set(audit.pop("provenance")) == {"verdicts", "result_id", "judged_at"}
    return _without_via({"verify": verified, "audit": audit})


def _without_via(value: Any) -> Any:
    """`via` says how a page was read ("inline" or "companion"), which this test varies on
    purpose; every other field must match."""
    if isinstance(value, dict):
        return {k: _without_via(v) for k, v in value.items() if k != "via"}
    if isinstance(value, list):
        return [_without_via(v) for v in value]
    return value


async def _run(
    seed: int, site_port: int, delays: dict[str, float], orders: list[list[float] | None]
) -> list[dict[str, Any]]:
    """One companion process; for each entry of `orders`, a run inline (None) or fetched with
    those per-page delays (set into the site's `delays`). Each run verifies, then audits."""
    results = []
    with companion_process(seed, [f"127.0.0.1:{site_port}"]) as (port, token):
        for order in orders:
            body = _request(f"http://127.0.0.1:{site_port}", inline=order is None)
            delays.update(zip(_NAMES, order or [0.0] * len(_NAMES)))
            verified = await post_json(port, token, "/v1/verify", body)
            audit = await post_json(port, token, "/v1/audit", body)
            results.append(_comparable(verified, audit))
    return results


def _orders(seed: int) -> list[float]:
    delays = [0.0, 0.08, 0.16, 0.3, 0.5]
    random.Random(seed).shuffle(delays)
    return delays


async def test_same_answer_same_verdict_whatever_the_timing() -> None:
    delays: dict[str, float] = {}
    async with _slow_site(delays) as site_port:
        runs = await _run(1, site_port, delays, [None, _orders(1)])
        runs += await _run(2, site_port, delays, [_orders(2), _orders(3)])  # the second: from cache
        runs += await _run(3, site_port, delays, [list(reversed(_orders(2)))])
    first = runs[0]
    statements = first["verify"]["statements"]
    assert len(statements) == len(_ANSWER)
    assert len([s for s in first["verify"]["sources"] if s["status"] == "ok"]) == len(_NAMES)
    # The answer exercises every path: supported, wrongly cited, uncited.
    judgments = {s["judgment"] for s in statements}
    assert {"complete_support", "no_citation"} <= judgments, judgments
    assert any(s["judgment"] in ("no_support", "partial_support") for s in statements)
    for k, run in enumerate(runs[1:], 1):
        for a, b in zip(first["verify"]["statements"], run["verify"]["statements"], strict=True):
            assert a == b, f"run {k}: statement {a['index']} differs"
        assert first == run, f"run {k}: " + "; ".join(_debug_diff(first, run)[:6])


def _debug_diff(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two results differ, as JSON paths: a failure says what changed, not only that."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in a.keys() | b.keys() for d in _debug_diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _debug_diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r:.80} != {b!r:.80}"]
