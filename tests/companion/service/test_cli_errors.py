"""What a new user meets at the terminal (issue 36 item 6): wrong paths end in one line that says
what is wrong and what to do, `citelens doctor` knows our own companion from a stranger on the
port, `serve --port N` hints the `pair` command for that port, and every option says what it does."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from tests.conftest import free_port

_REPO = Path(__file__).resolve().parents[3]


def _env(state: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(state), "PYTHONPATH": str(_REPO)}


def citelens(*args: str, state: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real command, as a reader runs it: its own process, its exit status and both streams."""
    return subprocess.run(
        [sys.executable, "-m", "companion.service.cli", *args],
        env=_env(state),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


async def citelens_async(*args: str, state: Path, timeout: float = 300) -> tuple[int, str, str]:
    """The same, awaited: a companion served by this test's event loop keeps answering meanwhile."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion.service.cli",
        *args,
        env=_env(state),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout)
    return process.returncode or 0, stdout.decode(), stderr.decode()


def test_an_audit_export_into_a_missing_folder_is_refused_in_one_line_before_checking(tmp_path: Path):
    target = tmp_path / "missing-dir" / "out.json"
    done = citelens("verify", "--example", "--audit", str(target), state=tmp_path / "state")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"citelens: cannot write the audit export to {target}: the folder {target.parent} does not "
        "exist; create it, or give --audit a path in an existing folder"
    ]
    assert done.stdout == "" and not target.parent.exists()


def test_a_batch_out_that_is_a_file_is_refused_in_one_line_and_the_file_kept(tmp_path: Path):
    inputs = tmp_path / "answers.jsonl"
    inputs.write_text('{"answer": {"text": "x"}}\n', encoding="utf-8")
    existing = tmp_path / "report.txt"
    existing.write_text("my notes\n", encoding="utf-8")
    done = citelens("audit-batch", str(inputs), "--out", str(existing), state=tmp_path / "state")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"citelens: --out {existing} is a file, not a folder: give a folder for the cards and the "
        "report (it is made when missing)"
    ]
    assert existing.read_text(encoding="utf-8") == "my notes\n"


async def test_doctor_says_our_own_companion_holds_the_port(start_companion, settings_for, tmp_path: Path):
    settings = settings_for()
    await start_companion(settings)
    rc, out, err = await citelens_async("doctor", "--port", str(settings.port), state=tmp_path / "doctor")
    assert f"ok   the companion is already running on 127.0.0.1:{settings.port}" in out, out + err
    assert "FAIL" not in out and rc == 0, out + err
    assert out.rstrip().endswith("all good")


async def test_doctor_fails_when_another_program_holds_the_port(tmp_path: Path):
    async def anything(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})  # a health check of some other program

    app = web.Application()
    app.router.add_get("/{tail:.*}", anything)
    port = free_port()
    server = TestServer(app, host="127.0.0.1", port=port)
    await server.start_server()
    try:
        rc, out, err = await citelens_async("doctor", "--port", str(port), state=tmp_path)
    finally:
        await server.close()
    assert rc == 1, out + err
    assert f"FAIL port {port} on 127.0.0.1 is taken by another program" in out
    assert out.rstrip().endswith("1 problem found")


async def test_serve_on_another_port_hints_pair_with_that_port(tmp_path: Path):
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion.service.cli",
        "serve",
        "--port",
        str(port),
        env=_env(tmp_path),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        lines: list[str] = []
        while not any("pair the extension" in line for line in lines):
            line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
            assert line, "serve ended before its pairing hint: " + "".join(lines)
            lines.append(line)
        assert f"`citelens pair --port {port} CODE`" in lines[-1]
        # The line printed when the extension asks to pair names the port as well.
        async with aiohttp.ClientSession() as session:
            started = await session.post(
                f"http://127.0.0.1:{port}/v1/pair/start",
                json={},
                headers={"Origin": "moz-extension://0b8e2a64-7c1d-4a8e-9d55-3f1e2c4b6a70"},
            )
            assert started.status == 201, await started.text()
            code = (await started.json())["code"]
        announced = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert f"`citelens pair --port {port} {code}`" in announced, announced
    finally:
        process.terminate()
        await process.wait()


_COMMANDS = [
    ["serve"],
    ["token"],
    ["pair"],
    ["verify"],
    ["audit-batch"],
    ["doctor"],
    ["service", "install"],
    ["service", "uninstall"],
]


@pytest.mark.parametrize("command", _COMMANDS, ids=" ".join)
def test_every_option_says_what_it_does(command: list[str], tmp_path: Path):
    done = citelens(*command, "--help", state=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    listed = [i for i, line in enumerate(lines) if re.match(r"^  -", line)]
    assert listed, done.stdout
    silent = [
        lines[i].strip()
        for i in listed
        # argparse puts the help beside the option, or on the next line when the option is long.
        if not re.match(r"^  -\S.*?\s{2,}\S", lines[i])
        and not (i + 1 < len(lines) and re.match(r"^\s{10,}\S", lines[i + 1]))
    ]
    assert silent == [], f"options without help in `citelens {' '.join(command)} --help`: {silent}"
