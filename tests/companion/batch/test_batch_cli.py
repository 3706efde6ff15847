"""`citelens audit-batch` as a script calls it (issue 36 item 6): its exit status and closing line
when lines are malformed, its report's answer list and inaccessible table, and a resume whose
INPUT changed. The real command in its own process, with the real models; pages are inline, and
the one dead link is a private address the fetcher refuses, so nothing leaves the machine."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from ..service.test_cli_errors import citelens

pytestmark = pytest.mark.slow  # the real models

TOWER = "https://a.example/tower?lang=en&v=2"  # an & to escape in report.html
GONE = "http://127.0.0.1:9/gone"
_TOWER_PAGE = (
    "<article><p>The Eiffel Tower is a wrought-iron lattice tower in Paris, France.</p><p>The tower is "
    "repainted every seven years; about 60 tonnes of paint are used, in a shade called Eiffel Tower "
    "brown.</p></article>"
)


def _answer() -> str:
    # The first sentence is no support far from every bar (test_cli_report.UNSUPPORTED).
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
    # Each statement with the page it cites, the passage quoted and why, escaped.
    assert html.escape(TOWER) in answers and TOWER not in report
    assert "closest passage" in answers and "The tower is repainted every seven years" in answers
    assert "the model does not read the source as saying it" in answers
    assert GONE in answers and "blocked address" in answers
    # The inaccessible table names the pages behind each reason.
    reasons = report[report.index("<h2 id='reasons'>") : report.index("<h2 id='problems'>")]
    assert GONE in reasons


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
