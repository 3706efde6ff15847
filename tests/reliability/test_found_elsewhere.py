"""Found elsewhere (issue 12) through a real `citelens serve` with the real model and inline pages:
one sentence supported by its own source, one cited to the wrong source of the answer, one that
cites nothing but a source supports, and one that no source supports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .live_companion import companion_process, post_json

pytestmark = pytest.mark.slow

_PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
HONEY = "https://fieldnotes.example/honey"
TOMATOES = "https://garden.example/tomatoes"
COLONY = "https://fieldnotes.example/colony"
DANCE = "https://fieldnotes.example/dance"

ANSWER = [  # (sentence, the pages it cites)
    ("Honeybees make honey from flower nectar.", (HONEY,)),
    ("Tomatoes need at least six hours of direct sun a day to ripen well.", (COLONY,)),
    ("The queen can lay up to 2,000 eggs a day in spring.", ()),
    ("Bees navigate by the Earth's magnetic field on cloudy days.", (DANCE,)),
    ("Choose a pot of at least twenty litres for a cherry tomato.", (TOMATOES,)),
]


def request() -> dict[str, Any]:
    text, citations = "", []
    for sentence, urls in ANSWER:
        text += (" " if text else "") + sentence
        for url in urls:
            citations.append(
                {
                    "id": f"c{len(citations) + 1}",
                    "marker": str(len(citations) + 1),
                    "url": url,
                    "offset": len(text),
                }
            )
    pages = {HONEY: "honey", TOMATOES: "tomatoes", COLONY: "colony", DANCE: "dance"}
    return {
        "page": {"url": "https://www.perplexity.ai/search/bees", "engine": "perplexity"},
        "answer": {"text": text},
        "citations": citations,
        "sources": {url: {"html": (_PAGES / f"{name}.html").read_text()} for url, name in pages.items()},
        "options": {"stream": False},
    }


async def test_found_elsewhere_through_a_real_companion() -> None:
    with companion_process(seed=7) as (port, token):
        verified = await post_json(port, token, "/v1/verify", request())
        audit = await post_json(port, token, "/v1/audit", request())
    own, misplaced, uncited, nowhere, tomato = verified["statements"]

    assert own["judgment"] == "complete_support" and own["found_elsewhere"] == []

    assert misplaced["judgment"] != "complete_support"
    assert [(f["url"], f["citation"], f["marker"]) for f in misplaced["found_elsewhere"]][:1] == [
        (TOMATOES, "c4", "4")
    ]
    found = misplaced["found_elsewhere"][0]
    assert found["judgment"] in ("complete_support", "partial_support")
    assert any("six hours of direct sun" in e["text"] for e in found["evidence"])
    assert all("#:~:text=" in e["fragment_url"] for e in found["evidence"])

    assert uncited["judgment"] == "no_citation"
    assert [f["url"] for f in uncited["found_elsewhere"]][:1] == [COLONY]
    assert uncited["found_elsewhere"][0]["citation"] == "c2"  # the answer's citation of that page

    assert nowhere["judgment"] != "complete_support" and nowhere["found_elsewhere"] == []
    assert tomato["judgment"] == "complete_support" and tomato["found_elsewhere"] == []

    # The statement's own verdict and ALCE's figures stay the citations' own.
    assert verified["summary"]["misplaced_citations"] >= 1
    assert verified["summary"]["uncited_but_supported"] == 1
    assert verified["summary"]["counts"]["no_citation"] == 1

    # The audit keeps them apart from the cards, in the five-field form plus what was cited.
    assert all(card["cited_url"] in (HONEY, COLONY, DANCE, TOMATOES) for card in audit["cards"])
    assert not any(card["answer_statement"] == uncited["text"] for card in audit["cards"])
    elsewhere = {(c["answer_statement"], c["cited_url"]): c for c in audit["elsewhere"]}
    card = elsewhere[(misplaced["text"], TOMATOES)]
    assert card["cited_urls"] == [COLONY]
    assert {
        "answer_statement",
        "cited_url",
        "support_judgment",
        "evidence_sentences",
        "unsupported_assertions",
    } <= set(card)
    assert elsewhere[(uncited["text"], COLONY)]["cited_urls"] == []
    assert not any(c["answer_statement"] == nowhere["text"] for c in audit["elsewhere"])
