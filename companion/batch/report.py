"""A batch audit's figures per engine (and per language), with bootstrap intervals, as summary.csv
and a self-contained report.html.

The measures are the verifiability study's (Liu, Zhang & Liang 2023): the share of statements
fully, partly and not supported by their citations, contradicted, inaccessible (with the reasons
of the sources that could not be read) and without citation; ALCE's citation recall and precision
(Gao et al. 2023), pooled over the engine's statements and citations as the studies pool them;
and the share of statements whose support was found in another of the answer's pages (a
misplaced citation, issue 12). Each comes with a 95 % percentile bootstrap interval over answers:
an engine's output is an answer, and its statements are not independent of each other, so answers
are what is resampled. Resampling is seeded per group, so a figure's interval does not depend on
which other engines were in the batch.

report.html opens offline: inline CSS, inline SVG charts, no script. Every figure links to the
list of answers behind it, and each of those to the answer, its statements and their verdicts.
The per-answer numbers (AnswerFigures) are a few integers each; the answers' texts are streamed
from the journal while the file is written.
"""

from __future__ import annotations

import csv
import datetime
import html
import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple, TextIO

import numpy as np

from .words import NO_PASSAGE, counted, is_likely, quote_label, why_words

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "LIST_LIMIT",
    "AnswerFigures",
    "Figure",
    "Group",
    "compute_groups",
    "reason_category",
    "write_html",
    "write_summary_csv",
]

# Measured on the 200-answer check (docs/batch.md), against 50,000 resamples: 95 % of the
# interval ends within 0.46 point at 1,000 resamples and 0.38 at 2,000 (worst 0.8 point for both:
# small groups give few distinct shares); 2,000 cost 0.8 s for those 200 answers, all groups.
BOOTSTRAP_RESAMPLES: Final = 2000
BOOTSTRAP_SEED: Final = 20230524  # the verifiability study's arXiv date: any fixed seed would do
# Resamples drawn at once: bounds the weight matrix to ~BLOCK × answers float64s.
_BLOCK: Final = 64
# Answers listed under one figure; past it the list says how many more, and cards.jsonl has them.
LIST_LIMIT: Final = 1000

# "likely_supported" is complete support the model read with low confidence (api.md
# `confidence`): counted apart from "fully supported", so that the parts still sum to the
# statements, and reported as a share of its own.
_SUPPORT = (
    "complete_support",
    "likely_supported",
    "partial_support",
    "no_support",
    "inaccessible",
    "not_checked",
    "no_citation",
)
_LABELS = {
    "complete_support": "fully supported",
    "likely_supported": "likely supported (check the quote)",
    "partial_support": "partly supported",
    "no_support": "not supported",
    "contradicted": "contradicted",
    "inaccessible": "inaccessible",
    "not_checked": "not checked (language)",
    "no_citation": "without citation",
    "citation_recall": "ALCE citation recall",
    "citation_precision": "ALCE citation precision",
    "misplaced": "support found elsewhere",
}
_COLOURS = {
    "complete_support": "#2e7d32",
    "likely_supported": "#0e7490",
    "partial_support": "#f9a825",
    "no_support": "#c62828",
    "contradicted": "#6a1b9a",
    "inaccessible": "#757575",
    "not_checked": "#90a4ae",
    "no_citation": "#b0bec5",
    "citation_recall": "#1565c0",
    "citation_precision": "#00838f",
    "misplaced": "#ef6c00",
}


def reason_category(reason: str) -> str:
    """The reason a source was inaccessible, without its particulars: "http 404 (page not found)"
    → "http 404", "blocked address: 10.0.0.1" → "blocked address", so that reasons can be counted."""
    return re.split(r" \(|: |, ", reason.strip(), maxsplit=1)[0] or "unknown"


class Cited(NamedTuple):
    """One citation of a statement, as the answer list shows it: the page, the passage quoted from
    it and what that passage is (words.quote_label), and why the verdict fell short."""

    url: str
    label: str
    quote: str
    why: str


class Line(NamedTuple):
    """One statement of an answer, in answer order; `likely`: complete support read with low
    confidence (words.is_likely)."""

    judgment: str
    contradicted: bool
    text: str
    cited: tuple[Cited, ...] = ()
    likely: bool = False


def _line(statement: dict[str, Any]) -> Line:
    cited = []
    for pc in statement.get("per_citation") or ():
        evidence = pc.get("evidence") or ()
        if evidence:
            label = quote_label(pc["judgment"], bool(statement["contradicted"]))
        else:
            label = NO_PASSAGE if pc["judgment"] == "no_support" else ""
        cited.append(Cited(pc["url"], label, evidence[0]["text"] if evidence else "", why_words(pc)))
    return Line(
        statement["judgment"],
        bool(statement["contradicted"]),
        statement["text"],
        tuple(cited),
        is_likely(statement),
    )


@dataclass(frozen=True, slots=True)
class AnswerFigures:
    """What the report needs of one judged answer: its counts, and the lines a reader checks."""

    ordinal: int
    origin: str
    engine: str
    language: str
    query: str
    url: str
    statements: int
    counts: dict[str, int]  # per judgment, as the summary line's `counts`
    contradicted: int
    misplaced: int  # statements citing something whose support was found in another page
    alce_statements: int  # ALCE recall's denominator (summary.computed_over.statements)
    alce_supported: int  # its numerator: statements their citations fully support
    alce_citations: int  # precision's denominator (computed_over.citations)
    alce_precise: int  # citations of supported statements that are not irrelevant
    reasons: dict[str, int]  # inaccessible sources by reason_category
    # Complete support read with low confidence; part of counts["complete_support"]. 0 in a journal
    # written before confidence existed (from_json), as for an older companion's results.
    likely: int = 0
    # Per statement in answer order, for the answer's entry.
    lines: list[Line] = field(default_factory=list)
    # (url, reason) of each source that could not be read, for the table of reasons.
    inaccessible: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def from_result(cls, ordinal: int, origin: str, page: Any, result: dict[str, Any]) -> AnswerFigures:
        """From the plain /v1/verify result (export.collect) of one answer."""
        statements = result["statements"]
        summary = result["summary"]
        over = summary.get("computed_over") or {}
        supported = [s for s in statements if s["judgment"] == "complete_support"]
        reasons: dict[str, int] = {}
        inaccessible = []
        for source in result["sources"]:
            if source["status"] != "ok":
                category = reason_category(source.get("reason") or "")
                reasons[category] = reasons.get(category, 0) + 1
                inaccessible.append((source["url"], source.get("reason") or ""))
        return cls(
            ordinal=ordinal,
            origin=origin,
            engine=page.engine or "unknown",
            language=statements[0].get("language", "") if statements else "",
            query=page.query,
            url=page.url,
            statements=len(statements),
            counts={k: int(v) for k, v in summary["counts"].items()},
            contradicted=sum(bool(s["contradicted"]) for s in statements),
            misplaced=int(summary.get("misplaced_citations") or 0),
            alce_statements=int(over.get("statements") or 0),
            alce_supported=len(supported),
            alce_citations=int(over.get("citations") or 0),
            alce_precise=sum(
                1
                for s in supported
                for pc in s["per_citation"]
                if pc["judgment"] != "inaccessible"
                and pc["judgment"] != "not_checked"
                and not pc["irrelevant"]
            ),
            reasons=reasons,
            likely=sum(is_likely(s) for s in statements),
            lines=[_line(s) for s in statements],
            inaccessible=inaccessible,
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, *, lines: bool = True) -> AnswerFigures:
        """`lines=False` leaves out the statements' texts and the pages: the figures need only the
        numbers. A journal of an earlier version has lines of three fields and no pages."""
        raw = json.loads(text)
        raw["lines"] = (
            [
                Line(
                    j,
                    c,
                    t,
                    tuple(Cited(*x) for x in (rest[0] if rest else ())),
                    bool(rest[1]) if len(rest) > 1 else False,
                )
                for j, c, t, *rest in raw["lines"]
            ]
            if lines
            else []
        )
        raw["inaccessible"] = [tuple(x) for x in raw.get("inaccessible", ())] if lines else []
        return cls(**raw)


@dataclass(frozen=True, slots=True)
class Measure:
    key: str
    label: str
    over: str  # what the share is of, in words
    numerator: Callable[[AnswerFigures], int]
    denominator: Callable[[AnswerFigures], int]


def _measures(judgments: Sequence[str], reasons: Sequence[str]) -> list[Measure]:
    def count(key: str) -> Callable[[AnswerFigures], int]:
        if key == "complete_support":  # the sure ones: the likely are a measure of their own
            return lambda a: a.counts.get(key, 0) - a.likely
        if key == "likely_supported":
            return lambda a: a.likely
        return lambda a: a.counts.get(key, 0)

    def statements(a: AnswerFigures) -> int:
        return a.statements

    out = [
        Measure(k, _LABELS.get(k, k.replace("_", " ")), "statements", count(k), statements)
        for k in judgments
        if k not in ("inaccessible", "not_checked", "no_citation")
    ]
    out.append(
        Measure("contradicted", _LABELS["contradicted"], "statements", lambda a: a.contradicted, statements)
    )
    out += [
        Measure(k, _LABELS[k], "statements", count(k), statements)
        for k in ("inaccessible", "not_checked", "no_citation")
    ]
    out += [
        Measure(
            "citation_recall",
            _LABELS["citation_recall"],
            "statements citing a readable source",
            lambda a: a.alce_supported,
            lambda a: a.alce_statements,
        ),
        Measure(
            "citation_precision",
            _LABELS["citation_precision"],
            "citations of readable sources",
            lambda a: a.alce_precise,
            lambda a: a.alce_citations,
        ),
        Measure("misplaced", _LABELS["misplaced"], "statements", lambda a: a.misplaced, statements),
    ]

    def gave(reason: str) -> Callable[[AnswerFigures], int]:
        return lambda a: a.reasons.get(reason, 0)

    def unreadable(a: AnswerFigures) -> int:
        return sum(a.reasons.values())

    out += [Measure(f"reason:{r}", r, "inaccessible sources", gave(r), unreadable) for r in reasons]
    return out


@dataclass(frozen=True, slots=True)
class Figure:
    measure: str
    label: str
    over: str
    numerator: int
    denominator: int
    low: float | None
    high: float | None
    # The answers behind the figure: (ordinal, numerator, denominator) of those with numerator > 0,
    # the first LIST_LIMIT of them in INPUT order; `behind` counts them all.
    answers: tuple[tuple[int, int, int], ...]
    behind: int
    contributing: int  # answers with a non-zero denominator

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None


@dataclass(frozen=True, slots=True)
class Group:
    by: str  # "engine" or "engine, language"
    engine: str
    language: str
    answers: int
    statements: int
    figures: dict[str, Figure]

    @property
    def anchor(self) -> str:
        raw = f"{self.by}-{self.engine}-{self.language}"
        return re.sub(r"[^A-Za-z0-9_-]+", "_", raw)

    @property
    def name(self) -> str:
        # "?" means a sentence without citation, in the report as in the terminal and the overlay.
        language = self.language or "language unknown"
        return f"{self.engine} · {language}" if self.by == "engine, language" else self.engine


def compute_groups(
    answers: Callable[[], Iterable[AnswerFigures]],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> list[Group]:
    """Every engine, all engines together, and every engine × language, each with its figures.

    `answers` is read twice, as a stream: once for the judgments and reasons that occur, then
    into arrays of a few numbers per answer, so that memory grows by ~100 bytes an answer, not
    by what the answers say."""
    judgment_keys: set[str] = set()
    reason_keys: set[str] = set()
    for a in answers():
        judgment_keys.update(a.counts)
        reason_keys.update(a.reasons)
    measures = _measures(list(_SUPPORT) + sorted(judgment_keys - set(_SUPPORT)), sorted(reason_keys))
    ordinals: list[int] = []
    labels: list[tuple[str, str]] = []
    sizes: list[int] = []
    num_rows: list[np.ndarray] = []
    den_rows: list[np.ndarray] = []
    for a in answers():
        ordinals.append(a.ordinal)
        labels.append((a.engine, a.language))
        sizes.append(a.statements)
        num_rows.append(np.array([m.numerator(a) for m in measures], dtype=np.float64))
        den_rows.append(np.array([m.denominator(a) for m in measures], dtype=np.float64))
    shape = (len(ordinals), len(measures))
    num = np.vstack(num_rows) if num_rows else np.zeros(shape)
    den = np.vstack(den_rows) if den_rows else np.zeros(shape)
    engines = sorted({e for e, _ in labels})
    keys: list[tuple[str, str, str]] = [("engine", "all engines", "")] if len(engines) > 1 else []
    keys += [("engine", e, "") for e in engines]
    keys += [("engine, language", e, lang) for e, lang in sorted(set(labels))]
    order = np.array(ordinals, dtype=np.int64)
    statements = np.array(sizes, dtype=np.int64)
    groups = []
    for by, engine, language in keys:
        picked = np.array(
            [
                (engine == "all engines" or e == engine) and (by == "engine" or lang == language)
                for e, lang in labels
            ],
            dtype=bool,
        ).reshape(len(labels))
        n, d, o = num[picked], den[picked], order[picked]
        rng = np.random.default_rng([seed, zlib.crc32(f"{by}|{engine}|{language}".encode())])
        low, high = _bootstrap(n, d, resamples, rng)
        figures = {}
        for j, m in enumerate(measures):
            hits = np.flatnonzero(n[:, j] > 0)
            behind = tuple((int(o[i]), int(n[i, j]), int(d[i, j])) for i in hits[:LIST_LIMIT])
            figures[m.key] = Figure(
                m.key,
                m.label,
                m.over,
                int(n[:, j].sum()),
                int(d[:, j].sum()),
                None if np.isnan(low[j]) else float(low[j]),
                None if np.isnan(high[j]) else float(high[j]),
                behind,
                int(hits.size),
                int((d[:, j] > 0).sum()),
            )
        groups.append(Group(by, engine, language, int(picked.sum()), int(statements[picked].sum()), figures))
    return groups


def _bootstrap(
    num: np.ndarray, den: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5th and 97.5th percentiles of the pooled ratio over answers drawn with replacement."""
    answers, measures = num.shape
    if answers == 0 or resamples <= 0:
        nan = np.full(measures, np.nan)
        return nan, nan
    ratios = np.empty((resamples, measures))
    for start in range(0, resamples, _BLOCK):
        size = min(_BLOCK, resamples - start)
        draws = rng.integers(0, answers, size=(size, answers))
        weights = np.zeros((size, answers))
        np.add.at(weights, (np.repeat(np.arange(size), answers), draws.ravel()), 1.0)
        top, bottom = weights @ num, weights @ den
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios[start : start + size] = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan)
    all_nan = np.all(np.isnan(ratios), axis=0)
    ratios[:, all_nan] = 0.0  # nanpercentile warns on an all-NaN column; it is reported as none
    low, high = np.nanpercentile(ratios, [2.5, 97.5], axis=0)
    low[all_nan] = high[all_nan] = np.nan
    return low, high


# --- summary.csv -------------------------------------------------------------------------------

_CSV_COLUMNS = (
    "group_by",
    "engine",
    "language",
    "answers",
    "statements",
    "measure",
    "label",
    "over",
    "numerator",
    "denominator",
    "value",
    "ci95_low",
    "ci95_high",
)


def write_summary_csv(groups: Sequence[Group], path: Path) -> None:
    """One row per group and measure (long form: one filter in a spreadsheet, pandas or R)."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(_CSV_COLUMNS)
        for g in groups:
            for f in g.figures.values():
                writer.writerow(
                    [
                        g.by,
                        g.engine,
                        g.language,
                        g.answers,
                        g.statements,
                        f.measure,
                        f.label,
                        f.over,
                        f.numerator,
                        f.denominator,
                        _fmt(f.value),
                        _fmt(f.low),
                        _fmt(f.high),
                    ]
                )


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


# --- report.html -------------------------------------------------------------------------------

_TABLE_MEASURES = (
    "complete_support",
    "likely_supported",
    "partial_support",
    "no_support",
    "contradicted",
    "inaccessible",
    "not_checked",
    "no_citation",
    "citation_recall",
    "citation_precision",
    "misplaced",
)

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1180px;
 padding:24px;color:#1d2327;background:#fff}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:20px;margin:36px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:16px;margin:18px 0 6px}.meta{color:#555;margin:0 0 6px}.note{color:#555;font-size:13px}
table{border-collapse:collapse;margin:8px 0 4px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #e3e3e3;padding:5px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}th{font-weight:600;background:#f6f7f8;font-size:13px}
td a{color:inherit;text-decoration:none;border-bottom:1px dotted #888}td a:hover{background:#eef4ff}
.ci{display:block;color:#666;font-size:12px;white-space:nowrap}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:14px 22px}
figure{margin:0}figcaption{font-weight:600;font-size:14px;margin-bottom:2px}
svg text{font:12px system-ui,sans-serif;fill:#333}svg a:hover rect{opacity:.8}
.legend span{display:inline-block;margin-right:14px;font-size:13px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
ol.behind{columns:3 220px;font-size:13px;margin:4px 0 12px}
.answer{border-top:1px solid #e3e3e3;padding:8px 0}.answer:target{background:#fffbe6}
.answer p{margin:2px 0}.answer ol{margin:4px 0;padding-left:22px}
ul.cited{margin:2px 0 6px;padding-left:18px;font-size:13px;color:#444}ul.cited q{color:#1d2327}
.j{display:inline-block;min-width:118px;font-size:12px;font-weight:600;padding:0 6px;border-radius:3px;
 color:#fff;margin-right:6px}
section.fig:target{background:#fffbe6}
"""


def write_html(
    groups: Sequence[Group],
    answers: Callable[[], Iterator[AnswerFigures]],
    problems: Sequence[tuple[str, str, str, str]],
    path: Path,
    *,
    title: str,
    facts: Sequence[tuple[str, str]],
) -> None:
    """report.html. `answers` yields the judged answers in INPUT order (read once, streamed);
    `problems` are the lines that gave no card: (origin, status, error, field)."""
    with path.open("w", encoding="utf-8") as out:
        out.write(
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        )
        out.write(f"<h1>{_e(title)}</h1>")
        for key, value in facts:
            out.write(f"<p class='meta'><b>{_e(key)}:</b> {_e(value)}</p>")
        out.write(
            "<p class='note'>Shares of statements follow the verifiability study (Liu, Zhang &amp; Liang "
            "2023); recall and precision are ALCE's (Gao et al. 2023), pooled over the statements and "
            "citations of the group. In brackets and as whiskers: 95 % bootstrap intervals over answers "
            f"({BOOTSTRAP_RESAMPLES} resamples, seeded). Click a figure for the answers behind it.</p>"
        )
        engines = [g for g in groups if g.by == "engine"]
        languages = [g for g in groups if g.by == "engine, language"]
        out.write("<h2 id='engines'>By engine</h2>")
        _stacked(out, engines)
        _table(out, engines)
        out.write("<div class='charts'>")
        for key in _TABLE_MEASURES:
            _chart(out, engines, key)
        out.write("</div>")
        out.write("<h2 id='languages'>By engine and language</h2>")
        _table(out, languages)
        _reasons(out, engines, answers)
        _problems(out, problems)
        out.write("<h2 id='behind'>The answers behind each figure</h2>")
        for g in groups:
            for f in g.figures.values():
                _behind(out, g, f)
        out.write("<h2 id='answers'>Answers</h2>")
        for a in answers():
            _answer(out, a)
        out.write(
            f"<p class='note'>Written {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC "
            "by citelens audit-batch.</p></body></html>\n"
        )


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


# What a figure is a share of, for one (the `over` of Measure is the plural, as summary.csv has it).
_ONE = {
    "statements": "statement",
    "statements citing a readable source": "statement citing a readable source",
    "citations of readable sources": "citation of a readable source",
    "inaccessible sources": "inaccessible source",
}


def _of(f: Figure) -> str:
    """ "3 of 4 statements", "1 of 1 statement"."""
    return f"{f.numerator} of {counted(f.denominator, _ONE.get(f.over, f.over), f.over)}"


def _fig_anchor(g: Group, f: Figure) -> str:
    return f"f-{g.anchor}-" + re.sub(r"[^A-Za-z0-9_-]+", "_", f.measure)


def _table(out: TextIO, groups: Sequence[Group]) -> None:
    out.write("<table><tr><th>engine</th><th>answers</th><th>statements</th>")
    out.write("".join(f"<th>{_e(_LABELS[k])}</th>" for k in _TABLE_MEASURES) + "</tr>")
    for g in groups:
        out.write(f"<tr><td>{_e(g.name)}</td><td>{g.answers}</td><td>{g.statements}</td>")
        for key in _TABLE_MEASURES:
            f = g.figures[key]
            ci = "" if f.low is None or f.high is None else f"[{100 * f.low:.1f}–{100 * f.high:.1f}]"
            out.write(
                f"<td><a href='#{_fig_anchor(g, f)}' title='{_e(_of(f))}'>"
                f"{_pct(f.value)}</a><span class='ci'>{ci}</span></td>"
            )
        out.write("</tr>")
    out.write("</table>")


def _stacked(out: TextIO, groups: Sequence[Group]) -> None:
    """Each engine's statements as one 100 % bar, by support: the study's main table at a glance."""
    keys = [k for k in _SUPPORT if any(g.figures[k].numerator for g in groups)] or list(_SUPPORT)
    label_w, bar_w, row_h = 150, 620, 30
    height = row_h * len(groups) + 10
    out.write("<figure><figcaption>How each engine's statements are supported</figcaption>")
    out.write(
        "<p class='legend'>"
        + "".join(
            f"<span><i style='background:{_COLOURS.get(k, '#999')}'></i>{_e(_LABELS.get(k, k))}</span>"
            for k in keys
        )
        + "</p>"
    )
    out.write(
        f"<svg role='img' width='{label_w + bar_w + 20}' height='{height}' "
        f"viewBox='0 0 {label_w + bar_w + 20} {height}'>"
    )
    for i, g in enumerate(groups):
        y = 5 + i * row_h
        out.write(f"<text x='0' y='{y + 17}'>{_e(g.name)}</text>")
        x = float(label_w)
        for k in keys:
            f = g.figures[k]
            width = bar_w * (f.value or 0.0)
            if width <= 0:
                continue
            out.write(
                f"<a href='#{_fig_anchor(g, f)}'><rect x='{x:.1f}' y='{y}' width='{width:.1f}' height='22' "
                f"fill='{_COLOURS.get(k, '#999')}'><title>{_e(g.name)}: {_e(f.label)} {_pct(f.value)} "
                f"({_e(_of(f))})</title></rect>"
                + (
                    f"<text x='{x + width / 2:.1f}' y='{y + 16}' text-anchor='middle' style='fill:#fff'>"
                    f"{100 * (f.value or 0):.0f}%</text>"
                    if width > 34
                    else ""
                )
                + "</a>"
            )
            x += width
    out.write("</svg></figure>")


def _chart(out: TextIO, groups: Sequence[Group], key: str) -> None:
    """One measure across engines: a bar per engine, the whisker its 95 % interval."""
    label_w, bar_w, row_h = 120, 200, 26
    height = row_h * len(groups) + 24
    colour = _COLOURS.get(key, "#546e7a")
    first = groups[0].figures[key] if groups else None
    caption = f"{first.label} (share of {first.over})" if first else key
    out.write(f"<figure><figcaption>{_e(caption)}</figcaption>")
    out.write(
        f"<svg role='img' width='{label_w + bar_w + 60}' height='{height}' "
        f"viewBox='0 0 {label_w + bar_w + 60} {height}'>"
    )
    for tick in (0, 0.5, 1):
        x = label_w + bar_w * tick
        out.write(
            f"<line x1='{x}' x2='{x}' y1='0' y2='{height - 16}' stroke='#ddd'/>"
            f"<text x='{x}' y='{height - 3}' text-anchor='middle'>{int(tick * 100)}%</text>"
        )
    for i, g in enumerate(groups):
        f = g.figures[key]
        y = 4 + i * row_h
        out.write(f"<text x='0' y='{y + 14}'>{_e(g.name)}</text>")
        width = bar_w * (f.value or 0.0)
        out.write(
            f"<a href='#{_fig_anchor(g, f)}'><rect x='{label_w}' y='{y}' width='{width:.1f}' height='18' "
            f"fill='{colour}'><title>{_e(g.name)}: {_pct(f.value)} ({_e(_of(f))})</title></rect></a>"
        )
        if f.low is not None and f.high is not None:
            x1, x2, mid = label_w + bar_w * f.low, label_w + bar_w * f.high, y + 9
            out.write(
                "<g stroke='#222' stroke-width='1.5'>"
                f"<line x1='{x1:.1f}' x2='{x2:.1f}' y1='{mid}' y2='{mid}'/>"
                f"<line x1='{x1:.1f}' x2='{x1:.1f}' y1='{mid - 5}' y2='{mid + 5}'/>"
                f"<line x1='{x2:.1f}' x2='{x2:.1f}' y1='{mid - 5}' y2='{mid + 5}'/></g>"
            )
        out.write(f"<text x='{label_w + bar_w + 6}' y='{y + 14}'>{_pct(f.value)}</text>")
    out.write("</svg></figure>")


def _reasons(out: TextIO, groups: Sequence[Group], answers: Callable[[], Iterator[AnswerFigures]]) -> None:
    reasons = sorted({k for g in groups for k in g.figures if k.startswith("reason:")})
    out.write("<h2 id='reasons'>Why sources were inaccessible</h2>")
    if not reasons:
        out.write("<p>Every cited source could be read.</p>")
        return
    out.write("<table><tr><th>engine</th>" + "".join(f"<th>{_e(r[7:])}</th>" for r in reasons) + "</tr>")
    for g in groups:
        out.write(f"<tr><td>{_e(g.name)}</td>")
        for r in reasons:
            f = g.figures[r]
            out.write(
                f"<td><a href='#{_fig_anchor(g, f)}'>{f.numerator}</a>"
                f"<span class='ci'>{_pct(f.value)} of {f.denominator}</span></td>"
            )
        out.write("</tr>")
    out.write(
        "</table><p class='note'>Sources, not statements: how many inaccessible sources gave "
        "each reason, and their share of the group's inaccessible sources.</p>"
    )
    _inaccessible_pages(out, answers)


def _inaccessible_pages(out: TextIO, answers: Callable[[], Iterator[AnswerFigures]]) -> None:
    """The pages behind each reason, each with the first answer citing it: at most LIST_LIMIT a
    reason, so that memory stays bounded by the reasons, not by the batch."""
    pages: dict[str, dict[str, tuple[str, int]]] = {}
    more: dict[str, int] = {}
    for a in answers():
        for url, reason in a.inaccessible:
            listed = pages.setdefault(reason_category(reason), {})
            if url in listed:
                continue
            if len(listed) < LIST_LIMIT:
                listed[url] = (reason, a.ordinal)
            else:
                more[reason_category(reason)] = more.get(reason_category(reason), 0) + 1
    out.write("<table><tr><th>reason</th><th>page</th><th>why, in full</th><th>first cited by</th></tr>")
    for category in sorted(pages):
        for url, (reason, ordinal) in pages[category].items():
            out.write(
                f"<tr><td>{_e(category)}</td><td style='text-align:left'>{_link(url)}</td>"
                f"<td style='text-align:left'>{_e(reason)}</td>"
                f"<td><a href='#a-{ordinal}'>answer {ordinal}</a></td></tr>"
            )
        if more.get(category):
            out.write(
                f"<tr><td>{_e(category)}</td><td colspan='3' style='text-align:left'>… and "
                f"{counted(more[category], 'more page')} (cards.jsonl has them)</td></tr>"
            )
    out.write("</table>")


def _link(url: str) -> str:
    return f"<a href='{_e(url)}' rel='noreferrer'>{_e(url)}</a>"


def _problems(out: TextIO, problems: Sequence[tuple[str, str, str, str]]) -> None:
    out.write(f"<h2 id='problems'>Lines without a card ({len(problems)})</h2>")
    if not problems:
        out.write("<p>Every line of the input was judged.</p>")
        return
    out.write("<table><tr><th>line</th><th>what</th><th>why</th><th>field</th></tr>")
    for origin, status, error, fld in problems:
        out.write(
            f"<tr><td>{_e(origin)}</td><td>{_e(status)}</td><td style='text-align:left'>{_e(error)}</td>"
            f"<td>{_e(fld)}</td></tr>"
        )
    out.write("</table>")


def _behind(out: TextIO, g: Group, f: Figure) -> None:
    out.write(
        f"<section class='fig' id='{_fig_anchor(g, f)}'><h3>{_e(g.name)} — {_e(f.label)}: {_pct(f.value)} "
        f"<span class='note'>({_e(_of(f))}; {f.behind} of {counted(f.contributing, 'answer')})</span></h3>"
    )
    if f.answers:
        out.write("<ol class='behind'>")
        for ordinal, a, b in f.answers:
            out.write(f"<li><a href='#a-{ordinal}'>answer {ordinal}</a>: {a} of {b}</li>")
        out.write("</ol>")
        if f.behind > len(f.answers):
            out.write(
                f"<p class='note'>… and {counted(f.behind - len(f.answers), 'more answer')} "
                "(cards.jsonl holds them all).</p>"
            )
    out.write("</section>")


def _answer(out: TextIO, a: AnswerFigures) -> None:
    shown = dict(a.counts)
    shown["complete_support"] = shown.get("complete_support", 0) - a.likely
    shown["likely_supported"] = a.likely
    order = [k for k in _SUPPORT if k in shown] + [k for k in shown if k not in _SUPPORT]
    counts = ", ".join(f"{shown[k]} {_LABELS.get(k, k)}" for k in order if shown[k])
    out.write(
        f"<div class='answer' id='a-{a.ordinal}'><p><b>Answer {a.ordinal}</b> · {_e(a.engine)} · "
        f"{_e(a.language or 'language unknown')} · <span class='note'>{_e(a.origin)}</span></p>"
        f"<p>{_e(a.query) or '<i>no query</i>'} — {_link(a.url)}</p>"
        f"<p class='note'>{_e(counts)}; recall {a.alce_supported} of {a.alce_statements}, precision "
        f"{a.alce_precise} of {a.alce_citations}</p><ol>"
    )
    for line in a.lines:
        state = "likely_supported" if line.likely else line.judgment
        badge = _LABELS.get(state, state) + (", contradicted" if line.contradicted else "")
        out.write(
            f"<li><span class='j' style='background:{_COLOURS.get(state, '#999')}'>{_e(badge)}</span>"
            f"{_e(line.text)}"
        )
        if line.cited:
            out.write("<ul class='cited'>")
            for cited in line.cited:
                quote = f": <q>{_e(cited.quote)}</q>" if cited.quote else ""
                quote = f"<br>{_e(cited.label)}{quote}" if cited.label else ""
                why = f"<br><span class='note'>why: {_e(cited.why)}</span>" if cited.why else ""
                out.write(f"<li>{_link(cited.url)}{quote}{why}</li>")
            out.write("</ul>")
        out.write("</li>")
    out.write("</ol></div>")
