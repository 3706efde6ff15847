"""Answers per hour of `citelens audit-batch`: one process, and on a local Ray cluster, side by side.

    python -m research.bench.bench_batch [--answers 40] [--sentences 8] [--pages 3] [--words 1500] [--json]

Each answer is its own generated workload (research/bench/bench_workload.py, seeded): its own pages,
served on 127.0.0.1, so no answer profits from another's pages or model pairs, as in a real
audit. Both runs start cold (empty page cache, fresh state folder) and are timed whole, start-up
included, as a user times the command; the steady rate (from the first answer recorded to the
last) is printed beside it. The Ray run joins a one-node cluster started here with as many CPUs
as the machine has (one actor per CPU, one model thread each); its overhead is what Ray costs on
one machine, the figure to weigh against what more nodes add (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

from research.bench.bench import PageServer  # noqa: E402
from research.bench.bench_workload import Workload, make_workload  # noqa: E402


def workloads(count: int, sentences: int, pages: int, words: int) -> list[Workload]:
    engines = ("perplexity", "google", "chatgpt", "copilot")
    out = []
    for i in range(count):
        work = make_workload(f"b{i}", 28, pages=pages, sentences=sentences, words=words)
        work.name = engines[i % len(engines)] + f"-{i}"
        out.append(work)
    return out


def steady_rate(journal: Path) -> float:
    """Answers per hour between the first and the last answer recorded (start-up left out)."""
    with sqlite3.connect(journal) as db:
        stamps = sorted(row[0] for row in db.execute("SELECT judged_at FROM answers WHERE status = 'done'"))
    if len(stamps) < 2:
        return float("nan")
    import datetime

    first, last = (datetime.datetime.fromisoformat(s.replace("Z", "+00:00")) for s in (stamps[0], stamps[-1]))
    span = (last - first).total_seconds()
    return (len(stamps) - 1) / span * 3600 if span > 0 else float("nan")


async def timed(command: list[str], state: Path) -> float:
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(state),
        "PYTHONPATH": str(ROOT),
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *command, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await process.communicate()
    if process.returncode:
        raise SystemExit(f"audit-batch failed ({process.returncode}): {stderr.decode()[-2000:]}")
    return time.perf_counter() - started


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=40)
    parser.add_argument("--sentences", type=int, default=8)
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--words", type=int, default=1500)
    parser.add_argument("--no-ray", action="store_true", help="only the single-process run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    works = workloads(args.answers, args.sentences, args.pages, args.words)
    results: dict[str, Any] = {"answers": args.answers, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="citelens-bench-batch-") as tmp:
        root = Path(tmp)
        async with PageServer(works) as server:
            inputs = root / "answers.jsonl"
            with inputs.open("w", encoding="utf-8") as out:
                for w in works:
                    body = w.body(server.base, stream=False)
                    body["page"]["engine"] = w.name.split("-")[0]  # type: ignore[index]
                    out.write(json.dumps(body) + "\n")
            base = [sys.executable, "-m", "companion.service.cli", "audit-batch", str(inputs)]
            allow = ["--allow-private", f"127.0.0.1:{server.port}"]
            runs = [("single process", [])]
            cluster = None
            if not args.no_ray:
                from ray.cluster_utils import Cluster

                cluster = Cluster(
                    initialize_head=True,
                    head_node_args={
                        "num_cpus": os.cpu_count() or 1,
                        "node_ip_address": "127.0.0.1",
                        "include_dashboard": False,
                    },
                )
                runs.append(("Ray, local", ["--ray", str(cluster.address)]))
            try:
                for name, extra in runs:
                    out_dir = root / name.replace(" ", "-").replace(",", "")
                    wall = await timed(
                        [*base, "--out", str(out_dir), *allow, *extra], root / f"state-{len(results)}"
                    )
                    results[name] = {
                        "wall_s": round(wall, 1),
                        "answers_per_hour": round(args.answers / wall * 3600),
                        "steady_answers_per_hour": round(steady_rate(out_dir / "journal.sqlite3")),
                    }
            finally:
                if cluster is not None:
                    cluster.shutdown()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"{args.answers} answers of {args.sentences} sentences citing {args.pages} pages of ~{args.words} "
        f"words, {results['cpus']} CPUs"
    )
    print(f"{'run':16} {'wall s':>8} {'answers/h':>10} {'steady/h':>9}")
    for name, _ in runs:
        r = results[name]
        print(f"{name:16} {r['wall_s']:>8} {r['answers_per_hour']:>10} {r['steady_answers_per_hour']:>9}")
    if "Ray, local" in results:
        one, ray_ = results["single process"], results["Ray, local"]
        print(f"Ray overhead on one machine: {100 * (ray_['wall_s'] / one['wall_s'] - 1):+.0f} % wall time")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
