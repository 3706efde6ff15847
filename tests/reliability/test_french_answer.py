"""A French answer through a real `citelens serve` with the shipped models (issue 14): its
statements go to the multilingual model, the supported ones are complete support, and a myth its
own page refutes is not; an English answer to the same process still goes to the English model."""

from __future__ import annotations

from typing import Any

import pytest

from .live_companion import companion_process, post_json

pytestmark = pytest.mark.slow

RECIF = "https://nature.example/grande-barriere"
POISSONS = "https://ocean.example/especes-du-recif"
REEF = "https://nature.example/great-barrier-reef"

PAGES = {
    RECIF: """<html lang="fr"><head><title>La Grande Barrière de corail</title></head><body><article>
<h1>La Grande Barrière de corail</h1>
<p>La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres le long de la côte du
Queensland, en Australie. C'est le plus grand ensemble de récifs coralliens du monde.</p>
<p>On lit souvent qu'elle est visible depuis la Lune à l'œil nu. C'est faux : les astronautes
rapportent qu'on ne la distingue pas depuis la Lune, et à peine depuis l'orbite terrestre.</p>
<p>Le récif est inscrit au patrimoine mondial de l'UNESCO depuis 1981.</p>
</article></body></html>""",
    POISSONS: """<html lang="fr"><head><title>Les espèces du récif</title></head><body><article>
<h1>Les espèces du récif</h1>
<p>Le récif abrite plus de 1 500 espèces de poissons et environ 400 espèces de coraux durs.</p>
<p>Six des sept espèces de tortues marines du monde y viennent aussi.</p>
</article></body></html>""",
    REEF: """<html lang="en"><head><title>The Great Barrier Reef</title></head><body><article>
<h1>The Great Barrier Reef</h1>
<p>The Great Barrier Reef stretches for more than 2,300 kilometres along the coast of Queensland,
Australia. It has been a UNESCO World Heritage Site since 1981.</p>
</article></body></html>""",
}

FRENCH = [  # (sentence, cited page, supported by it)
    (
        "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres le long de l'Australie.",
        RECIF,
        True,
    ),
    ("Elle est visible depuis la Lune à l'œil nu.", RECIF, False),
    ("Le récif abrite plus de 1 500 espèces de poissons.", POISSONS, True),
    ("Il est inscrit au patrimoine mondial de l'UNESCO depuis 1981.", RECIF, True),
]


def request(sentences: list[tuple[str, str]]) -> dict[str, Any]:
    text, citations = "", []
    for sentence, url in sentences:
        text += (" " if text else "") + sentence
        citations.append({"id": f"c{len(citations) + 1}", "marker": "1", "url": url, "offset": len(text)})
    return {
        "page": {"url": "https://www.perplexity.ai/search/recif", "engine": "perplexity"},
        "answer": {"text": text},
        "citations": citations,
        "sources": {url: {"html": html} for url, html in PAGES.items()},
        "options": {"stream": False},
    }


async def test_a_french_answer_is_judged_by_the_multilingual_model() -> None:
    with companion_process(seed=3) as (port, token):
        french = await post_json(port, token, "/v1/verify", request([(s, u) for s, u, _ in FRENCH]))
        english = await post_json(
            port,
            token,
            "/v1/verify",
            request(
                [("The Great Barrier Reef stretches for more than 2,300 kilometres along Australia.", REEF)]
            ),
        )
        audit = await post_json(port, token, "/v1/audit", request([(s, u) for s, u, _ in FRENCH]))

    judged = french["statements"]
    assert [s["language"] for s in judged] == ["fr"] * len(FRENCH)
    multilingual = {s["model"] for s in judged}
    assert len(multilingual) == 1 and multilingual != {"citelens-minilm-nli"}
    verdicts = [(s["text"], s["judgment"]) for s in judged]
    assert [j == "complete_support" for _, j in verdicts] == [supported for _, _, supported in FRENCH], (
        verdicts
    )
    # The myth sentence is refuted by its page, not merely unsupported.
    assert judged[1]["contradicted"], judged[1]

    # The summary names the model that judged, not the English default (issue 36 item 6).
    (name,) = multilingual
    assert french["summary"]["model"]["name"] == name
    assert [m["name"] for m in french["summary"]["models"]] == [name]
    assert english["summary"]["model"]["name"] == "citelens-minilm-nli"

    (statement,) = english["statements"]
    assert statement["model"] == "citelens-minilm-nli" and statement["language"] == "en"
    assert statement["judgment"] == "complete_support"

    # The audit names the model of each card and describes it with its languages.
    assert {card["model"] for card in audit["cards"]} == multilingual
    (described,) = audit["tool"]["models"]
    assert described["name"] in multilingual and "fr" in described["languages"]
