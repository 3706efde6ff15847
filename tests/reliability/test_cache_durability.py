"""The page cache survives kill -9 mid-write and a full disk, expires entries and stays bounded.

Kill -9: a writer subprocess (cache_writer.py) prints each URL once put() returned True; it is
killed with SIGKILL at a random moment, several times over the same file. After each kill the
file must pass `PRAGMA integrity_check` and every URL reported as written must read back intact.

Full disk, two ways:
- a real full filesystem: a tmpfs of 256 KiB mounted for the test. Mounting needs root (or
  CAP_SYS_ADMIN); where that is refused the test is skipped, not faked.
- SQLite's own `PRAGMA max_page_count`, which makes writes fail with SQLITE_FULL exactly as a full
  disk does. It runs everywhere (CI included), but needs the cache's private connection, so it
  pokes `cache._db` (test-only).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from companion.config import Limits
from companion.pipeline import SourceLoader
from companion.sources.addresses import AddressPolicy
from companion.sources.cache import PageCache
from companion.sources.extract import document_from_text
from companion.sources.fetch import PageFetcher

from .cache_writer import page, quick_document
from .hostile_site import HostileSite

WRITER = Path(__file__).with_name("cache_writer.py")


def integrity(path: Path) -> str:
    """ "ok", or what is wrong (SQLite raises instead when the damage reaches the schema)."""
    try:
        with sqlite3.connect(path) as db:
            return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return f"unreadable: {exc}"


def row_count(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM pages").fetchone()[0])


def _kill_mid_run(db: Path, first: int, rng: random.Random) -> list[str]:
    """Start a writer, SIGKILL it after a random delay, return the URLs it reported as written."""
    process = subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(first)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()  # the writer is up and has written once
        assert first_line.startswith("https://"), first_line + (
            process.stderr.read() if process.stderr else ""
        )
        time.sleep(rng.uniform(0.05, 0.6))
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        rest = process.stdout.read()  # lines still in the pipe were reported before the kill
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert process.returncode == -signal.SIGKILL
    lines = [first_line, *rest.splitlines(keepends=True)]
    # A line cut by the kill has no newline: it was never fully reported.
    return [line.strip() for line in lines if line.endswith("\n") and line.startswith("https://")]


def test_kill_minus_9_mid_write_loses_nothing_reported(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite3"
    rng = random.Random(9)
    reported: list[str] = []
    for round_ in range(4):
        reported += _kill_mid_run(db, 100_000 * round_, rng)
        assert integrity(db) == "ok"
    assert len(reported) >= 8, "the writer was killed before it wrote anything worth checking"

    cache = PageCache(db, ttl_s=10**9, max_bytes=10**12)
    try:
        assert cache.enabled, cache.disabled_reason
        for url in reported:
            document = cache.get(url)
            assert document is not None, f"{url} was reported as written but is gone"
            expected = page(int(url.rsplit("/", 1)[1]))
            assert document.text == expected.text and document.sentences == expected.sentences
        # Still writable after the kills.
        assert cache.put(
            document_from_text("https://pages.example/after", "after", "Written after the kills.")
        )
    finally:
        cache.close()
    assert integrity(db) == "ok"


# --- full disk -----------------------------------------------------------------------------------


@pytest.fixture
def tiny_filesystem(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs mounted at a temporary folder; skipped where mounting is not allowed."""
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; the max_page_count test covers a full disk here")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _fill(cache: PageCache, limit: int = 200) -> tuple[list[str], bool]:
    written = []
    for i in range(limit):
        document = quick_document(
            f"https://pages.example/full/{i}", "full", [f"Page {i} says something about bees."] * 600
        )
        if not cache.put(document):
            return written, True
        written.append(document.url)
    return written, False


def _assert_degraded(cache: PageCache, caplog: pytest.LogCaptureFixture) -> None:
    assert not cache.enabled
    assert "full" in cache.disabled_reason, cache.disabled_reason
    warnings = [
        r for r in caplog.records if r.name == "companion.sources.cache" and r.levelno == logging.WARNING
    ]
    assert warnings and "turned off" in warnings[0].getMessage()
    # Off means quiet: no exceptions, nothing stored, nothing read.
    assert cache.put(document_from_text("https://pages.example/x", "x", "Some text here.")) is False
    assert cache.get("https://pages.example/x") is None


def test_full_filesystem_turns_the_cache_off_with_a_warning(
    tiny_filesystem: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="companion.sources.cache")
    db = tiny_filesystem / "cache.sqlite3"
    cache = PageCache(db, ttl_s=3600, max_bytes=10**9)
    try:
        written, failed = _fill(cache)
        assert failed, "a 256 KiB filesystem never filled up"
        _assert_degraded(cache, caplog)
    finally:
        cache.close()
    assert integrity(db) == "ok"
    reopened = PageCache(db, ttl_s=3600, max_bytes=10**9)
    try:
        if reopened.enabled:  # opening a full file needs no space: what was written is still there
            assert all(reopened.get(url) is not None for url in written)
    finally:
        reopened.close()


def test_cache_on_an_already_full_filesystem_is_off_from_the_start(
    tiny_filesystem: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="companion.sources.cache")
    fd = os.open(tiny_filesystem / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass  # ENOSPC: the filesystem is full
    finally:
        os.close(fd)
    cache = PageCache(tiny_filesystem / "cache.sqlite3", ttl_s=3600, max_bytes=10**9)
    try:
        _, failed = _fill(cache, limit=3)
        assert failed or not cache.enabled
        assert not cache.enabled and cache.disabled_reason
        assert cache.get("https://pages.example/full/0") is None
    finally:
        cache.close()


def test_sqlite_full_turns_the_cache_off_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="companion.sources.cache")
    db = tmp_path / "cache.sqlite3"
    cache = PageCache(db, ttl_s=3600, max_bytes=10**9)
    try:
        assert cache._db is not None
        cache._db.execute("PRAGMA max_page_count = 64")  # test-only: 64 pages of 4 KiB, then SQLITE_FULL
        written, failed = _fill(cache)
        assert failed
        _assert_degraded(cache, caplog)
    finally:
        cache.close()
    assert integrity(db) == "ok"
    reopened = PageCache(db, ttl_s=3600, max_bytes=10**9)
    try:
        assert reopened.enabled
        assert all(reopened.get(url) is not None for url in written)
    finally:
        reopened.close()


async def test_checking_goes_on_without_the_cache_when_the_disk_is_full(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The loader still fetches and extracts each page; the full cache only costs the saving."""
    from .hostile_site import serve_app

    caplog.set_level(logging.WARNING, logger="companion.sources.cache")
    cache = PageCache(tmp_path / "cache.sqlite3", ttl_s=3600, max_bytes=10**9)
    assert cache._db is not None
    # test-only: the file may not grow, so the first page that needs new database pages fails
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count = {pages}")
    site = HostileSite()
    limits = Limits(total_timeout_s=2.0, connect_timeout_s=1.0)
    async with serve_app(site.app) as port:
        site.port = port
        policy = AddressPolicy(frozenset({f"127.0.0.1:{port}"}))
        async with PageFetcher(limits, policy) as fetcher:
            with ThreadPoolExecutor(max_workers=1) as pool:
                loader = SourceLoader(fetcher, cache, limits, pool)
                results = [
                    await loader.load(site.url(path), None)
                    for _ in range(2)
                    for path in ("/good/long", "/good/bees")
                ]
                results += await asyncio.gather(
                    *(loader.load(site.url("/good/long"), None) for _ in range(3))
                )
        site.stop.set()
    assert all(r.ok for r in results), [r.reason for r in results]
    assert not cache.enabled and "full" in cache.disabled_reason, cache.disabled_reason
    assert site.hits["/good/long"] == 5  # fetched every time: nothing came from the full cache
    assert any("turned off" in r.getMessage() for r in caplog.records)
    cache.close()


# --- expiry and the size bound ---------------------------------------------------------------------


def test_entries_expire_after_the_ttl(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite3"
    cache = PageCache(db, ttl_s=0.3, max_bytes=10**9)
    try:
        assert cache.put(document_from_text("https://pages.example/old", "old", "An old page about bees."))
        assert cache.get("https://pages.example/old") is not None
        time.sleep(0.45)
        assert cache.get("https://pages.example/old") is None, "an expired page was served"
        # The next write also deletes what has expired, so stale pages do not pile up on disk.
        assert cache.put(document_from_text("https://pages.example/new", "new", "A new page about bees."))
        assert row_count(db) == 1
    finally:
        cache.close()


def test_entries_of_another_extractor_version_are_not_served(tmp_path: Path) -> None:
    """Sentence spans split by an older segmenter must not outlive it (issue 13: versioned cache)."""
    db = tmp_path / "cache.sqlite3"
    cache = PageCache(db, ttl_s=3600, max_bytes=10**9)
    try:
        assert cache.put(document_from_text("https://pages.example/a", "a", "A page. About bees."))
        assert cache.get("https://pages.example/a") is not None
        with sqlite3.connect(db) as raw:
            (blob,) = raw.execute("SELECT document FROM pages").fetchone()
            stale = json.loads(blob)
            stale["version"] = "0.0.0/1"
            raw.execute("UPDATE pages SET document = ?", (json.dumps(stale),))
        assert cache.get("https://pages.example/a") is None, "a page split by another version was served"
    finally:
        cache.close()


def test_size_bound_drops_the_oldest_first(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite3"
    documents = [
        quick_document(f"https://pages.example/{i}", str(i), [f"Bees, page {i}."] * 1500) for i in range(30)
    ]
    cache = PageCache(db, ttl_s=3600, max_bytes=400_000)
    try:
        for document in documents:
            assert cache.put(document)
            time.sleep(0.002)  # distinct stored_at, so "oldest" is well defined
        with sqlite3.connect(db) as raw:
            total, biggest, rows = raw.execute("SELECT SUM(size), MAX(size), COUNT(*) FROM pages").fetchone()
        assert total <= cache.max_bytes
        assert rows >= cache.max_bytes // biggest - 1, "more was dropped than the bound asks"
        assert cache.get(documents[-1].url) is not None
        assert cache.get(documents[0].url) is None
        kept = [d.url for d in documents if cache.get(d.url) is not None]
        assert kept == [d.url for d in documents[-len(kept) :]], "not the oldest that went first"
    finally:
        cache.close()


def test_size_bound_counts_bytes_not_characters(tmp_path: Path) -> None:
    """`max_bytes` must hold for pages in scripts that take 3 bytes a character in UTF-8."""
    db = tmp_path / "cache.sqlite3"
    cache = PageCache(db, ttl_s=3600, max_bytes=200_000)
    try:
        for i in range(20):
            cache.put(
                quick_document(
                    f"https://pages.example/zh/{i}", "蜜蜂", ["蜜蜂用舞蹈告诉同伴食物在哪里。"] * 1000
                )
            )
        with sqlite3.connect(db) as raw:
            stored = int(raw.execute("SELECT SUM(LENGTH(CAST(document AS BLOB))) FROM pages").fetchone()[0])
        assert stored <= cache.max_bytes, f"{stored} bytes stored under a {cache.max_bytes}-byte bound"
    finally:
        cache.close()


def test_file_on_disk_stays_bounded(tmp_path: Path) -> None:
    """Deleted rows' pages are reused: the file does not grow with the number of pages ever seen."""
    db = tmp_path / "cache.sqlite3"
    bound = 400_000
    cache = PageCache(db, ttl_s=3600, max_bytes=bound)
    try:
        for i in range(300):
            cache.put(quick_document(f"https://pages.example/{i}", str(i), [f"Bees, page {i}."] * 1200))
    finally:
        cache.close()
    on_disk = sum(p.stat().st_size for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite3"))
    # The database itself near the bound, plus the write-ahead log, which SQLite checkpoints at ~4 MB.
    assert db.stat().st_size <= 2 * bound + 256 * 1024, db.stat().st_size
    assert on_disk <= 2 * bound + 8 * 1024 * 1024, on_disk


def test_corrupt_file_is_detected_when_opened(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The module promises: a corrupt file turns the cache off with a warning (not at first read)."""
    caplog.set_level(logging.WARNING, logger="companion.sources.cache")
    db = tmp_path / "cache.sqlite3"
    cache = PageCache(db, ttl_s=3600, max_bytes=10**9)
    for i in range(40):
        cache.put(page(i))
    cache.close()
    with open(db, "r+b") as raw:  # overwrite one b-tree page in the middle of the file
        raw.seek(4096 * 10)
        raw.write(random.Random(3).randbytes(4096))
    assert integrity(db).startswith("*** in database main ***"), integrity(db)  # reported, not raised
    reopened = PageCache(db, ttl_s=3600, max_bytes=10**9)
    try:
        assert not reopened.enabled or integrity(db) == "ok", (
            "the cache opened a file that fails its own quick_check"
        )
        assert reopened.get(page(0).url) is None or reopened.get(page(0).url) == page(0)
    finally:
        reopened.close()


def test_writer_reports_only_after_put(tmp_path: Path) -> None:
    """Sanity check of the harness: a writer that finishes reports exactly what it wrote."""
    db = tmp_path / "cache.sqlite3"
    done = subprocess.run(
        [sys.executable, str(WRITER), str(db), "0", "5"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == [f"https://pages.example/{i}" for i in range(5)]
    assert row_count(db) == 5
