"""Builds the pipeline's parts from Settings, once per process, and closes them again.

The composition root, below every front end: the server, the CLI and batch audits (on one machine
or on Ray) each hold one Runtime; nothing else creates a model session, an HTTP client or a cache,
so there is no global state to reason about.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor, ThreadPoolExecutor
from types import TracebackType

from .config import Retrieval, Settings
from .judging.judge import Judge
from .judging.judges import Judges, model_dirs
from .model.folder import ModelConfig
from .model.infer import OnnxNLI, load_reader, model_pool
from .pipeline import SourceLoader, Verifier
from .sources.addresses import AddressPolicy
from .sources.cache import PageCache
from .sources.fetch import PageFetcher
from .wire.results import Results

__all__ = ["Runtime", "build_judge"]

log = logging.getLogger(__name__)


def build_judge(config: ModelConfig, retrieval: Retrieval, pool: Executor) -> Judge:
    """A model's Judge, its calibrated combiner built: what `citelens doctor` checks for each model."""
    nli = OnnxNLI(config.path, pool=pool)
    return Judge(nli, nli.config, retrieval, reader=load_reader(nli.config, pool=pool))


class Runtime:
    def __init__(self, settings: Settings, *, fetch: bool = True):
        self.settings = settings
        self._model_pool = model_pool(settings.onnx_threads)
        self.judges = Judges.from_dirs(
            model_dirs(settings.model_dir),
            lambda config: build_judge(config, settings.retrieval, self._model_pool),
        )
        self.judge = self.judges.default  # loaded now: a broken default model stops the start in words
        self.nli, self.model = self.judge.nli, self.judge.model
        self.cache = (
            PageCache(settings.cache_path, ttl_s=settings.cache_ttl_s, max_bytes=settings.cache_max_bytes)
            if settings.use_cache
            else None
        )
        self.fetcher = PageFetcher(settings.limits, AddressPolicy(settings.allow_private)) if fetch else None
        self.results = Results(keep=settings.limits.results_kept, ttl_s=settings.limits.result_ttl_s)
        # Several statements are judged at once (Settings.judged_at_once): the model's pool caps
        # their cores and takes the earliest one's calls first, and the others' rules and retrieval
        # run while its pairs are in the model (issue 38). Extraction gets its own threads, so a
        # page being parsed never waits behind judging.
        self._judge_pool = ThreadPoolExecutor(settings.judged_at_once, thread_name_prefix="citelens-judge")
        self._extract_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="citelens-extract")
        self.verifier = Verifier(
            self.judges,
            SourceLoader(self.fetcher, self.cache, settings.limits, self._extract_pool),
            self._judge_pool,
            lookahead=settings.judged_at_once,
        )
        if settings.allow_private:
            log.warning(
                "TEST MODE: the fetcher may reach these private addresses: %s", sorted(settings.allow_private)
            )

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
        self._model_pool.shutdown(wait=False, cancel_futures=True)
        if self.cache is not None:
            self.cache.close()
