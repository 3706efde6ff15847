"""Answers and pages in a language no shipped model reads are "not checked", never judged by the
English model with English rules (issue 26, item 6); a language the multilingual model was
measured good enough in is judged by it (issue 39): Spanish since its 0.3.0, Italian since its
0.2.0. Since its 0.3.4 a language is checked where the lower end of its figure's 95 % interval
reaches the floor (issue 59 item 4): German and Chinese, checked by their point figures before,
are not, nor are Japanese and Arabic (the reason gives the figure and its lower bound). A claim
against a page in another language is read only where that pair was measured good enough, on the
model's crossed scale: English pages with Spanish claims and Spanish pages with English claims
are; Italian pages with English claims, a pair not measured, are not."""

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
    "https://zh.example/tower": (
        "zh",
        "埃菲尔铁塔于1887年至1889年间建造，作为巴黎世界博览会的入口。塔高330米，由熟铁建成。"
        "每年约有七百万人参观。",
    ),
    "https://ar.example/burj": (
        "ar",
        "بُني برج إيفل بين عامي 1887 و1889 ليكون مدخلاً للمعرض العالمي في باريس. يبلغ ارتفاعه 330 "
        "متراً وهو مصنوع من الحديد المطاوع. يزوره نحو سبعة ملايين شخص كل عام.",
    ),
    "https://it.example/torre": (
        "it",
        "La Torre Eiffel fu costruita tra il 1887 e il 1889 come ingresso dell'Esposizione Universale di "
        "Parigi. È alta 330 metri ed è fatta di ferro pudellato. Ogni anno la visitano circa sette "
        "milioni di persone.",
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
    "zh": "埃菲尔铁塔于1887年至1889年间为世界博览会而建造。",
    "ar": "بُني برج إيفل بين عامي 1887 و1889 من أجل المعرض العالمي.",
    "it": "La Torre Eiffel fu costruita tra il 1887 e il 1889 per l'Esposizione Universale.",
    "en": "The Eiffel Tower was built between 1887 and 1889 for the World's Fair.",
}
NAMES = {"ja": "Japanese", "ar": "Arabic", "de": "German", "zh": "Chinese"}
READS = (
    "CiteLens reads English, Bulgarian, French, Greek, Indonesian, Italian, Portuguese, Spanish "
    "and Vietnamese"
)
MULTILINGUAL = "citelens-e5-multilingual-nli"


def _short_of(language: str) -> str:
    """The reason's end: the shipped multilingual model's figure for `language`, under its floor."""
    figure = load_config(default_model_dir().parent / MULTILINGUAL).figure(language)
    assert figure is not None and not figure.checked
    return f" (judged at {figure.shown} on held pairs, under the {figure.floor:.2f} it needs)"


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
    [
        ("ja", "https://ja.example/tower"),
        ("ar", "https://ar.example/burj"),
        # Checked by their point figures until 0.3.4; their lower bounds are under the floor.
        ("de", "https://de.example/turm"),
        ("zh", "https://zh.example/tower"),
    ],
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


async def test_an_english_claim_citing_only_a_japanese_page_is_not_checked(companion):
    body = _body(ANSWERS["en"], ["https://ja.example/tower"])
    result = await (await companion.post("/v1/verify", body)).json()
    [statement] = result["statements"]
    assert statement["judgment"] == "not_checked"
    reason = statement["per_citation"][0]["reason"]
    assert reason == f"the page is in Japanese; {READS}{_short_of('ja')}"
    assert not statement["found_elsewhere"]


async def test_a_page_in_an_unread_language_beside_a_readable_one_is_set_aside(companion):
    body = _body(ANSWERS["en"], ["https://en.example/tower", "https://ja.example/tower"])
    result = await (await companion.post("/v1/verify", body)).json()
    [statement] = result["statements"]
    by_url = {pc["url"]: pc for pc in statement["per_citation"]}
    assert by_url["https://ja.example/tower"]["judgment"] == "not_checked"
    assert by_url["https://en.example/tower"]["judgment"] != "not_checked"
    assert statement["judgment"] != "not_checked"  # judged on the page it can read
    # ALCE's precision counts the citation that was read, not the one set aside.
    assert result["summary"]["computed_over"]["citations"] == 1


async def test_a_sentence_citing_nothing_is_without_citation_in_any_language(companion):
    answer = "エッフェル塔は百年以上パリに立っています。" + ANSWERS["ja"]
    result = await (await companion.post("/v1/verify", _body(answer, ["https://ja.example/tower"]))).json()
    assert result["statements"][0]["language"] == "ja"
    assert [s["judgment"] for s in result["statements"]] == ["no_citation", "not_checked"]


@pytest.mark.parametrize(
    ("language", "url"),
    [("es", "https://es.example/torre"), ("it", "https://it.example/torre")],
)
async def test_a_spanish_or_italian_answer_is_judged_by_the_multilingual_model(
    companion, language, url
):
    result = await (await companion.post("/v1/verify", _body(ANSWERS[language], [url]))).json()
    [statement] = result["statements"]
    assert statement["language"] == language
    assert statement["model"] == MULTILINGUAL
    assert statement["judgment"] in ("complete_support", "partial_support"), statement
    [citation] = statement["per_citation"]
    assert citation["judgment"] != "not_checked" and citation["evidence"], citation
    # The quote is the page's own sentence about the years.
    assert "1889" in citation["evidence"][0]["text"]


def _across(page: str, claim: str):
    figure = load_config(default_model_dir().parent / MULTILINGUAL).across(page, claim)
    assert figure is not None
    return figure


# What the Spanish page says outright ("como entrada a la Exposición Universal"): the model reads
# ANSWERS["en"]'s "for the World's Fair" as no support from it (0.20 on the crossed scale).
AS_ITS_ENTRANCE = "The Eiffel Tower was built between 1887 and 1889 as the entrance to the World's Fair."


@pytest.mark.parametrize(
    ("language", "url", "page", "answer"),
    [
        ("es", "https://en.example/tower", "en", ANSWERS["es"]),
        ("en", "https://es.example/torre", "es", AS_ITS_ENTRANCE),
    ],
)
async def test_a_claim_citing_a_page_in_another_language_is_judged_where_the_pair_reaches_its_floor(
    companion, language, url, page, answer
):
    assert _across(page, language).checked
    result = await (await companion.post("/v1/verify", _body(answer, [url]))).json()
    [statement] = result["statements"]
    assert statement["language"] == language and statement["model"] == MULTILINGUAL
    # The page says the claim outright: the crossed reading finds it, where the lexical combiner,
    # finding none of the claim's words on the page, judged every such pair no support.
    assert statement["judgment"] in ("complete_support", "partial_support"), statement
    [citation] = statement["per_citation"]
    assert citation["judgment"] != "not_checked" and "reason" not in citation
    assert "1889" in citation["evidence"][0]["text"]


async def test_a_claim_citing_a_page_in_another_language_not_measured_is_not_checked(companion):
    # Italian is read, and English is; Italian pages against English claims were never measured.
    config = load_config(default_model_dir().parent / MULTILINGUAL)
    assert "it" in config.languages and config.across("it", "en") is None
    result = await (
        await companion.post("/v1/verify", _body(ANSWERS["en"], ["https://it.example/torre"]))
    ).json()
    [statement] = result["statements"]
    assert statement["judgment"] == "not_checked"
    assert statement["per_citation"][0]["reason"] == (
        "the page is in Italian and the sentence in English; CiteLens has not measured how well it "
        "reads across them"
    )


async def test_a_claim_citing_pages_on_both_sides_of_the_language_line_reads_both(companion):
    urls = ["https://es.example/torre", "https://en.example/tower"]
    result = await (await companion.post("/v1/verify", _body(ANSWERS["es"], urls))).json()
    [statement] = result["statements"]
    assert statement["model"] == MULTILINGUAL
    assert statement["judgment"] in ("complete_support", "partial_support"), statement
    assert all(c["judgment"] != "not_checked" for c in statement["per_citation"]), statement


async def test_an_english_claim_citing_english_and_spanish_pages_is_read_whole_by_one_model(companion):
    # One model judges a statement, on one scale: the multilingual one reads English (0.3.2) and
    # Spanish pages against English claims, so it reads both; the English model reads no Spanish.
    urls = ["https://en.example/tower", "https://es.example/torre"]
    result = await (await companion.post("/v1/verify", _body(ANSWERS["en"], urls))).json()
    [statement] = result["statements"]
    assert statement["model"] == MULTILINGUAL
    assert all(c["judgment"] != "not_checked" for c in statement["per_citation"]), statement


async def test_a_page_read_across_languages_by_another_model_than_the_sentence_s_is_set_aside(companion):
    # No model reads all three pages (Italian against English is not measured), so the English
    # model, whose language the sentence is in, judges it on the English page. The multilingual
    # model reads Spanish pages against English sentences, but not this sentence's Italian one: the
    # Spanish page is set aside, and the reason says why.
    urls = ["https://en.example/tower", "https://es.example/torre", "https://it.example/torre"]
    result = await (await companion.post("/v1/verify", _body(ANSWERS["en"], urls))).json()
    [statement] = result["statements"]
    assert statement["model"] != MULTILINGUAL
    by_url = {pc["url"]: pc for pc in statement["per_citation"]}
    assert by_url["https://en.example/tower"]["judgment"] != "not_checked"
    assert by_url["https://es.example/torre"]["judgment"] == "not_checked"
    assert by_url["https://es.example/torre"]["reason"] == (
        "the page is in Spanish and the sentence in English; CiteLens reads across them "
        f"({_across('es', 'en').shown} on held pairs) only with a model that does not read the "
        "sentence's other pages"
    )
    assert by_url["https://it.example/torre"]["judgment"] == "not_checked"
    unmeasured = by_url["https://it.example/torre"]["reason"]
    assert unmeasured.endswith("has not measured how well it reads across them")


async def test_a_japanese_sentence_in_an_english_answer_is_not_judged_as_english(companion):
    english = (
        f"{ANSWERS['en']} It is 330 metres tall and made of puddled iron. "
        "About seven million people visit it every year."
    )
    answer = f"{english} {ANSWERS['ja']}"
    body = {
        "answer": {"text": answer},
        "citations": [
            {"id": "c1", "marker": "1", "url": "https://en.example/tower", "offset": len(english)},
            {"id": "c2", "marker": "2", "url": "https://ja.example/tower", "offset": len(answer)},
        ],
        "sources": {
            url: {"html": _html(*PAGES[url])}
            for url in ("https://en.example/tower", "https://ja.example/tower")
        },
    }
    result = await (await companion.post("/v1/verify", body)).json()
    *in_english, japanese = result["statements"]
    assert [s["language"] for s in in_english] == ["en", "en", "en"]
    assert in_english[-1]["judgment"] != "not_checked"
    assert japanese["language"] == "ja" and japanese["judgment"] == "not_checked"
    assert japanese["per_citation"][0]["reason"].startswith("the answer is in Japanese")
