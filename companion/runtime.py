"""Builds the pipeline's parts from Settings, once per process, and closes them again.

The composition root: the server and the CLI both hold one Runtime; nothing else creates a
model session, an HTTP client or a cache, so there is no global state to reason about.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType

from .addresses import AddressPolicy
from .cache import PageCache
from .config import Settings
from .fetch import PageFetcher
from .infer import OnnxNLI
from .judge import Judge
from .judges import Judges, model_dirs
from .model import ModelConfig
from .pipeline import SourceLoader, Verifier

__all__ = ["Runtime"]

log = logging.getLogger(__name__)


class Runtime:
    def __init__(self, settings: Settings, *, fetch: bool = True):
        self.settings = settings
        self.judges = Judges.from_dirs(model_dirs(settings.model_dir), self._judge_for)
        self.judge = self.judges.default  # loaded now: a broken default model stops the start in words
        self.nli, self.model = self.judge.nli, self.judge.model
        self.cache = (
            PageCache(settings.cache_path, ttl_s=settings.cache_ttl_s, max_bytes=settings.cache_max_bytes)
            if settings.use_cache
            else None
        )
        self.fetcher = PageFetcher(settings.limits, AddressPolicy(settings.allow_private)) if fetch else None
        # One thread runs the model (it uses every core itself); extraction gets its own so a
        # page being parsed never waits behind a statement being judged.
        self._judge_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citelens-judge")
        self._extract_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="citelens-extract")
        self.verifier = Verifier(
            self.judges,
            SourceLoader(self.fetcher, self.cache, settings.limits, self._extract_pool),
            self._judge_pool,
        )
        if settings.allow_private:
            log.warning(
                "TEST MODE: the fetcher may reach these private addresses: %s", sorted(settings.allow_private)
            )

    def _judge_for(self, config: ModelConfig) -> Judge:
        nli = OnnxNLI(config.path, threads=self.settings.onnx_threads)
        return Judge(nli, nli.config, self.settings.retrieval)

    async def __aenter__(self) -> Runtime:
        if self.fetcher is not None:
            await self.fetcher.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.fetcher is not None:
            await self.fetcher.__aexit__(exc_type, exc, tb)
        self._judge_pool.shutdown(wait=False, cancel_futures=True)
        self._extract_pool.shutdown(wait=False, cancel_futures=True)
        if self.cache is not None:
            self.cache.close()
