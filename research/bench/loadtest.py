"""Load test of a real companion on loopback (issue 5): does it stay responsive and bounded?

    python -m research.bench.loadtest [--model DIR] [--concurrency 20] [--duration 30] [--seed 5] [--json]

Starts `citelens serve` (a subprocess, its own state folder) and the seeded 12-sentence workload's
pages on 127.0.0.1 (research/bench/bench_workload.py), primes the page cache with one verification, then
runs --concurrency clients for --duration seconds. Each client sends /v1/verify (streamed) over
and over; every request changes the numbers in every sentence (seeded), so the model's pair cache
does not answer for it. A client that gets 429 waits what Retry-After says, as the extension
does. Meanwhile a prober asks GET /v1/health every 50 ms and a sampler reads the companion's RSS.

Prints: answers by status (200 / 429 / 503 / other / client errors), completed verifications,
their latency, /v1/health latency p50 / p99 / max during the load, the companion's RSS at
start and its peak (VmHWM), and how long in-flight work took to drain after the clients stopped.
Not a test: figures for docs/benchmarks.md. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

from companion.model.folder import default_model_dir
from research.bench.bench import Companion, PageServer, timed_verify, training_running
from research.bench.bench_workload import Workload, make_workload

_NUMBER = re.compile(r"\b\d+\b")


def variant(work: Workload, base: str, rng: random.Random) -> dict[str, Any]:
    """The workload's answer with every number changed: same shape, new NLI pairs."""
    body = work.body(base)
    text = body["answer"]["text"]  # type: ignore[index]
    pieces, last, shift = [], 0, 0
    shifts: list[tuple[int, int]] = []  # (end of a replaced number in the old text, total shift so far)
    for match in _NUMBER.finditer(text):
        if text[max(0, match.start() - 1)] == "[":  # a citation marker, not a number
            continue
        new = str(rng.randint(2, 9999))
        pieces.append(text[last : match.start()] + new)
        last = match.end()
        shift += len(new) - len(match.group())
        shifts.append((match.end(), shift))
    pieces.append(text[last:])
    new_text = "".join(pieces)

    def moved(offset: int) -> int:
        return offset + next((s for end, s in reversed(shifts) if end <= offset), 0)

    body["answer"] = {"text": new_text}
    body["citations"] = [{**c, "offset": moved(int(c["offset"]))} for c in body["citations"]]  # type: ignore[union-attr]
    return body


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def rss_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    model = (args.model or default_model_dir()).resolve()
    work = make_workload("small", args.seed, pages=6, sentences=12)
    statuses: Counter[str] = Counter()
    verify_s: list[float] = []
    health_s: list[float] = []
    health_failures = 0
    rss_samples: list[float] = []
    with tempfile.TemporaryDirectory(prefix="citelens-load-") as tmp:
        async with (
            PageServer([work]) as pages,
            Companion(model, Path(tmp), f"127.0.0.1:{pages.port}") as companion,
        ):
            assert companion.process is not None
            pid = companion.process.pid
            headers = {"X-CiteLens-Token": companion.token}
            timeout = aiohttp.ClientTimeout(total=300)
            connector = aiohttp.TCPConnector(limit=args.concurrency + 2)
            async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
                await timed_verify(session, companion, work.body(pages.base))  # primes the page cache
                rss_start = rss_mb(pid, "VmRSS")
                deadline = time.perf_counter() + args.duration
                stop = asyncio.Event()

                async def client(k: int) -> None:
                    rng = random.Random(f"{args.seed}:{k}")
                    while time.perf_counter() < deadline:
                        started = time.perf_counter()
                        try:
                            async with session.post(
                                companion.url, json=variant(work, pages.base, rng), headers=headers
                            ) as response:
                                if response.status == 200:
                                    body = await response.read()
                                    complete = b'"type": "summary"' in body
                                    statuses["200" if complete else "200 cut short"] += 1
                                    verify_s.append(time.perf_counter() - started)
                                    continue
                                statuses[str(response.status)] += 1
                                await response.read()
                                wait = float(response.headers.get("Retry-After", "1"))
                        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                            statuses[f"client error {type(exc).__name__}"] += 1
                            wait = 1.0
                        await asyncio.sleep(min(wait, max(0.0, deadline - time.perf_counter())))

                async def prober() -> None:
                    nonlocal health_failures
                    url = companion.url.replace("/v1/verify", "/v1/health")
                    while not stop.is_set():
                        started = time.perf_counter()
                        try:
                            async with session.get(url, timeout=aiohttp.ClientTimeout(total=5)) as response:
                                await response.read()
                                if response.status != 200:
                                    health_failures += 1
                        except (aiohttp.ClientError, asyncio.TimeoutError):
                            health_failures += 1
                        health_s.append(time.perf_counter() - started)
                        await asyncio.sleep(0.05)

                async def sampler() -> None:
                    while not stop.is_set():
                        rss_samples.append(rss_mb(pid, "VmRSS"))
                        await asyncio.sleep(0.5)

                watchers = [asyncio.create_task(prober()), asyncio.create_task(sampler())]
                load_started = time.perf_counter()
                await asyncio.gather(*(client(k) for k in range(args.concurrency)))
                drained_s = time.perf_counter() - load_started - args.duration
                stop.set()
                await asyncio.gather(*watchers)
            peak = rss_mb(pid, "VmHWM")
    answers = sum(statuses.values())
    return {
        "concurrency": args.concurrency,
        "duration_s": args.duration,
        "answers": answers,
        "by_status": dict(statuses),
        "completed": statuses["200"],
        "share_429": statuses["429"] / answers if answers else 0.0,
        "share_503": statuses["503"] / answers if answers else 0.0,
        "verify_p50_s": percentile(verify_s, 50),
        "verify_p99_s": percentile(verify_s, 99),
        "health_probes": len(health_s),
        "health_failures": health_failures,
        "health_p50_ms": percentile(health_s, 50) * 1000,
        "health_p99_ms": percentile(health_s, 99) * 1000,
        "health_max_ms": max(health_s) * 1000 if health_s else float("nan"),
        "health_over_100ms": sum(1 for s in health_s if s > 0.1),
        "rss_start_mb": rss_start,
        "rss_max_sampled_mb": max(rss_samples) if rss_samples else float("nan"),
        "peak_rss_mb": peak,
        "drain_after_deadline_s": drained_s,
        "model": str(model),
        "cores": len(os.sched_getaffinity(0)),
        "training_running": training_running(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, default=None, help="models/<name>/ folder (default: shipped)")
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(
        f"CiteLens load test: {result['concurrency']} clients for {result['duration_s']:.0f} s on loopback, "
        f"{result['cores']} cores, training job running: {result['training_running']}"
    )
    print(
        f"  answers {result['answers']}: "
        + ", ".join(f"{k} x{v}" for k, v in sorted(result["by_status"].items()))
    )
    print(
        f"  completed verifications {result['completed']} (p50 {result['verify_p50_s']:.1f} s, "
        f"p99 {result['verify_p99_s']:.1f} s); 429 share {result['share_429']:.0%}, "
        f"503 share {result['share_503']:.0%}"
    )
    print(
        f"  /v1/health during load: p50 {result['health_p50_ms']:.1f} ms, "
        f"p99 {result['health_p99_ms']:.1f} ms, max {result['health_max_ms']:.0f} ms, "
        f"{result['health_over_100ms']} of {result['health_probes']} "
        f"over 100 ms, {result['health_failures']} failed"
    )
    print(
        f"  companion RSS: {result['rss_start_mb']:.0f} MB at start, "
        f"{result['rss_max_sampled_mb']:.0f} MB max sampled, peak (VmHWM) {result['peak_rss_mb']:.0f} MB"
    )
    print(f"  in-flight work drained {result['drain_after_deadline_s']:.1f} s after the clients' deadline")
    if args.json:
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
