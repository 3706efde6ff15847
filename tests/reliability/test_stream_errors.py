"""A /v1/verify stream the companion cannot finish ends with its `error` line (docs/api.md),
never cut short in silence: the reader is told why (issue 25.2).

`citelens serve` stopped (SIGTERM, Ctrl-C) while a page is still loading says it was stopped; a
failure after the 200 went out says the companion failed, in its own words when it has some.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from companion.config import Limits, Settings
from companion.errors import ModelUnavailable
from companion.judging.judge import Judge
from companion.model.folder import ModelConfig, Thresholds
from companion.records import Entailment

from .hostile_site import HostileSite
from .live_companion import running_companion

pytestmark = pytest.mark.slow  # the real model, and a real `citelens serve`

TEXT = "The dance tells other workers where the food is."


def body(url: str) -> dict[str, Any]:
    citations = [{"id": "c1", "url": url, "offset": len(TEXT)}]
    return {"answer": {"text": TEXT}, "citations": citations, "options": {"stream": True}}


async def read_lines(response: aiohttp.ClientResponse) -> list[dict[str, Any]]:
    return [json.loads(line) async for line in response.content if line.strip()]


async def test_a_companion_stopped_mid_answer_says_so_in_the_stream(site: HostileSite) -> None:
    citelens = Path(sys.executable).with_name("citelens")
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, XDG_CONFIG_HOME=home, HOME=home)
        port = free_port()
        process = subprocess.Popen(
            [str(citelens), "serve", "--port", str(port), "--allow-private", f"127.0.0.1:{site.port}"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            token = subprocess.run(
                [str(citelens), "token"], env=env, capture_output=True, text=True, check=True
            ).stdout.split()[-1]
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as client:
                await until_healthy(client, port)
                url = f"http://127.0.0.1:{port}/v1/verify"
                headers = {"X-CiteLens-Token": token}
                async with client.post(url, json=body(site.url("/hang-after-headers")), headers=headers) as r:
                    assert r.status == 200
                    first = json.loads(await r.content.readline())
                    assert first["type"] == "start"  # the page is still loading: the check is mid-way
                    process.send_signal(signal.SIGTERM)
                    rest = await read_lines(r)
            process.wait(timeout=30)  # it stops, and promptly
        finally:
            if process.poll() is None:
                process.kill()
            _, stderr = process.communicate(timeout=30)
    assert [line["type"] for line in rest] == ["error"], (rest, stderr[-2000:])
    assert rest[0]["error"]["code"] == "stopped"
    assert "stopped" in rest[0]["error"]["message"]
    # A stop by SIGTERM is how a service manager ends it: a normal end, not a failure to restart.
    assert process.returncode == 0, stderr[-2000:]


class _FailingNLI:
    """A model that fails on its first pair, as a broken onnxruntime session does (test-only)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[Entailment]:
        raise self.error


_CONFIG = ModelConfig(
    name="failing",
    path=Path("failing"),
    labels=("entailment", "neutral", "contradiction"),
    thresholds=Thresholds(complete=0.5, partial=0.25, claim=0.5, contradiction=0.9),
)


async def failed_stream(site: HostileSite, model_dir: Path, tmp_path: Path, error: Exception) -> list[Any]:
    settings = Settings(
        state_dir=tmp_path,
        model_dir=model_dir,
        allow_private=frozenset({f"127.0.0.1:{site.port}"}),
        limits=Limits(),
        use_cache=False,
    )
    async with running_companion(settings) as live, aiohttp.ClientSession() as client:
        live.runtime.verifier.judge = Judge(_FailingNLI(error), _CONFIG)
        async with client.post(
            f"{live.base}/v1/verify", json=body(site.url("/good/bees")), headers=live.headers
        ) as r:
            assert r.status == 200
            return await read_lines(r)


async def test_a_failure_after_the_stream_began_ends_it_with_an_error_line(
    site: HostileSite, model_dir: Path, tmp_path: Path
) -> None:
    lines = await failed_stream(site, model_dir, tmp_path, RuntimeError("ONNXRuntimeError: bad allocation"))
    assert [line["type"] for line in lines] == ["start", "source", "error"]
    error = lines[-1]["error"]
    assert error["code"] == "internal"
    # A bug's own words are for the log, not the reader; where to look is.
    assert "bad allocation" not in error["message"] and "log" in error["message"]


async def test_a_failure_the_companion_can_word_reaches_the_reader_in_those_words(
    site: HostileSite, model_dir: Path, tmp_path: Path
) -> None:
    why = "cannot load the model in /opt/models/e5: model.onnx is missing"
    lines = await failed_stream(site, model_dir, tmp_path, ModelUnavailable(why))
    assert lines[-1]["type"] == "error" and why in lines[-1]["error"]["message"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def until_healthy(client: aiohttp.ClientSession, port: int) -> None:
    for _ in range(240):  # the model loads in a few seconds
        try:
            async with client.get(f"http://127.0.0.1:{port}/v1/health") as r:
                if r.status == 200:
                    return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.25)
    raise AssertionError("citelens serve did not answer /v1/health within 60 s")
