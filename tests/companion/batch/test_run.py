"""`citelens audit-batch` (batch/run.py): its INPUT reading (streamed, bounded), its journal
(resume, refusals) and progress line; then the real command in its own process."""

from __future__ import annotations

import hashlib
import html
import io
import json
import re
import tracemalloc
from pathlib import Path

import pytest

from companion.batch.journal import Entry, Journal, JournalMismatch
from companion.batch.run import (
    BatchOptions,
    InputLine,
    Progress,
    batch_result_id,
    comparable_card,
    input_files,
    read_input,
)
from companion.errors import CiteLensError

from ..service.test_cli import citelens


def test_lines_are_numbered_across_files_in_name_order_and_blank_lines_skipped(tmp_path: Path):
    (tmp_path / "b.jsonl").write_text('{"b": 1}\n', encoding="utf-8")
    (tmp_path / "a.jsonl").write_text('{"a": 1}\n\n   \n{"a": 2}\r\n', encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not input\n", encoding="utf-8")
    lines = list(read_input(input_files(tmp_path), 1024))
    assert [(x.ordinal, x.origin, x.text) for x in lines] == [
        (1, "a.jsonl:1", '{"a": 1}'),
        (2, "a.jsonl:4", '{"a": 2}'),
        (3, "b.jsonl:1", '{"b": 1}'),
    ]
    assert lines[1].line_hash == hashlib.sha256(b'{"a": 2}').hexdigest()  # without the \r\n


def test_a_missing_or_empty_input_is_said_in_words(tmp_path: Path):
    with pytest.raises(CiteLensError, match="does not exist"):
        input_files(tmp_path / "nope.jsonl")
    with pytest.raises(CiteLensError, match=r"no \.jsonl file"):
        input_files(tmp_path)


def test_a_huge_line_is_refused_without_being_held_in_memory(tmp_path: Path):
    path = tmp_path / "in.jsonl"
    with path.open("wb") as out:
        out.write(b'{"first": true}\n')
        out.write(b'{"answer": {"text": "' + b"x" * (40 * 1024 * 1024) + b'"}}\n')
        out.write(b"\xff\xfe not utf-8\n")
        out.write(b'{"last": true}\n')
    tracemalloc.start()
    try:
        lines = list(read_input([path], BatchOptions().max_line_bytes))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"reading held {peak / 1e6:.0f} MB for a 40 MB line"
    assert [x.ordinal for x in lines] == [1, 2, 3, 4]
    assert lines[1].error.startswith("the line is larger than a /v1/verify body may be (1024 KiB)")
    assert lines[2].error == "not UTF-8 text (byte 1 of the line)"
    assert lines[3].text == '{"last": true}' and not lines[3].error


def test_the_journal_resumes_refuses_a_changed_input_or_judge_and_counts_runs(tmp_path: Path):
    journal = Journal(tmp_path / "journal.sqlite3")
    journal.start_run({"judging code": "aaa"}, "t1")
    journal.record(Entry(1, "h1", "in.jsonl:1", "done", 0, card="{}"))
    journal.record(Entry(2, "h2", "in.jsonl:2", "malformed", 0, error="bad"))
    journal.record(Entry(3, "h3", "in.jsonl:3", "failed", 0, error="boom"))
    journal.close()

    journal = Journal(tmp_path / "journal.sqlite3")
    with pytest.raises(JournalMismatch, match="another judging code"):
        journal.start_run({"judging code": "bbb"}, "t2")
    assert journal.start_run({"judging code": "aaa"}, "t2") == 2
    assert journal.recorded(1, "h1", "in.jsonl:1") == "done"
    assert journal.recorded(2, "h2", "in.jsonl:2") == "malformed"
    assert journal.recorded(3, "h3", "in.jsonl:3") is None  # a failed answer is tried again
    assert journal.recorded(4, "h4", "in.jsonl:4") is None
    with pytest.raises(JournalMismatch, match=r"in.jsonl:1 is not the line this audit recorded"):
        journal.recorded(1, "changed", "in.jsonl:1")
    journal.record(Entry(3, "h3", "in.jsonl:3", "done", 0, card="{}"))
    assert journal.judged_per_run() == {1: 1, 2: 1}
    assert [e.ordinal for e in journal.entries("done")] == [1, 3]
    assert journal.counts() == {"done": 2, "malformed": 1}
    journal.close()


def test_result_ids_follow_the_line_and_comparison_sets_aside_only_the_run_fields():
    line = InputLine(7, "in.jsonl:9", "ab" * 32, "{}")
    assert batch_result_id(line) == "b_7_" + "ab" * 8
    card = {
        "provenance": {"verdicts": "companion", "result_id": "b_7", "judged_at": "2026-12-01T10:00:00Z"},
        "summary": {"elapsed_ms": 812, "counts": {"no_support": 1}},
        "cards": [],
    }
    later = json.loads(json.dumps(card))
    later["provenance"]["judged_at"], later["summary"]["elapsed_ms"] = "2026-12-02T00:00:00Z", 90
    assert comparable_card(json.dumps(card)) == comparable_card(json.dumps(later))
    later["summary"]["counts"]["no_support"] = 2
    assert comparable_card(json.dumps(card)) != comparable_card(json.dumps(later))


def test_the_progress_line_has_a_bar_the_rate_and_the_time_left():
    out = io.StringIO()
    progress = Progress(200, 50, BatchOptions(), out)
    progress._started -= 360  # test-only: as if it had run 6 minutes
    for _ in range(30):
        progress.advance(Entry(1, "h", "x:1", "done", 0))
    progress.advance(Entry(2, "h", "x:2", "malformed", 0))
    line = progress.line(progress._started + 360)
    assert line.startswith("[" + "#" * 10)
    assert "81/200 answers 40 %" in line and "310 answers/h" in line and "23 min left" in line
    assert "1 without a card" in line


def test_the_progress_line_never_says_more_than_all():
    """Issue 36 item 6.6: a journal holding more than INPUT showed "7/5 answers 140 %"."""
    progress = Progress(5, 7, BatchOptions(), io.StringIO())
    line = progress.line(progress._started + 60)
    assert "5/5 answers 100 %" in line and "140" not in line


# `citelens audit-batch` as a script calls it (issue 36 item 6): its exit status and closing line
# when lines are malformed, its report's answer list and inaccessible table, and a resume whose
# INPUT changed. The real command in its own process, with the real models; pages are inline, and
# the one dead link is a private address the fetcher refuses, so nothing leaves the machine.


TOWER = "https://a.example/tower?lang=en&v=2"  # an & to escape in report.html
GONE = "http://127.0.0.1:9/gone"
_TOWER_PAGE = (
    "<article><p>The Eiffel Tower is a wrought-iron lattice tower in Paris, France.</p><p>The tower is "
    "repainted every seven years; about 60 tonnes of paint are used, in a shade called Eiffel Tower "
    "brown.</p></article>"
)


def _answer() -> str:
    # The first sentence is no support far from every bar (UNSUPPORTED in service/test_cli.py).
    text = "The tower was painted bright red by volunteers in 2015. It opened in 1889."
    first = text.index("2015.") + len("2015.")
    return json.dumps(
        {
            "page": {"url": "https://www.perplexity.ai/search/tower", "engine": "perplexity"},
            "answer": {"text": text},
            "citations": [
                {"id": "c1", "marker": "1", "url": TOWER, "offset": first},
                {"id": "c2", "marker": "2", "url": GONE, "offset": len(text)},
            ],
            "sources": {TOWER: {"html": _TOWER_PAGE}},
        }
    )


@pytest.mark.slow
def test_malformed_lines_end_the_run_with_status_2_and_a_closing_line(tmp_path: Path):
    inputs, out = tmp_path / "answers.jsonl", tmp_path / "out"
    inputs.write_text(_answer() + "\n" + '{"answer": {"text": "cut off\n', encoding="utf-8")
    done = citelens("audit-batch", str(inputs), "--out", str(out), state=tmp_path / "state")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0] == (
        "2 lines: 1 answer judged in this run, 0 already in the journal, 1 malformed, 0 failed "
        "(tried again next run)"
    )
    assert lines[-1] == f"1 of 2 input lines was malformed (see {out / 'errors.csv'})"

    report = (out / "report.html").read_text(encoding="utf-8")
    answers = report[report.index("<h2 id='answers'>") :]
    # Each statement with the page it cites, what it quotes (issue 58: no passage for a source that
    # supports nothing of it) and why, escaped.
    assert html.escape(TOWER) in answers and TOWER not in report
    assert "no passage of this source supports it" in answers and "<q>" not in answers
    assert "the model does not read the source as saying it" in answers
    assert GONE in answers and "blocked address" in answers
    # The inaccessible table names the pages behind each reason.
    reasons = report[report.index("<h2 id='reasons'>") : report.index("<h2 id='problems'>")]
    assert GONE in reasons


@pytest.mark.slow
def test_a_resume_whose_input_changed_is_refused_before_any_progress(tmp_path: Path):
    inputs, out, state = tmp_path / "answers.jsonl", tmp_path / "out", tmp_path / "state"
    inputs.write_text("not json 1\nnot json 2\nnot json 3\n", encoding="utf-8")
    first = citelens("audit-batch", str(inputs), "--out", str(out), state=state)
    assert "3 malformed" in first.stdout, first.stderr[-2000:]
    inputs.write_text("other 1\nother 2\n", encoding="utf-8")
    again = citelens("audit-batch", str(inputs), "--out", str(out), state=state)
    assert again.returncode == 1
    assert not re.search(r"\d+/\d+ answers", again.stderr), again.stderr
    assert again.stderr.strip().splitlines() == [
        f"citelens: answers.jsonl:1 is not the line this audit recorded at position 1: INPUT changed "
        f"since the run in {out} began. Resume with the same INPUT, or use another --out folder."
    ]
