"""The batch audit's journal: what each line of INPUT came to, on disk as soon as it is known.

SQLite in WAL mode with synchronous=FULL, like the page cache (cache.py): an answer reported as
recorded survives a kill -9 or a power cut, and a write cut short leaves the previous state. One
row per line of INPUT, keyed by its position, with the hash of the line's bytes: a resumed run
skips every line already recorded, so no answer is lost and none is judged twice, and a line
that changed since is refused (the journal would otherwise mix two inputs). The run's meta (the
judging code's fingerprint, the models) is checked the same way: cards from two judges never
share one output folder.

Rows are read back in INPUT order, one at a time, so that writing the cards and the report
holds one answer in memory, not the whole run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import CiteLensError

__all__ = ["Entry", "Journal", "JournalMismatch", "Status"]

Status = Literal["done", "malformed", "failed"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    ordinal INTEGER PRIMARY KEY,
    line_hash TEXT NOT NULL,
    origin TEXT NOT NULL,
    status TEXT NOT NULL,
    run INTEGER NOT NULL,
    judged_at TEXT NOT NULL DEFAULT '',
    card TEXT NOT NULL DEFAULT '',
    figures TEXT NOT NULL DEFAULT '',
    error TEXT NOT NULL DEFAULT '',
    field TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS runs (run INTEGER PRIMARY KEY, started_at TEXT NOT NULL, judged INTEGER NOT NULL);
"""


class JournalMismatch(CiteLensError):
    """The output folder holds the journal of another INPUT or another judge."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of INPUT as the journal holds it. `card` is the audit card's JSON text exactly as
    written to cards.jsonl; `figures` the report's per-answer numbers (report.AnswerFigures)."""

    ordinal: int
    line_hash: str
    origin: str  # "file.jsonl:17", for error messages a person can follow
    status: Status
    run: int
    judged_at: str = ""
    card: str = ""
    figures: str = ""
    error: str = ""
    field: str = ""


class Journal:
    def __init__(self, path: Path):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CiteLensError(
                f"cannot make the output folder {path.parent} ({exc.strerror}): give another --out folder"
            ) from None
        self.path = path
        try:
            self._db = sqlite3.connect(path, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._db.commit()
        except sqlite3.Error as exc:
            raise JournalMismatch(
                f"cannot open the journal {path} ({exc}): use another --out folder, or delete this one"
            ) from None
        self.run = 0

    def start_run(self, meta: Mapping[str, str], started_at: str) -> int:
        """Checks that this journal was made by the same judge, and opens a new run in it."""
        stored = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        for key, value in meta.items():
            if key in stored and stored[key] != value:
                raise JournalMismatch(
                    f"{self.path.parent} holds an audit made with another {key} ({stored[key]}, this "
                    f"run has {value}): its cards would mix two judges. Use another --out folder."
                )
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", meta.items())
            cursor = self._db.execute("INSERT INTO runs (started_at, judged) VALUES (?, 0)", (started_at,))
        self.run = int(cursor.lastrowid or 0)
        return self.run

    def recorded(self, ordinal: int, line_hash: str, origin: str) -> Status | None:
        """The status of a line already recorded (a failed line is tried again: None), or None."""
        row = self._db.execute(
            "SELECT line_hash, status FROM answers WHERE ordinal = ?", (ordinal,)
        ).fetchone()
        if row is None:
            return None
        if row[0] != line_hash:
            raise JournalMismatch(
                f"{origin} is not the line this audit recorded at position {ordinal}: INPUT changed "
                f"since the run in {self.path.parent} began. Resume with the same INPUT, or use another "
                "--out folder."
            )
        return None if row[1] == "failed" else row[1]

    def check_holds_at_most(self, lines: int) -> None:
        """Refuses a journal that recorded lines past INPUT's end: INPUT lost lines since."""
        (last,) = self._db.execute("SELECT COALESCE(MAX(ordinal), 0) FROM answers").fetchone()
        if last > lines:
            raise JournalMismatch(
                f"{self.path.parent} holds an audit of {last} lines or more, and INPUT has {lines} now: "
                "INPUT changed since the run began. Resume with the same INPUT, or use another --out folder."
            )

    def record(self, entry: Entry) -> None:
        """Durable on return (synchronous=FULL): a kill -9 after this keeps the answer."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO answers (ordinal, line_hash, origin, status, run, judged_at, card, "
                "figures, error, field) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    entry.ordinal,
                    entry.line_hash,
                    entry.origin,
                    entry.status,
                    self.run,
                    entry.judged_at,
                    entry.card,
                    entry.figures,
                    entry.error,
                    entry.field,
                ),
            )
            if entry.status == "done":
                self._db.execute("UPDATE runs SET judged = judged + 1 WHERE run = ?", (self.run,))

    def entries(self, status: Status | None = None) -> Iterator[Entry]:
        """Rows in INPUT order, one at a time (a cursor, not a list)."""
        query = (
            "SELECT ordinal, line_hash, origin, status, run, judged_at, card, figures, error, field "
            "FROM answers"
        )
        args: tuple[str, ...] = ()
        if status is not None:
            query, args = query + " WHERE status = ?", (status,)
        for row in self._db.execute(query + " ORDER BY ordinal", args):
            yield Entry(*row)

    def problems(self) -> Iterator[tuple[str, str, str, str]]:
        """(origin, status, error, field) of the lines without a card, in INPUT order."""
        yield from self._db.execute(
            "SELECT origin, status, error, field FROM answers WHERE status != 'done' ORDER BY ordinal"
        )

    def counts(self) -> dict[str, int]:
        return {s: n for s, n in self._db.execute("SELECT status, COUNT(*) FROM answers GROUP BY status")}

    def judged_per_run(self) -> dict[int, int]:
        """How many answers each run judged: the check that none was judged twice."""
        return {run: judged for run, judged in self._db.execute("SELECT run, judged FROM runs ORDER BY run")}

    def meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta").fetchall())

    def close(self) -> None:
        self._db.close()
