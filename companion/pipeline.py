"""Runs the stages for one captured answer and yields results as soon as each is ready.

capture (done by the caller) → segment → fetch + extract (concurrently, each distinct page once,
inline pages and cached pages without a fetch) → judge each statement as soon as its own sources
are in, in answer order → summary. CPU work (extraction, the model) runs in worker threads so the
event loop keeps answering (health checks, other requests, the stream itself).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any, TypeVar

from .config import Limits
from .errors import SourceUnavailable
from .judging.alce import summarize
from .judging.judge import Judge
from .judging.judges import Judges
from .model.pool import reading_for
from .records import (
    Citation,
    Document,
    InlineSource,
    SourceResult,
    Started,
    StatementJudgment,
    Summary,
    VerifyRequest,
    Via,
)
from .sources.addresses import AddressPolicy
from .sources.cache import PageCache
from .sources.extract import document_from_text, extract, html_to_document
from .sources.fetch import PageFetcher, check_browser_address
from .sources.pdf import is_pdf
from .sources.walls import wall_reason
from .text.retrieve import index_page
from .text.segment import statements as split_statements
from .typedefs import SourceFetcher

__all__ = ["Event", "SourceLoader", "Verifier"]

log = logging.getLogger(__name__)
T = TypeVar("T")


Event = Started | SourceResult | StatementJudgment | Summary


class SourceLoader:
    """Each cited page as a Document: given inline, from the cache, or fetched and extracted."""

    def __init__(
        self,
        fetcher: SourceFetcher | None,
        cache: PageCache | None,
        limits: Limits,
        executor: Executor,
        policy: AddressPolicy | None = None,
    ):
        self._fetcher = fetcher
        self._cache = cache
        self._limits = limits
        self._executor = executor
        # Pages read through the reader's browser are held to the fetcher's address rules, its
        # test allow-list included; without a fetcher, to the strict default.
        self._policy = policy or (fetcher.policy if isinstance(fetcher, PageFetcher) else AddressPolicy())

    async def load(self, url: str, inline: InlineSource | None) -> SourceResult:
        loop = asyncio.get_running_loop()
        via: Via = "companion"
        try:
            if inline is not None and inline.via == "browser":
                via = "browser"
                document = await self._from_browser(url, inline)
            elif inline is not None and (inline.html or inline.text):
                via = "inline"
                document = await loop.run_in_executor(self._executor, self._inline, url, inline)
            else:
                document = await self._fetched(url)
        except SourceUnavailable as exc:
            # What the reader's browser could not read is final: there is nowhere else to try.
            return SourceResult(url, None, exc.reason, exc.browser_may_read and via != "browser", via)
        except Exception:  # a bug or a hostile page we did not foresee: this source only
            log.exception("could not read %s", url)
            return SourceResult(
                url, None, "could not read the page (internal error; see the companion log)", via=via
            )
        # A bot check, consent wall or paywall is never judged as the source (walls.py). Each stands
        # in front of automated readers; the reader's browser may be let through.
        reason = wall_reason(
            document.text,
            html=inline.html if inline else "",
            title=document.title,
            language=document.language,
        )
        if reason is not None:
            if via == "browser":
                return SourceResult(url, None, f"{reason}, in your browser too", via=via)
            return SourceResult(url, None, reason, browser_may_read=True, via=via)
        return SourceResult(url, await loop.run_in_executor(self._executor, index_page, document), via=via)

    async def _from_browser(self, url: str, inline: InlineSource) -> Document:
        """A page the extension read through the reader's browser: the fetch guard's address
        rules still hold (a private host is refused whatever the browser could reach)."""
        await check_browser_address(url, self._policy, self._limits.connect_timeout_s)
        if not (inline.html or inline.text):
            raise SourceUnavailable(
                f"your browser could not read it either ({inline.error or 'no page came back'})"
            )
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._inline, url, inline)

    def _inline(self, url: str, inline: InlineSource) -> Document:
        if inline.html:
            return html_to_document(
                url, inline.html, max_chars=self._limits.max_extracted_chars, title=inline.title
            )
        return document_from_text(url, inline.title, inline.text[: self._limits.max_extracted_chars])

    async def _fetched(self, url: str) -> Document:
        if self._cache is not None:
            cached = await asyncio.to_thread(self._cache.get, url)
            if cached is not None:
                return cached
        if self._fetcher is None:
            raise SourceUnavailable("not fetched (fetching is off and the page was not sent inline)")
        fetched = await self._fetcher.fetch(url)
        loop = asyncio.get_running_loop()
        # A PDF is read by a child process that may take seconds (sources/pdf.py): it waits in the
        # loop's default pool, so it never holds up the HTML pages of the same answer.
        executor = None if is_pdf(fetched.content_type, fetched.body) else self._executor
        limits = self._limits
        document = await loop.run_in_executor(
            executor, lambda: extract(fetched, max_chars=limits.max_extracted_chars, limits=limits)
        )
        document = replace(document, url=url, index=None)
        if (
            self._cache is not None
            and wall_reason(document.text, title=document.title, language=document.language) is None
        ):
            await asyncio.to_thread(self._cache.put, document)
        return document


class Verifier:
    """One answer in, a stream of events out: Started, SourceResult…, StatementJudgment…, Summary."""

    def __init__(
        self, judge: Judge | Judges, sources: SourceLoader, judge_executor: Executor, *, lookahead: int = 2
    ):
        """`lookahead`: the statements judged at once, the head among them (the executor's workers)."""
        self.judge = judge
        self.sources = sources
        self._executor = judge_executor
        self._lookahead = max(1, lookahead)

    async def run(self, request: VerifyRequest) -> AsyncGenerator[Event, None]:
        """Statements come out in answer order, each as soon as it can be final: a fully supported
        one when its own sources are in; any other once every source is in, because it is then
        also checked against the answer's other sources (found_elsewhere). What a statement gets
        never depends on the order in which pages arrive (issue 16)."""
        started = time.perf_counter()
        statements = split_statements(request.answer_text, request.citations, request.page.query)
        urls = list(dict.fromkeys(c.url for s in statements for c in s.citations))
        cited_by: dict[str, Citation] = {}
        for citation in request.citations:
            cited_by.setdefault(citation.url, citation)
        yield Started(len(statements), len(urls), tuple(urls))
        tasks = {asyncio.ensure_future(self.sources.load(u, request.sources.get(u))): u for u in urls}
        ready: dict[str, SourceResult] = {}
        waiting = list(statements)
        judged: list[StatementJudgment] = []
        head: StatementJudgment | None = None
        loop = asyncio.get_running_loop()
        # The next statements are judged while the head is (issue 38): their rules and retrieval
        # run while the head's pairs are in the model, and their pairs fill the cores the head
        # leaves idle, the head's served first (_at_position). Each gets a copy of the sources
        # read so far; a verdict reads only its own statement's sources.
        ahead: dict[int, asyncio.Future[StatementJudgment]] = {}

        def judge_soon(index: int) -> None:
            statement = statements[index]
            if index not in ahead and all(c.url in ready for c in statement.citations):
                future = loop.run_in_executor(
                    self._executor, _at_position, index, self.judge.judge, statement, dict(ready)
                )
                # One the stream never reached (the client left) must not log an unread error.
                future.add_done_callback(lambda f: f.cancelled() or f.exception())
                ahead[index] = future

        try:
            while waiting:
                at = len(statements) - len(waiting)
                # The head and the next start as soon as their own sources are in, while other
                # pages still load: awaiting the head alone left a core idle until it was done.
                for index in range(at, min(at + self._lookahead, len(statements))):
                    judge_soon(index)
                if head is None and at in ahead and ahead[at].done():
                    head = ahead.pop(at).result()
                if head is not None and (head.judgment == "complete_support" or not tasks):
                    if head.judgment != "complete_support":
                        elsewhere = self.judge.elsewhere
                        head = await loop.run_in_executor(
                            self._executor, _at_position, at, elsewhere, head, dict(ready), cited_by
                        )
                    judged.append(head)
                    yield head
                    waiting.pop(0)
                    head = None
                    continue
                pending: list[asyncio.Future[Any]] = [*tasks]
                if head is None and at in ahead:
                    pending.append(ahead[at])
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted((t for t in tasks if t in done), key=lambda t: urls.index(tasks[t])):
                    source = task.result()
                    ready[tasks.pop(task)] = source
                    yield source
            for task in list(tasks):  # sources cited by nothing the splitter kept
                source = await task
                ready[tasks.pop(task)] = source
                yield source
        finally:
            for task in tasks:
                task.cancel()
            for future in ahead.values():
                future.cancel()
        yield summarize(judged, int((time.perf_counter() - started) * 1000))


def _at_position(position: int, judging: Callable[..., T], *args: Any) -> T:
    """`judging(*args)` with its model calls queued as the statement at `position`'s: the model's
    pool serves the earliest statement of the answer first (model/pool.py)."""
    with reading_for(position):
        return judging(*args)
