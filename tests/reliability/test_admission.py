"""Excess work is refused at once with 429, never queued without bound; health stays quick.

A cited page that hangs holds each admitted verification for the whole fetch timeout, so the
admission gate's state is known while the test looks at it: with 1 running and 1 waiting slot,
of 5 simultaneous requests exactly 2 are admitted and 3 are refused immediately.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiohttp

from companion.config import Limits, Settings

from .hostile_site import HostileSite
from .live_companion import running_companion

GATE = Limits(
    total_timeout_s=3.0, connect_timeout_s=1.0, max_concurrent_verifications=1, max_waiting_verifications=1
)


async def test_excess_verifications_get_429_at_once(
    site: HostileSite, model_dir: Path, tmp_path: Path
) -> None:
    settings = Settings(
        state_dir=tmp_path,
        model_dir=model_dir,
        allow_private=frozenset({f"127.0.0.1:{site.port}"}),
        limits=GATE,
        use_cache=False,
    )
    text = "The dance tells other workers where the food is."
    body = {
        "answer": {"text": text},
        "citations": [{"id": "c1", "url": site.url("/hang-after-headers"), "offset": len(text)}],
    }
    async with (
        running_companion(settings) as live,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as client,
    ):

        async def verify() -> tuple[int, float, dict[str, str], object]:
            started = time.perf_counter()
            async with client.post(f"{live.base}/v1/verify", json=body, headers=live.headers) as response:
                payload = await response.json()
                return response.status, time.perf_counter() - started, dict(response.headers), payload

        async def health() -> float:
            started = time.perf_counter()
            async with client.get(f"{live.base}/v1/health") as response:
                assert response.status == 200
                await response.read()
            return time.perf_counter() - started

        tasks = [asyncio.create_task(verify()) for _ in range(5)]
        await asyncio.sleep(0.5)  # the admitted two are now waiting on the hanging page
        probes = [await health() for _ in range(10)]
        results = await asyncio.gather(*tasks)

        statuses = sorted(status for status, *_ in results)
        assert statuses == [200, 200, 429, 429, 429], statuses
        for status, elapsed, headers, payload in results:
            if status == 429:
                assert elapsed < 1.0, f"a refusal took {elapsed:.2f} s: it was queued"
                assert headers.get("Retry-After"), headers
                assert payload["error"]["code"] == "busy"  # type: ignore[index]
        assert sorted(probes)[len(probes) // 2] < 0.1, f"health answered in {probes}"

        # The slots are free again once the admitted work is done.
        status, *_ = await verify()
        assert status == 200
