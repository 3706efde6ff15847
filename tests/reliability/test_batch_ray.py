"""`citelens audit-batch --ray` on a local Ray cluster (a head and two workers on 127.0.0.1, one
CPU each): the cards must be byte for byte those of the single-process run, the two run fields
aside (docs/batch.md), and summary.csv and errors.csv the same files.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

from .batch_answers import make_answers, site_app, write_input
from .hostile_site import serve_app
from .test_batch import audit_batch, run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None, reason="needs the ray extra (scripts/setup.sh --dev)"
    ),
]

ANSWERS = 12
_REPO = Path(__file__).resolve().parents[2]
# The two fields that say when and how fast a run judged the answer (batch.RUN_FIELDS).
_RUN_FIELDS = re.compile(r'"judged_at": "[^"]*"|"elapsed_ms": \d+')


async def _cluster() -> tuple[asyncio.subprocess.Process, str]:
    env = {**os.environ, "PYTHONPATH": str(_REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.reliability.ray_cluster",
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
    assert line.startswith("address "), f"the local Ray cluster did not start: {line!r}"
    return process, line.split()[1]


async def test_the_ray_run_gives_byte_identical_cards(tmp_path: Path):
    async with serve_app(site_app()) as port:
        inputs = tmp_path / "answers.jsonl"
        write_input(inputs, make_answers(f"http://127.0.0.1:{port}", ANSWERS))
        single, on_ray = tmp_path / "single", tmp_path / "ray"
        rc, _, stderr = await run(
            audit_batch(inputs, single, tmp_path / "state-1", port), tmp_path / "state-1"
        )
        assert rc == 2, stderr[-3000:]  # write_input's broken lines (docs/batch.md "Exit status")
        cluster, address = await _cluster()
        try:
            command = audit_batch(inputs, on_ray, tmp_path / "state-2", port, "--ray", address)
            rc, stdout, stderr = await run(command, tmp_path / "state-2", timeout=180)
        finally:
            assert cluster.stdin is not None
            cluster.stdin.close()
            await asyncio.wait_for(cluster.wait(), 60)
        assert rc == 2, stderr[-3000:]
        assert f"{ANSWERS} answers judged in this run" in stdout
    ours, theirs = (p / "cards.jsonl" for p in (single, on_ray))
    a, b = ours.read_text(encoding="utf-8"), theirs.read_text(encoding="utf-8")
    assert a.count("\n") == b.count("\n") == ANSWERS
    assert _RUN_FIELDS.sub("", a) == _RUN_FIELDS.sub("", b)
    assert len(_RUN_FIELDS.findall(a)) == 2 * ANSWERS  # only those two fields were set aside
    for name in ("summary.csv", "errors.csv"):
        assert (single / name).read_bytes() == (on_ray / name).read_bytes(), name
    assert not (on_ray / "ray-pending.jsonl").exists()
