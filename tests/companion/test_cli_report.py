"""`citelens verify` in a terminal: the report names support found in another source of the
answer, and quotes what a refuting source says."""

from __future__ import annotations

import json

import pytest

from companion.service.cli import main

pytestmark = pytest.mark.slow  # the real model

HONEY, TOMATOES = "https://a.example/honey", "https://a.example/tomatoes"


def test_the_report_says_where_a_misplaced_statement_was_found(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    text = (
        "Honeybees make honey from flower nectar. Tomatoes need at least six hours of direct sun a day "
        "to ripen well. The Eiffel Tower is made of steel. Choose a pot of at least twenty litres for a "
        "cherry tomato."
    )
    ends = [text.index(s) + len(s) for s in ("nectar.", "ripen well.", "of steel.", "cherry tomato.")]
    request = {
        "page": {"url": "https://x.example/s"},
        "answer": {"text": text},
        "citations": [
            {"id": f"c{i}", "marker": marker, "url": url, "offset": end}
            for i, (marker, url, end) in enumerate(zip("1112", (HONEY, HONEY, HONEY, TOMATOES), ends))
        ],
        "sources": {
            HONEY: {
                "html": "<article><p>Honeybees make honey from flower nectar.</p>"
                "<p>The Eiffel Tower is made of wrought iron, not steel.</p></article>"
            },
            TOMATOES: {
                "html": "<article><p>Tomatoes need at least six hours of direct sun a day to ripen "
                "well.</p><p>Choose a pot of at least twenty litres and a compact variety such as "
                "a cherry tomato.</p></article>"
            },
        },
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["verify", str(path)]) == 0
    report = capsys.readouterr().out
    assert "found elsewhere: [2] complete_support" in report and TOMATOES in report
    assert "found in another source of the answer: 1 with a misplaced citation" in report
    # The model reads it at 0.979 contradiction, 0.05 over its bar (the negation rules that refuted
    # "It is not: the Eiffel Tower is not made of steel.", read at 0.708, were dropped: docs/rules.md).
    assert "says otherwise: “The Eiffel Tower is made of wrought iron, not steel.”" in report
    # A verdict short of complete says why, in words (docs/api.md "reasons").
    assert "why this verdict: the model reads the source as saying the opposite" in report


def test_the_report_says_what_the_figures_were_computed_over(tmp_path, capsys, monkeypatch):
    """Issue 25: a sentence cited by its paragraph's chip says so, and ALCE's figures say over
    which sentences and citations they were computed (one page of two is refused: a private address)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    paragraph = "Honeybees make honey from flower nectar. They store it in wax cells."
    text = f"{paragraph}\nTomatoes need six hours of sun a day."
    request = {
        "page": {"url": "https://www.google.com/search?q=honey", "engine": "google-ai-overview"},
        "answer": {"text": text},
        "citations": [
            {"id": "c1", "marker": "bees", "url": HONEY, "offset": len(paragraph), "block_start": 0},
            {"id": "c2", "marker": "sun", "url": "http://127.0.0.1:9/tomatoes", "offset": len(text)},
        ],
        "sources": {
            HONEY: {
                "html": "<article><p>Honeybees make honey from flower nectar.</p>"
                "<p>They store the honey in wax cells.</p></article>"
            }
        },
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["verify", str(path)]) == 0
    report = capsys.readouterr().out
    first = report.index("Honeybees make honey from flower nectar.")
    assert report[first:].splitlines()[1].strip() == "cited by the paragraph's link (no marker of its own)"
    assert report.count("cited by the paragraph's link (no marker of its own)") == 1
    assert report.rstrip().endswith(
        "recall over the 2 statements of 3 whose sources could be read (1 cited by its paragraph's link); "
        "precision over their 2 citations of readable sources"
    )
