"""A real companion (Runtime + make_app) on 127.0.0.1 for the reliability tests (test-only code).

`running_companion` serves it inside the test's event loop; `ThreadedCompanion` serves it from a
thread with its own loop, for synchronous tests (hypothesis drives plain functions best). The
socket is bound before the app is built, because the Host guard needs the port in Settings.
`companion_process` runs the real `citelens serve` command instead, for what only a process of its
own shows (its hash seed, its start-up).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from companion.config import Settings
from companion.model.folder import default_model_dir
from companion.runtime import Runtime
from companion.service.server import make_app

__all__ = [
    "TOKEN",
    "Live",
    "ThreadedCompanion",
    "companion_process",
    "find_model_dir",
    "post_json",
    "raw_request",
    "running_companion",
]

TOKEN = "reliability-tests-token-0123456789abcdef"
_REPO = Path(__file__).resolve().parents[2]


def find_model_dir() -> Path | None:
    """CITELENS_TEST_MODEL, else the dev model of runs/models/dev, else the shipped model."""
    candidates = [os.environ.get("CITELENS_TEST_MODEL"), _REPO / "runs" / "models" / "dev"]
    with contextlib.suppress(Exception):
        candidates.append(str(default_model_dir()))
    for candidate in candidates:
        if (
            candidate
            and (Path(candidate) / "config.json").is_file()
            and (Path(candidate) / "model.onnx").is_file()
        ):
            return Path(candidate)
    return None


@dataclass
class Live:
    port: int
    runtime: Runtime
    token: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        return {"X-CiteLens-Token": self.token}


def _bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextlib.asynccontextmanager
async def running_companion(
    settings: Settings, *, fetch: bool = True, token: str = TOKEN
) -> AsyncIterator[Live]:
    sock = _bound_socket()
    settings = dataclasses.replace(settings, port=sock.getsockname()[1])
    async with Runtime(settings, fetch=fetch) as runtime:
        runner = web.AppRunner(make_app(runtime, token), access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        try:
            yield Live(settings.port, runtime, token)
        finally:
            await runner.cleanup()


class ThreadedCompanion:
    """The companion served from a background thread; `start()` returns once it listens."""

    def __init__(self, settings: Settings, *, fetch: bool = True, token: str = TOKEN):
        self._settings = settings
        self._fetch = fetch
        self.token = token
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="companion-under-test", daemon=True)

    def start(self) -> ThreadedCompanion:
        self._thread.start()
        if not self._ready.wait(60):
            raise RuntimeError("the companion did not start within 60 s")
        if self._error is not None:
            raise RuntimeError("the companion failed to start") from self._error
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported to start(), which re-raises in the test thread
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with running_companion(self._settings, fetch=self._fetch, token=self.token) as live:
            self.port = live.port
            self._ready.set()
            await self._stop.wait()


def raw_request(
    port: int,
    method: str,
    path: str,
    *,
    headers: list[tuple[str, str]] | None = None,
    body: bytes = b"",
    host: str | None = None,
    timeout: float = 30.0,
) -> tuple[int, dict[str, str], bytes]:
    """One request with full control of the headers (Host included); a socket timeout = a hang."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
        for name, value in headers or []:
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def companion_process(seed: int, allow_private: Sequence[str] = ()) -> Iterator[tuple[int, str]]:
    """A real `citelens serve` process with its own config folder and hash seed: (port, token)."""
    citelens = Path(sys.executable).with_name("citelens")
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, XDG_CONFIG_HOME=home, HOME=home, PYTHONHASHSEED=str(seed))
        port = _free_port()
        process = subprocess.Popen(
            [str(citelens), "serve", "--port", str(port)]
            + [arg for address in allow_private for arg in ("--allow-private", address)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            token = subprocess.run(
                [str(citelens), "token"], env=env, capture_output=True, text=True, check=True
            ).stdout.split()[-1]
            yield port, token
        finally:
            crashed = process.poll() is not None
            process.terminate()
            _, stderr = process.communicate(timeout=30)
            if crashed:
                pytest.fail(f"citelens serve (seed {seed}) died ({process.returncode}): {stderr[-2000:]!r}")


async def post_json(port: int, token: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    headers = {"X-CiteLens-Token": token}
    async with aiohttp.ClientSession() as session:
        for _ in range(240):  # the model loads in a few seconds; health answers before the token
            try:
                async with session.get(f"http://127.0.0.1:{port}/v1/health") as r:
                    if r.status == 200:
                        break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.25)
        async with session.post(f"http://127.0.0.1:{port}{path}", json=body, headers=headers) as r:
            assert r.status == 200, await r.text()
            result: dict[str, Any] = await r.json()
            return result
