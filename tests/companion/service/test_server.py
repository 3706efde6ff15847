"""The listener: guard statuses (docs/THREAT_MODEL.md), JSON errors with fields, caps, no CORS,
bounded work."""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat

import aiohttp
import pytest

from companion.config import Limits

SMALL = {"answer": {"text": "Honeybees dance. They make honey."}, "citations": []}


@pytest.fixture
async def companion(settings_for, start_companion):
    return await start_companion(settings_for())


async def test_health_needs_no_token_and_names_the_model(companion):
    async with companion.session.get(companion.url + "/v1/health") as r:
        assert r.status == 200
        body = await r.json()
    assert body["status"] == "ok" and body["model"]["labels"]
    assert {"entailment", "neutral", "contradiction"} <= set(body["model"]["labels"])
    assert not [h for h in r.headers if h.lower().startswith("access-control-")]


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Host": "evil.example:8765"}, 421, "misdirected"),
        ({"Host": "127.0.0.1"}, 421, "misdirected"),  # our port is part of the check
        ({"Origin": "https://evil.example"}, 403, "origin_refused"),
        ({"Origin": "null"}, 403, "origin_refused"),
        ({"Origin": "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, 403, "origin_refused"),
        ({"X-CiteLens-Token": "wrong"}, 401, "bad_token"),
        ({"X-CiteLens-Token": ""}, 401, "bad_token"),
        ({"Content-Type": "text/plain"}, 415, "unsupported_media_type"),  # the CSRF shape
    ],
)
async def test_guard_statuses(companion, headers, status, code):
    sent = companion.headers(**headers)
    if headers.get("X-CiteLens-Token") == "":
        sent.pop("X-CiteLens-Token")
    async with companion.session.post(companion.url + "/v1/verify", data=b"{}", headers=sent) as r:
        assert r.status == status
        assert (await r.json())["error"]["code"] == code
        assert not [h for h in r.headers if h.lower().startswith("access-control-")]


async def test_the_extension_origins_are_allowed(companion):
    for origin in (
        "chrome-extension://fklgpffhkpenbggfhkflghdlonombjol",
        "moz-extension://0b5a3c1e-8d3f-4c1a-9e55-7d2f4a1b6c90",
    ):
        r = await companion.post("/v1/verify", SMALL, Origin=origin)
        assert r.status == 200, await r.text()


async def test_preflight_is_refused(companion):
    async with companion.session.options(
        companion.url + "/v1/verify", headers={"Origin": "https://evil.example"}
    ) as r:
        assert r.status in (403, 405)
        assert "Access-Control-Allow-Origin" not in r.headers


async def test_bad_json_names_line_and_column(companion):
    async with companion.session.post(
        companion.url + "/v1/verify", data=b'{"answer": ', headers=companion.headers()
    ) as r:
        assert r.status == 400
        error = (await r.json())["error"]
    assert error["code"] == "bad_json" and "line 1" in error["message"]


async def test_huge_body_is_413_without_reading_it_all(companion):
    body = io.BytesIO(b'{"answer": {"text": "' + b"a" * (Limits().max_body_bytes + 10) + b'"}}')
    async with companion.session.post(
        companion.url + "/v1/verify", data=body, headers=companion.headers()
    ) as r:
        assert r.status == 413
        assert (await r.json())["error"]["code"] == "too_large"


async def test_empty_answer_and_wrong_types_name_the_field(companion):
    r = await companion.post("/v1/verify", {"answer": {"text": ""}})
    assert r.status == 422 and (await r.json())["error"]["field"] == "answer.text"
    r = await companion.post(
        "/v1/verify", {"answer": {"text": "x."}, "citations": [{"url": "https://a.org/", "offset": 9}]}
    )
    assert r.status == 422 and (await r.json())["error"]["field"] == "citations[0].offset"


async def test_unknown_fields_are_ignored(companion):
    r = await companion.post("/v1/verify", {**SMALL, "adapter": "perplexity", "future": {"x": 1}})
    assert r.status == 200
    result = await r.json()
    assert [s["judgment"] for s in result["statements"]] == ["no_citation", "no_citation"]
    assert result["summary"]["citation_recall"] is None  # nothing could be checked


async def test_unknown_path_and_method_are_json_errors(companion):
    async with companion.session.get(companion.url + "/v1/nothing", headers=companion.headers()) as r:
        assert r.status == 404 and "error" in await r.json()
    async with companion.session.get(companion.url + "/v1/verify", headers=companion.headers()) as r:
        assert r.status == 405 and "error" in await r.json()


async def test_audit_accepts_a_verify_result_and_says_the_verdicts_are_the_clients(companion):
    result = await (await companion.post("/v1/verify", SMALL)).json()
    r = await companion.post("/v1/audit", {"result": result, "page": {"url": "https://x.org/q"}})
    assert r.status == 200
    audit = await r.json()
    assert audit["page"]["url"] == "https://x.org/q" and audit["cards"] == []
    assert audit["provenance"]["verdicts"] == "client"
    # Nothing vouches for a client's verdicts: no judge, model or hash is stamped on them.
    assert not {"judge", "model", "models", "thresholds"} & set(audit["tool"])
    r = await companion.post("/v1/audit", {"result": {"statements": 3}})
    assert r.status == 422 and (await r.json())["error"]["field"] == "result.statements"


def _cited(pages_server):
    return {
        "page": {"url": "https://www.perplexity.ai/search/bees", "engine": "perplexity"},
        "answer": {"text": "Honeybees dance to share where food is."},
        "citations": [
            {
                "id": "c1",
                "marker": "1",
                "url": f"http://127.0.0.1:{pages_server.port}/articles/dance",
                "offset": 39,
            }
        ],
    }


async def _streamed(companion, body):
    async with companion.session.post(
        companion.url + "/v1/verify", json={**body, "options": {"stream": True}}, headers=companion.headers()
    ) as r:
        assert r.status == 200
        return [json.loads(line) for line in (await r.text()).splitlines()]


async def test_an_audit_card_of_a_result_id_is_the_companions_own_result(
    settings_for, start_companion, pages_server
):
    companion = await start_companion(settings_for(allow=pages_server))
    lines = await _streamed(companion, _cited(pages_server))
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["result_id"].startswith("r_")
    [statement] = [line for line in lines if line["type"] == "statement"]
    # A client that sends the id with doctored verdicts gets the card of what the companion judged.
    forged = {"statements": [{**statement, "judgment": "complete_support", "per_citation": []}]}
    r = await companion.post("/v1/audit", {"result_id": summary["result_id"], "result": forged})
    assert r.status == 200
    audit = await r.json()
    assert audit["provenance"]["verdicts"] == "companion"
    assert audit["provenance"]["result_id"] == summary["result_id"]
    assert audit["provenance"]["judged_at"].endswith("Z")
    assert audit["page"]["url"] == "https://www.perplexity.ai/search/bees"  # the page that was checked
    assert [c["support_judgment"] for c in audit["cards"]] == [statement["judgment"]]
    assert len(audit["tool"]["model"]["sha256"]["model.onnx"]) == 64
    assert audit["tool"]["judge"]["version"] == audit["tool"]["version"]
    assert len(audit["tool"]["judge"]["code"]) == 16
    # The plain result hands out an id too.
    plain = await (await companion.post("/v1/verify", _cited(pages_server))).json()
    assert plain["summary"]["result_id"].startswith("r_")
    assert plain["summary"]["result_id"] != summary["result_id"]


async def test_an_unknown_result_id_is_a_404_that_says_what_to_do_or_a_clients_card(companion):
    r = await companion.post("/v1/audit", {"result_id": "r_nothing"})
    assert r.status == 404
    error = (await r.json())["error"]
    assert error["code"] == "result_expired" and error["field"] == "result_id"
    assert "check the answer again" in error["message"]
    r = await companion.post("/v1/audit", {"result_id": "r_nothing", "result": {"statements": []}})
    audit = await r.json()
    assert audit["provenance"]["verdicts"] == "client" and "expired" in audit["provenance"]["note"]
    r = await companion.post("/v1/audit", {"result_id": 7})
    assert r.status == 422 and (await r.json())["error"]["field"] == "result_id"


async def test_excess_work_is_answered_429_not_queued(settings_for, start_companion, pages_server):
    limits = Limits(max_concurrent_verifications=1, max_waiting_verifications=0)
    companion = await start_companion(settings_for(allow=pages_server, limits=limits))
    sentences = [f"Bees dance {k} times a day." for k in range(30)]  # distinct: no cached pairs
    slow = {
        "answer": {"text": " ".join(sentences)},
        "citations": [
            {
                "url": f"http://127.0.0.1:{pages_server.port}/articles/dance",
                "offset": len(" ".join(sentences[: k + 1])),
            }
            for k in range(30)
        ],
        "options": {"stream": True},
    }
    async with companion.session.post(
        companion.url + "/v1/verify", json=slow, headers=companion.headers()
    ) as first:
        assert first.status == 200
        await first.content.readline()  # the start line: the first request holds the only slot
        second = await companion.post("/v1/verify", SMALL)
        assert second.status == 429 and second.headers["Retry-After"]
        lines = [json.loads(line) async for line in first.content]
    assert lines[-1]["type"] == "summary"


async def test_token_file_is_private(companion):
    mode = stat.S_IMODE(os.stat(companion.runtime.settings.token_path).st_mode)
    assert mode == 0o600


async def test_client_leaving_mid_stream_does_not_break_the_server(
    settings_for, start_companion, pages_server
):
    # One verification at a time and none waiting: if the abandoned one kept its slot, the next
    # request would be refused with 429.
    limits = Limits(max_concurrent_verifications=1, max_waiting_verifications=0)
    companion = await start_companion(settings_for(allow=pages_server, limits=limits))
    site = f"http://127.0.0.1:{pages_server.port}"
    text = "Honeybees dance to show where food is. A colony has one queen."
    body = {
        "answer": {"text": text},
        "citations": [
            {"id": "c1", "marker": "1", "url": f"{site}/slow/dance", "offset": 38},
            {"id": "c2", "marker": "2", "url": f"{site}/slow/colony", "offset": len(text)},
        ],
        "options": {"stream": True},
    }
    async with aiohttp.ClientSession() as other:
        r = await other.post(companion.url + "/v1/verify", json=body, headers=companion.headers())
        first = json.loads(await r.content.readline())
        assert first["type"] == "start"  # the pages are still loading: the stream is mid-way
        r.close()
    async with companion.session.get(companion.url + "/v1/health") as ok:
        assert ok.status == 200
    for _ in range(50):  # the abandoned verification lets go of its slot once it notices
        again = await companion.post("/v1/verify", {**body, "options": {"stream": False}})
        if again.status != 429:
            break
        await asyncio.sleep(0.1)
    assert again.status == 200, await again.text()
    assert len((await again.json())["statements"]) == 2


EGGS_PAGE = (
    "<article><h1>How to boil eggs</h1><p>Place the eggs in a pot and cover them with cold water.</p>"
    "<p>Bring the water to a boil, then turn off the heat.</p>"
    "<p>Leave the eggs covered for ten minutes.</p></article>"
)


async def test_a_chip_closing_a_paragraph_cites_it_and_the_summary_says_so(
    settings_for, start_companion, pages_server
):
    """Issue 25 §4 and §8: an AI Overview chip cites its whole paragraph, and ALCE's figures say
    what they were computed over (two of the three pages are dead links)."""
    companion = await start_companion(settings_for(allow=pages_server))
    dead = f"http://127.0.0.1:{pages_server.port}/articles/no-such-page"
    paragraph = (
        "Place the eggs in a pot and cover them with cold water. Bring the water to a boil, then turn "
        "off the heat. Leave the eggs covered for ten minutes."
    )
    cool = "Cool them in iced water before peeling."
    text = f"{paragraph}\n{cool}\nFresh eggs keep for three weeks in the fridge."
    eggs, line2 = "https://eggs.example/boil", len(paragraph) + 1
    body = {
        "page": {"url": "https://www.google.com/search?q=how+to+boil+eggs", "engine": "google-ai-overview"},
        "answer": {"text": text},
        "citations": [
            {"id": "c1", "marker": "eggs", "url": eggs, "offset": len(paragraph), "block_start": 0},
            {"id": "c2", "url": f"{dead}-1", "offset": line2 + len(cool), "block_start": line2},
            {"id": "c3", "url": f"{dead}-2", "offset": len(text)},
        ],
        "sources": {"https://eggs.example/boil": {"html": EGGS_PAGE}},
    }
    result = await (await companion.post("/v1/verify", body)).json()
    statements = result["statements"]
    assert [s["citations"] for s in statements] == [["c1"], ["c1"], ["c1"], ["c2"], ["c3"]]
    assert [s["cited_by"] for s in statements] == ["block", "block", "marker", "marker", "marker"]
    assert [s["judgment"] for s in statements][3:] == ["inaccessible", "inaccessible"]
    summary = result["summary"]
    assert summary["counts"]["no_citation"] == 0 and summary["block_cited"] == 2
    # Recall over the three statements whose page was read, two of them by the paragraph's link.
    assert summary["computed_over"] == {"statements": 3, "citations": 3, "block_cited": 2}

    audit = await (await companion.post("/v1/audit", {"result": result, "page": body["page"]})).json()
    assert audit["summary"]["computed_over_text"] == (
        "recall over the 3 statements of 5 whose sources could be read (2 cited by their paragraph's "
        "link); precision over their 3 citations of readable sources"
    )
    assert [c["cited_by"] for c in audit["cards"]] == ["block", "block", "marker", "marker", "marker"]


async def test_figures_say_they_were_computed_over_the_one_readable_sentence(
    settings_for, start_companion, pages_server
):
    companion = await start_companion(settings_for(allow=pages_server))
    dead = f"http://127.0.0.1:{pages_server.port}/articles/no-such-page"
    text = "Place the eggs in a pot. Bring the water to a boil. Leave the eggs covered for ten minutes."
    ends = [text.index(s) + len(s) for s in ("a pot.", "a boil.", "ten minutes.")]
    body = {
        "answer": {"text": text},
        "citations": [
            {"id": f"c{i}", "url": url, "offset": end}
            for i, (url, end) in enumerate(zip(("https://eggs.example/boil", f"{dead}-1", f"{dead}-2"), ends))
        ],
        "sources": {"https://eggs.example/boil": {"html": EGGS_PAGE}},
    }
    result = await (await companion.post("/v1/verify", body)).json()
    assert result["summary"]["counts"]["inaccessible"] == 2
    assert result["summary"]["computed_over"] == {"statements": 1, "citations": 1, "block_cited": 0}
    assert result["summary"]["block_cited"] == 0
    audit = await (await companion.post("/v1/audit", {"result": result})).json()
    assert audit["summary"]["computed_over_text"] == (
        "recall over the 1 statement of 3 whose sources could be read; precision over its 1 citation of "
        "a readable source"
    )
