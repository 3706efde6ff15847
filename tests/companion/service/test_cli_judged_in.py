"""Issue 39 item 5: each statement of `citelens verify`'s report names the language it was judged
in and the model, with its version, that judged it; a statement no model read names its language
alone. Fast: the report is built from result dicts, the statement line from records."""

from __future__ import annotations

from typing import Any

from companion.records import Statement, StatementJudgment
from companion.service.cli import report
from companion.text.utf16 import Utf16Offsets
from companion.wire.export import event_line

from ..fakes import fake_model

E5, E5_VERSION = "citelens-e5-multilingual-nli", "0.1.4"
READ = frozenset({"en", "fr"})


def _statement(index: int, judgment: str, language: str, **extra: Any) -> dict[str, Any]:
    """A statement line as export.py writes it, reduced to what the report reads."""
    return {
        "index": index,
        "text": f"Sentence {index + 1}.",
        "judgment": judgment,
        "contradicted": False,
        "score": 0.9 if judgment == "complete_support" else 0.0,
        "per_citation": [],
        "unsupported_assertions": [],
        "language": language,
        # Every line names a model, the default's where none read anything (judges.py).
        "model": E5,
        "model_version": E5_VERSION,
        **extra,
    }


def _lines_of(statement: dict[str, Any]) -> list[str]:
    """The report's block of this one statement, its text line first."""
    result = {"statements": [statement], "sources": [], "summary": {}}
    lines = report(result, READ).splitlines()
    return lines[lines.index(f"    {statement['text']}") :]


def test_a_judged_statement_names_its_language_and_the_model_with_its_version():
    lines = _lines_of(_statement(0, "complete_support", "fr"))
    assert lines[1] == "    judged in French by citelens-e5-multilingual-nli 0.1.4"
    assert _lines_of(_statement(0, "no_support", "en"))[1] == (
        "    judged in English by citelens-e5-multilingual-nli 0.1.4"
    )


def test_a_statement_in_a_language_no_model_reads_names_the_language_and_no_model():
    lines = _lines_of(_statement(0, "not_checked", "ta"))
    assert lines[1] == "    in Tamil, not judged by a model"
    assert lines[2] == "    not checked: Tamil is not a language CiteLens judges yet"
    assert E5 not in "\n".join(lines)


def test_statements_no_model_read_never_name_the_default_model():
    for judgment in ("not_checked", "inaccessible", "no_citation"):
        lines = _lines_of(_statement(0, judgment, "fr"))
        assert lines[1] == "    in French, not judged by a model", judgment
    unidentified = _lines_of(_statement(0, "not_checked", "und"))
    assert unidentified[1] == "    in an unidentified language, not judged by a model"


def test_a_statement_citing_nothing_but_found_elsewhere_was_read_by_its_model():
    found = {"url": "https://a.example/x", "marker": "2", "judgment": "complete_support", "score": 0.9}
    statement = _statement(0, "no_citation", "en", found_elsewhere=[{**found, "evidence": []}])
    assert _lines_of(statement)[1] == "    judged in English by citelens-e5-multilingual-nli 0.1.4"


def test_the_line_follows_the_cited_by_note_and_a_result_without_a_language_has_none():
    lines = _lines_of(_statement(0, "complete_support", "en", cited_by="block"))
    assert lines[1:3] == [
        "    cited by the paragraph's link (no marker of its own)",
        "    judged in English by citelens-e5-multilingual-nli 0.1.4",
    ]
    older = _statement(0, "complete_support", "en")
    del older["language"], older["model_version"]
    assert not any("judged in" in line or "not judged" in line for line in _lines_of(older))
    # Without a version, the name alone.
    unversioned = _statement(0, "partial_support", "en", model_version="")
    assert _lines_of(unversioned)[1] == "    judged in English by citelens-e5-multilingual-nli"


def test_the_statement_line_carries_the_model_version_beside_the_model():
    statement = Statement(0, "Le récif est inscrit.", (0, 21), (), language="fr")
    judged = StatementJudgment(
        statement, "no_citation", 0.0, False, (), (), (), 0, model=E5, model_version=E5_VERSION
    )
    line = event_line(judged, fake_model(), units=Utf16Offsets(statement.text))
    assert (line["language"], line["model"], line["model_version"]) == ("fr", E5, E5_VERSION)
    tamil = Statement(1, "x", (0, 1), (), language="ta")
    unread = StatementJudgment(tamil, "not_checked", 0.0, False, (), (), (), 0)
    line = event_line(unread, fake_model(), units=Utf16Offsets("x"))
    assert (line["language"], line["model"], line["model_version"]) == ("ta", "", "")
