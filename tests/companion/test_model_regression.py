"""Model regression, end to end: a realistic answer, pages fetched from a local site, the real
model, the real API. It pins the shipped model's verdicts and rates on this answer, so a new model
or a judge change that moves them fails here on purpose: update the pins with the model card.
Each pinned verdict stands at least 0.05 from the threshold that decides it (issue 24): a pin on
a score a hair from its bar would break with any change and hide how close it was.

The answer holds every case of the verifiability study: complete support, a sentence half
supported, one contradicted by its source, a dead link next to a good source, a source reachable
only through a dead link (inaccessible), a sentence without citation, and two citations of which
one is irrelevant (ALCE precision).
"""

from __future__ import annotations

import json
import re

import pytest

ANSWER = (
    "Honeybees tell each other where to find food with the waggle dance.[1] "
    "The angle of the waggle run shows the direction of the food relative to the sun.[1] "
    "A summer colony holds one queen, a few hundred drones and tens of thousands of workers.[2] "
    # Not "…six weeks in summer": its "six" and "week" put the tomato page's windows on the claim's
    # topic, and the model read one as a contradiction at 0.925, 0.005 under the 0.93 bar. Here the
    # page is off topic: complete support stands 0.62 clear, the tomato page's no support 0.10.
    "Worker bees live about six weeks in the summer months.[2][4] "
    "Honeybees make honey from flower nectar, and they can see ultraviolet light.[5] "
    # Not "…began in ancient Egypt about 2,000 years ago" (the page: "more than 4,500"): the model
    # reads that at 0.928 contradiction, on the 0.93 bar, and the number rule that refuted it was
    # measured not to pay and dropped (docs/rules.md). This one the model refutes at 0.986-0.994.
    "The ancient Egyptians never kept bees in hives.[3] "
    "Karl von Frisch received the Nobel Prize in 1973 for decoding the dance.[1][6] "
    "Many gardeners plant lavender to attract bees. "
    "The queen can live for several years.[7]"
)
PAGES = {
    "1": "dance",
    "2": "colony",
    "3": "history",
    "4": "tomatoes",
    "5": "honey",
    "6": "gone",
    "7": "gone-too",
}


def request_for(base: str, *, stream: bool) -> dict:
    text, citations = "", []
    for match in re.finditer(r"\[(\d)\]|[^\[]+", ANSWER):
        if match.group(1):
            marker = match.group(1)
            url = f"{base}/articles/{PAGES[marker]}?utm_source=perplexity"
            citations.append(
                {"id": f"c{len(citations) + 1}", "marker": marker, "url": url, "offset": len(text)}
            )
        else:
            text += match.group(0)
    return {
        "page": {
            "url": "https://www.perplexity.ai/search/bees",
            "engine": "perplexity",
            "query": "how do honeybees live and communicate",
            "captured_at": "2026-11-30T09:00:00Z",
        },
        "answer": {"text": text.strip()},
        "citations": citations,
        "options": {"stream": stream},
    }


@pytest.fixture
async def bees(pages_server, settings_for, start_companion):
    companion = await start_companion(settings_for(allow=pages_server))
    return companion, f"http://127.0.0.1:{pages_server.port}"


async def test_stream_judges_every_case(bees):
    companion, site = bees
    req = request_for(site, stream=True)
    response = await companion.post("/v1/verify", req)
    assert response.status == 200 and response.content_type == "application/x-ndjson"
    lines = [json.loads(line) async for line in response.content]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "start" and kinds[-1] == "summary"
    assert lines[0] == {"type": "start", "statements": 9, "sources": 7}

    statements = [line for line in lines if line["type"] == "statement"]
    assert [s["index"] for s in statements] == list(range(9))  # answer order
    seen_sources: set[str] = set()
    for line in lines:  # a statement comes after the source lines of its own citations
        if line["type"] == "source":
            seen_sources.add(line["url"])
        if line["type"] == "statement":
            assert {pc["url"] for pc in line["per_citation"]} <= seen_sources

    judgments = [s["judgment"] for s in statements]
    assert judgments == [
        "complete_support",
        "complete_support",
        "complete_support",
        "complete_support",
        "partial_support",
        "no_support",
        "complete_support",
        "no_citation",
        "inaccessible",
    ]
    text = req["answer"]["text"]
    for s in statements:
        assert text[s["span"][0] : s["span"][1]] == s["text"]
    # the contradicting source is flagged; the half-supported sentence names its unsupported half
    assert statements[5]["contradicted"] is True
    # `probability` is the combiner's, `score` that number shown with its label (docs/api.md):
    # the same wherever the verdict is support, never above it, null where nothing was judged.
    for s in statements:
        for judged in (s, *s["per_citation"]):
            if judged["judgment"] in ("complete_support", "partial_support"):
                assert judged["score"] == judged["probability"]
            elif judged["judgment"] == "no_support":
                assert 0 <= judged["score"] <= judged["probability"]
            else:
                assert judged["probability"] is None
    assert statements[4]["unsupported_assertions"] == ["Honeybees can see ultraviolet light."]
    # ALCE precision: the tomato page cannot support the lifespan alone, and the colony page does
    by_marker = {pc["marker"]: pc for pc in statements[3]["per_citation"]}
    assert by_marker["4"]["irrelevant"] is True and by_marker["2"]["irrelevant"] is False
    # a dead link beside a good source does not spoil the judgment, and says why
    dead = {pc["marker"]: pc for pc in statements[6]["per_citation"]}["6"]
    assert dead["judgment"] == "inaccessible" and "404" in dead["reason"]

    summary = lines[-1]
    assert summary["counts"] == {
        "complete_support": 5,
        "partial_support": 1,
        "no_support": 1,
        "inaccessible": 1,
        "not_checked": 0,
        "no_citation": 1,
    }
    assert summary["citation_recall"] == pytest.approx(5 / 7, abs=1e-3)
    assert summary["citation_precision"] == pytest.approx(5 / 8, abs=1e-3)


async def test_evidence_is_verbatim_at_its_offsets_and_links_open_at_it(bees):
    companion, site = bees
    response = await companion.post("/v1/verify", request_for(site, stream=False))
    result = await response.json()
    texts = {}  # the extracted text of each page, as the companion keeps it
    for url in {s["url"] for s in result["sources"] if s["status"] == "ok"}:
        cached = companion.runtime.cache.get(url)
        assert cached is not None
        texts[url] = cached.text
    checked = 0
    for statement in result["statements"]:
        for pc in statement["per_citation"]:
            for e in pc["evidence"]:
                assert texts[pc["url"]][e["start"] : e["end"]] == e["text"]
                assert texts[pc["url"]][: e["start"]].endswith(e["prefix"])
                assert texts[pc["url"]][e["end"] :].startswith(e["suffix"])
                assert e["fragment_url"].startswith(pc["url"] + "#:~:text=")
                checked += 1
    assert checked >= 6
    first = result["statements"][0]["per_citation"][0]["evidence"]
    # The sentence the model reads as saying it, and no sentence beside it that only shares its
    # words ("Forager honeybees that find …" was quoted for "honeybees … find" until issue 58).
    assert [e["text"] for e in first] == ["The waggle dance tells the other bees where the food is."]
    nobel = result["statements"][6]["evidence_sentences"]
    assert any("Nobel Prize" in e for e in nobel) and len(nobel) <= 2


async def test_audit_export_has_five_field_cards(bees):
    companion, site = bees
    response = await companion.post("/v1/audit", request_for(site, stream=False))
    assert response.status == 200
    audit = await response.json()
    assert audit["page"]["engine"] == "perplexity"
    assert audit["tool"]["model"]["name"] and audit["tool"]["thresholds"]["complete"] > 0
    # What computed the numbers (issue 24): the installed onnxruntime and this CPU's kernel family.
    from importlib.metadata import version

    from companion.model.cpu import int8_kernel

    assert audit["tool"]["runtime"] == {
        "onnxruntime": version("onnxruntime"),
        "int8_kernel": int8_kernel().family,
        "machine": int8_kernel().machine,
    }
    assert audit["tool"]["runtime"]["int8_kernel"] not in ("unknown", "")
    five = [
        "answer_statement",
        "cited_url",
        "support_judgment",
        "evidence_sentences",
        "unsupported_assertions",
    ]
    assert len(audit["cards"]) == 10  # one per statement × cited source (8 cited statements)
    for card in audit["cards"]:
        assert list(card)[:5] == five
        assert card["support_judgment"] in {
            "complete_support",
            "partial_support",
            "no_support",
            "inaccessible",
        }
    assert all(
        (c["probability"] is None) == (c["support_judgment"] == "inaccessible") for c in audit["cards"]
    )
    tomato = next(c for c in audit["cards"] if c["cited_url"].endswith("/tomatoes"))
    assert tomato["irrelevant"] is True and tomato["evidence_sentences"] == []
    partial = next(c for c in audit["cards"] if c["support_judgment"] == "partial_support")
    assert partial["unsupported_assertions"] == ["Honeybees can see ultraviolet light."]
    assert partial["evidence_sentences"] == ["Honeybees make honey from flower nectar."]
    assert audit["uncited_statements"] == ["Many gardeners plant lavender to attract bees."]
    assert audit["summary"]["counts"]["complete_support"] == 5


async def test_second_check_reads_the_cache_not_the_site(bees, pages_server):
    companion, site = bees
    await (await companion.post("/v1/verify", request_for(site, stream=False))).json()
    await pages_server.close()  # the site is gone; cached pages must still be judged
    result = await (await companion.post("/v1/verify", request_for(site, stream=False))).json()
    assert [s["judgment"] for s in result["statements"]][:3] == ["complete_support"] * 3
