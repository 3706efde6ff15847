"""The `citelens` command (service/cli.py). The terminal as a new user meets it (issue 60 item 5):
request files in the encodings editors write are read, ports are checked in words, `serve --port 0`
says the port it got, `verify` prints no score for a statement no model judged, its counts add up,
a "likely" verdict is told apart, and `doctor` prints its language figures on lines a terminal can
show. Then the report of `citelens verify`, the errors a new user meets, and the language and model
each statement was judged in."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from companion.judging.judges import model_dirs
from companion.model.folder import default_model_dir, load_config
from companion.records import Statement, StatementJudgment
from companion.service.cli import _figures, _read_request, _wrapped, main, report
from companion.text.utf16 import Utf16Offsets
from companion.wire.export import event_line
from tests.conftest import free_port

from ..fakes import fake_model

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


@contextlib.asynccontextmanager
async def _serving(state: Path, port: int) -> AsyncIterator[tuple[asyncio.subprocess.Process, list[str]]]:
    """`citelens serve --port PORT` as a user starts it, and the lines it printed up to its pairing
    hint; stopped on the way out."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "companion.service.cli",
        "serve",
        "--port",
        str(port),
        env=_env(state),
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
        yield process, lines
    finally:
        process.terminate()
        await process.wait()


async def test_serve_on_port_0_prints_the_port_it_got_and_answers_there(tmp_path: Path):
    async with _serving(tmp_path, 0) as (_, lines):
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


# `citelens verify` in a terminal: the report names support found in another source of the
# answer, and quotes what a refuting source says.


HONEY, TOMATOES = "https://a.example/honey", "https://a.example/tomatoes"


@pytest.mark.slow
def test_the_report_says_where_a_misplaced_statement_was_found(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    text = (
        "Honeybees make honey from flower nectar. Tomatoes need at least six hours of direct sun a day "
        "to ripen well. The Eiffel Tower is made of steel. Choose a pot of at least twenty litres for a "
        "cherry tomato."
    )
    ends = [text.index(s) + len(s) for s in ("nectar.", "ripen well.", "of steel.", "cherry tomato.")]
    request = {
        "page": {"url": "https://x.example/s"},
        "answer": {"text": text},
        "citations": [
            {"id": f"c{i}", "marker": marker, "url": url, "offset": end}
            for i, (marker, url, end) in enumerate(zip("1112", (HONEY, HONEY, HONEY, TOMATOES), ends))
        ],
        "sources": {
            HONEY: {
                "html": "<article><p>Honeybees make honey from flower nectar.</p>"
                "<p>The Eiffel Tower is made of wrought iron, not steel.</p></article>"
            },
            TOMATOES: {
                "html": "<article><p>Tomatoes need at least six hours of direct sun a day to ripen "
                "well.</p><p>Choose a pot of at least twenty litres and a compact variety such as "
                "a cherry tomato.</p></article>"
            },
        },
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["verify", str(path)]) == 0
    report = capsys.readouterr().out
    assert "found elsewhere: [2] complete_support" in report and TOMATOES in report
    assert "found in another source of the answer: 1 with a misplaced citation" in report
    # The model reads it at 0.979 contradiction, 0.05 over its bar (the negation rules that refuted
    # "It is not: the Eiffel Tower is not made of steel.", read at 0.708, were dropped: docs/rules.md).
    assert "says otherwise: “The Eiffel Tower is made of wrought iron, not steel.”" in report
    # A verdict short of complete says why, in words (docs/api.md "reasons").
    assert "why this verdict: the model reads the source as saying the opposite" in report


@pytest.mark.slow
def test_the_report_says_what_the_figures_were_computed_over(tmp_path, capsys, monkeypatch):
    """Issue 25: a sentence cited by its paragraph's chip says so, and ALCE's figures say over
    which sentences and citations they were computed (one page of two is refused: a private address)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    paragraph = "Honeybees make honey from flower nectar. They store it in wax cells."
    text = f"{paragraph}\nTomatoes need six hours of sun a day."
    request = {
        "page": {"url": "https://www.google.com/search?q=honey", "engine": "google-ai-overview"},
        "answer": {"text": text},
        "citations": [
            {"id": "c1", "marker": "bees", "url": HONEY, "offset": len(paragraph), "block_start": 0},
            {"id": "c2", "marker": "sun", "url": "http://127.0.0.1:9/tomatoes", "offset": len(text)},
        ],
        "sources": {
            HONEY: {
                "html": "<article><p>Honeybees make honey from flower nectar.</p>"
                "<p>They store the honey in wax cells.</p></article>"
            }
        },
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["verify", str(path)]) == 0
    report = capsys.readouterr().out
    first = report.index("Honeybees make honey from flower nectar.")
    assert report[first:].splitlines()[1].strip() == "cited by the paragraph's link (no marker of its own)"
    assert report.count("cited by the paragraph's link (no marker of its own)") == 1
    assert report.rstrip().endswith(
        "recall over the 2 statements of 3 whose sources could be read (1 cited by its paragraph's link); "
        "precision over their 2 citations of readable sources"
    )


def _request(sentences: list[tuple[str, str]], pages: dict[str, str]) -> dict[str, object]:
    """A /v1/verify body: each sentence cites its page with a marker of its own; pages inline."""
    text, citations = "", []
    for sentence, url in sentences:
        text += (" " if text else "") + sentence
        citations.append({"id": f"c{len(citations) + 1}", "marker": str(len(citations) + 1), "url": url})
        citations[-1]["offset"] = len(text)
    return {
        "page": {"url": "https://www.perplexity.ai/search/x", "engine": "perplexity"},
        "answer": {"text": text},
        "citations": citations,
        "sources": {url: {"html": html} for url, html in pages.items()},
    }


def _verify(tmp_path, capsys, request: dict[str, object], *flags: str) -> str:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    assert main(["verify", str(path), *flags]) == 0
    return capsys.readouterr().out


RECIF = "https://nature.example/grande-barriere"
_RECIF_PAGE = """<html lang="fr"><head><title>La Grande Barrière de corail</title></head><body><article>
<p>La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres le long de la côte du
Queensland, en Australie. C'est le plus grand ensemble de récifs coralliens du monde.</p>
<p>Le récif est inscrit au patrimoine mondial de l'UNESCO depuis 1981.</p>
</article></body></html>"""


@pytest.mark.slow
def test_a_french_answer_names_the_model_that_judged_it(tmp_path, capsys, monkeypatch):
    """Issue 36 item 6.3: not the English default, which judged nothing here."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    request = _request(
        [
            (
                "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres le long de l'Australie.",
                RECIF,
            ),
            ("Il est inscrit au patrimoine mondial de l'UNESCO depuis 1981.", RECIF),
        ],
        {RECIF: _RECIF_PAGE},
    )
    report = _verify(tmp_path, capsys, request)
    header = report.splitlines()[0]
    assert header == "CiteLens — 2 statements, 1 source (judged by citelens-e5-multilingual-nli)"
    result = json.loads(_verify(tmp_path, capsys, request, "--json"))
    assert {s["model"] for s in result["statements"]} == {"citelens-e5-multilingual-nli"}
    # Issue 39 item 5: each statement names its language and the model's version, the summary's.
    [model] = result["summary"]["models"]
    assert {s["model_version"] for s in result["statements"]} == {model["version"]}
    assert report.count(f"    judged in French by citelens-e5-multilingual-nli {model['version']}\n") == 2


TOKYO = "https://ja.example/tokyo-tower"
_TOKYO_PAGE = """<html lang="ja"><body><article>
<p>東京タワーは東京都港区にある電波塔です。高さは333メートルです。</p>
<p>建設は1957年に始まり、1958年に完成しました。</p></article></body></html>"""


@pytest.mark.slow
def test_a_japanese_answer_says_it_was_not_checked_and_why(tmp_path, capsys, monkeypatch):
    """Issue 36 item 6.4: its page was read; the statements were not judged for their language
    (Japanese is under the multilingual model's floor, issue 39)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    request = _request(
        [("東京タワーは東京都港区にある電波塔です。", TOKYO), ("1958年に完成しました。", TOKYO)],
        {TOKYO: _TOKYO_PAGE},
    )
    report = _verify(tmp_path, capsys, request)
    assert report.splitlines()[0] == "CiteLens — 2 statements, 1 source (no statement judged by a model)"
    assert "no statement cites a source that could be read" not in report
    assert report.count("    not checked: Japanese is not a language CiteLens judges yet") == 2
    # Its language, and no model: the default's name on its line judged nothing (issue 39 item 5).
    assert report.count("    in Japanese, not judged by a model\n") == 2
    assert "citelens-minilm-nli" not in report and "citelens-e5-multilingual-nli" not in report
    assert report.rstrip().endswith(
        "no recall or precision: not checked: Japanese is not a language CiteLens judges yet"
    )


TOWER = "https://a.example/tower"
_TOWER_PAGE = """<article><p>The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It
was designed and built by the company of Gustave Eiffel between 1887 and 1889.</p><p>The tower is
repainted every seven years; about 60 tonnes of paint are used, in a shade called Eiffel Tower
brown.</p></article>"""


# No support, far from every bar ("painted bright red every year by volunteers" scored 0.147 against
# the partial bar of 0.15).
UNSUPPORTED = "The tower was painted bright red by volunteers in 2015."


@pytest.mark.slow
def test_a_statement_without_support_quotes_no_passage_and_says_so(tmp_path, capsys, monkeypatch):
    """Issue 58: a source that supports nothing of the statement has no passage quoted as if it did
    (issue 36 item 6.5 quoted its closest passage); the text output says none supports it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    request = _request([(UNSUPPORTED, TOWER)], {TOWER: _TOWER_PAGE})
    result = json.loads(_verify(tmp_path, capsys, request, "--json"))
    [statement] = result["statements"]
    assert statement["judgment"] == "no_support" and not statement["contradicted"]
    # Far under the partial bar: a verdict pinned on its threshold would flip with any refit.
    assert statement["score"] <= load_config(default_model_dir()).thresholds.partial - 0.05
    assert statement["per_citation"][0]["evidence"] == []
    report = _verify(tmp_path, capsys, request)
    assert "        no passage of this source supports it\n" in report
    assert "evidence: “" not in report and "says otherwise" not in report and "passage: “" not in report


@pytest.mark.slow
def test_the_example_names_both_values_of_a_number_its_source_gives_otherwise(tmp_path, capsys, monkeypatch):
    """Issue 36 item 4: "about 2,000 years ago" against a page's "at least 4,500 years ago" is
    contradicted (a wording rule, whatever the model reads), and the report says both values."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main(["verify", "--example"]) == 0
    report = capsys.readouterr().out
    block = report[report.index("ancient Egypt about 2,000 years ago") :].split("\n\n")[0]
    assert "why this verdict: the source gives another value: 4,500 where the sentence says 2,000" in block
    assert (
        "says otherwise: “Beekeeping in man-made hives began in ancient Egypt at least 4,500 years ago"
        in block
    )


MYTHS = "https://myths.example/eiffel"
_MYTH_PAGE = """<article><h1>Five things people get wrong about the Eiffel Tower</h1><p>Many visitors
assume that such a tall tower must be made of steel. It is not: the Eiffel Tower is not made of
steel.</p><p>The tower was built entirely of puddled iron, a kind of wrought iron, because steel was
still expensive and less proven in 1887.</p></article>"""


@pytest.mark.slow
def test_the_myth_page_contradicts_the_claim_in_its_words_and_quotes_it(tmp_path, capsys, monkeypatch):
    """Issue 36: this was "✓ Supported (0.96)" quoting the refutation, then partial support. The
    refutation is the claim word for word with "not" put in: a contradiction in its own words
    (`en.restates_negated`, a rule's finding, not a score on a bar), whatever the model reads."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    request = _request([("The Eiffel Tower is made of steel.", MYTHS)], {MYTHS: _MYTH_PAGE})
    [statement] = json.loads(_verify(tmp_path, capsys, request, "--json"))["statements"]
    assert statement["judgment"] == "no_support" and statement["contradicted"], statement
    assert statement["reasons"][0] == "rule:en.restates_negated", statement["reasons"]
    refutation = "It is not: the Eiffel Tower is not made of steel."
    [cited] = statement["per_citation"]
    # The quote of a contradiction is the refutation.
    assert [e["text"] for e in cited["evidence"]] == [refutation]
    report = _verify(tmp_path, capsys, request)
    assert f"says otherwise: “{refutation}”" in report


FIXTURE_MYTHS = "https://myths.example/three-myths"


@pytest.mark.slow
def test_a_denial_the_page_makes_is_never_shown_contradicted(tmp_path, capsys, monkeypatch):
    """The end-to-end myth page (tests/fixtures/pages/eiffel.html) says, in its own words, "the
    Eiffel Tower is not made of steel". Cited for that sentence, it was red: the fast model reads a
    "not" in the claim as the opposite of nearly any window about it (0.97 and 0.985 on windows
    about the radio antenna and the puddled iron). The reader reads the strongest of them at 0.26,
    far under its bar (0.67), so they no longer make it contradicted (docs/rules.md, "A denial's red
    needs the reader"); the false claim stays contradicted, by the wording rule."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    page = (Path(__file__).resolve().parents[2] / "fixtures" / "pages" / "eiffel.html").read_text("utf-8")
    request = _request(
        [
            ("The Eiffel Tower is not made of steel.", FIXTURE_MYTHS),
            ("The Eiffel Tower is made of steel.", FIXTURE_MYTHS),
        ],
        {FIXTURE_MYTHS: page},
    )
    denial, myth = json.loads(_verify(tmp_path, capsys, request, "--json"))["statements"]
    assert not denial["contradicted"] and denial["judgment"] != "no_support", denial
    assert "model.contradiction" not in denial["reasons"], denial["reasons"]
    assert myth["judgment"] == "no_support" and myth["contradicted"], myth
    assert myth["reasons"][0] == "rule:en.restates_negated", myth["reasons"]


@pytest.mark.slow
def test_the_sentence_that_supports_a_claim_is_never_shown_as_saying_otherwise(tmp_path, capsys, monkeypatch):
    """The myth page's "It is made of puddled iron, a wrought iron produced in the forges of Pompey
    in Lorraine." supports both claims below, which the page also reads as the opposite elsewhere
    (partial support). The fast model reads that sentence alone as their opposite (0.87 and 0.57: a
    "not" or an "instead of" in a claim reads as the opposite of nearly any text to it), so 0.14.1
    showed it under "says otherwise" and never quoted it as support. What a card shows as saying
    otherwise is now the reader's reading (0.15 and 0.16, its bar 0.5; docs/rules.md, "What says
    otherwise, sentence by sentence")."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    page = (Path(__file__).resolve().parents[2] / "fixtures" / "pages" / "eiffel.html").read_text("utf-8")
    claims = (
        "The tower is made of puddled iron, not steel.",
        "The tower is made of wrought iron instead of steel.",
    )
    request = _request([(claim, FIXTURE_MYTHS) for claim in claims], {FIXTURE_MYTHS: page})
    supporting = "It is made of puddled iron, a wrought iron produced in the forges of Pompey in Lorraine."
    for statement in json.loads(_verify(tmp_path, capsys, request, "--json"))["statements"]:
        (cited,) = statement["per_citation"]
        assert supporting not in [e["text"] for e in cited["says_otherwise"]], statement
        # Quoted as support is what the deciding model reads as saying the claim (issue 58 item
        # 3): here "It is not: the Eiffel Tower is not made of steel." (the reader: 0.54), not
        # the puddled-iron sentence it reads at 0.24; never both as support and as the opposite.
        quoted = {e["text"] for e in cited["evidence"]}
        assert quoted and quoted.isdisjoint(e["text"] for e in cited["says_otherwise"]), statement


# What a new user meets at the terminal (issue 36 item 6): wrong paths end in one line that says
# what is wrong and what to do, `citelens doctor` knows our own companion from a stranger on the
# port, `serve --port N` hints the `pair` command for that port, and every option says what it does.


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
    async with _serving(tmp_path, port) as (process, lines):
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
        assert process.stdout is not None
        announced = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert f"`citelens pair --port {port} {code}`" in announced, announced


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


# Issue 39 item 5: each statement of `citelens verify`'s report names the language it was judged
# in and the model, with its version, that judged it; a statement no model read names its language
# alone. Fast: the report is built from result dicts, the statement line from records.

E5, E5_VERSION = "citelens-e5-multilingual-nli", "0.1.4"
READ = frozenset({"en", "fr"})


def _statement_in(index: int, judgment: str, language: str, **extra: Any) -> dict[str, Any]:
    """A statement line as export.py writes it, reduced to what the report reads."""
    return {
        "index": index,
        "text": f"Sentence {index + 1}.",
        "judgment": judgment,
        "contradicted": False,
        "score": 0.9 if judgment == "complete_support" else 0.0,
        "per_citation": [],
        "unsupported_assertions": [],
        "language": language,
        # Every line names a model, the default's where none read anything (judges.py).
        "model": E5,
        "model_version": E5_VERSION,
        **extra,
    }


def _lines_of(statement: dict[str, Any]) -> list[str]:
    """The report's block of this one statement, its text line first."""
    result = {"statements": [statement], "sources": [], "summary": {}}
    lines = report(result, READ).splitlines()
    return lines[lines.index(f"    {statement['text']}") :]


def test_a_judged_statement_names_its_language_and_the_model_with_its_version():
    lines = _lines_of(_statement_in(0, "complete_support", "fr"))
    assert lines[1] == "    judged in French by citelens-e5-multilingual-nli 0.1.4"
    assert _lines_of(_statement_in(0, "no_support", "en"))[1] == (
        "    judged in English by citelens-e5-multilingual-nli 0.1.4"
    )


def test_a_statement_in_a_language_no_model_reads_names_the_language_and_no_model():
    lines = _lines_of(_statement_in(0, "not_checked", "ta"))
    assert lines[1] == "    in Tamil, not judged by a model"
    assert lines[2] == "    not checked: Tamil is not a language CiteLens judges yet"
    assert E5 not in "\n".join(lines)


def test_statements_no_model_read_never_name_the_default_model():
    for judgment in ("not_checked", "inaccessible", "no_citation"):
        lines = _lines_of(_statement_in(0, judgment, "fr"))
        assert lines[1] == "    in French, not judged by a model", judgment
    unidentified = _lines_of(_statement_in(0, "not_checked", "und"))
    assert unidentified[1] == "    in an unidentified language, not judged by a model"


def test_a_statement_citing_nothing_but_found_elsewhere_was_read_by_its_model():
    found = {"url": "https://a.example/x", "marker": "2", "judgment": "complete_support", "score": 0.9}
    statement = _statement_in(0, "no_citation", "en", found_elsewhere=[{**found, "evidence": []}])
    assert _lines_of(statement)[1] == "    judged in English by citelens-e5-multilingual-nli 0.1.4"


def test_the_line_follows_the_cited_by_note_and_a_result_without_a_language_has_none():
    lines = _lines_of(_statement_in(0, "complete_support", "en", cited_by="block"))
    assert lines[1:3] == [
        "    cited by the paragraph's link (no marker of its own)",
        "    judged in English by citelens-e5-multilingual-nli 0.1.4",
    ]
    older = _statement_in(0, "complete_support", "en")
    del older["language"], older["model_version"]
    assert not any("judged in" in line or "not judged" in line for line in _lines_of(older))
    # Without a version, the name alone.
    unversioned = _statement_in(0, "partial_support", "en", model_version="")
    assert _lines_of(unversioned)[1] == "    judged in English by citelens-e5-multilingual-nli"


def test_the_statement_line_carries_the_model_version_beside_the_model():
    statement = Statement(0, "Le récif est inscrit.", (0, 21), (), language="fr")
    judged = StatementJudgment(
        statement, "no_citation", 0.0, False, (), (), (), 0, model=E5, model_version=E5_VERSION
    )
    line = event_line(judged, fake_model(), units=Utf16Offsets(statement.text))
    assert (line["language"], line["model"], line["model_version"]) == ("fr", E5, E5_VERSION)
    tamil = Statement(1, "x", (0, 1), (), language="ta")
    unread = StatementJudgment(tamil, "not_checked", 0.0, False, (), (), (), 0)
    line = event_line(unread, fake_model(), units=Utf16Offsets("x"))
    assert (line["language"], line["model"], line["model_version"]) == ("ta", "", "")
