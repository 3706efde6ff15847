"""PDF sources served by a real aiohttp server on 127.0.0.1, through the guarded fetcher.

A good report is read with page numbers; a PDF served as "binary" is known by its signature;
oversized, encrypted, scanned and bomb PDFs are inaccessible with their reason, in bounded time,
and a bomb read beside an HTML page does not hold that page back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from companion.config import Limits
from companion.errors import NotReadable, SourceUnavailable
from companion.records import Document
from companion.sources.addresses import AddressPolicy
from companion.sources.extract import extract
from companion.sources.fetch import PageFetcher
from tests.companion.sources.test_pdf import REPORT, bomb_pdf, make_pdf

from .hostile_site import serve_app

LIMITS = Limits(total_timeout_s=5.0, connect_timeout_s=2.0, max_pdf_bytes=2 * 1024 * 1024)
ARTICLE = (
    "<html><head><title>Gauges</title></head><body><article><h1>Gauges</h1>"
    + "".join(
        f"<p>Gauge {k} on the river read {k} centimetres above the mark at noon.</p>" for k in range(30)
    )
    + "</article></body></html>"
)


def site() -> web.Application:
    report = make_pdf(REPORT * 15, title="Water report", compress=True)  # 30 pages
    files = {
        "/report.pdf": (report, "application/pdf"),
        "/download?id=7": (report, "application/octet-stream"),
        "/scan.pdf": (make_pdf(REPORT, image_only=True), "application/pdf"),
        "/locked.pdf": (make_pdf(REPORT, encrypt=True), "application/pdf"),
        "/bomb.pdf": (bomb_pdf(), "application/pdf"),
        "/big.pdf": (report + b"%" + b"0" * (3 * 1024 * 1024), "application/pdf"),
        "/article": (ARTICLE.encode(), "text/html"),
    }

    async def serve(request: web.Request) -> web.Response:
        body, kind = files[request.path_qs]
        return web.Response(body=body, content_type=kind)

    app = web.Application()
    for path in files:
        app.router.add_get(path.split("?")[0], serve)
    return app


@pytest.fixture
async def base() -> AsyncIterator[str]:
    async with serve_app(site()) as port:
        yield f"http://127.0.0.1:{port}"


async def read(fetcher: PageFetcher, url: str) -> Document:
    fetched = await fetcher.fetch(url)
    return await asyncio.to_thread(extract, fetched, max_chars=200_000, limits=LIMITS)


def fetcher_for(base: str) -> PageFetcher:
    return PageFetcher(LIMITS, AddressPolicy(frozenset({base.removeprefix("http://")})))


async def test_a_cited_pdf_is_read_with_page_numbers(base: str) -> None:
    async with fetcher_for(base) as fetcher:
        started = time.perf_counter()
        doc = await read(fetcher, f"{base}/report.pdf")
        elapsed = time.perf_counter() - started
        binary = await read(fetcher, f"{base}/download?id=7")
    assert doc.title == "Water report"
    assert {s.page for s in doc.sentences} == set(range(1, 31))
    assert "Engineers closed the lower sluice before dawn." in {s.text for s in doc.sentences if s.page == 29}
    assert binary.text == doc.text  # served as octet-stream, known by its %PDF- signature
    assert elapsed < 5, f"a 30-page PDF took {elapsed:.1f} s"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/scan.pdf", r"no text layer"),
        ("/locked.pdf", r"password-protected"),
        ("/bomb.pdf", r"too large once decompressed"),
        ("/big.pdf", r"PDF too large \(3 MB\)"),
    ],
)
async def test_unreadable_pdfs_are_inaccessible_with_their_reason(base: str, path: str, reason: str) -> None:
    async with fetcher_for(base) as fetcher:
        started = time.perf_counter()
        with pytest.raises(SourceUnavailable, match=reason) as caught:
            await read(fetcher, base + path)
        assert time.perf_counter() - started < LIMITS.pdf_timeout_s
    assert isinstance(caught.value, NotReadable)


async def test_a_bomb_pdf_does_not_hold_back_the_page_beside_it(base: str) -> None:
    async with fetcher_for(base) as fetcher:
        started = time.perf_counter()
        bomb = asyncio.ensure_future(read(fetcher, f"{base}/bomb.pdf"))
        page = await read(fetcher, f"{base}/article")
        page_s = time.perf_counter() - started
        with pytest.raises(NotReadable):
            await bomb
    assert "Gauge 29 on the river" in page.text
    assert page_s < 2, f"the HTML page waited {page_s:.1f} s for the PDF"
