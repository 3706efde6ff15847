"""Page-level article extraction: the companion's extractor against a reference article per page.

    python -m research.evaluation.evaluate_extraction [--data FILE] [--limit N] [--pages] [--json OUT]

The data are Mozilla Readability.js's test pages (`../shared/data/pages/
mozilla_readability_test_pages.jsonl.gz`, or --data, or $CITELENS_EXTRACTION_DATA): each row has
the saved page (`source_html`) and Readability.js's article (`expected_html`).

Scoring follows the Scrapinghub article-extraction benchmark: both texts are cut into word
tokens (`\\w+`, Unicode, case kept), then into overlapping 4-token shingles, counted as multisets.
Per page, tp = shingles in both, precision = tp / shingles extracted, recall = tp / shingles in the
reference (a page with nothing extracted has precision 0). Precision and recall are averaged over
pages and F1 is the harmonic mean of those two means; the mean of per-page F1 is printed too.
A page is *lost* when the extractor raised or its recall is under 0.25: the article is gone.
For the companion, each page's text also goes through companion.sources.walls (bot checks, consent
walls, paywalls): these are all articles, so every page it flags is a false positive.

Two extractors are scored side by side: `companion` (companion.sources.extract.article_text, the text
html_to_document splits into sentences) and `readability` (plain readability-lxml,
`Document(html).summary()`), the baseline to match.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import lxml.html
from readability import Document as Readable

from companion.errors import NotReadable
from companion.sources.extract import article_text
from companion.sources.walls import wall_reason
from companion.text.language import detect_language

__all__ = ["DEFAULT_DATA", "EXTRACTORS", "PageScore", "Report", "evaluate", "read_pages", "shingles"]

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "pages" / "mozilla_readability_test_pages.jsonl.gz"
_TOKEN = re.compile(r"\w+")
_SHINGLE = 4  # the benchmark's n: order matters a little, without failing on a reordered aside
LOST_RECALL = 0.25


def shingles(text: str, n: int = _SHINGLE) -> Counter[tuple[str, ...]]:
    tokens = _TOKEN.findall(text)
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens)


def _text(html: str) -> str:
    """Every text node with a space between, so that adjacent blocks do not glue words together."""
    if not html.strip():
        return ""
    root = lxml.html.fromstring(html)
    for skipped in root.xpath("//script|//style|//noscript"):
        skipped.drop_tree()
    return " ".join(" ".join(root.itertext()).split())


def companion(html: str) -> str:
    return article_text(html)[1]


def readability(html: str) -> str:
    return _text(Readable(html).summary(html_partial=True))


EXTRACTORS: dict[str, Callable[[str], str]] = {"companion": companion, "readability": readability}


@dataclass(frozen=True)
class PageScore:
    name: str
    precision: float
    recall: float
    extracted_chars: int
    reference_chars: int
    error: str = ""
    wall: str = ""  # companion.sources.walls' verdict on the extracted text: an article should get none

    @property
    def lost(self) -> bool:
        return bool(self.error) or self.recall < LOST_RECALL


@dataclass(frozen=True)
class Report:
    extractor: str
    pages: tuple[PageScore, ...]
    seconds: float

    @property
    def precision(self) -> float:
        return statistics.fmean(p.precision for p in self.pages)

    @property
    def recall(self) -> float:
        return statistics.fmean(p.recall for p in self.pages)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def mean_page_f1(self) -> float:
        return statistics.fmean(
            2 * p.precision * p.recall / (p.precision + p.recall or 1) for p in self.pages
        )

    @property
    def lost(self) -> tuple[PageScore, ...]:
        return tuple(p for p in self.pages if p.lost)

    @property
    def walled(self) -> tuple[PageScore, ...]:
        return tuple(p for p in self.pages if p.wall)

    def summary(self) -> dict[str, object]:
        return {
            "extractor": self.extractor,
            "pages": len(self.pages),
            "f1": round(self.f1, 4),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "mean_page_f1": round(self.mean_page_f1, 4),
            "lost": [p.name for p in self.lost],
            "walls": [p.name for p in self.walled],
            "seconds": round(self.seconds, 1),
        }


def read_pages(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: it holds Mozilla Readability.js's test pages "
            "(see ../shared/data/README.md); pass --data FILE or set CITELENS_EXTRACTION_DATA"
        )
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def score_page(name: str, extracted: str, reference: str, error: str = "", wall: str = "") -> PageScore:
    ref, got = shingles(reference), shingles(extracted)
    tp = sum((ref & got).values())
    return PageScore(
        name=name,
        precision=tp / sum(got.values()) if got else 0.0,
        recall=tp / sum(ref.values()) if ref else 1.0,
        extracted_chars=len(extracted),
        reference_chars=len(reference),
        error=error,
        wall=wall,
    )


def evaluate(rows: Iterable[dict[str, str]], extractor: str) -> Report:
    run = EXTRACTORS[extractor]
    scores, started = [], time.perf_counter()
    for row in rows:
        reference = _text(row["expected_html"])
        try:
            text = run(row["source_html"])
        except NotReadable as exc:
            scores.append(score_page(row["name"], "", reference, error=exc.reason))
            continue
        wall = (
            wall_reason(text, html=row["source_html"], language=detect_language(text))
            if extractor == "companion"
            else None
        )
        scores.append(score_page(row["name"], text, reference, wall=wall or ""))
    return Report(extractor, tuple(scores), time.perf_counter() - started)


def default_data() -> Path:
    return Path(os.environ.get("CITELENS_EXTRACTION_DATA") or DEFAULT_DATA)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=None, help="a jsonl.gz of source_html / expected_html")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--extractor", choices=sorted(EXTRACTORS), action="append")
    parser.add_argument("--pages", action="store_true", help="print every page whose F1 differs")
    parser.add_argument("--json", type=Path, help="write the summaries here")
    args = parser.parse_args(argv)
    try:
        rows = read_pages(args.data or default_data())[: args.limit]
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    reports = [evaluate(rows, name) for name in args.extractor or ["companion", "readability"]]
    for report in reports:
        s = report.summary()
        print(
            f"{s['extractor']:<12} F1 {s['f1']:.3f}  P {s['precision']:.3f}  R {s['recall']:.3f}  "
            f"page-F1 {s['mean_page_f1']:.3f}  lost {len(report.lost)}/{s['pages']} {s['lost']}  "
            f"walls {s['walls']}  "
            f"{s['seconds']} s"
        )
    if args.pages and len(reports) > 1:
        for pages in zip(*(r.pages for r in reports)):
            recalls = [p.recall for p in pages]
            if max(recalls) - min(recalls) > 0.05 or any(p.error for p in pages):
                cells = "  ".join(
                    f"P {p.precision:.2f} R {p.recall:.2f} {p.extracted_chars:>6}ch {p.error}" for p in pages
                )
                print(f"  {pages[0].name:<36} ref {pages[0].reference_chars:>6}ch  {cells}")
    if args.json:
        summaries = {r.extractor: {**r.summary(), "per_page": [asdict(p) for p in r.pages]} for r in reports}
        args.json.write_text(json.dumps(summaries, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
