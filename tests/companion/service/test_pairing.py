"""One-click pairing (issue 15): the protocol of docs/api.md through the real listener, and the
hostile cases of docs/THREAT_MODEL.md: web pages, no Origin, replays, wrong codes, expiry, a second
request, rate limits. The reader's confirmation goes through the real `citelens pair` command."""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from companion.config import Limits, Settings
from companion.service.pairing import PairingRefused, Pairings, load_or_create_token, read_token
from tests.conftest import free_port, model_dir

CHROME = "chrome-extension://fklgpffhkpenbggfhkflghdlonombjol"
FIREFOX = "moz-extension://0b5a3c1e-8d3f-4c1a-9e55-7d2f4a1b6c90"
OTHER_FIREFOX = "moz-extension://11111111-2222-4333-8444-555555555555"
EVIL = "https://evil.example"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def xdg(tmp_path: Path) -> Path:
    return tmp_path / "xdg"


@pytest.fixture
def start(xdg, start_companion):
    """A companion whose state folder is the one `citelens pair` finds through XDG_CONFIG_HOME."""

    async def make(**limits: Any):
        settings = Settings(
            port=free_port(), state_dir=xdg / "citelens", model_dir=model_dir(), limits=Limits(**limits)
        )
        return await start_companion(settings)

    return make


@pytest.fixture
async def companion(start):
    return await start()


async def call(
    companion,
    path: str,
    body: object = None,
    *,
    origin: str | None = None,
    token: bool = False,
    **headers: str,
) -> tuple[int, dict[str, Any], aiohttp.typedefs.LooseHeaders]:
    sent = dict(JSON)
    if origin is not None:
        sent["Origin"] = origin
    if token:
        sent["X-CiteLens-Token"] = companion.token
    sent.update(headers)
    method = "GET" if body is None else "POST"
    data = None if body is None else json.dumps(body).encode()
    async with companion.session.request(method, companion.url + path, data=data, headers=sent) as r:
        assert not [h for h in r.headers if h.lower().startswith("access-control-")]
        return r.status, await r.json(), r.headers


async def pending(companion) -> dict[str, Any] | None:
    status, body, _ = await call(companion, "/v1/pair", token=True)
    assert status == 200
    return body["pending"]


def citelens_pair(companion, xdg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command, in a process of its own, as the reader runs it (stdin is not a terminal)."""
    port = companion.url.rsplit(":", 1)[1]
    command = [str(Path(sys.executable).with_name("citelens")), "pair", *args, "--port", port]
    env = {**os.environ, "XDG_CONFIG_HOME": str(xdg)}
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


async def run_pair(companion, xdg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # In a thread: the companion answers from this test's event loop.
    return await asyncio.to_thread(citelens_pair, companion, xdg, *args)


async def test_one_click_pairing_end_to_end(companion, xdg, caplog):
    caplog.set_level(logging.WARNING, logger="companion.service.server")
    status, started, headers = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    assert status == 201, started
    assert started["code"].isdigit() and len(started["code"]) == 4
    assert len(started["request"]) >= 32 and started["expires_in"] == 120
    assert headers["Cache-Control"] == "no-store"
    # The companion's terminal shows the origin and the same code, digit by digit.
    spaced = "-".join(started["code"])
    assert any(CHROME in r.getMessage() and f"code {spaced}" in r.getMessage() for r in caplog.records)

    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert (status, body["status"]) == (202, "waiting") and 0 < body["expires_in"] <= 120
    assert await pending(companion) == {
        "origin": CHROME,
        "code": started["code"],
        "expires_in": body["expires_in"],
    }

    confirmed = await run_pair(companion, xdg, started["code"])
    assert confirmed.returncode == 0, confirmed.stderr
    assert f"Pairing request from {CHROME}: code {spaced}" in confirmed.stdout
    assert "Paired" in confirmed.stdout

    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert (status, body) == (200, {"status": "paired", "token": companion.token})
    # The token travels once: a replay of the finished request gets nothing.
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing")
    assert "token" not in body and await pending(companion) is None
    # And the token it handed over opens the API to that extension.
    status, body, _ = await call(
        companion,
        "/v1/verify",
        {"answer": {"text": "Bees dance."}, "citations": []},
        origin=CHROME,
        token=True,
    )
    assert status == 200 and len(body["statements"]) == 1


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Origin": EVIL}, 403, "origin_refused"),
        ({}, 403, "origin_required"),  # curl, or any local process that sends no Origin
        ({"Origin": "null"}, 403, "origin_refused"),  # sandboxed frames, file:// pages
        ({"Origin": "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, 403, "origin_refused"),
        ({"Origin": EVIL, "Content-Type": "text/plain"}, 403, "origin_refused"),  # a page's simple POST
        ({"Origin": CHROME, "Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        ({"Origin": CHROME, "Host": "evil.example:8765"}, 421, "misdirected"),  # DNS rebinding
    ],
)
async def test_only_the_extension_can_start(companion, headers, status, code):
    sent = {**JSON, **headers}
    async with companion.session.post(companion.url + "/v1/pair/start", data=b"{}", headers=sent) as r:
        assert (r.status, (await r.json())["error"]["code"]) == (status, code)
        assert "code" not in await r.json()
    assert await pending(companion) is None


async def test_only_the_extension_that_started_can_finish(companion, xdg):
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=FIREFOX)
    assert (await run_pair(companion, xdg, started["code"])).returncode == 0
    finish = {"request": started["request"]}
    # A web page that somehow learnt the request id still cannot send an extension Origin.
    status, body, _ = await call(companion, "/v1/pair/finish", finish, origin=EVIL)
    assert (status, body["error"]["code"]) == (403, "origin_refused")
    status, body, _ = await call(companion, "/v1/pair/finish", finish)
    assert (status, body["error"]["code"]) == (403, "origin_required")
    # Another Firefox extension passes the allow-list, but the request is not its own.
    status, body, _ = await call(companion, "/v1/pair/finish", finish, origin=OTHER_FIREFOX)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing") and "token" not in body
    # A guessed id gets nothing either.
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": "A" * 32}, origin=FIREFOX)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing")
    for bad in ({}, {"request": 7}, {"request": "x" * 101}):
        status, body, _ = await call(companion, "/v1/pair/finish", bad, origin=FIREFOX)
        assert (status, body["error"]["field"]) == (422, "request")
    # None of that spent the request: the extension that started it gets the token.
    status, body, _ = await call(companion, "/v1/pair/finish", finish, origin=FIREFOX)
    assert (status, body["token"]) == (200, companion.token)


async def test_unconfirmed_request_never_yields_the_token(companion):
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    for _ in range(5):
        status, body, _ = await call(
            companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME
        )
        assert (status, body["status"]) == (202, "waiting") and "token" not in body


async def test_confirming_needs_the_token_and_no_browser(companion):
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    code = {"code": started["code"]}
    # A web page: no token, and its Origin.
    status, body, _ = await call(companion, "/v1/pair/confirm", code, origin=EVIL)
    assert (status, body["error"]["code"]) == (403, "origin_refused")
    status, body, _ = await call(companion, "/v1/pair/confirm", code)
    assert (status, body["error"]["code"]) == (401, "bad_token")
    # Even the paired extension cannot confirm for the reader: confirmation is the terminal's.
    status, body, _ = await call(companion, "/v1/pair/confirm", code, origin=CHROME, token=True)
    assert (status, body["error"]["code"]) == (403, "origin_refused")
    status, body, _ = await call(companion, "/v1/pair", origin=CHROME, token=True)
    assert (status, body["error"]["code"]) == (403, "origin_refused") and "pending" not in body
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert status == 202
    # The code as the extension shows it, digit by digit, is the same code.
    spaced = "-".join(started["code"])
    status, body, _ = await call(companion, "/v1/pair/confirm", {"code": spaced}, token=True)
    assert (status, body) == (200, {"status": "confirmed", "origin": CHROME})


async def test_wrong_codes_cancel_the_request(companion, xdg):
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    wrong = f"{(int(started['code']) + 1) % 10_000:04d}"
    first = await run_pair(companion, xdg, wrong)
    assert first.returncode == 1 and "wrong code; 2 more tries" in first.stderr
    status, body, _ = await call(companion, "/v1/pair/confirm", {"code": wrong}, token=True)
    assert (status, body["error"]["code"]) == (409, "wrong_code")
    status, body, _ = await call(companion, "/v1/pair/confirm", {"code": wrong}, token=True)
    assert (status, body["error"]["message"]) == (409, "wrong code; the pairing request is cancelled")
    # The right code is too late now, and the extension is told to start again.
    status, body, _ = await call(companion, "/v1/pair/confirm", {"code": started["code"]}, token=True)
    assert (status, body["error"]["code"]) == (404, "no_pairing")
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing")


async def test_citelens_pair_says_when_nothing_waits(companion, xdg):
    done = await run_pair(companion, xdg)
    assert done.returncode == 1 and "No pairing request is waiting" in done.stderr
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    # Without a code and without a terminal to ask in, it shows the request and confirms nothing.
    done = await run_pair(companion, xdg)
    assert done.returncode == 1 and f"code {'-'.join(started['code'])}" in done.stdout
    assert "citelens pair CODE" in done.stderr
    assert (await pending(companion) or {}).get("code") == started["code"]


async def test_one_request_at_a_time(companion):
    _, first, _ = await call(companion, "/v1/pair/start", {}, origin=FIREFOX)
    status, body, headers = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    assert (status, body["error"]["code"]) == (409, "pairing_pending")
    assert 0 < int(headers["Retry-After"]) <= 120
    assert (await pending(companion) or {}).get("origin") == FIREFOX
    # The same extension asking again replaces its own request: a new code, the old id is dead.
    status, second, _ = await call(companion, "/v1/pair/start", {}, origin=FIREFOX)
    assert status == 201 and second["request"] != first["request"]
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": first["request"]}, origin=FIREFOX)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing")
    assert (await pending(companion) or {}).get("code") == second["code"]


async def test_requests_expire(start, xdg):
    companion = await start(pairing_ttl_s=1.0)
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    await asyncio.sleep(1.2)
    assert await pending(companion) is None
    done = await run_pair(companion, xdg, started["code"])
    assert done.returncode == 1 and "No pairing request is waiting" in done.stderr
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing")
    # Confirmed but never collected: it expires all the same, and a new request may start.
    _, started, _ = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    status, _, _ = await call(companion, "/v1/pair/confirm", {"code": started["code"]}, token=True)
    assert status == 200
    await asyncio.sleep(1.2)
    status, body, _ = await call(companion, "/v1/pair/finish", {"request": started["request"]}, origin=CHROME)
    assert (status, body["error"]["code"]) == (404, "no_such_pairing")
    status, _, _ = await call(companion, "/v1/pair/start", {}, origin=FIREFOX)
    assert status == 201


async def test_starts_are_rate_limited(start):
    companion = await start(pairing_starts_per_window=3, pairing_window_s=600.0)
    for origin in (CHROME, CHROME, CHROME):
        status, _, _ = await call(companion, "/v1/pair/start", {}, origin=origin)
        assert status == 201
    status, body, headers = await call(companion, "/v1/pair/start", {}, origin=CHROME)
    assert (status, body["error"]["code"]) == (429, "too_many_pairings")
    assert 500 < int(headers["Retry-After"]) <= 600
    # Refused starts by web pages never reach the limiter, so they cannot use it up either.
    other = await start(pairing_starts_per_window=1)
    for _ in range(5):
        assert (await call(other, "/v1/pair/start", {}, origin=EVIL))[0] == 403
    assert (await call(other, "/v1/pair/start", {}, origin=CHROME))[0] == 201


def test_rate_window_slides_and_expiry_is_exact():
    """The state machine on a hand-moved clock: what the live tests cannot time precisely."""
    now = [0.0]
    lines: list[str] = []
    pairings = Pairings(
        "the-token-0123456789",
        ttl_s=120.0,
        starts_per_window=2,
        window_s=600.0,
        code_attempts=3,
        announce=lines.append,
        clock=lambda: now[0],
    )
    first = pairings.start(CHROME)
    now[0] = 119.9
    assert pairings.finish(first.request, CHROME) is None
    now[0] = 120.0
    with pytest.raises(PairingRefused) as refused:
        pairings.finish(first.request, CHROME)
    assert refused.value.status == 404 and "expired" in lines[-1]
    pairings.start(CHROME)
    with pytest.raises(PairingRefused) as refused:
        pairings.start(CHROME)
    assert (refused.value.status, refused.value.retry_after) == (429, 480)
    now[0] = 600.0  # the first start leaves the window
    third = pairings.start(CHROME)
    assert pairings.confirm(third.code) == CHROME
    assert pairings.finish(third.request, CHROME) == "the-token-0123456789"
    assert pairings.waiting() is None


class _Serve:
    """A real `citelens serve` process, its output read line by line (test-only helper)."""

    def __init__(self, process: asyncio.subprocess.Process, port: int):
        self.process, self.port, self.output = process, port, ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def line_with(self, text: str, timeout: float = 120.0) -> str:
        assert self.process.stdout is not None
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            line = (await asyncio.wait_for(self.process.stdout.readline(), max(left, 0.01))).decode()
            assert line, f"serve ended; it said:\n{self.output}"
            self.output += line
            if text in line:
                return line


async def _serve(xdg: Path, stdin: int) -> _Serve:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).with_name("citelens")),
        "serve",
        "--port",
        str(port),
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "XDG_CONFIG_HOME": str(xdg), "PYTHONUNBUFFERED": "1"},
    )
    serve = _Serve(process, port)
    await serve.line_with("pair the extension")
    return serve


async def _start(session: aiohttp.ClientSession, serve: _Serve) -> dict[str, Any]:
    headers = {**JSON, "Origin": CHROME}
    async with session.post(serve.url + "/v1/pair/start", data=b"{}", headers=headers) as r:
        assert r.status == 201
        return dict(await r.json())


async def _finish(session: aiohttp.ClientSession, serve: _Serve, request: str) -> tuple[int, dict[str, Any]]:
    headers = {**JSON, "Origin": CHROME}
    async with session.post(serve.url + "/v1/pair/finish", json={"request": request}, headers=headers) as r:
        return r.status, dict(await r.json())


@pytest.mark.slow
async def test_the_code_can_be_typed_where_serve_runs(xdg):
    import pty

    main, terminal = pty.openpty()
    serve = await _serve(xdg, terminal)
    os.close(terminal)
    try:
        await serve.line_with("a pairing code can also be typed here")
        async with aiohttp.ClientSession() as session:
            started = await _start(session, serve)
            shown = await serve.line_with("Pairing request from")
            assert f"{CHROME}: code {'-'.join(started['code'])}" in shown
            wrong = f"{(int(started['code']) + 1) % 10_000:04d}"
            os.write(main, f"{wrong}\n".encode())
            assert "wrong code; 2 more tries" in await serve.line_with("not paired")
            assert (await _finish(session, serve, started["request"]))[0] == 202
            os.write(main, f"{'-'.join(started['code'])}\n".encode())
            await serve.line_with("Pairing confirmed for")
            status, body = await _finish(session, serve, started["request"])
            assert (status, body["token"]) == (200, (xdg / "citelens" / "token").read_text().strip())
    finally:
        serve.process.terminate()
        await serve.process.wait()
        os.close(main)


@pytest.mark.slow
async def test_piped_input_never_confirms(xdg):
    serve = await _serve(xdg, subprocess.PIPE)
    try:
        async with aiohttp.ClientSession() as session:
            started = await _start(session, serve)
            await serve.line_with("Pairing request from")
            assert serve.process.stdin is not None
            serve.process.stdin.write(f"{started['code']}\n".encode())
            await serve.process.stdin.drain()
            await asyncio.sleep(1.0)
            assert (await _finish(session, serve, started["request"]))[0] == 202
        assert "can also be typed here" not in serve.output
    finally:
        serve.process.terminate()
        await serve.process.wait()


# Two processes that start at once (`citelens serve` and `citelens token`) agree on one token.


def _take(args: tuple[str, object]) -> str:
    path, barrier = args
    barrier.wait()  # type: ignore[attr-defined]
    return load_or_create_token(Path(path))


def test_processes_starting_at_once_agree_on_one_token(tmp_path):
    context = multiprocessing.get_context("fork")
    for attempt in range(15):
        path = tmp_path / f"config-{attempt}" / "token"
        with context.Manager() as manager:
            barrier = manager.Barrier(6)
            with context.Pool(6) as pool:
                tokens = pool.map(_take, [(str(path), barrier)] * 6)
        assert len(set(tokens)) == 1, f"attempt {attempt}: {len(set(tokens))} tokens"
        assert read_token(path) == tokens[0]
        assert [p.name for p in path.parent.iterdir()] == ["token"]  # no temporary file left
