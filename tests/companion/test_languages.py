"""Answers and pages in a language no shipped model reads are "not checked", never judged by the
English model with English rules (issue 26, item 6); a language the multilingual model was
measured good enough in is judged by it (issue 39): Japanese since its 0.2.0, German and Spanish
not yet (their figures are under the floor, and the reason says so)."""

from __future__ import annotations

import pytest

from companion.config import Settings
from companion.model.folder import default_model_dir, load_config
from tests.conftest import free_port

PAGES = {
    "https://de.example/turm": (
        "de",
        "Der Eiffelturm wurde zwischen 1887 und 1889 als Eingangsportal der Weltausstellung in Paris "
        "errichtet. Er ist 330 Meter hoch und besteht aus Puddeleisen. Jedes Jahr besuchen ihn "
        "ungefähr sieben Millionen Menschen.",
    ),
    "https://es.example/torre": (
        "es",
        "La Torre Eiffel se construyó entre 1887 y 1889 como entrada a la Exposición Universal de "
        "París. Mide 330 metros de altura y está hecha de hierro pudelado. Cada año la visitan unos "
        "siete millones de personas.",
    ),
    "https://ja.example/tower": (
        "ja",
        "エッフェル塔は1887年から1889年にかけて、パリ万国博覧会の入口として建設されました。"
        "高さは330メートルで、錬鉄で作られています。毎年およそ700万人が訪れます。",
    ),
    "https://en.example/tower": (
        "en",
        "The Eiffel Tower was built between 1887 and 1889 as the entrance to the 1889 World's Fair in "
        "Paris. It is 330 metres tall and made of puddled iron. About seven million people visit it "
        "every year.",
    ),
}
ANSWERS = {
    "de": "Der Eiffelturm wurde zwischen 1887 und 1889 für die Weltausstellung gebaut.",
    "es": "La Torre Eiffel se construyó entre 1887 y 1889 para la Exposición Universal.",
    "ja": "エッフェル塔は1887年から1889年にかけて万国博覧会のために建設されました。",
    "en": "The Eiffel Tower was built between 1887 and 1889 for the World's Fair.",
}
NAMES = {"de": "German", "es": "Spanish"}
READS = "CiteLens reads English, French, Greek, Indonesian, Italian, Japanese, Portuguese and Vietnamese"
MULTILINGUAL = "citelens-e5-multilingual-nli"


def _short_of(language: str) -> str:
    """The reason's end: the shipped multilingual model's figure for `language`, under its floor."""
    figure = load_config(default_model_dir().parent / MULTILINGUAL).figure(language)
    assert figure is not None and not figure.checked
    return f" (judged at {figure.figure:.2f} on held pairs, under the {figure.floor:.2f} it needs)"


def _html(language: str, text: str) -> str:
    return f"<html lang='{language}'><body><article><h1>Tower</h1><p>{text}</p></article></body></html>"


def _body(answer: str, urls: list[str]) -> dict:
    return {
        "answer": {"text": answer},
        "citations": [
            {"id": f"c{i}", "marker": str(i), "url": url, "offset": len(answer)}
            for i, url in enumerate(urls, 1)
        ],
        "sources": {url: {"html": _html(*PAGES[url])} for url in urls},
    }


@pytest.fixture
async def companion(start_companion, tmp_path):
    # Both shipped models: English, and the multilingual one for French (and English).
    return await start_companion(Settings(port=free_port(), state_dir=tmp_path / "state"))


@pytest.mark.parametrize(
    ("language", "url"),
    [("de", "https://de.example/turm"), ("es", "https://es.example/torre")],
)
async def test_an_answer_in_a_language_no_model_reads_is_not_checked(companion, language, url):
    result = await (await companion.post("/v1/verify", _body(ANSWERS[language], [url]))).json()
    [statement] = result["statements"]
    assert statement["language"] == language
    assert statement["judgment"] == "not_checked"
    [citation] = statement["per_citation"]
    assert citation["judgment"] == "not_checked"
    assert citation["reason"] == f"the answer is in {NAMES[language]}; {READS}{_short_of(language)}"
    summary = result["summary"]
    assert summary["counts"]["not_checked"] == 1 and summary["counts"]["complete_support"] == 0
    assert summary["citation_recall"] is None and summary["citation_precision"] is None


async def test_an_english_claim_citing_only_a_german_page_is_not_checked(companion):
    body = _body(ANSWERS["en"], ["https://de.example/turm"])
    result = await (await companion.post("/v1/verify", body)).json()
    [statement] = result["statements"]
    assert statement["judgment"] == "not_checked"
    reason = statement["per_citation"][0]["reason"]
    assert reason == f"the page is in German; {READS}{_short_of('de')}"
    assert not statement["found_elsewhere"]


async def test_a_page_in_an_unread_language_beside_a_readable_one_is_set_aside(companion):
    body = _body(ANSWERS["en"], ["https://en.example/tower", "https://de.example/turm"])
    result = await (await companion.post("/v1/verify", body)).json()
    [statement] = result["statements"]
    by_url = {pc["url"]: pc for pc in statement["per_citation"]}
    assert by_url["https://de.example/turm"]["judgment"] == "not_checked"
    assert by_url["https://en.example/tower"]["judgment"] != "not_checked"
    assert statement["judgment"] != "not_checked"  # judged on the page it can read
    # ALCE's precision counts the citation that was read, not the one set aside.
    assert result["summary"]["computed_over"]["citations"] == 1


async def test_a_sentence_citing_nothing_is_without_citation_in_any_language(companion):
    answer = "Der Eiffelturm steht seit mehr als hundert Jahren in Paris. " + ANSWERS["de"]
    result = await (await companion.post("/v1/verify", _body(answer, ["https://de.example/turm"]))).json()
    assert result["statements"][0]["language"] == "de"
    assert [s["judgment"] for s in result["statements"]] == ["no_citation", "not_checked"]


async def test_a_japanese_answer_is_judged_by_the_multilingual_model(companion):
    result = await (
        await companion.post("/v1/verify", _body(ANSWERS["ja"], ["https://ja.example/tower"]))
    ).json()
    [statement] = result["statements"]
    assert statement["language"] == "ja"
    assert statement["model"] == MULTILINGUAL
    assert statement["judgment"] in ("complete_support", "partial_support"), statement
    [citation] = statement["per_citation"]
    assert citation["judgment"] != "not_checked" and citation["evidence"], citation
    # The quote is the page's own sentence about the years, in Japanese.
    assert "1889" in citation["evidence"][0]["text"]


async def test_an_english_claim_citing_a_japanese_page_is_judged_on_it(companion):
    result = await (
        await companion.post("/v1/verify", _body(ANSWERS["en"], ["https://ja.example/tower"]))
    ).json()
    [statement] = result["statements"]
    assert statement["model"] == MULTILINGUAL  # the one model that reads both
    assert statement["per_citation"][0]["judgment"] != "not_checked"
