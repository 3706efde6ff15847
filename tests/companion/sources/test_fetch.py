"""A cited page that cannot be had says why in the reader's words (issue 60): a name that does not
resolve is a dead link, or "no network" when no name resolves at all, never a timeout of the site;
neither is offered to the reader's browser, which would meet the same dead name or missing
network. A site that stalls once reached is still a timeout the browser may get past.

Nothing resolves from a test machine, so the fetcher gets a resolver that knows the test's names
(the PageFetcher's `resolver` hook); pages are served on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.test_utils import TestServer

from companion.config import Limits
from companion.errors import SourceUnavailable
from companion.sources.addresses import AddressPolicy
from companion.sources.fetch import DEAD_NAME, NO_NETWORK, PROBE_NAME, PageFetcher

FAST = Limits(total_timeout_s=2.0, connect_timeout_s=1.0)


class Names(AbstractResolver):
    """Resolves the names it is given to 127.0.0.1 (and PROBE_NAME while `online`); every other
    name fails as getaddrinfo fails for a name that does not exist, after `delay` seconds."""

    def __init__(self, known: set[str], *, online: bool = True, delay: float = 0.0):
        self.known = known
        self.online = online
        self.delay = delay
        self.asked: list[str] = []

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        await asyncio.sleep(self.delay)
        if host in self.known or (host == PROBE_NAME and self.online):
            return [
                {
                    "hostname": host,
                    "host": "127.0.0.1",
                    "port": port,
                    "family": socket.AF_INET,
                    "proto": 0,
                    "flags": 0,
                }
            ]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    async def close(self) -> None:
        pass


@pytest.fixture
async def site() -> AsyncIterator[int]:
    async def page(request: web.Request) -> web.Response:
        return web.Response(
            text="<html><body><p>Bees make honey.</p></body></html>", content_type="text/html"
        )

    async def stall(request: web.Request) -> web.Response:
        await asyncio.sleep(30)
        return web.Response(text="late")

    app = web.Application()
    app.router.add_get("/page", page)
    app.router.add_get("/stall", stall)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield server.port
    await server.close()


async def _reason(fetcher: PageFetcher, url: str) -> SourceUnavailable:
    with pytest.raises(SourceUnavailable) as caught:
        await fetcher.fetch(url)
    return caught.value


async def test_a_name_that_does_not_resolve_is_a_dead_link_the_browser_is_not_offered(site: int):
    names = Names({"good.test"})
    policy = AddressPolicy(frozenset({f"good.test:{site}"}))
    async with PageFetcher(FAST, policy, resolver=names) as fetcher:
        assert (await fetcher.fetch(f"http://good.test:{site}/page")).status == 200
        error = await _reason(fetcher, f"http://gone.test:{site}/page")
    assert error.reason == DEAD_NAME
    assert error.browser_may_read is False


async def test_when_no_name_resolves_the_reason_is_no_network_not_a_dead_link(site: int):
    names = Names(set(), online=False)
    async with PageFetcher(FAST, AddressPolicy(frozenset()), resolver=names) as fetcher:
        error = await _reason(fetcher, f"http://gone.test:{site}/page")
    assert error.reason == NO_NETWORK
    assert error.reason.startswith("no network")
    assert error.browser_may_read is False
    # The probe is a lookup of a name that always exists, made because nothing had resolved.
    assert PROBE_NAME in names.asked


async def test_a_probe_is_not_needed_when_a_name_just_resolved(site: int):
    names = Names({"good.test"}, online=False)  # the probe would say offline: it must not be asked
    policy = AddressPolicy(frozenset({f"good.test:{site}"}))
    async with PageFetcher(FAST, policy, resolver=names) as fetcher:
        await fetcher.fetch(f"http://good.test:{site}/page")
        error = await _reason(fetcher, f"http://gone.test:{site}/page")
    assert error.reason == DEAD_NAME
    assert PROBE_NAME not in names.asked


async def test_pages_of_a_dead_site_queued_behind_each_other_never_read_as_timeouts(site: int):
    """Offline, 11 of 38 sources were "timeout (the site took too long)" while the same host got
    "dead link": lookups that fail slowly queue pages past the budget. All say the same now."""
    names = Names(set(), online=False, delay=0.6)
    limits = Limits(total_timeout_s=1.0, connect_timeout_s=0.5, per_host_connections=1, total_connections=2)
    async with PageFetcher(limits, AddressPolicy(frozenset()), resolver=names) as fetcher:
        errors = await asyncio.gather(
            *(fetcher.fetch(f"http://gone{i % 2}.test:{site}/p{i}") for i in range(8)), return_exceptions=True
        )
    reasons = {e.reason for e in errors if isinstance(e, SourceUnavailable)}
    assert len([e for e in errors if isinstance(e, SourceUnavailable)]) == 8, errors
    assert reasons == {NO_NETWORK}, reasons
    assert not any(e.browser_may_read for e in errors if isinstance(e, SourceUnavailable))


async def test_a_dead_name_is_not_looked_up_again_for_each_page_of_that_site(site: int):
    names = Names({"good.test"})
    policy = AddressPolicy(frozenset({f"good.test:{site}"}))
    async with PageFetcher(FAST, policy, resolver=names) as fetcher:
        await fetcher.fetch(f"http://good.test:{site}/page")
        for i in range(3):
            assert (await _reason(fetcher, f"http://gone.test:{site}/p{i}")).reason == DEAD_NAME
    assert names.asked.count("gone.test") == 1


async def test_a_site_that_stalls_once_reached_is_a_timeout_the_browser_may_get_past(site: int):
    names = Names({"good.test"})
    policy = AddressPolicy(frozenset({f"good.test:{site}"}))
    async with PageFetcher(FAST, policy, resolver=names) as fetcher:
        error = await _reason(fetcher, f"http://good.test:{site}/stall")
    assert error.reason == "timeout (the site took too long)"
    assert error.browser_may_read is True
