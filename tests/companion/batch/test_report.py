"""The batch report's figures against a count by hand, its intervals, summary.csv and report.html."""

from __future__ import annotations

import csv
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.batch.report import (
    AnswerFigures,
    compute_groups,
    reason_category,
    write_html,
    write_summary_csv,
)
from companion.records import PageInfo


def _statement(
    judgment: str, per: list[tuple[str, bool]] = (), *, contradicted: bool = False
) -> dict[str, Any]:
    return {
        "text": f"a {judgment} statement",
        "judgment": judgment,
        "contradicted": contradicted,
        "language": "en",
        "per_citation": [
            {"judgment": j, "irrelevant": irr, "url": f"https://src.example/{j}"} for j, irr in per
        ],
    }


def _result(
    statements: list[dict[str, Any]], sources: list[tuple[str, str]], **summary: Any
) -> dict[str, Any]:
    counts = {
        j: 0 for j in ("complete_support", "partial_support", "no_support", "inaccessible", "no_citation")
    }
    for s in statements:
        counts[s["judgment"]] += 1
    return {
        "statements": statements,
        "sources": [{"url": u, "status": "ok" if not r else "inaccessible", "reason": r} for u, r in sources],
        "summary": {"counts": counts, **summary},
    }


# Ten answers of two engines, each figure counted by hand in the comments of EXPECTED.
def _answers() -> list[AnswerFigures]:
    c, p, n, i, u = "complete_support", "partial_support", "no_support", "inaccessible", "no_citation"
    plans = [
        # engine, statements, sources (url, reason), misplaced, computed_over (statements, citations)
        (
            "alpha",
            [_statement(c, [(c, False)]), _statement(n, [(n, False)], contradicted=True), _statement(u)],
            [("a", ""), ("b", "")],
            0,
            (2, 2),
        ),
        (
            "alpha",
            [_statement(c, [(c, False), (n, True)]), _statement(p, [(p, False)])],
            [("a", "")],
            1,
            (2, 3),
        ),
        (
            "alpha",
            [_statement(i, [(i, False)]), _statement(c, [(c, False)])],
            [("x", "http 404 (page not found)"), ("a", "")],
            0,
            (1, 1),
        ),
        ("alpha", [_statement(u), _statement(u)], [], 0, (0, 0)),
        ("alpha", [_statement(c, [(c, False)])], [("a", "")], 0, (1, 1)),
        ("beta", [_statement(n, [(n, False)]), _statement(n, [(n, False)])], [("a", "")], 2, (2, 2)),
        ("beta", [_statement(i, [(i, False)])], [("y", "timeout (the site took too long)")], 0, (0, 0)),
        (
            "beta",
            [_statement(c, [(c, False), (i, False)])],
            [("a", ""), ("z", "http 404 (page not found)")],
            0,
            (1, 1),
        ),
        ("beta", [_statement(p, [(p, False)], contradicted=True)], [("a", "")], 0, (1, 1)),
        ("beta", [_statement(c, [(c, False)]), _statement(u)], [("a", "")], 0, (1, 1)),
    ]
    answers = []
    for k, (engine, statements, sources, misplaced, (over_s, over_c)) in enumerate(plans, start=1):
        result = _result(
            statements,
            sources,
            misplaced_citations=misplaced,
            computed_over={"statements": over_s, "citations": over_c, "block_cited": 0},
        )
        page = PageInfo(url=f"https://{engine}.example/{k}", engine=engine, query=f"question {k}")
        answers.append(AnswerFigures.from_result(k, f"in.jsonl:{k}", page, result))
    return answers


EXPECTED = {
    # alpha: 10 statements (3 + 2 + 2 + 2 + 1); beta: 7 (2 + 1 + 1 + 1 + 2)
    ("alpha", "complete_support"): (4, 10),  # answers 1, 2, 3, 5
    ("alpha", "partial_support"): (1, 10),
    ("alpha", "no_support"): (1, 10),
    ("alpha", "contradicted"): (1, 10),
    ("alpha", "inaccessible"): (1, 10),
    ("alpha", "no_citation"): (3, 10),  # 1 in answer 1, 2 in answer 4
    ("alpha", "citation_recall"): (4, 6),  # the complete ones over computed_over 2 + 2 + 1 + 0 + 1
    ("alpha", "citation_precision"): (4, 7),  # 1 + 1 (the irrelevant one is not) + 1 + 1 over 2+3+1+0+1
    ("alpha", "misplaced"): (1, 10),
    ("alpha", "reason:http 404"): (1, 1),
    ("beta", "complete_support"): (2, 7),
    ("beta", "no_support"): (2, 7),
    ("beta", "contradicted"): (1, 7),
    ("beta", "inaccessible"): (1, 7),
    ("beta", "no_citation"): (1, 7),
    ("beta", "citation_recall"): (2, 5),
    ("beta", "citation_precision"): (2, 5),  # answer 8's inaccessible citation is not counted
    ("beta", "misplaced"): (2, 7),
    ("beta", "reason:http 404"): (1, 2),
    ("beta", "reason:timeout"): (1, 2),
    ("all engines", "complete_support"): (6, 17),
    ("all engines", "citation_recall"): (6, 11),
}


def _groups(answers: list[AnswerFigures], **kw: Any):
    return compute_groups(lambda: iter(answers), **kw)


def test_the_figures_match_a_count_by_hand():
    answers = _answers()
    # The fixture's computed_over is what the hand count used; precision's denominator must match it.
    assert [a.alce_citations for a in answers] == [2, 3, 1, 0, 1, 2, 0, 1, 1, 1]
    groups = {(g.by, g.engine): g for g in _groups(answers)}
    for (engine, measure), (num, den) in EXPECTED.items():
        f = groups[("engine", engine)].figures[measure]
        assert (f.numerator, f.denominator) == (num, den), (engine, measure)
    alpha = groups[("engine", "alpha")]
    assert (alpha.answers, alpha.statements) == (5, 10)
    # The answers behind a figure: those with a non-zero numerator, in input order.
    assert [o for o, _, _ in alpha.figures["no_citation"].answers] == [1, 4]
    assert alpha.figures["no_citation"].answers[1] == (4, 2, 2)
    assert groups[("engine, language", "beta")].language == "en"


def test_intervals_are_seeded_contain_the_figure_and_do_not_depend_on_other_engines():
    answers = _answers()
    first, again = _groups(answers), _groups(answers)
    assert [g.figures["complete_support"].low for g in first] == [
        g.figures["complete_support"].low for g in again
    ]
    for g in first:
        for f in g.figures.values():
            if f.value is not None and f.low is not None:
                assert f.low - 1e-9 <= f.value <= f.high + 1e-9, (g.engine, f.measure)
    alone = {g.engine: g for g in _groups([a for a in answers if a.engine == "alpha"])}
    both = {g.engine: g for g in first if g.by == "engine"}
    assert alone["alpha"].figures["no_support"].low == both["alpha"].figures["no_support"].low

    # Another seed, other resamples: some interval moves (a seed that did nothing would not).
    def ends(groups):
        return [(f.low, f.high) for g in groups for f in g.figures.values()]

    assert ends(_groups(answers, seed=1)) != ends(first)


def test_the_interval_is_the_bootstrap_of_answers():
    # 40 answers of 1 statement each, half supported: the interval of a proportion p = 0.5 with
    # n = 40 is about ±1.96·sqrt(p(1-p)/n) = ±0.155.
    c = "complete_support"
    answers = [
        AnswerFigures.from_result(
            k,
            f"x:{k}",
            PageInfo(engine="e"),
            _result(
                [_statement(c if k % 2 else "no_support", [(c if k % 2 else "no_support", False)])],
                [("a", "")],
                computed_over={"statements": 1, "citations": 1},
            ),
        )
        for k in range(40)
    ]
    [g, _lang] = _groups(answers)
    f = g.figures[c]
    assert f.value == 0.5
    assert 0.30 < f.low < 0.40 and 0.60 < f.high < 0.70


def test_reason_categories_drop_the_particulars():
    assert reason_category("http 404 (page not found)") == "http 404"
    assert reason_category("blocked address: 10.0.0.1 is private") == "blocked address"
    assert reason_category("the site blocked automated reading") == "the site blocked automated reading"
    assert reason_category("") == "unknown"


def test_summary_csv_has_a_row_per_group_and_measure(tmp_path: Path):
    groups = _groups(_answers())
    write_summary_csv(groups, tmp_path / "summary.csv")
    with (tmp_path / "summary.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    row = next(
        r for r in rows if r["engine"] == "alpha" and r["measure"] == "citation_recall" and not r["language"]
    )
    assert (row["numerator"], row["denominator"], row["value"]) == ("4", "6", "0.6667")
    assert float(row["ci95_low"]) <= 0.6667 <= float(row["ci95_high"])
    assert len(rows) == sum(len(g.figures) for g in groups)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.resources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"] or "")
        if tag in ("script", "link", "img", "iframe", "object", "embed") or "src" in a:
            self.resources.append(tag)


def test_report_html_is_self_contained_and_every_figure_links_to_its_answers(tmp_path: Path):
    answers = _answers()
    groups = _groups(answers)
    problems = [("in.jsonl:11", "malformed", "not valid JSON: Expecting value at column 1", "")]
    path = tmp_path / "report.html"
    write_html(groups, lambda: iter(answers), problems, path, title="t", facts=[("input", "in.jsonl")])
    text = path.read_text(encoding="utf-8")
    links = _Links()
    links.feed(text)
    assert links.resources == [], "report.html must load nothing: it opens offline"
    assert "url(" not in text and "@import" not in text
    internal = [h[1:] for h in links.hrefs if h.startswith("#")]
    assert internal and set(internal) <= links.ids, sorted(set(internal) - links.ids)[:5]
    # Every figure has its list of answers, and the engine tables link to theirs.
    for g in groups:
        for f in g.figures.values():
            anchor = f"f-{g.anchor}-" + re.sub(r"[^A-Za-z0-9_-]+", "_", f.measure)
            assert anchor in links.ids
            if f.measure in ("complete_support", "citation_recall", "misplaced"):
                assert f"#{anchor}" in links.hrefs
    assert {f"a-{a.ordinal}" for a in answers} <= links.ids
    assert "<svg" in text and "in.jsonl:11" in text and "not valid JSON" in text
    # The 95 % whiskers are drawn: a bar and an interval line per engine in each chart.
    assert text.count("stroke='#222'") >= 9 * 2


@pytest.mark.parametrize("count", [0, 1])
def test_tiny_batches_give_a_report(tmp_path: Path, count: int):
    answers = _answers()[:count]
    groups = _groups(answers)
    write_html(groups, lambda: iter(answers), [], tmp_path / "r.html", title="t", facts=[])
    write_summary_csv(groups, tmp_path / "s.csv")
    assert np.isfinite(len((tmp_path / "r.html").read_text()))


def test_the_answer_list_shows_each_cited_page_its_quote_and_why_escaped(tmp_path: Path):
    """Issue 36 item 6.10: the answer list showed verdicts only, the inaccessible table counts only."""
    hostile = "https://src.example/a?x=1&y=<b>'"
    statement = {
        "text": "Bees <script>sing</script>.",
        "judgment": "no_support",
        "contradicted": False,
        "language": "en",
        "per_citation": [
            {
                "judgment": "no_support",
                "irrelevant": False,
                "url": hostile,
                "evidence": [{"text": "Bees hum & buzz <loudly>."}],
                "reasons": ["model.no_entailment"],
            },
            {
                "judgment": "inaccessible",
                "irrelevant": False,
                "url": "https://gone.example/x",
                "evidence": [],
            },
        ],
    }
    result = _result(
        [statement],
        [(hostile, ""), ("https://gone.example/x", "http 404 (page not found)")],
        computed_over={"statements": 1, "citations": 1},
    )
    result["statements"][0]["per_citation"][1]["reason"] = "http 404 (page not found)"
    page = PageInfo(url="https://engine.example/s", engine="e", query="q")
    answer = AnswerFigures.from_json(AnswerFigures.from_result(1, "in.jsonl:1", page, result).to_json())
    path = tmp_path / "report.html"
    write_html(_groups([answer]), lambda: iter([answer]), [], path, title="t", facts=[])
    text = path.read_text(encoding="utf-8")
    answers = text[text.index("<h2 id='answers'>") :]
    assert "href='https://src.example/a?x=1&amp;y=&lt;b&gt;&#x27;'" in answers
    assert "closest passage: <q>Bees hum &amp; buzz &lt;loudly&gt;.</q>" in answers
    assert "why: the model does not read the source as saying it" in answers
    assert "why: http 404 (page not found)" in answers
    assert "<script>" not in text and "<loudly>" not in text
    reasons = text[text.index("<h2 id='reasons'>") : text.index("<h2 id='problems'>")]
    assert "https://gone.example/x" in reasons and "http 404 (page not found)" in reasons
    # A figure over one statement says so in the singular.
    assert "1 of 1 statement)" in text and "1 of 1 statements" not in text


# Complete support read with low confidence (api.md `confidence`, issue 58) has its own place in
# the batch report (issue 60 item 6): a "likely supported" share beside "fully supported", so the
# shares still sum to the statements, in summary.csv, report.html's tables and each answer's
# entry. A journal or result without `confidence` reads as the sure kind.


def _statement_of(
    judgment: str, confidence: str | None = None, *, contradicted: bool = False
) -> dict[str, Any]:
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
    _answer(1, [_statement_of("complete_support", "high"), _statement_of("complete_support", "low")]),
    _answer(2, [_statement_of("complete_support"), _statement_of("no_support", contradicted=True)]),
    _answer(3, [_statement_of("complete_support", "low"), _statement_of("partial_support")]),
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
