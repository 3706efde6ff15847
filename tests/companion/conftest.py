from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from companion.config import Settings
from companion.runtime import Runtime
from companion.service.pairing import load_or_create_token
from companion.service.server import make_app


@dataclass
class Companion:
    url: str
    token: str
    runtime: Runtime
    session: aiohttp.ClientSession

    def headers(self, **extra: str) -> dict[str, str]:
        return {"X-CiteLens-Token": self.token, "Content-Type": "application/json", **extra}

    async def post(self, path: str, body: object, **headers: str) -> aiohttp.ClientResponse:
        return await self.session.post(self.url + path, json=body, headers=self.headers(**headers))


@pytest.fixture
async def start_companion() -> AsyncIterator[Callable[[Settings], object]]:
    """Starts the real companion app on 127.0.0.1 with the given settings (several per test are fine)."""
    started: list[tuple[Runtime, TestServer, aiohttp.ClientSession]] = []

    async def start(settings: Settings) -> Companion:
        token = load_or_create_token(settings.token_path)
        runtime = await Runtime(settings).__aenter__()
        server = TestServer(make_app(runtime, token), host="127.0.0.1", port=settings.port)
        await server.start_server()
        session = aiohttp.ClientSession()
        started.append((runtime, server, session))
        return Companion(f"http://127.0.0.1:{settings.port}", token, runtime, session)

    yield start
    for runtime, server, session in started:
        await session.close()
        await server.close()
        await runtime.__aexit__(None, None, None)
