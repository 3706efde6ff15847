"""The pipeline (pipeline.py): the sources it loads and the order it streams results in.

Read through my browser (issue 11, part 3): which refusals the reader's browser may overcome,
and pages the extension read there (`via: "browser"`), held to the fetch guard's address rules.

Refusals are served by a real aiohttp site on 127.0.0.1 and read by the real guarded fetcher and
source loader; the via-browser tests run the real companion (real model) over HTTP.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from companion.config import Limits
from companion.errors import Blocked
from companion.judging.judge import Judge
from companion.pipeline import SourceLoader, Verifier
from companion.records import (
    Citation,
    InlineSource,
    PageInfo,
    SourceResult,
    StatementJudgment,
    Summary,
    VerifyRequest,
)
from companion.sources.addresses import AddressPolicy, non_global_reason
from companion.sources.fetch import PageFetcher, check_browser_address
from tests.conftest import free_port

from .fakes import BEES, MYTH, MemoryFetcher, WordNLI, fake_model
from .fakes import WORD_PAGES as TEXTS

ROOT = Path(__file__).resolve().parents[2]
PAGES = Path(__file__).parent.parent / "fixtures" / "pages"
HONEY = (PAGES / "honey.html").read_text(encoding="utf-8")

JUST_A_MOMENT = """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head>
<body><div class="main-wrapper"><h1>example.org</h1><h2>Verifying you are human. This may take a
few seconds.</h2><p>example.org needs to review the security of your connection before
proceeding.</p><script>window._cf_chl_opt={cvId:'3',cType:'managed'};</script></div></body></html>"""

PAYWALL = """<!doctype html><html><head><title>How bees make honey | The Daily Reference</title></head>
<body><article><h1>How bees make honey</h1><p>Honeybees are remarkable insects.</p>
<p>This article is for subscribers only. Subscribe now to continue reading, or sign in if you are
already a subscriber.</p></article></body></html>"""

CONSENT = """<!doctype html><html><head><title>Before you continue</title></head><body>
<h1>Before you continue</h1><p>We and our partners use cookies to store and/or access information on
a device, for personalised ads and content. With your permission we use legitimate interest.</p>
<button>Accept all</button><button>Reject all</button><button>Manage preferences</button></body></html>"""


def refusing_site() -> web.Application:
    async def status(request: web.Request) -> web.Response:
        code = int(request.match_info["code"])
        return web.Response(
            status=code, text="<html><body><h1>No</h1></body></html>", content_type="text/html"
        )

    async def page(request: web.Request) -> web.Response:
        body = {"challenge": JUST_A_MOMENT, "paywall": PAYWALL, "consent": CONSENT, "honey": HONEY}
        return web.Response(text=body[request.match_info["name"]], content_type="text/html")

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return web.Response(text=HONEY, content_type="text/html")

    async def broken_pdf(request: web.Request) -> web.Response:
        return web.Response(body=b"%PDF-1.7\n1 0 obj garbage", content_type="application/pdf")

    async def image(request: web.Request) -> web.Response:
        return web.Response(body=b"\x89PNG\r\n\x1a\n" + b"\0" * 64, content_type="image/png")

    app = web.Application()
    app.router.add_get("/status/{code}", status)
    app.router.add_get("/page/{name}", page)
    app.router.add_get("/slow", slow)
    app.router.add_get("/broken.pdf", broken_pdf)
    app.router.add_get("/image.png", image)
    return app


@pytest.fixture
async def site() -> AsyncIterator[TestServer]:
    server = TestServer(refusing_site(), host="127.0.0.1", port=free_port())
    await server.start_server()
    yield server
    await server.close()


async def load(
    site: TestServer, path: str, *, allow: bool = True, inline: InlineSource | None = None
) -> SourceResult:
    policy = AddressPolicy(frozenset({f"127.0.0.1:{site.port}"}) if allow else frozenset())
    limits = Limits(total_timeout_s=1.5, connect_timeout_s=1.0)
    with ThreadPoolExecutor(max_workers=1) as pool:
        async with PageFetcher(limits, policy) as fetcher:
            return await SourceLoader(fetcher, None, limits, pool).load(
                f"http://127.0.0.1:{site.port}{path}", inline
            )


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/status/401", "http 401 (login required)"),
        ("/status/403", "http 403 (forbidden or paywalled)"),
        ("/status/429", "http 429 (the site is rate-limiting)"),
        ("/page/challenge", "the site blocked automated reading"),
        ("/page/consent", "the site blocked automated reading"),
        ("/page/paywall", "paywalled or login required"),
        ("/slow", "timeout (the site took too long)"),
    ],
)
async def test_refusals_a_browser_may_overcome(site: TestServer, path: str, reason: str) -> None:
    source = await load(site, path)
    assert (source.ok, source.reason, source.browser_may_read, source.via) == (
        False,
        reason,
        True,
        "companion",
    )


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/status/404", "http 404 (page not found)"),
        ("/status/500", "http 500"),
        ("/broken.pdf", "PDF"),
        ("/image.png", "not text (image/png)"),
    ],
)
async def test_failures_a_browser_would_meet_too(site: TestServer, path: str, reason: str) -> None:
    source = await load(site, path)
    assert not source.ok and reason in source.reason
    assert source.browser_may_read is False


async def test_a_private_address_is_never_for_the_browser(site: TestServer) -> None:
    source = await load(site, "/page/honey", allow=False)
    assert source.reason == "blocked address: 127.0.0.1 is a loopback address"
    assert source.browser_may_read is False


async def test_a_readable_page_is_read_by_the_companion(site: TestServer) -> None:
    source = await load(site, "/page/honey")
    assert source.ok and source.via == "companion" and not source.browser_may_read


async def test_a_page_the_browser_read_is_recorded_as_such(site: TestServer) -> None:
    source = await load(site, "/status/403", inline=InlineSource(html=HONEY, via="browser"))
    assert source.ok and source.via == "browser" and not source.browser_may_read
    assert "Honeybees make honey from flower nectar." in source.document.text  # type: ignore[union-attr]


async def test_a_wall_the_browser_met_is_still_not_a_source(site: TestServer) -> None:
    source = await load(site, "/status/403", inline=InlineSource(html=JUST_A_MOMENT, via="browser"))
    assert source.reason == "the site blocked automated reading, in your browser too"
    assert (source.via, source.browser_may_read) == ("browser", False)


async def test_what_the_browser_could_not_read_keeps_its_reason(site: TestServer) -> None:
    source = await load(site, "/status/403", inline=InlineSource(via="browser", error="http 403"))
    assert source.reason == "your browser could not read it either (http 403)"
    assert (source.via, source.browser_may_read) == ("browser", False)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/a",
        "http://[::1]/a",
        "http://10.0.0.7/a",
        "http://169.254.169.254/latest/meta-data/",
        "http://2130706433/a",
        "http://localhost:3000/a",
        "http://printer.local/status",
        "http://wiki.corp/page",
        "file:///etc/passwd",
    ],
)
async def test_the_guard_holds_for_pages_the_browser_read(url: str) -> None:
    with pytest.raises(Blocked):
        await check_browser_address(url, AddressPolicy(), 1.0)


async def test_the_allow_list_admits_exactly_its_host_and_port() -> None:
    policy = AddressPolicy(frozenset({"localhost:3000", "127.0.0.1:8081"}))
    await check_browser_address("http://localhost:3000/a", policy, 1.0)
    await check_browser_address("http://127.0.0.1:8081/a", policy, 1.0)
    for refused in ("http://localhost:3001/a", "http://127.0.0.1:8082/a"):
        with pytest.raises(Blocked):
            await check_browser_address(refused, policy, 1.0)


async def test_an_inline_browser_page_from_a_private_host_is_refused(site: TestServer) -> None:
    source = await load(site, "/page/honey", allow=False, inline=InlineSource(html=HONEY, via="browser"))
    assert not source.ok
    assert source.reason == "blocked address: 127.0.0.1 is a loopback address"
    assert (source.via, source.browser_may_read) == ("browser", False)


# --- through the real companion (real model) ------------------------------------------------------

ANSWER = "Honeybees make honey from flower nectar."


def verify_body(url: str, sources: dict[str, dict[str, str]] | None = None, stream: bool = False) -> dict:
    body = {
        "page": {"url": "https://engine.example/search", "engine": "test"},
        "answer": {"text": ANSWER},
        "citations": [{"id": "c1", "marker": "1", "url": url, "offset": len(ANSWER)}],
        "options": {"stream": stream},
    }
    if sources is not None:
        body["sources"] = sources
    return body


async def test_companion_reports_and_records_browser_reads(settings_for, start_companion, site) -> None:
    companion = await start_companion(settings_for(allow=site))
    url = f"http://127.0.0.1:{site.port}/status/403"

    async with companion.session.get(companion.url + "/v1/health") as r:
        assert (await r.json())["allow_private"] == [f"127.0.0.1:{site.port}"]

    # The companion is refused: the source says a browser may read it, in the stream and the result.
    async with await companion.post("/v1/verify", verify_body(url, stream=True)) as r:
        lines = [line for line in (await r.text()).splitlines() if '"source"' in line]
    assert '"browser_may_read": true' in lines[0] and '"via": "companion"' in lines[0]
    async with await companion.post("/v1/verify", verify_body(url)) as r:
        refused = await r.json()
    assert refused["sources"][0]["browser_may_read"] is True
    assert refused["statements"][0]["judgment"] == "inaccessible"

    # The extension read it through the browser: judged on that page, recorded as read there.
    body = verify_body(url, {url: {"html": HONEY, "via": "browser"}})
    async with await companion.post("/v1/verify", body) as r:
        read = await r.json()
    assert read["sources"][0] | {"title": ""} == {
        "url": url,
        "status": "ok",
        "via": "browser",
        "browser_may_read": False,
        "title": "",
        "sentences": read["sources"][0]["sentences"],
    }
    assert read["statements"][0]["judgment"] == "complete_support"

    async with await companion.post("/v1/audit", body) as r:
        audit = await r.json()
    assert [c["via"] for c in audit["cards"]] == ["browser"]
    assert audit["sources"][0]["via"] == "browser"
    # The extension's own export path: the streamed result it kept, sent back for the card.
    async with await companion.post("/v1/audit", {"page": body["page"], "result": read}) as r:
        assert [c["via"] for c in (await r.json())["cards"]] == ["browser"]


async def test_companion_refuses_a_browser_page_from_a_private_host(
    settings_for, start_companion, site
) -> None:
    companion = await start_companion(settings_for())  # no allow-list
    for url in (f"http://127.0.0.1:{site.port}/page/honey", "http://localhost:3000/honey"):
        async with await companion.post(
            "/v1/verify", verify_body(url, {url: {"html": HONEY, "via": "browser"}})
        ) as r:
            result = await r.json()
        source = result["sources"][0]
        assert (source["status"], source["via"], source["browser_may_read"]) == (
            "inaccessible",
            "browser",
            False,
        )
        assert source["reason"].startswith("blocked address: ")
        assert result["statements"][0]["judgment"] == "inaccessible"


async def test_an_unknown_via_is_a_clear_422(settings_for, start_companion) -> None:
    companion = await start_companion(settings_for())
    url = "https://example.org/a"
    async with await companion.post(
        "/v1/verify", verify_body(url, {url: {"html": HONEY, "via": "proxy"}})
    ) as r:
        assert r.status == 422
        error = (await r.json())["error"]
    assert error["field"] == "sources['https://example.org/a'].via"


HOST_CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "host-cases.json").read_text("utf-8"))


@pytest.mark.parametrize(
    ("host", "private"),
    [(h, True) for h in HOST_CASES["private"]] + [(h, False) for h in HOST_CASES["public"]],
)
def test_the_shared_host_cases(host: str, private: bool) -> None:
    """The extension refuses the same hosts before it reads (tests/extension/unit/browser-read.test.js)."""
    try:
        AddressPolicy().check_browser_url(f"http://{host}/a")
    except Blocked:
        assert private, host
    else:
        assert not private, host


def test_every_shared_range_is_private_here_too() -> None:
    """The shared IPv4 ranges never refuse what the fetcher's own rules would fetch."""
    import ipaddress

    rules = json.loads((ROOT / "extension" / "shared" / "url-rules.json").read_text("utf-8"))["private_hosts"]
    for cidr in rules["ipv4"] + rules["ipv6"]:
        network = ipaddress.ip_network(cidr)
        for address in (network[0], network[-1]):
            assert non_global_reason(address), (cidr, address)


# --- answer order, and the same result whatever the arrival order (fakes.py's word backend) ------



def html(url: str) -> str:
    return "<html><body><article>" + "".join(f"<p>{s}</p>" for s in TEXTS[url]) + "</article></body></html>"


STATEMENTS = [
    ("A colony has a single queen.", (BEES,)),
    ("Tomatoes need six hours of direct sun a day.", (BEES,)),
    ("The queen lays up to 2,000 eggs a day.", ()),
    ("Queens mate in flight with many drones.", (MYTH,)),
]


def request() -> VerifyRequest:
    text, citations = "", []
    for sentence, urls in STATEMENTS:
        text += (" " if text else "") + sentence
        citations += [Citation(f"c{len(citations)}", "1", u, len(text)) for u in urls]
    return VerifyRequest(PageInfo(), text, tuple(citations))


async def verify(delays: dict[str, float], at_once: int = 2) -> list[object]:
    fetcher = MemoryFetcher({u: html(u) for u in TEXTS}, delays)
    with ThreadPoolExecutor(max(2, at_once)) as pool:
        loader = SourceLoader(fetcher, None, Limits(), pool)
        verifier = Verifier(Judge(WordNLI(), fake_model()), loader, pool, lookahead=at_once)
        return [event async for event in verifier.run(request())]


async def test_statements_come_in_answer_order_with_found_elsewhere_whatever_the_arrival_order():
    fast_first = await verify({BEES: 0.0, MYTH: 0.05})
    slow_first = await verify({BEES: 0.1, MYTH: 0.0})
    judged = [e for e in fast_first if isinstance(e, StatementJudgment)]
    assert [j.statement.index for j in judged] == [0, 1, 2, 3]
    expected = ["complete_support", "no_support", "no_citation", "complete_support"]
    assert [j.judgment for j in judged] == expected
    assert [f.url for f in judged[1].found_elsewhere] == []  # the tomato page was cited by nothing
    assert [f.url for f in judged[2].found_elsewhere] == [BEES]
    assert [e for e in slow_first if isinstance(e, StatementJudgment)] == judged
    summaries = [e for e in fast_first + slow_first if isinstance(e, Summary)]
    assert [(s.misplaced_citations, s.uncited_but_supported) for s in summaries] == [(0, 1), (0, 1)]


async def test_the_statements_judged_at_once_change_no_verdict_and_no_order():
    """Settings.judged_at_once (issue 38): one, two or four statements in the model together, each
    page first or last, the same statements come out in the same order with the same verdicts."""
    runs = [
        [e for e in await verify(delays, at_once) if isinstance(e, StatementJudgment)]
        for at_once in (1, 2, 4)
        for delays in ({BEES: 0.0, MYTH: 0.05}, {BEES: 0.1, MYTH: 0.0})
    ]
    assert [j.statement.index for j in runs[0]] == [0, 1, 2, 3]
    assert all(run == runs[0] for run in runs)


async def test_a_statement_that_needs_every_source_still_streams_after_its_own():
    events = await verify({BEES: 0.0, MYTH: 0.2})
    kinds = [type(e).__name__ + (f":{e.url}" if isinstance(e, SourceResult) else "") for e in events]
    # The supported first statement does not wait for the slow page; the second does.
    assert kinds.index("StatementJudgment") < kinds.index(f"SourceResult:{MYTH}")


async def test_a_page_that_arrives_while_the_head_is_judged_is_streamed_and_read_at_once():
    class SlowHead:
        """The first statement takes a while to judge, as a long one does on a busy machine."""

        def __init__(self, inner):
            self.inner = inner

        def judge(self, statement, sources):
            if statement.index == 0:
                time.sleep(0.4)
            return self.inner.judge(statement, sources)

        def elsewhere(self, *args):
            return self.inner.elsewhere(*args)

    fetcher = MemoryFetcher({u: html(u) for u in TEXTS}, {BEES: 0.0, MYTH: 0.05})
    with ThreadPoolExecutor(2) as pool:
        judge = SlowHead(Judge(WordNLI(), fake_model()))
        verifier = Verifier(judge, SourceLoader(fetcher, None, Limits(), pool), pool)  # type: ignore[arg-type]
        events = [event async for event in verifier.run(request())]
    kinds = [type(e).__name__ + (f":{e.url}" if isinstance(e, SourceResult) else "") for e in events]
    # The head's judging holds up neither the stream nor the reading of the pages that come in.
    assert kinds.index(f"SourceResult:{MYTH}") < kinds.index("StatementJudgment")
    assert [e for e in events if isinstance(e, StatementJudgment)] == [
        e for e in await verify({BEES: 0.0, MYTH: 0.05}) if isinstance(e, StatementJudgment)
    ]
