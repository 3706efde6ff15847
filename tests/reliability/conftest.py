"""Fixtures of the reliability suite: the model folder, the hostile sites, a page cache folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .hostile_site import HostileSite, RawSite, serve_app
from .live_companion import find_model_dir


@pytest.fixture(scope="session")
def model_dir() -> Path:
    found = find_model_dir()
    if found is None:
        pytest.skip("no NLI model: set CITELENS_TEST_MODEL or build runs/models/dev")
    return found


@pytest.fixture
async def site() -> AsyncIterator[HostileSite]:
    hostile = HostileSite()
    async with serve_app(hostile.app) as port:
        hostile.port = port
        try:
            yield hostile
        finally:
            hostile.stop.set()


@pytest.fixture
async def raw_site() -> AsyncIterator[RawSite]:
    async with RawSite() as raw:
        yield raw
