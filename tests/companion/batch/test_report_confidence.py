"""Complete support read with low confidence (api.md `confidence`, issue 58) has its own place in
the batch report (issue 60 item 6): a "likely supported" share beside "fully supported", so the
shares still sum to the statements, in summary.csv, report.html's tables and each answer's
entry. A journal or result without `confidence` reads as the sure kind."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from companion.batch.report import AnswerFigures, compute_groups, write_html, write_summary_csv
from companion.records import PageInfo


def _statement(judgment: str, confidence: str | None = None, *, contradicted: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {
        "text": f"a {judgment} {confidence or ''} statement",
        "judgment": judgment,
        "contradicted": contradicted,
        "language": "en",
        "per_citation": [{"judgment": judgment, "irrelevant": False, "url": "https://src.example/a"}],
    }
    if confidence is not None:
        line["confidence"] = confidence
    return line


def _answer(k: int, statements: list[dict[str, Any]]) -> AnswerFigures:
    counts: dict[str, int] = {}
    for s in statements:
        counts[s["judgment"]] = counts.get(s["judgment"], 0) + 1
    result = {
        "statements": statements,
        "sources": [{"url": "https://src.example/a", "status": "ok"}],
        "summary": {
            "counts": counts,
            "computed_over": {"statements": len(statements), "citations": len(statements)},
        },
    }
    return AnswerFigures.from_result(
        k, f"in.jsonl:{k}", PageInfo(url=f"https://e.example/{k}", engine="e"), result
    )


ANSWERS = [
    _answer(1, [_statement("complete_support", "high"), _statement("complete_support", "low")]),
    _answer(2, [_statement("complete_support"), _statement("no_support", contradicted=True)]),
    _answer(3, [_statement("complete_support", "low"), _statement("partial_support")]),
]


def _figures() -> dict[str, Any]:
    [group, _language] = compute_groups(lambda: iter(ANSWERS))
    return group.figures


def test_likely_supported_is_its_own_share_and_the_shares_sum_to_the_statements():
    figures = _figures()
    assert (figures["complete_support"].numerator, figures["complete_support"].denominator) == (2, 6)
    assert (figures["likely_supported"].numerator, figures["likely_supported"].denominator) == (2, 6)
    parts = (
        "complete_support",
        "likely_supported",
        "partial_support",
        "no_support",
        "inaccessible",
        "not_checked",
        "no_citation",
    )
    assert sum(figures[k].numerator for k in parts) == 6
    # ALCE recall still counts every complete support: confidence is what the reader is told.
    assert figures["citation_recall"].numerator == 4


def test_summary_csv_and_report_html_name_likely_supported(tmp_path: Path):
    groups = compute_groups(lambda: iter(ANSWERS))
    write_summary_csv(groups, tmp_path / "summary.csv")
    with (tmp_path / "summary.csv").open(encoding="utf-8") as stream:
        rows = [r for r in csv.DictReader(stream) if r["measure"] == "likely_supported" and not r["language"]]
    assert [(r["label"], r["numerator"], r["denominator"]) for r in rows] == [
        ("likely supported (check the quote)", "2", "6")
    ]
    write_html(groups, lambda: iter(ANSWERS), [], tmp_path / "report.html", title="t", facts=[])
    text = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<th>likely supported (check the quote)</th>" in text
    # Answer 1's entry: one sure, one likely, each badge saying which.
    entry = text[text.index("id='a-1'") : text.index("id='a-2'")]
    assert "1 fully supported, 1 likely supported (check the quote)" in entry
    assert entry.count(">likely supported (check the quote)</span>") == 1
    assert entry.count(">fully supported</span>") == 1


def test_a_journal_line_written_before_confidence_reads_as_sure():
    old = AnswerFigures.from_json(ANSWERS[1].to_json())
    assert old.likely == 0 and not any(line.likely for line in old.lines)
    again = AnswerFigures.from_json(ANSWERS[0].to_json())
    assert again.likely == 1 and [line.likely for line in again.lines] == [False, True]
