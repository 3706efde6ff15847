"""Shared fixtures: the real model, cited pages served on 127.0.0.1, a companion app around them."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from companion.config import Limits, Settings
from companion.model.infer import default_model_dir

FIXTURES = Path(__file__).parent / "fixtures"
PAGES = FIXTURES / "pages"


def model_dir() -> Path:
    """The shipped model; CITELENS_TEST_MODEL points at another models/<name>/ folder."""
    return Path(os.environ.get("CITELENS_TEST_MODEL") or default_model_dir())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pages_app() -> web.Application:
    """Cited pages as a real site would serve them, plus a dead link."""

    async def page(request: web.Request) -> web.Response:
        path = PAGES / f"{request.match_info['name']}.html"
        if not path.exists():
            raise web.HTTPNotFound(
                text="<html><body><h1>404 Not Found</h1></body></html>", content_type="text/html"
            )
        return web.Response(text=path.read_text(encoding="utf-8"), content_type="text/html", charset="utf-8")

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(1.0)  # still loading when a test's client walks away
        return await page(request)

    app = web.Application()
    app.router.add_get("/articles/{name}", page)
    app.router.add_get("/slow/{name}", slow)
    return app


@pytest.fixture
async def pages_server() -> AsyncIterator[TestServer]:
    server = TestServer(pages_app(), host="127.0.0.1", port=free_port())
    await server.start_server()
    yield server
    await server.close()


@pytest.fixture
def settings_for(tmp_path: Path) -> Callable[..., Settings]:
    def make(
        *, allow: TestServer | None = None, limits: Limits | None = None, port: int | None = None
    ) -> Settings:
        allowed = frozenset({f"127.0.0.1:{allow.port}"}) if allow is not None else frozenset()
        return Settings(
            port=port or free_port(),
            state_dir=tmp_path / "state",
            model_dir=model_dir(),
            allow_private=allowed,
            limits=limits or Limits(),
        )

    return make


# Tests that load the real model (directly or through a companion) are `slow`, so that
# `pytest -m "not slow"` is a fast inner loop; browser tests run under Node (npm run test:e2e).
_MODEL_FIXTURES = frozenset({"model_dir", "start_companion"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
