"""`citelens audit-batch`: many captured answers through the same pipeline, resumable, in order.

INPUT is a JSON Lines file, or a folder of them, of /v1/verify request bodies (the extension's
"Save this answer for a batch audit" writes one). Lines are read as a stream and numbered across
the files in name order; each becomes one audit card, exactly the one /v1/audit gives for the
same body, or one listed error (a malformed line never stops the run).

    read INPUT → journal lookup (skip what is recorded) → audit_line (parse, verify, card) → journal
    → at the end: cards.jsonl in INPUT order, errors.csv, summary.csv, report.html (report.py)

The journal (journal.py) is written as each answer is done: a crash or a kill -9 loses only the
answers in flight, and running the same command again judges the rest, none twice. At most
`BatchOptions.in_flight` answers are held in memory, whatever INPUT's size. Run-dependent fields
of a card (docs/batch.md "Which cards are identical"): `result_id` is derived from the line's
position and bytes, so it is the same in every run, on one machine or on Ray; `judged_at` and
`summary.elapsed_ms` say when and how fast this run judged it, and are the only fields that differ.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TextIO

from .. import __version__
from ..config import Limits, Settings
from ..errors import CiteLensError, RequestInvalid
from ..judging.judges import model_dirs
from ..model.folder import load_config
from ..runtime import Runtime
from ..versions import JUDGE_MODULES, code_fingerprint
from ..wire.capture import parse_request
from ..wire.export import audit_export, collect, companion_provenance
from ..wire.results import judged_now
from .journal import Entry, Journal
from .report import AnswerFigures, compute_groups, write_html, write_summary_csv
from .words import counted

__all__ = [
    "RUN_FIELDS",
    "BatchOptions",
    "BatchStats",
    "InputLine",
    "Progress",
    "audit_line",
    "batch_result_id",
    "close_run",
    "comparable_card",
    "finish",
    "input_files",
    "read_input",
    "run_batch",
    "run_meta",
    "start_run",
]

log = logging.getLogger(__name__)

# The card fields that describe the run rather than the verdicts (docs/batch.md): set aside when
# two runs' cards are compared. result_id is not among them: a batch derives it from the line.
RUN_FIELDS: Final = (("provenance", "judged_at"), ("summary", "elapsed_ms"))


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """How a batch runs. Not in config.py: that module is part of the judging code's fingerprint
    (versions.py), and nothing here changes what a card says."""

    # Answers in flight in one process: one being judged (the model has one thread of work,
    # runtime.py), the others fetching their pages meanwhile. Each holds its pages in memory, so
    # this is also what bounds memory.
    in_flight: int = 4
    # A line longer than a /v1/verify body may be is refused as /v1/verify refuses it (413).
    max_line_bytes: int = Limits().max_body_bytes
    # How often the progress line is rewritten on a terminal, and printed when not on one.
    progress_tty_s: float = 0.5
    progress_log_s: float = 30.0


@dataclass(frozen=True, slots=True)
class InputLine:
    ordinal: int  # 1-based, across INPUT's files in name order
    origin: str  # "answers.jsonl:17"
    line_hash: str  # SHA-256 of the line's bytes, line end removed
    text: str  # the line; "" when `error` says why it could not be read
    error: str = ""


@dataclass
class BatchStats:
    total: int = 0  # non-blank lines in INPUT
    recorded_before: int = 0  # lines already in the journal when this run began
    judged: int = 0  # answers this run judged
    malformed: int = 0  # lines this run found malformed
    failed: int = 0  # answers this run could not finish (tried again on resume)
    malformed_in_journal: int = 0  # malformed lines of INPUT, this run's and earlier runs'
    outputs: dict[str, Path] = field(default_factory=dict)


def input_files(path: Path) -> list[Path]:
    """INPUT's files: the file itself, or the folder's *.jsonl files in name order."""
    if path.is_file():
        return [path]
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix == ".jsonl")
        if not files:
            raise CiteLensError(f"{path} holds no .jsonl file: give a JSON Lines file or a folder of them")
        return files
    raise CiteLensError(f"{path} does not exist: give a JSON Lines file of /v1/verify bodies, or a folder")


def read_input(files: Sequence[Path], max_line_bytes: int) -> Iterator[InputLine]:
    """Every non-blank line, one at a time; a line is never read past `max_line_bytes`."""
    ordinal = 0
    for path in files:
        with path.open("rb") as stream:
            number = 0
            while True:
                raw = stream.readline(max_line_bytes + 1)
                if not raw:
                    break
                number += 1
                error = ""
                if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                    digest = hashlib.sha256(raw)
                    while raw and not raw.endswith(b"\n"):  # the rest of the line, never held whole
                        raw = stream.readline(1024 * 1024)
                        digest.update(raw.rstrip(b"\r\n"))
                    error = f"the line is larger than a /v1/verify body may be ({max_line_bytes // 1024} KiB)"
                    line_hash, text = digest.hexdigest(), ""
                else:
                    stripped = raw.rstrip(b"\r\n")
                    if not stripped.strip():
                        continue
                    line_hash = hashlib.sha256(stripped).hexdigest()
                    try:
                        text = stripped.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        text, error = "", f"not UTF-8 text (byte {exc.start + 1} of the line)"
                ordinal += 1
                yield InputLine(ordinal, f"{path.name}:{number}", line_hash, text, error)


def _checked_total(files: Sequence[Path], journal: Journal, options: BatchOptions) -> int:
    """INPUT's non-blank lines, each one the journal holds checked against it first: a changed
    INPUT is refused before any progress is shown, which would otherwise count the old INPUT's
    answers against the new one's lines ("7/5 answers 140 %")."""
    total = 0
    for line in read_input(files, options.max_line_bytes):
        journal.recorded(line.ordinal, line.line_hash, line.origin)  # raises JournalMismatch
        total = line.ordinal
    journal.check_holds_at_most(total)
    return total


def batch_result_id(line: InputLine) -> str:
    """The card's result id: the same for the same line at the same place, in every run."""
    return f"b_{line.ordinal}_{line.line_hash[:16]}"


def run_meta(settings: Settings) -> dict[str, str]:
    """What must not change between a run and its resume: the judge and its models."""
    models = [load_config(d) for d in model_dirs(settings.model_dir)]
    return {
        "citelens": __version__,
        "judging code": code_fingerprint(JUDGE_MODULES),
        "models": ", ".join(f"{m.name} {m.version}" for m in models),
    }


async def audit_line(runtime: Runtime, line: InputLine) -> Entry:
    """One line of INPUT → its journal entry: the card, or why there is none."""

    def problem(status: Any, error: str, fld: str = "") -> Entry:
        return Entry(line.ordinal, line.line_hash, line.origin, status, 0, error=error, field=fld)

    if line.error:
        return problem("malformed", line.error)
    try:
        body = json.loads(line.text)
    except json.JSONDecodeError as exc:
        return problem("malformed", f"not valid JSON: {exc.msg} at column {exc.colno}")
    try:
        request = parse_request(body, runtime.settings.limits)
    except RequestInvalid as exc:
        return problem("malformed", f"invalid request: {exc.message}", exc.field)
    result_id = batch_result_id(line)
    try:
        result = await collect(runtime.verifier.run(request), runtime.model, result_id, units=request.units)
    except CiteLensError as exc:
        return problem("failed", str(exc))
    except Exception as exc:  # a bug or a page nobody foresaw: this answer only, the run goes on
        log.exception("could not check %s", line.origin)
        return problem("failed", f"internal error ({type(exc).__name__}); see the log")
    judged_at = judged_now()
    # As server.py's /v1/audit does, with the batch's own result id (see the module docstring).
    card = audit_export(
        request.page,
        result,
        runtime.model,
        runtime.judges.configs,
        provenance=companion_provenance(result_id, judged_at),
    )
    figures = AnswerFigures.from_result(line.ordinal, line.origin, request.page, result)
    # json.dumps' defaults are aiohttp's json_response's: a line is /v1/audit's body, byte for byte.
    return Entry(
        line.ordinal,
        line.line_hash,
        line.origin,
        "done",
        0,
        judged_at=judged_at,
        card=json.dumps(card),
        figures=figures.to_json(),
    )


def comparable_card(card_line: str) -> str:
    """A card with its RUN_FIELDS set aside: what two runs' cards are compared by."""
    card = json.loads(card_line)
    for outer, inner in RUN_FIELDS:
        card.get(outer, {}).pop(inner, None)
    return json.dumps(card, sort_keys=True)


class Progress:
    """One line on stderr: a bar, done / total, the rate, the time left, the problems so far."""

    def __init__(self, total: int, done: int, options: BatchOptions, out: TextIO = sys.stderr):
        self.total, self.done, self.start_done = total, done, done
        self.problems = 0
        self._out = out
        self._tty = out.isatty()
        self._every = options.progress_tty_s if self._tty else options.progress_log_s
        self._started = time.monotonic()
        self._shown = 0.0

    def advance(self, entry: Entry | None = None, *, force: bool = False) -> None:
        if entry is not None:
            self.done += 1
            self.problems += entry.status != "done"
        now = time.monotonic()
        if force or now - self._shown >= self._every:
            self._shown = now
            end = "\r" if self._tty and not force else "\n"
            self._out.write(self.line(now) + end)
            self._out.flush()

    def note(self, text: str) -> None:
        """A message above the bar (on a terminal the bar's line is cleared first)."""
        self._out.write(("\r\x1b[K" if self._tty else "") + text + "\n")
        self._out.flush()

    def line(self, now: float) -> str:
        share = min(1.0, self.done / self.total) if self.total else 1.0
        bar = "#" * round(24 * share) + "-" * (24 - round(24 * share))
        hours = (now - self._started) / 3600
        rate = (self.done - self.start_done) / hours if hours > 0 else 0.0
        left = (self.total - self.done) / rate * 3600 if rate > 0 else None
        problems = f" · {self.problems} without a card" if self.problems else ""
        return (
            f"[{bar}] {min(self.done, self.total)}/{self.total} answers {100 * share:.0f} % · "
            f"{rate:.0f} answers/h · "
            f"{_duration(left)} left{problems}"
        )


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "? min"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def pending_lines(
    files: Sequence[Path], journal: Journal, options: BatchOptions, stats: BatchStats
) -> Iterator[InputLine]:
    """The lines the journal does not hold yet (a changed line stops the run: JournalMismatch)."""
    for line in read_input(files, options.max_line_bytes):
        if journal.recorded(line.ordinal, line.line_hash, line.origin) is not None:
            stats.recorded_before += 1
            continue
        yield line


def record(journal: Journal, entry: Entry, stats: BatchStats, progress: Progress) -> None:
    journal.record(entry)
    if entry.status == "done":
        stats.judged += 1
    else:
        stats.malformed += entry.status == "malformed"
        stats.failed += entry.status == "failed"
        where = f" (field {entry.field})" if entry.field else ""
        progress.note(f"{entry.origin}: {entry.status}: {entry.error}{where}")
    progress.advance(entry)


def start_run(
    journal: Journal, settings: Settings, files: Sequence[Path], options: BatchOptions
) -> tuple[BatchStats, Progress]:
    """What every run starts with, here or on Ray: the run recorded in the journal (which refuses
    other judging code), the counts, and the progress bar, shown at once since the models take
    seconds to load."""
    journal.start_run(run_meta(settings), judged_now())
    stats = BatchStats(total=_checked_total(files, journal, options))
    progress = Progress(stats.total, sum(journal.counts().get(s, 0) for s in ("done", "malformed")), options)
    progress.advance()
    return stats, progress


async def run_batch(
    settings: Settings, inputs: Path, out: Path, options: BatchOptions = BatchOptions()
) -> BatchStats:
    """The single-process run: one Runtime, `options.in_flight` answers at a time."""
    files = input_files(inputs)
    journal = Journal(out / "journal.sqlite3")
    try:
        stats, progress = start_run(journal, settings, files, options)
        async with Runtime(settings) as runtime:
            running: set[asyncio.Task[Entry]] = set()
            for line in pending_lines(files, journal, options, stats):
                while len(running) >= options.in_flight:
                    finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                    for task in finished:
                        record(journal, task.result(), stats, progress)
                running.add(asyncio.ensure_future(audit_line(runtime, line)))
            while running:
                finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    record(journal, task.result(), stats, progress)
        close_run(journal, out, inputs, stats, progress)
        return stats
    finally:
        journal.close()


def close_run(journal: Journal, out: Path, inputs: Path, stats: BatchStats, progress: Progress) -> None:
    """What every run ends with, here or on Ray: the bar at its end, the outputs written, and
    the malformed lines of the whole journal counted for the exit status (cli.audit_batch)."""
    progress.advance(force=True)
    stats.outputs = finish(journal, out, inputs)
    stats.malformed_in_journal = journal.counts().get("malformed", 0)


def finish(journal: Journal, out: Path, inputs: Path) -> dict[str, Path]:
    """cards.jsonl (INPUT order), errors.csv, summary.csv and report.html, from the journal alone.

    Each is written beside its final name and moved over it, so a kill while writing leaves the
    previous file whole, and running the command again writes them again."""
    paths = {name: out / name for name in ("cards.jsonl", "errors.csv", "summary.csv", "report.html")}
    with _replacing(paths["cards.jsonl"]) as tmp, tmp.open("w", encoding="utf-8") as cards:
        for entry in journal.entries("done"):
            cards.write(entry.card + "\n")
    problems = list(journal.problems())
    with _replacing(paths["errors.csv"]) as tmp, tmp.open("w", encoding="utf-8", newline="") as errors:
        writer = csv.writer(errors)
        writer.writerow(("line", "status", "error", "field"))
        writer.writerows(problems)

    def figures(lines: bool) -> Callable[[], Iterator[AnswerFigures]]:
        return lambda: (AnswerFigures.from_json(e.figures, lines=lines) for e in journal.entries("done"))

    groups = compute_groups(figures(False))
    with _replacing(paths["summary.csv"]) as tmp:
        write_summary_csv(groups, tmp)
    counts = journal.counts()
    meta = journal.meta()
    facts = [
        ("input", str(inputs)),
        (
            "answers",
            f"{counts.get('done', 0)} judged, {counted(counts.get('malformed', 0), 'malformed line')}, "
            f"{counts.get('failed', 0)} failed",
        ),
        ("judge", f"CiteLens {meta.get('citelens', '?')}, judging code {meta.get('judging code', '?')}"),
        ("models", meta.get("models", "?")),
    ]
    with _replacing(paths["report.html"]) as tmp:
        write_html(groups, figures(True), problems, tmp, title="CiteLens batch audit", facts=facts)
    return paths


class _replacing:
    """A temporary path beside `path`, moved over it when the block ends without an error."""

    def __init__(self, path: Path):
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")

    def __enter__(self) -> Path:
        return self.tmp

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)
