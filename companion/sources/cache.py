"""An on-disk cache of extracted pages, so a second check of the same page fetches nothing.

SQLite in WAL mode with synchronous=FULL: an entry reported as written survives a kill -9 or a
power cut, and a write cut short leaves the previous state, never a corrupt file. Entries expire
after a TTL and the oldest go first when the size bound is passed. Any disk trouble (full disk,
unreadable or corrupt file) turns the cache off with a warning: checking goes on without it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path

from ..records import Document, Sentence
from ..versions import EXTRACTION_MODULES, code_fingerprint

__all__ = ["PageCache"]

log = logging.getLogger(__name__)

# Entries carry the fingerprint of the code that extracted and split them: sentence spans made by
# another extractor or segmenter would outlive the change without a word. _FORMAT is the layout
# of the stored JSON.
_FORMAT = 5  # 3: sentences carry their PDF page; 4: the page's language; 5: source line breaks are spaces
_VERSION = f"{code_fingerprint(EXTRACTION_MODULES)}/{_FORMAT}"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    stored_at REAL NOT NULL,
    size INTEGER NOT NULL,
    document TEXT NOT NULL
)
"""


class PageCache:
    def __init__(self, path: Path, *, ttl_s: float, max_bytes: int):
        self.path = path
        self.ttl_s = ttl_s
        self.max_bytes = max_bytes
        self.disabled_reason = ""
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, timeout=5)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(_SCHEMA)
            check = self._db.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"quick_check failed: {str(check)[:200]}")
            self._db.commit()
        except (sqlite3.Error, OSError) as exc:
            self._disable(f"cannot open {path}: {exc}")

    @property
    def enabled(self) -> bool:
        return self._db is not None

    def get(self, url: str) -> Document | None:
        with self._lock:
            if self._db is None:
                return None
            try:
                row = self._db.execute(
                    "SELECT stored_at, document FROM pages WHERE url = ?", (url,)
                ).fetchone()
            except sqlite3.Error as exc:
                self._disable(f"read failed: {exc}")
                return None
        if row is None or time.time() - row[0] > self.ttl_s:
            return None
        try:
            return _decode(row[1])
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, document: Document) -> bool:
        """Stores the page; True once it is durably on disk."""
        blob = _encode(document)
        with self._lock:
            if self._db is None:
                return False
            try:
                with self._db:
                    self._db.execute(
                        "INSERT OR REPLACE INTO pages (url, stored_at, size, document) VALUES (?, ?, ?, ?)",
                        (document.url, time.time(), len(blob.encode("utf-8")), blob),
                    )
                    self._evict()
                return True
            except UnicodeEncodeError:  # a lone surrogate: this page only, the cache stays on
                return False
            except sqlite3.Error as exc:
                self._disable(f"write failed: {exc}")
                return False

    def _evict(self) -> None:
        assert self._db is not None
        self._db.execute("DELETE FROM pages WHERE stored_at < ?", (time.time() - self.ttl_s,))
        total = self._db.execute("SELECT COALESCE(SUM(size), 0) FROM pages").fetchone()[0]
        if total > self.max_bytes:
            # Oldest first, until the bound holds again (a few rows; pages are far below the bound).
            rows = self._db.execute("SELECT url, size FROM pages ORDER BY stored_at").fetchall()
            for url, size in rows:
                if total <= self.max_bytes:
                    break
                self._db.execute("DELETE FROM pages WHERE url = ?", (url,))
                total -= size

    def _disable(self, reason: str) -> None:
        self.disabled_reason = reason
        log.warning("page cache turned off, pages will be fetched every time: %s", reason)
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
        self._db = None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _encode(document: Document) -> str:
    return json.dumps(
        {
            "version": _VERSION,
            "url": document.url,
            "title": document.title,
            "text": document.text,
            "spans": [[s.start, s.end] for s in document.sentences],
            "pages": [s.page for s in document.sentences],
            "language": document.language,
        },
        ensure_ascii=False,
    )


def _decode(blob: str) -> Document:
    raw = json.loads(blob)
    if raw.get("version") != _VERSION:
        raise ValueError(f"made by another extractor ({raw.get('version')}); read the page again")
    text = raw["text"]
    pages = raw.get("pages") or [None] * len(raw["spans"])
    spans = zip(raw["spans"], pages, strict=True)
    sentences = tuple(Sentence(text[a:b], a, b, page) for (a, b), page in spans)
    return Document(
        url=raw["url"], title=raw["title"], text=text, sentences=sentences, language=raw["language"]
    )
