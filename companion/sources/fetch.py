"""Fetches cited pages over HTTP, guarded as docs/THREAT_MODEL.md asks. The only module with network I/O.

- Every address is vetted by companion.sources.addresses: IP literals before the request, resolved names
  inside the resolver (so the connection is pinned to the vetted address), after every redirect.
- Redirects are followed by hand (≤ 5), timeouts are short, the decoded body is capped (which also
  stops decompression bombs), only text content types and PDFs (under their own, larger cap) are
  read, no cookies, no proxy from the environment, an honest User-Agent, and per-host connection
  limits.
- A 429 or 503 with `Retry-After` is waited out and asked again once, when the wait fits in the
  fetch's time budget; until then every other fetch from that host waits too (or is refused at
  once, with the site's own wait, when it would not fit), so a batch audit does not keep knocking.
- A page that cannot be had becomes SourceUnavailable with a reason a reader understands. A name
  that does not resolve is a dead link, unless no name resolves at all: then the machine is
  offline, and every such page says "no network" rather than blaming the site (issue 60). Neither
  is offered to the reader's browser, which would meet the same dead name or missing network; a
  timeout once the site was reached is (a site that stalls readers it takes for bots).
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import errno
import functools
import socket
import time
from dataclasses import dataclass
from types import SimpleNamespace, TracebackType
from typing import Final
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult

from .. import __version__
from ..config import Limits
from ..errors import Blocked, NotReadable, SourceUnavailable
from ..records import Fetched
from .addresses import AddressPolicy, Target, is_literal
from .walls import BLOCKED, challenge_reason

__all__ = ["DEAD_NAME", "NO_NETWORK", "PROBE_NAME", "USER_AGENT", "PageFetcher", "check_browser_address"]

USER_AGENT = f"CiteLens/{__version__} (citation checker; fetches only pages an answer cites)"
_TEXT_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
_PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
# Bot checks answer 403, 429 or 503 with their page; its first bytes say which service refused.
_CHALLENGE_STATUSES = frozenset({403, 429, 503})
_CHALLENGE_PEEK_BYTES = 64 * 1024
_ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8"
_STATUS_REASONS = {
    401: "http 401 (login required)",
    402: "http 402 (paywalled)",
    403: "http 403 (forbidden or paywalled)",
    404: "http 404 (page not found)",
    410: "http 410 (page removed)",
    429: "http 429 (the site is rate-limiting)",
}
# Refusals of an automated reader that a person's browser, with its cookies and subscription,
# often gets past (docs/api.md: browser_may_read). 404, 410 and 5xx say the same to everyone.
_BROWSER_MAY_READ_STATUSES = frozenset({401, 402, 403, 429})
# RFC 9110 §10.2.3: the statuses whose Retry-After asks a client to come back later.
_RETRY_STATUSES = frozenset({429, 503})
# Hosts remembered as "not before" at once: past it the ones whose wait is over are dropped.
_BACKOFF_HOSTS = 1024

DEAD_NAME: Final = "dead link (the site's name does not resolve)"
NO_NETWORK: Final = "no network (no site's name could be looked up: is this computer offline?)"
SLOW_LOOKUP: Final = "timeout (the site's name took too long to look up)"
# A name RFC 2606 reserves for IANA, so it always exists. Looked up (never fetched) only after a
# cited name failed and no name resolved in the last _NAMES_FRESH_S: it tells a dead link from no
# network. One lookup answers for _PROBE_FRESH_S.
PROBE_NAME: Final = "example.com"
_NAMES_FRESH_S: Final = 60.0
_PROBE_FRESH_S: Final = 30.0
# A name that failed is not looked up again for this long: the other pages of the answer on that
# site get the same reason at once, instead of queueing behind it until they time out.
_DEAD_NAME_S: Final = 60.0
_DEAD_NAMES: Final = 1024


class _Refused(OSError):
    """Raised inside the resolver; aiohttp wraps OSErrors, so the reason survives the trip."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _GuardedResolver(AbstractResolver):
    def __init__(self, policy: AddressPolicy, inner: AbstractResolver | None, probe_timeout_s: float):
        self._policy = policy
        # Made on first use: aiohttp's resolver binds the running loop, and a fetcher may be built
        # before any loop runs (a batch worker's constructor under Ray).
        self._given = inner
        self._probe_timeout_s = probe_timeout_s
        self._resolved_at = -float("inf")  # monotonic time of the last name that resolved
        self._probe: tuple[float, bool] | None = None
        self._probing = asyncio.Lock()

    @functools.cached_property
    def _inner(self) -> AbstractResolver:
        return self._given or aiohttp.ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        self._resolved_at = time.monotonic()
        target = Target("http", host.lower().rstrip("."), port)
        try:
            allowed = set(self._policy.filter([r["host"] for r in results], target))
        except Blocked as exc:
            raise _Refused(exc.reason) from None
        return [r for r in results if r["host"] in allowed]

    async def online(self) -> bool:
        """Whether names resolve from here at all: a name did lately, or PROBE_NAME does now."""
        async with self._probing:  # pages that fail together share one probe
            now = time.monotonic()
            if now - self._resolved_at < _NAMES_FRESH_S:
                return True
            if self._probe is not None and now - self._probe[0] < _PROBE_FRESH_S:
                return self._probe[1]
            try:
                await asyncio.wait_for(
                    self._inner.resolve(PROBE_NAME, 443, socket.AF_UNSPEC), self._probe_timeout_s
                )
                up = True
            except (OSError, asyncio.TimeoutError):
                up = False
            self._probe = (time.monotonic(), up)
            return up

    async def close(self) -> None:
        if "_inner" in self.__dict__ or self._given is not None:
            await self._inner.close()


@dataclass
class _Progress:
    """How far one fetch got, told by aiohttp's trace signals: a timeout before the site was
    reached is not the site's slowness."""

    host: str = ""
    looking_up: bool = False
    connected: bool = False


async def _looking_up(_s: object, ctx: SimpleNamespace, _p: object) -> None:
    ctx.trace_request_ctx.looking_up = True


async def _looked_up(_s: object, ctx: SimpleNamespace, _p: object) -> None:
    ctx.trace_request_ctx.looking_up = False


async def _connected(_s: object, ctx: SimpleNamespace, _p: object) -> None:
    ctx.trace_request_ctx.connected = True


def _progress_trace() -> aiohttp.TraceConfig:
    trace = aiohttp.TraceConfig()
    trace.on_dns_resolvehost_start.append(_looking_up)
    trace.on_dns_resolvehost_end.append(_looked_up)
    trace.on_connection_create_end.append(_connected)
    trace.on_connection_reuseconn.append(_connected)
    return trace


class PageFetcher:
    """An aiohttp client session with the guard; use as `async with PageFetcher(...) as f`."""

    def __init__(self, limits: Limits, policy: AddressPolicy, *, resolver: AbstractResolver | None = None):
        """`resolver`: names are looked up with it (aiohttp's threaded getaddrinfo by default);
        tests pass one that knows their names, since nothing resolves from a test machine."""
        self._limits = limits
        self._policy = policy
        self._resolver = _GuardedResolver(policy, resolver, limits.connect_timeout_s)
        self._session: aiohttp.ClientSession | None = None
        # host → (monotonic time before which it asked not to be asked again, the status that said so).
        self._not_before: dict[str, tuple[float, int]] = {}
        # host → (monotonic time its name failed, the reason given).
        self._dead_names: dict[str, tuple[float, str]] = {}

    @property
    def policy(self) -> AddressPolicy:
        """The address rules this fetcher keeps; pages read by the reader's browser get the same."""
        return self._policy

    async def __aenter__(self) -> PageFetcher:
        connector = aiohttp.TCPConnector(
            resolver=self._resolver,
            limit=self._limits.total_connections,
            limit_per_host=self._limits.per_host_connections,
            family=socket.AF_UNSPEC,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,  # no proxy from the environment: it could route around the guard
            headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT},
            timeout=aiohttp.ClientTimeout(
                total=self._limits.total_timeout_s,
                connect=self._limits.connect_timeout_s,
                sock_read=self._limits.connect_timeout_s * 2,
            ),
            max_line_size=16 * 1024,
            max_field_size=16 * 1024,
            trace_configs=[_progress_trace()],
        )
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def fetch(self, url: str) -> Fetched:
        """The page at `url`; raises SourceUnavailable (Blocked, NotReadable) with the reason."""
        progress = _Progress(host=_host(url))
        if reason := self._dead_name(progress.host):
            raise SourceUnavailable(reason)
        try:
            return await asyncio.wait_for(self._follow(url, progress), self._limits.total_timeout_s)
        except asyncio.TimeoutError:
            if not progress.connected:
                # Never reached the site: waiting for a name, or for a connection behind the
                # answer's other pages, says nothing about the site when names do not resolve.
                if reason := self._dead_name(progress.host):
                    raise SourceUnavailable(reason) from None
                if not await self._resolver.online():
                    raise SourceUnavailable(NO_NETWORK) from None
                if progress.looking_up:
                    raise SourceUnavailable(SLOW_LOOKUP) from None
            # Sites that throttle readers they take for bots often stall them instead of refusing.
            raise SourceUnavailable("timeout (the site took too long)", browser_may_read=True) from None
        except aiohttp.TooManyRedirects:
            raise SourceUnavailable("too many redirects") from None
        except aiohttp.ClientConnectorDNSError as exc:
            if isinstance(exc.os_error, _Refused):
                raise Blocked(exc.os_error.reason) from None
            if not await self._resolver.online():
                raise SourceUnavailable(NO_NETWORK) from None
            self._remember_dead(progress.host, DEAD_NAME)
            raise SourceUnavailable(DEAD_NAME) from None
        except aiohttp.ClientConnectorError:
            raise SourceUnavailable("dead link (connection refused)") from None
        except aiohttp.ClientPayloadError:
            raise SourceUnavailable("broken response (the body could not be decoded)") from None
        except aiohttp.ServerDisconnectedError:
            raise SourceUnavailable("connection closed by the site") from None
        except aiohttp.ClientResponseError:
            # The parser's message quotes the site's bytes over several lines; the reader needs less.
            raise SourceUnavailable("malformed response (not valid HTTP)") from None
        except aiohttp.ClientOSError as exc:
            if isinstance(exc.__cause__ or exc, ConnectionResetError) or exc.errno == errno.ECONNRESET:
                raise SourceUnavailable("connection reset by the site") from None
            if exc.errno in (errno.ENETUNREACH, errno.ENETDOWN) and not await self._resolver.online():
                raise SourceUnavailable(NO_NETWORK) from None
            raise SourceUnavailable(f"network error ({exc.strerror or 'connection failed'})") from None
        except (aiohttp.ClientError, ConnectionError):
            raise SourceUnavailable("network error (the connection failed)") from None

    def _dead_name(self, host: str) -> str:
        """The reason a name failed with, if it did lately."""
        failed = self._dead_names.get(host)
        return failed[1] if failed and time.monotonic() - failed[0] < _DEAD_NAME_S else ""

    def _remember_dead(self, host: str, reason: str) -> None:
        if len(self._dead_names) >= _DEAD_NAMES:
            self._dead_names.clear()
        self._dead_names[host] = (time.monotonic(), reason)

    async def _follow(self, url: str, progress: _Progress) -> Fetched:
        assert self._session is not None, "use PageFetcher in `async with`"
        deadline = time.monotonic() + self._limits.total_timeout_s
        current = url
        retried = False
        hops = 0
        while hops <= self._limits.max_redirects:
            self._policy.check_url(current)
            await self._wait_for_host(current, deadline)
            progress.host, progress.looking_up, progress.connected = _host(current), False, False
            if reason := self._dead_name(progress.host):
                raise SourceUnavailable(reason)
            async with self._session.get(
                current, allow_redirects=False, trace_request_ctx=progress
            ) as response:
                if response.status in (301, 302, 303, 307, 308):
                    location = response.headers.get("Location")
                    if not location:
                        raise SourceUnavailable(f"http {response.status} without a Location")
                    current = urljoin(current, location)
                    hops += 1
                    continue
                if response.status >= 400:
                    if response.status in _CHALLENGE_STATUSES and await self._is_bot_check(response):
                        raise SourceUnavailable(BLOCKED, browser_may_read=True)
                    wait = _retry_after(response) if response.status in _RETRY_STATUSES else None
                    if wait is not None:
                        self._back_off(current, wait, response.status)
                        if not retried and self._fits(wait, deadline):
                            retried = True
                            continue  # asked again once, after the wait (_wait_for_host)
                        raise SourceUnavailable(
                            f"http {response.status} (the site asked to wait {wait:.0f} s before "
                            "asking again)",
                            browser_may_read=response.status in _BROWSER_MAY_READ_STATUSES,
                        )
                    raise SourceUnavailable(
                        _STATUS_REASONS.get(response.status, f"http {response.status}"),
                        browser_may_read=response.status in _BROWSER_MAY_READ_STATUSES,
                    )
                if response.status != 200:
                    raise SourceUnavailable(f"http {response.status} (no page content)")
                content_type = response.content_type.lower()
                if content_type in _PDF_TYPES:
                    body = await self._read_capped(response, self._limits.max_pdf_bytes, "PDF")
                    return Fetched(url, str(response.url), response.status, "application/pdf", body)
                if content_type not in _TEXT_TYPES and content_type != "application/octet-stream":
                    raise NotReadable(f"not text ({content_type or 'no content type'})")
                body = await self._read_capped(response, self._limits.max_page_bytes, "page")
                if content_type == "application/octet-stream" and body[:1024].lstrip().startswith(b"%PDF-"):
                    # A PDF served as "binary" is known only once read, so it had the page cap.
                    return Fetched(url, str(response.url), response.status, "application/pdf", body)
                if content_type == "application/octet-stream" and not _looks_like_text(body):
                    raise NotReadable("not text (binary content)")
                if b"\x00" in body[:4096]:
                    raise NotReadable("not text (binary content)")
                return Fetched(
                    url=url,
                    final_url=str(response.url),
                    status=response.status,
                    content_type="text/html" if content_type == "application/octet-stream" else content_type,
                    body=body,
                    charset=response.charset,
                )
        raise SourceUnavailable("too many redirects")

    def _fits(self, wait: float, deadline: float) -> bool:
        """Whether a wait leaves time for the request itself within the fetch's budget."""
        return time.monotonic() + wait + self._limits.connect_timeout_s <= deadline

    def _back_off(self, url: str, wait: float, status: int) -> None:
        host = urlsplit(url).netloc.lower()
        now = time.monotonic()
        if len(self._not_before) >= _BACKOFF_HOSTS:
            self._not_before = {h: v for h, v in self._not_before.items() if v[0] > now}
        until = max(self._not_before.get(host, (0.0, status))[0], now + wait)
        self._not_before[host] = (until, status)

    async def _wait_for_host(self, url: str, deadline: float) -> None:
        """Waits out a Retry-After the host gave to any fetch; refuses when it would not fit."""
        until, status = self._not_before.get(urlsplit(url).netloc.lower(), (0.0, 0))
        wait = until - time.monotonic()
        if wait <= 0:
            return
        if not self._fits(wait, deadline):
            raise SourceUnavailable(
                f"http {status} (the site asked to wait {wait:.0f} s before asking again)",
                browser_may_read=status in _BROWSER_MAY_READ_STATUSES,
            )
        await asyncio.sleep(wait)

    async def _is_bot_check(self, response: aiohttp.ClientResponse) -> bool:
        """Whether a refusal is a bot check (Cloudflare says so in a header; others in the page)."""
        if response.headers.get("cf-mitigated", "").lower() == "challenge":
            return True
        try:
            head = await asyncio.wait_for(_peek(response), self._limits.connect_timeout_s)
        except (aiohttp.ClientError, asyncio.TimeoutError):
            return False  # the status is reason enough; the page would only have named the service
        return challenge_reason(head.decode("utf-8", errors="replace")) is not None

    async def _read_capped(self, response: aiohttp.ClientResponse, cap: int, what: str) -> bytes:
        """The decoded body, stopping at the cap: a gzip bomb inflates here, not in memory."""
        declared = response.content_length
        if (
            declared is not None
            and declared > cap
            and "gzip" not in response.headers.get("Content-Encoding", "")
        ):
            raise NotReadable(f"{what} too large ({declared // 1_000_000} MB)")
        chunks, size = [], 0
        async for chunk in response.content.iter_chunked(64 * 1024):
            size += len(chunk)
            if size > cap:
                raise NotReadable(f"{what} too large (over {cap // 1_000_000} MB)")
            chunks.append(chunk)
        return b"".join(chunks)


async def check_browser_address(url: str, policy: AddressPolicy, timeout_s: float) -> None:
    """Raises Blocked when a page the reader's browser read has a URL this fetcher would refuse.

    The form, IP literals and private names are the policy's (check_browser_url); a name is then
    resolved as the fetcher would, so an intranet name is refused too. A name that does not resolve
    from here is let through: the browser reached it, and only what is known private is refused.
    """
    target = policy.check_browser_url(url)
    if is_literal(target.host) or f"{target.host}:{target.port}" in policy.allow_private:
        return
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(
            loop.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM), timeout_s
        )
    except (OSError, asyncio.TimeoutError):
        return
    policy.filter([str(info[4][0]) for info in infos], target)


def _retry_after(response: aiohttp.ClientResponse) -> float | None:
    """Retry-After in seconds (delta-seconds or an HTTP date), or None when absent or unreadable."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


async def _peek(response: aiohttp.ClientResponse) -> bytes:
    head = bytearray()
    async for chunk in response.content.iter_chunked(16 * 1024):
        head += chunk
        if len(head) >= _CHALLENGE_PEEK_BYTES:
            break
    return bytes(head[:_CHALLENGE_PEEK_BYTES])


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").rstrip(".")


def _looks_like_text(body: bytes) -> bool:
    head = body[:2048].lstrip().lower()
    return head.startswith((b"<!doctype", b"<html", b"<head", b"<body")) and b"\x00" not in head
