"""The terminal as a new user meets it (issue 60 item 5): request files in the encodings editors
write are read, ports are checked in words, `serve --port 0` says the port it got, `verify` prints
no score for a statement no model judged, its counts add up, a "likely" verdict is told apart,
and `doctor` prints its language figures on lines a terminal can show."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import aiohttp
import pytest

from companion.judging.judges import model_dirs
from companion.model.folder import load_config
from companion.service.cli import _figures, _read_request, _wrapped, main, report

_REPO = Path(__file__).resolve().parents[3]

REQUEST = {
    "page": {"url": "https://www.perplexity.ai/search/café"},
    "answer": {"text": "Le café est né en Éthiopie. Кофе — напиток."},
    "citations": [{"id": "c1", "marker": "1", "url": "https://a.example/café", "offset": 27}],
}


@pytest.mark.parametrize(
    "encoding",
    ["utf-16", "utf-16-le", "utf-8-sig", "utf-8"],
    ids=["UTF-16 with BOM", "UTF-16 without BOM", "UTF-8 with BOM", "UTF-8"],
)
def test_a_request_file_in_any_unicode_encoding_is_read(tmp_path: Path, encoding: str, capsys):
    path = tmp_path / "request.json"
    path.write_bytes(json.dumps(REQUEST, ensure_ascii=False).encode(encoding))
    assert _read_request(str(path), False) == REQUEST
    assert capsys.readouterr().err == ""


def test_a_latin1_request_file_is_read_and_said_to_be_read_as_latin1(tmp_path: Path, capsys):
    request = {**REQUEST, "answer": {"text": "Le café est né en Éthiopie. Ça se boit chaud."}}
    path = tmp_path / "request.json"
    path.write_bytes(json.dumps(request, ensure_ascii=False).encode("latin-1"))
    assert _read_request(str(path), False) == request
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read as Latin-1" in err[0] and "UTF-8" in err[0], err


def test_a_request_on_standard_input_in_utf16_is_read(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(REQUEST).encode("utf-16"))))
    assert _read_request("-", False) == REQUEST


@pytest.mark.parametrize("command", [["serve"], ["doctor"], ["pair"], ["service", "install"]], ids=" ".join)
@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_port_that_is_no_port_is_refused_in_one_line(command: list[str], port: str, capsys):
    with pytest.raises(SystemExit) as done:
        main([*command, "--port", port])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "OverflowError" not in err
    assert f"argument --port: {port!r} is not a port: give a number from 1 to 65535" in err, err


async def test_serve_on_port_0_prints_the_port_it_got_and_answers_there(tmp_path: Path):
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "PYTHONPATH": str(_REPO)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion.service.cli",
        "serve",
        "--port",
        "0",
        env=env,
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
        address = next(
            re.search(r"companion on http://127\.0\.0\.1:(\d+)$", x.strip())
            for x in lines
            if "companion on" in x
        )
        assert address, lines
        port = int(address.group(1))
        assert port != 0, lines
        assert f"`citelens pair --port {port} CODE`" in lines[-1]
        async with aiohttp.ClientSession() as session:
            health = await session.get(f"http://127.0.0.1:{port}/v1/health")
            assert health.status == 200, await health.text()
    finally:
        process.terminate()
        await process.wait()


def _statement(index: int, judgment: str, **extra: object) -> dict[str, object]:
    return {
        "index": index,
        "text": f"Sentence {index + 1}.",
        "judgment": judgment,
        "contradicted": False,
        "score": 0.0,
        "per_citation": [],
        "unsupported_assertions": [],
        **extra,
    }


def _per_citation(judgment: str, **extra: object) -> dict[str, object]:
    return {
        "citation": "c1",
        "marker": "1",
        "url": "https://a.example/",
        "judgment": judgment,
        "score": 0.0,
        "irrelevant": False,
        "evidence": [],
        **extra,
    }


RESULT = {
    "sources": [
        {"url": "https://a.example/", "status": "inaccessible", "reason": "http 404 (page not found)"}
    ],
    "statements": [
        _statement(
            0,
            "complete_support",
            score=0.93,
            confidence="high",
            per_citation=[_per_citation("complete_support", score=0.93, confidence="high")],
        ),
        _statement(
            1,
            "complete_support",
            score=0.71,
            confidence="low",
            per_citation=[_per_citation("complete_support", score=0.71, confidence="low")],
        ),
        _statement(2, "complete_support", score=0.88),  # an older companion: no confidence
        _statement(
            3,
            "no_support",
            score=0.12,
            contradicted=True,
            per_citation=[_per_citation("no_support", score=0.12)],
        ),
        _statement(4, "no_support", score=0.2),
        _statement(
            5,
            "inaccessible",
            per_citation=[_per_citation("inaccessible", reason="http 404 (page not found)")],
        ),
        _statement(
            6,
            "not_checked",
            language="ta",
            per_citation=[
                _per_citation("not_checked", reason="the answer is in Tamil; CiteLens reads English")
            ],
        ),
        _statement(7, "no_citation"),
    ],
    "summary": {
        "counts": {
            "complete_support": 3,
            "no_support": 2,
            "inaccessible": 1,
            "not_checked": 1,
            "no_citation": 1,
        }
    },
}


def _block(out: str, index: int) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith(f"[{index + 1}] "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("    ")), len(lines))
    return lines[start:end]


def test_verify_prints_no_score_for_a_statement_no_model_judged():
    out = report(RESULT, frozenset({"en"}))
    for index in (5, 6, 7):  # inaccessible, not checked, no citation
        block = _block(out, index)
        assert not re.search(r"\d\.\d\d", "\n".join(block)), block
    assert _block(out, 0)[0] == "[1] ✓ complete support (0.93)"
    assert _block(out, 3)[0] == "[4] ✗ no support (0.12)  ⚠ contradicted by a source"


def test_question_mark_means_no_citation_in_the_terminal_as_on_the_page():
    out = report(RESULT, frozenset({"en"}))
    assert _block(out, 7)[0] == "[8] ? no citation"
    assert _block(out, 5)[0] == "[6] ⊘ inaccessible"
    assert sum(line.startswith("[") and " ? " in line for line in out.splitlines()) == 1


def test_complete_support_read_with_low_confidence_is_likely_supported_not_green():
    out = report(RESULT, frozenset({"en"}))
    assert _block(out, 1)[0] == "[2] ≈ likely supported: check the quote (0.71)"
    assert "    [1] complete_support (likely: check the quote) 0.71 https://a.example/" in _block(out, 1)
    # Without `confidence` (an older companion), complete support is the sure kind.
    assert _block(out, 2)[0] == "[3] ✓ complete support (0.88)"


def test_verify_counts_add_up_and_contradicted_is_part_of_not_supported():
    out = report(RESULT, frozenset({"en"}))
    line = next(x for x in out.splitlines() if "fully supported" in x)
    assert line == (
        "2 of 8 statements fully supported · 1 likely supported (check the quote) · "
        "2 not supported, 1 of them contradicted · 1 inaccessible · 1 not checked (language) · "
        "1 without citation"
    )
    parts = [int(p.split()[0]) for p in line.split(" · ")]
    assert sum(parts) == 8


def test_doctor_prints_its_language_figures_on_lines_a_terminal_shows():
    measured = [load_config(d) for d in model_dirs(None)]
    config = next((c for c in measured if c.measured), None)
    assert config is not None, "no shipped model records figures per language"
    text = _wrapped("\n".join(["model loads and judges a probe", *_figures(config)]), "ok   ", "     ")
    lines = text.splitlines()
    assert len(lines) > 3
    assert max(len(x) for x in lines) <= 100, max(lines, key=len)
    shown = text.replace("\u00a0", " ")
    for code, figure in config.measured:
        assert f"{code} {figure.shown}" in shown, code
    # Those under the floor are said apart, not marked one by one.
    under = [code for code, f in config.measured if not f.checked]
    if under:
        line = next(x for x in lines if "under the floor" in x)
        assert under[0] in line.replace("\u00a0", " ")
