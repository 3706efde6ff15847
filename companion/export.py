"""Records → the JSON of api.md (stream lines, plain result) and the audit export of docs/method.md.

The audit card keeps the seed's five fields exactly (answer_statement, cited_url,
support_judgment, evidence_sentences, unsupported_assertions), one card per statement × cited
source, and adds context beside them: scores, W3C Web Annotation TextQuoteSelectors for the
evidence (exact / prefix / suffix), and the ALCE figures of the whole page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from . import __version__
from .cpu import compute_facts
from .model import ModelConfig
from .records import (
    CitationJudgment,
    Evidence,
    FoundElsewhere,
    PageInfo,
    SourceResult,
    Started,
    StatementJudgment,
    Summary,
)

__all__ = ["audit_export", "collect", "event_line"]

Json = dict[str, Any]


def _start_line(started: Started) -> Json:
    return {"type": "start", "statements": started.statements, "sources": started.sources}


def _source_line(source: SourceResult) -> Json:
    line: Json = {
        "type": "source",
        "url": source.url,
        "status": "ok" if source.ok else "inaccessible",
        "via": source.via,
        "browser_may_read": source.browser_may_read,
    }
    if source.document is not None:
        line["title"] = source.document.title
        line["sentences"] = len(source.document.sentences)
    else:
        line["reason"] = source.reason
    return line


def _evidence(e: Evidence) -> Json:
    return {
        "text": e.text,
        "start": e.start,
        "end": e.end,
        "prefix": e.prefix,
        "suffix": e.suffix,
        "fragment_url": e.fragment_url,
        **({"page": e.page} if e.page is not None else {}),
    }


def _per_citation(cj: CitationJudgment) -> Json:
    out: Json = {
        "citation": cj.citation.id,
        "marker": cj.citation.marker,
        "url": cj.citation.url,
        "judgment": cj.judgment,
        "score": cj.score,
        "contradiction": cj.contradiction,
        "irrelevant": cj.irrelevant,
        "evidence": [_evidence(e) for e in cj.evidence],
        "unsupported_assertions": list(cj.unsupported),
    }
    if cj.reason:
        out["reason"] = cj.reason
    return out


def _found(found: FoundElsewhere) -> Json:
    return {
        "url": found.url,
        "citation": found.citation.id if found.citation else None,
        "marker": found.citation.marker if found.citation else None,
        "judgment": found.judgment,
        "score": found.score,
        "evidence": [_evidence(e) for e in found.evidence],
    }


def _statement_line(result: StatementJudgment) -> Json:
    s = result.statement
    return {
        "type": "statement",
        "index": s.index,
        "text": s.text,
        "span": list(s.span),
        "citations": [c.id for c in s.citations],
        "judgment": result.judgment,
        "contradicted": result.contradicted,
        "score": result.score,
        "per_citation": [_per_citation(cj) for cj in result.per_citation],
        "evidence_sentences": [e.text for e in result.evidence],
        "unsupported_assertions": list(result.unsupported_assertions),
        "claims": [{"text": c.text, "score": c.score, "supported": c.supported} for c in result.claims],
        "found_elsewhere": [_found(f) for f in result.found_elsewhere],
        "language": s.language,
        "model": result.model,
    }


def _summary_line(summary: Summary, model: ModelConfig) -> Json:
    return {
        "type": "summary",
        "citation_recall": summary.citation_recall,
        "citation_precision": summary.citation_precision,
        "counts": summary.counts,
        "misplaced_citations": summary.misplaced_citations,
        "uncited_but_supported": summary.uncited_but_supported,
        "elapsed_ms": summary.elapsed_ms,
        "model": {"name": model.name, "version": model.version},
    }


def event_line(event: Started | SourceResult | StatementJudgment | Summary, model: ModelConfig) -> Json:
    """One NDJSON line of the /v1/verify stream."""
    if isinstance(event, Started):
        return _start_line(event)
    if isinstance(event, SourceResult):
        return _source_line(event)
    if isinstance(event, StatementJudgment):
        return _statement_line(event)
    return _summary_line(event, model)


async def collect(
    events: AsyncIterator[Started | SourceResult | StatementJudgment | Summary], model: ModelConfig
) -> Json:
    """The plain-JSON /v1/verify result: {"statements": […], "sources": […], "summary": {…}}."""
    result: Json = {"statements": [], "sources": [], "summary": {}}
    order: dict[str, int] = {}
    async for event in events:
        if isinstance(event, Started):
            order = {url: i for i, url in enumerate(event.urls)}
        line = event_line(event, model)
        kind = line.pop("type")
        if kind == "statement":
            result["statements"].append(line)
        elif kind == "source":
            result["sources"].append(line)
        elif kind == "summary":
            result["summary"] = line
    result["sources"].sort(key=lambda source: order.get(source["url"], len(order)))
    return result


def audit_export(
    page: PageInfo, result: Json, model: ModelConfig, models: Sequence[ModelConfig] = ()
) -> Json:
    """The audit export of a verify result (the plain-JSON form: statements, sources, summary).

    `model` is the default model; `models` all those a statement may have gone to (judges.py):
    the card lists, with its thresholds, each model that judged a statement here."""
    statements = result.get("statements", [])
    # Who read each page (api.md `via`): a card says when the reader's own browser did.
    via = {s.get("url"): s.get("via", "companion") for s in result.get("sources", []) if isinstance(s, dict)}
    cards = [
        _card(statement, pc, via) for statement in statements for pc in statement.get("per_citation") or []
    ]
    elsewhere = [_elsewhere_card(s, found) for s in statements for found in s.get("found_elsewhere") or []]
    return {
        "page": {
            "url": page.url,
            "engine": page.engine,
            "title": page.title,
            "query": page.query,
            "captured_at": page.captured_at,
        },
        "tool": {
            "name": "CiteLens",
            "version": __version__,
            # With the model's hashes, what makes the numbers repeatable: the same on every
            # x86-64 kernel family since issue 24, named so that a difference can be traced.
            "runtime": compute_facts(),
            "model": model.describe(),
            "thresholds": _thresholds(model),
            "models": [
                {**m.describe(), "thresholds": _thresholds(m)}
                for m in models or [model]
                if m.name in {s.get("model") for s in statements}
            ],
        },
        "summary": {k: v for k, v in result.get("summary", {}).items() if k != "type"},
        "sources": result.get("sources", []),
        "cards": cards,
        # Cards are one per statement × cited source; sentences citing nothing are listed here.
        "uncited_statements": [s["text"] for s in statements if not s.get("per_citation")],
        # Support found in sources the statement does not cite: never mixed into `cards`.
        "elsewhere": elsewhere,
    }


def _thresholds(model: ModelConfig) -> Json:
    t = model.thresholds
    return {"complete": t.complete, "partial": t.partial, "claim": t.claim, "contradiction": t.contradiction}


def _elsewhere_card(statement: Json, found: Json) -> Json:
    """The five fields for a source the statement does not cite, and what it does cite."""
    return {
        "answer_statement": statement["text"],
        "cited_url": found["url"],
        "support_judgment": found["judgment"],
        "evidence_sentences": [e["text"] for e in found["evidence"]],
        "unsupported_assertions": [] if found["judgment"] == "complete_support" else [statement["text"]],
        "cited_urls": list(dict.fromkeys(pc["url"] for pc in statement.get("per_citation") or [])),
        "statement_index": statement["index"],
        "statement_judgment": statement["judgment"],
        "citation": found["citation"],
        "score": found["score"],
    }


def _card(statement: Json, pc: Json, via: dict[Any, Any]) -> Json:
    """One statement × cited source, the five fields first (docs/method.md), context after."""
    judgment = pc["judgment"]
    evidence = pc.get("evidence", []) if judgment in ("complete_support", "partial_support") else []
    return {
        "answer_statement": statement["text"],
        "cited_url": pc["url"],
        "support_judgment": judgment,
        "evidence_sentences": [e["text"] for e in evidence],
        "unsupported_assertions": pc.get("unsupported_assertions", []),
        "statement_index": statement["index"],
        "statement_judgment": statement["judgment"],
        "contradicted": bool(statement.get("contradicted")),
        "irrelevant": pc["irrelevant"],
        "score": pc["score"],
        "reason": pc.get("reason"),
        "via": via.get(pc["url"], "companion"),
        "model": statement.get("model", ""),
        "selectors": [
            {"type": "TextQuoteSelector", "exact": e["text"], "prefix": e["prefix"], "suffix": e["suffix"]}
            for e in evidence
        ],
    }
