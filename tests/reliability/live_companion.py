"""A real companion (Runtime + make_app) on 127.0.0.1 for the reliability tests (test-only code).

`running_companion` serves it inside the test's event loop; `ThreadedCompanion` serves it from a
thread with its own loop, for synchronous tests (hypothesis drives plain functions best). The
socket is bound before the app is built, because the Host guard needs the port in Settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.client
import os
import socket
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from companion.config import Settings
from companion.model import default_model_dir
from companion.runtime import Runtime
from companion.server import make_app

__all__ = ["TOKEN", "Live", "ThreadedCompanion", "find_model_dir", "raw_request", "running_companion"]

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
