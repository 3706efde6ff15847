"""Records → the JSON of api.md (stream lines, plain result) and the audit export of docs/method.md.

The audit card keeps the seed's five fields exactly (answer_statement, cited_url,
support_judgment, evidence_sentences, unsupported_assertions), one card per statement × cited
source, and adds context beside them: scores, W3C Web Annotation TextQuoteSelectors for the
evidence (exact / prefix / suffix), and the ALCE figures of the whole page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from .. import __version__
from ..model.cpu import compute_facts
from ..model.folder import ModelConfig
from ..records import (
    CitationJudgment,
    Evidence,
    FoundElsewhere,
    PageInfo,
    SourceResult,
    Started,
    StatementJudgment,
    Summary,
)
from ..text.utf16 import Utf16Offsets
from ..versions import JUDGE_MODULES, code_fingerprint

__all__ = [
    "ResultBuilder",
    "audit_export",
    "client_provenance",
    "collect",
    "companion_provenance",
    "event_line",
    "figures_basis",
]

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
        "confidence": cj.confidence,
        "score": cj.score,
        "probability": cj.probability,
        "contradiction": cj.contradiction,
        "irrelevant": cj.irrelevant,
        "evidence": [_evidence(e) for e in cj.evidence],
        "unsupported_assertions": list(cj.unsupported),
        "reasons": list(cj.reasons),
        "reason_details": _details(cj.reason_details),
        "says_otherwise": [_evidence(e) for e in cj.says_otherwise],
    }
    if cj.reason:
        out["reason"] = cj.reason
    return out


def _details(details: Mapping[str, Mapping[str, str]]) -> Json:
    return {reason: dict(values) for reason, values in details.items()}


def _found(found: FoundElsewhere) -> Json:
    return {
        "url": found.url,
        "citation": found.citation.id if found.citation else None,
        "marker": found.citation.marker if found.citation else None,
        "judgment": found.judgment,
        "score": found.score,
        "evidence": [_evidence(e) for e in found.evidence],
    }


def _statement_line(result: StatementJudgment, units: Utf16Offsets) -> Json:
    s = result.statement
    return {
        "type": "statement",
        "index": s.index,
        "text": s.text,
        "span": units.span_to_units(s.span),  # api.md "Offsets": the unit the request used
        "citations": [c.id for c in s.citations],
        # How it is cited: by a marker of its own, or by the link closing its paragraph (api.md).
        "cited_by": ("block" if s.block_cited else "marker") if s.citations else None,
        "judgment": result.judgment,
        "confidence": result.confidence,
        "contradicted": result.contradicted,
        "score": result.score,
        "probability": result.probability,
        "reasons": list(result.reasons),
        "reason_details": _details(result.reason_details),
        "per_citation": [_per_citation(cj) for cj in result.per_citation],
        "evidence_sentences": [e.text for e in result.evidence],
        "unsupported_assertions": list(result.unsupported_assertions),
        "claims": [{"text": c.text, "score": c.score, "supported": c.supported} for c in result.claims],
        "found_elsewhere": [_found(f) for f in result.found_elsewhere],
        "language": s.language,
        "model": result.model,
        "model_version": result.model_version,
    }


def _summary_line(summary: Summary, model: ModelConfig) -> Json:
    return {
        "type": "summary",
        "citation_recall": summary.citation_recall,
        "citation_precision": summary.citation_precision,
        "counts": summary.counts,
        "misplaced_citations": summary.misplaced_citations,
        "uncited_but_supported": summary.uncited_but_supported,
        "block_cited": summary.block_cited,
        "computed_over": {
            "statements": summary.alce_statements,
            "citations": summary.alce_citations,
            "block_cited": summary.alce_block_cited,
        },
        "elapsed_ms": summary.elapsed_ms,
        # The model that judged most of the statements (the default where none was judged), and
        # every model that judged one: a French answer is judged by the multilingual model.
        "model": _model(*(summary.models[0] if summary.models else (model.name, model.version))),
        "models": [_model(name, version) for name, version in summary.models],
    }


def _model(name: str, version: str) -> Json:
    return {"name": name, "version": version}


def event_line(
    event: Started | SourceResult | StatementJudgment | Summary,
    model: ModelConfig,
    result_id: str = "",
    *,
    units: Utf16Offsets,
) -> Json:
    """One NDJSON line of the /v1/verify stream; the summary names `result_id` when given.
    `units` is the request's (VerifyRequest.units): answer positions go out in the API's unit."""
    if isinstance(event, Started):
        return _start_line(event)
    if isinstance(event, SourceResult):
        return _source_line(event)
    if isinstance(event, StatementJudgment):
        return _statement_line(event, units)
    line = _summary_line(event, model)
    if result_id:
        line["result_id"] = result_id
    return line


class ResultBuilder:
    """The plain-JSON /v1/verify result, {"statements": […], "sources": […], "summary": {…}},
    built from the lines as they go out, so that a streamed result can be held for its audit card."""

    def __init__(self) -> None:
        self._result: Json = {"statements": [], "sources": [], "summary": {}}
        self._order: dict[str, int] = {}

    def add(self, event: Started | SourceResult | StatementJudgment | Summary, line: Json) -> None:
        if isinstance(event, Started):
            self._order = {url: i for i, url in enumerate(event.urls)}
        kind, body = line["type"], {k: v for k, v in line.items() if k != "type"}
        if kind == "statement":
            self._result["statements"].append(body)
        elif kind == "source":
            self._result["sources"].append(body)
        elif kind == "summary":
            self._result["summary"] = body

    def result(self) -> Json:
        """Sources in the order of their first citation, as api.md promises without `stream`."""
        order = self._order
        self._result["sources"].sort(key=lambda source: order.get(source["url"], len(order)))
        return self._result


async def collect(
    events: AsyncIterator[Started | SourceResult | StatementJudgment | Summary],
    model: ModelConfig,
    result_id: str = "",
    *,
    units: Utf16Offsets,
) -> Json:
    """The plain-JSON /v1/verify result."""
    builder = ResultBuilder()
    async for event in events:
        builder.add(event, event_line(event, model, result_id, units=units))
    return builder.result()


def companion_provenance(result_id: str, judged_at: str) -> Json:
    """A card of a result this companion produced and held (results.py)."""
    return {"verdicts": "companion", "result_id": result_id, "judged_at": judged_at}


def client_provenance(reason: str) -> Json:
    """A card of a result the client sent: formatted here, vouched for by nobody."""
    return {
        "verdicts": "client",
        "note": "built from a result the client sent back; this companion did not make or check its "
        f"verdicts ({reason}), so the card names no judge or model for them",
    }


def audit_export(
    page: PageInfo, result: Json, model: ModelConfig, models: Sequence[ModelConfig] = (), *, provenance: Json
) -> Json:
    """The audit export of a verify result (the plain-JSON form: statements, sources, summary).

    `model` is the default model; `models` all those a statement may have gone to (judges.py):
    the card lists, with its thresholds, each model that judged a statement here. `provenance`
    (companion_provenance, client_provenance) says who made the verdicts; only the companion's
    own are stamped with its judge and models."""
    statements = result.get("statements", [])
    tool: Json = {
        "name": "CiteLens",
        "version": __version__,
        # With the model's hashes, what makes the numbers repeatable: the same on every
        # x86-64 kernel family since issue 24, named so that a difference can be traced.
        "runtime": compute_facts(),
    }
    if provenance.get("verdicts") == "companion":
        tool |= {
            # The release and the fingerprint of the installed judging code (versions.py): a card
            # from a modified install does not pass for the release.
            "judge": {"version": __version__, "code": code_fingerprint(JUDGE_MODULES)},
            "model": model.describe(),
            "thresholds": _thresholds(model),
            "models": [
                {**m.describe(), "thresholds": _thresholds(m)}
                for m in models or [model]
                if m.name in {s.get("model") for s in statements}
            ],
        }
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
        "provenance": provenance,
        "tool": tool,
        "summary": _audit_summary(result.get("summary", {})),
        "sources": result.get("sources", []),
        "cards": cards,
        # Cards are one per statement × cited source; sentences citing nothing are listed here.
        "uncited_statements": [s["text"] for s in statements if not s.get("per_citation")],
        # Support found in sources the statement does not cite: never mixed into `cards`.
        "elsewhere": elsewhere,
    }


def _audit_summary(summary: Json) -> Json:
    """The summary line, and in words what its ALCE figures were computed over."""
    out = {k: v for k, v in summary.items() if k != "type"}
    basis = figures_basis(summary)
    if basis:
        out["computed_over_text"] = basis
    return out


def figures_basis(summary: Json) -> str:
    """What ALCE's figures were computed over, in words (issue 25): "recall over the 1 statement
    of 3 whose sources could be read; precision over its 1 citation of a readable source".
    '' for a summary without `computed_over` (a result from a companion before it)."""
    over = summary.get("computed_over")
    if not isinstance(over, dict):
        return ""
    total = sum(v for v in (summary.get("counts") or {}).values() if isinstance(v, int))
    n, cited, block = (int(over.get(k) or 0) for k in ("statements", "citations", "block_cited"))
    if not n:
        return "no recall or precision: no statement cites a source that could be read"
    of = f" of {total}" if total > n else ""
    statements = f"the {n} statement{'s' * (n != 1)}{of} whose sources could be read"
    if block:
        statements += f" ({block} cited by {'its' if block == 1 else 'their'} paragraph's link)"
    citations = f"{cited} citations of readable sources" if cited != 1 else "1 citation of a readable source"
    return f"recall over {statements}; precision over {'its' if n == 1 else 'their'} {citations}"


def _thresholds(model: ModelConfig) -> Json:
    return dataclasses.asdict(model.thresholds)


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
        "statement_confidence": statement.get("confidence"),
        "confidence": pc.get("confidence"),
        "contradicted": bool(statement.get("contradicted")),
        "irrelevant": pc["irrelevant"],
        "score": pc["score"],
        "probability": pc.get("probability"),
        "reason": pc.get("reason"),
        "reasons": pc.get("reasons", []),
        "reason_details": pc.get("reason_details", {}),
        "says_otherwise_sentences": [e["text"] for e in pc.get("says_otherwise", [])],
        "statement_reasons": statement.get("reasons", []),
        "via": via.get(pc["url"], "companion"),
        "cited_by": statement.get("cited_by"),
        "model": statement.get("model", ""),
        "selectors": [
            {"type": "TextQuoteSelector", "exact": e["text"], "prefix": e["prefix"], "suffix": e["suffix"]}
            for e in evidence
        ],
    }
