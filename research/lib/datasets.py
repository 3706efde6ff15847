"""The evaluation sets as the companion sees them: a Statement and its cited Document.

Shared by evaluate.py, calibrate.py and citation_pairs.py, so training, calibration and
evaluation read each example exactly the same way.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from companion.records import Citation, SourceResult, Statement
from companion.sources.extract import document_from_passages
from companion.text.language import detect_language
from companion.text.segment import split_sentences

__all__ = [
    "FORMATS",
    "MEANING",
    "Example",
    "ab_context",
    "examples",
    "group_keys",
    "read_rows",
    "references",
]

FORMATS = ("attributionbench", "wice", "snli", "meaning")
MEANING = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "meaning" / "pairs.jsonl"
_URL = "https://evidence.invalid/"


@dataclass(frozen=True)
class Example:
    statement: Statement
    sources: dict[str, SourceResult]
    owner: list[int]  # per source sentence: index in the example's own evidence list
    gold: str  # complete_support / partial_support / no_support, or the SNLI label


def read_rows(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def references(row: dict) -> list[str]:
    refs = row["references"]
    if isinstance(refs, str):
        refs = [refs]
    return [str(r) for r in refs if str(r).strip()]


def ab_context(row: dict) -> tuple[str, str]:
    """The sentence before the claim in its response, and the question (the companion's context)."""
    response, claim = row.get("response") or "", row["claim"].strip()
    at = response.find(claim)
    previous = ""
    if at > 0:
        before = [response[s:e] for s, e in split_sentences(response[:at])]
        previous = before[-1] if before else ""
    return previous, row.get("question") or ""


def example(fmt: str, row: dict) -> Example:
    if fmt == "attributionbench":
        passages = references(row)
        previous, question = ab_context(row)
        claim = row["claim"].strip()
        gold = (
            "complete_support" if row["attribution_label"].strip().lower() == "attributable" else "no_support"
        )
    elif fmt == "wice":
        passages, previous, question, claim = row["evidence"], "", "", row["claim"].strip()
        gold = {"supported": "complete_support", "partially_supported": "partial_support"}.get(
            row["label"], "no_support"
        )
    elif fmt == "meaning":  # tests/fixtures/meaning: one hand-written page per row
        passages, previous, question, claim = [row["page"]], "", "", row["claim"].strip()
        gold = "complete_support" if row["label"] == "supported" else "no_support"
    elif fmt == "snli":
        passages, previous, question, claim = [row["premise"]], "", "", row["hypothesis"].strip()
        gold = row["label"]
    else:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    document, owner = document_from_passages(_URL, "", passages)
    citation = Citation(id="c1", marker="1", url=_URL, offset=len(claim))
    # As the companion reads an answer: its language picks the lexicon (and, in the server, the model).
    language = detect_language(claim, declared=document.language)
    statement = Statement(
        0, claim, (0, len(claim)), (citation,), previous=previous, question=question, language=language
    )
    source = SourceResult(
        _URL, document if document.sentences else None, "" if document.sentences else "empty"
    )
    return Example(statement, {_URL: source}, owner, gold)


def examples(fmt: str, rows: list[dict]) -> Iterator[Example]:
    for row in rows:
        yield example(fmt, row)


# A cited-page sentence this long that recurs under this many Wikipedia articles or fewer is taken
# to identify the page; longer-spread ones are site furniture ("Your email address will not be
# published", a newspaper's Facebook link), which would chain unrelated pages into one group.
_PAGE_SENTENCE_CHARS = 40
_PAGE_SENTENCE_TITLES = 2


def _norm(text: str) -> str:
    return " ".join(str(text).split()).lower()


def group_keys(fmt: str, rows: list[dict]) -> list[str]:
    """Per row, the key of its leak group: rows that must land on the same side of a split.

    WiCE: one claim (meta.id), one Wikipedia article (meta.claim_title) and one cited page (a
    shared evidence sentence, see above) are one group, linked transitively. AttributionBench: one
    question and one claim text. The key is the group's smallest article title or question, so a
    group that is a single question keeps the key make_splits.py has always hashed.
    """
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    if fmt == "wice":
        names = [_norm(r["meta"].get("claim_title") or r["meta"]["id"]) for r in rows]
        titles_of: dict[str, set[str]] = defaultdict(set)
        for r, name in zip(rows, names):
            for e in r["evidence"]:
                titles_of[_norm(e)].add(name)
        for r, name in zip(rows, names):
            union("c:" + r["meta"]["id"], "n:" + name)
            for e in map(_norm, r["evidence"]):
                if len(e) >= _PAGE_SENTENCE_CHARS and len(titles_of[e]) <= _PAGE_SENTENCE_TITLES:
                    union("c:" + r["meta"]["id"], "s:" + e)
        nodes = ["c:" + r["meta"]["id"] for r in rows]
    elif fmt == "attributionbench":
        names = [r["question"].strip().lower() for r in rows]
        for r, name in zip(rows, names):
            union("n:" + name, "t:" + _norm(r["claim"]))
        nodes = ["n:" + name for name in names]
    else:
        raise ValueError(f"no split groups for format {fmt!r}")
    smallest: dict[str, str] = {}
    for node, name in zip(nodes, names):
        root = find(node)
        smallest[root] = min(smallest.get(root, name), name)
    return [smallest[find(node)] for node in nodes]
