"""Cited sites that misbehave, served on 127.0.0.1 for the reliability tests (test-only code).

Two servers, because aiohttp will not misbehave at the HTTP level on request:
- `HostileSite`: an aiohttp app for faults a well-formed HTTP server can produce (hangs after the
  headers, endless and oversized bodies, decompression bombs, wrong charsets, redirect loops and
  redirects to private addresses, PDFs, images, error statuses) and a few good article pages.
- `RawSite`: a bare asyncio socket server for faults below HTTP (connection reset, a connection
  closed before or in the middle of the answer, a server that never answers, garbage, a header
  line far over the client's limit).
Both count the requests they see, so a test can prove that a refused address was never contacted.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import struct
import zlib
from collections import Counter
from collections.abc import AsyncIterator
from functools import lru_cache

from aiohttp import web

__all__ = [
    "BEES",
    "COLONY",
    "LONG",
    "HostileSite",
    "RawSite",
    "article_html",
    "bomb",
    "serve_app",
]

# Two short articles written for these tests. Each statement the tests cite is said in so many
# words in its page, so that a page that arrives intact is always judged, never "inaccessible".
BEES = (
    "How honeybees talk: the waggle dance",
    [
        "A forager that has found a rich patch of flowers returns to the hive and performs a dance "
        "on the vertical face of the comb.",
        "The dance tells other workers where the food is.",
        "The angle of the waggle run relative to vertical matches the angle between the food source "
        "and the sun.",
        "The duration of the waggle run encodes distance: the longer the run, the farther away the "
        "flowers are.",
        "Dancing bees also carry the scent of the flowers they visited, which helps recruits "
        "recognise the right blossoms.",
        "Karl von Frisch described the meaning of the dance in the 1940s and received the Nobel "
        "Prize in Physiology or Medicine in 1973.",
    ],
)
COLONY = (
    "Inside a honeybee colony",
    [
        "A healthy colony in summer contains a single queen, a few hundred drones and tens of "
        "thousands of female workers.",
        "The queen can lay up to two thousand eggs a day at the height of the season.",
        "Workers raised in summer live for about five to six weeks, most of which they spend "
        "foraging once they are three weeks old.",
        "Drones do not collect food and are driven out of the hive before winter.",
        "In winter the workers cluster around the queen and shiver their flight muscles to keep "
        "the centre of the cluster warm.",
    ],
)

# About 40 KB of text in short paragraphs: a page big enough to need many database pages.
LONG = (
    "A long season in the apiary",
    [
        f"Week {w}: "
        + " ".join(BEES[1][(w + k) % len(BEES[1])] for k in range(3))
        + " "
        + COLONY[1][w % len(COLONY[1])]
        for w in range(1, 80)
    ],
)


def article_html(title: str, paragraphs: list[str], *, charset_meta: str = "") -> str:
    meta = f'<meta charset="{charset_meta}">' if charset_meta else ""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html><head>{meta}<title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>Field notes, 2026</footer></body></html>"
    )


@lru_cache(maxsize=4)
def bomb(decoded_mib: int, wbits: int) -> bytes:
    """`decoded_mib` MiB of HTML-looking text, compressed (wbits 31: gzip, 15: zlib/deflate).

    Spaces compress about 1000:1, so 64 MiB decoded is about 64 KiB on the wire.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    out = [packer.compress(b"<!doctype html><html><body><p>")]
    block = b" " * (1024 * 1024)
    for _ in range(decoded_mib):
        out.append(packer.compress(block))
    out.append(packer.flush())
    return b"".join(out)


def _png() -> bytes:
    """A valid 1×1 PNG, built here so that no binary file sits in the repository."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


_PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
)


class HostileSite:
    """The aiohttp fault server. `url(path)` gives the address of a route once it is started."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.stop = asyncio.Event()  # set at teardown: hanging handlers return
        self.port = 0
        self.app = web.Application()
        self.app.middlewares.append(self._count)
        r = self.app.router
        r.add_get("/good/bees", self._page(BEES))
        r.add_get("/good/colony", self._page(COLONY))
        r.add_get("/good/long", self._page(LONG))
        r.add_get("/hang-after-headers", self.hang_after_headers)
        r.add_get("/hang-mid-body", self.hang_mid_body)
        r.add_get("/trickle", self.trickle)
        r.add_get("/endless", self.endless)
        r.add_get("/huge-declared", self.huge_declared)
        r.add_get("/huge-chunked", self.huge_chunked)
        r.add_get("/gzip-bomb", self.gzip_bomb)
        r.add_get("/deflate-bomb", self.deflate_bomb)
        r.add_get("/wrong-charset", self.wrong_charset)
        r.add_get("/latin1-declared-utf8", self.latin1_declared_utf8)
        r.add_get("/utf7", self.utf7)
        r.add_get("/utf7-plain", self.utf7_plain)
        r.add_get("/invalid-utf8", self.invalid_utf8)
        r.add_get("/stray-invalid-utf8", self.stray_invalid_utf8)
        r.add_get("/loop", self.loop)
        r.add_get("/loop-a", self.loop_a)
        r.add_get("/loop-b", self.loop_b)
        r.add_get("/redirect", self.redirect)
        r.add_get("/pdf", self.pdf)
        r.add_get("/image", self.image)
        r.add_get("/binary", self.binary)
        r.add_get("/empty", self.empty)
        r.add_get("/paywall", self.paywall)
        r.add_get("/one-line", self.one_line)
        r.add_get("/status/{code}", self.status)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    @web.middleware
    async def _count(self, request: web.Request, handler):  # type: ignore[no-untyped-def]
        self.hits[request.path] += 1
        return await handler(request)

    # --- pages that work ---------------------------------------------------------------------

    @staticmethod
    def _page(page: tuple[str, list[str]]):  # type: ignore[no-untyped-def]
        async def handler(request: web.Request) -> web.Response:
            return web.Response(text=article_html(*page), content_type="text/html", charset="utf-8")

        return handler

    # --- faults in time ----------------------------------------------------------------------

    async def _hold(self) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stop.wait(), 60)

    async def hang_after_headers(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        response.content_length = 10_000
        await response.prepare(request)
        await self._hold()
        return response

    async def hang_mid_body(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        response.content_length = 10_000
        await response.prepare(request)
        await response.write(b"<!doctype html><html><body><p>The first words arrive, then nothing")
        await self._hold()
        return response

    async def trickle(self, request: web.Request) -> web.StreamResponse:
        # One byte every 0.2 s: each read succeeds, so only the total timeout can end it.
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        await response.prepare(request)
        with contextlib.suppress(ConnectionError):
            while not self.stop.is_set():
                await response.write(b"<")
                await asyncio.sleep(0.2)
        return response

    # --- faults in size ----------------------------------------------------------------------

    async def _stream(self, request: web.Request, response: web.StreamResponse, total: int | None) -> None:
        await response.prepare(request)
        chunk = b"<p>" + b"All work and no play makes a dull page. " * 1600 + b"</p>\n"
        sent = 0
        with contextlib.suppress(ConnectionError):
            while (total is None or sent < total) and not self.stop.is_set():
                await response.write(chunk)
                sent += len(chunk)

    async def endless(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        await self._stream(request, response, None)
        return response

    async def huge_declared(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        response.content_length = 50 * 1024 * 1024
        await self._stream(request, response, 50 * 1024 * 1024)
        return response

    async def huge_chunked(self, request: web.Request) -> web.StreamResponse:
        # 50 MB with no Content-Length: only counting while reading can stop it.
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        await self._stream(request, response, 50 * 1024 * 1024)
        return response

    async def gzip_bomb(self, request: web.Request) -> web.Response:
        return web.Response(
            body=bomb(64, 31),
            headers={"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"},
        )

    async def deflate_bomb(self, request: web.Request) -> web.Response:
        return web.Response(
            body=bomb(64, 15),
            headers={"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "deflate"},
        )

    # --- faults in encoding ------------------------------------------------------------------

    async def wrong_charset(self, request: web.Request) -> web.Response:
        # A UTF-8 page whose server claims UTF-16: decoded as declared, it is CJK-looking noise.
        body = article_html(*BEES).encode("utf-8")
        if len(body) % 2:
            body += b" "
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=utf-16"})

    async def latin1_declared_utf8(self, request: web.Request) -> web.Response:
        # The common real-world slip: a Latin-1 page served as UTF-8. Mostly ASCII, so readable.
        paragraphs = [*COLONY[1], "Le miel récolté en été est très apprécié."]
        body = article_html(COLONY[0], paragraphs).encode("latin-1")
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=utf-8"})

    async def utf7(self, request: web.Request) -> web.Response:
        # "+2AA-" is a lone UTF-16 surrogate in UTF-7; Python decodes it into the str.
        body = article_html(*BEES).replace("dance tells", "dance +2AA- tells").encode("ascii")
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=utf-7"})

    async def utf7_plain(self, request: web.Request) -> web.Response:
        body = " ".join(BEES[1]).replace("dance tells", "dance +2AA- tells").encode("ascii")
        return web.Response(body=body, headers={"Content-Type": "text/plain; charset=utf-7"})

    async def invalid_utf8(self, request: web.Request) -> web.Response:
        # Bytes that are not UTF-8 at all (no NUL, so the binary sniffing does not catch them).
        rng = random.Random(5)
        noise = bytes(rng.randrange(0x80, 0x100) for _ in range(20_000))
        body = b"<!doctype html><html><body><p>" + noise + b"</p></body></html>"
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=utf-8"})

    async def stray_invalid_utf8(self, request: web.Request) -> web.Response:
        # A good page with two broken bytes in it: readable, the damage is local.
        body = article_html(*BEES).encode("utf-8").replace(b"Nobel", b"No\xffbel\xc3")
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=utf-8"})

    # --- redirects -----------------------------------------------------------------------------

    async def loop(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop")

    async def loop_a(self, request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently("/loop-b")

    async def loop_b(self, request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect("/loop-a")

    async def redirect(self, request: web.Request) -> web.Response:
        # Location is written as given, not normalised by yarl: the point is the raw form.
        return web.Response(status=302, headers={"Location": request.query["to"]})

    # --- content that is not text --------------------------------------------------------------

    async def pdf(self, request: web.Request) -> web.Response:
        return web.Response(body=_PDF, content_type="application/pdf")

    async def image(self, request: web.Request) -> web.Response:
        return web.Response(body=_png(), content_type="image/png")

    async def binary(self, request: web.Request) -> web.Response:
        return web.Response(
            body=b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8, content_type="application/octet-stream"
        )

    async def empty(self, request: web.Request) -> web.Response:
        return web.Response(body=b"", content_type="text/html")

    async def paywall(self, request: web.Request) -> web.Response:
        html = article_html(
            "Members only", ["This article is for subscribers.", "Subscribe now to continue reading."]
        )
        return web.Response(text=html, content_type="text/html")

    async def one_line(self, request: web.Request) -> web.Response:
        # ~60 KB of ordinary sentences with no line break (a plain-text dump, a minified page):
        # half of max_extracted_chars, so the sentence splitter sees all of it as one line.
        rng = random.Random(11)
        words = "the hive colony forager nectar pollen queen drone brood comb dance wax honey".split()
        sentences = (
            " ".join(rng.choice(words) for _ in range(rng.randint(12, 25))).capitalize() + "."
            for _ in range(500)
        )
        return web.Response(text=" ".join(sentences), content_type="text/plain")

    async def status(self, request: web.Request) -> web.Response:
        code = int(request.match_info["code"])
        return web.Response(
            status=code, text=f"<html><body><p>status {code}</p></body></html>", content_type="text/html"
        )


class RawSite:
    """A bare TCP server on 127.0.0.1 whose answer depends on the request path."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._stop = asyncio.Event()
        self._writers: set[asyncio.StreamWriter] = set()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def __aenter__(self) -> RawSite:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1].decode("ascii", "replace")
            self.hits[path] += 1
            await self._answer(path, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, IndexError):
            pass
        finally:
            self._writers.discard(writer)
            if not writer.transport.is_closing():
                writer.transport.abort()

    async def _answer(self, path: str, writer: asyncio.StreamWriter) -> None:
        if path == "/reset":
            # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
        elif path == "/reset-mid-body":
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<p>Some"
            )
            await writer.drain()
            await asyncio.sleep(0.05)
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
        elif path == "/close-early":
            writer.close()
        elif path == "/truncated":
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n"
                b"<html><body><p>Only the start of the page"
            )
            await writer.drain()
            writer.close()
        elif path == "/hang-before-headers":
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), 60)
        elif path == "/garbage":
            writer.write(b"HELLO THERE\r\n\r\n" + bytes(range(256)))
            await writer.drain()
            writer.close()
        elif path == "/huge-header":
            writer.write(b"HTTP/1.1 200 OK\r\nX-Filler: " + b"a" * (256 * 1024) + b"\r\n\r\n")
            await writer.drain()
            writer.close()
        else:
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            writer.close()


@contextlib.asynccontextmanager
async def serve_app(app: web.Application, host: str = "127.0.0.1") -> AsyncIterator[int]:
    """Serves `app` on `host` at a free port, yields the port; short shutdown for hung handlers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    try:
        yield sock.getsockname()[1]
    finally:
        await runner.cleanup()
