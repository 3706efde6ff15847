"""Languages (issue 14): detection per answer and per page, French words and numbers, and the
choice of model per statement, through the real pipeline with a deterministic NLI double."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest

from companion.config import Judging, Limits, Retrieval
from companion.judging.combiner import features_version
from companion.judging.judge import Judge
from companion.judging.judges import Judges
from companion.model.folder import ModelConfig, default_model_dir, load_config
from companion.pipeline import SourceLoader, Verifier
from companion.records import Citation, PageInfo, StatementJudgment, VerifyRequest
from companion.sources.extract import html_to_document
from companion.text.analysis import analyse, overlap
from companion.text.language import detect_language, lexicon
from companion.text.segment import statements

from ..fakes import MemoryFetcher, WordNLI, fake_model

FRENCH = (
    "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie. "
    "On lit souvent qu'elle est visible depuis la Lune à l'œil nu. C'est faux : aucun astronaute "
    "ne l'a jamais vue depuis la Lune."
)
ENGLISH = "The Great Barrier Reef stretches for more than 2,300 kilometres off the coast of Australia."


def test_the_language_of_an_answer_and_of_a_page_is_detected():
    assert detect_language(FRENCH) == "fr"
    assert detect_language(ENGLISH) == "en"
    # Too short to tell: the page's own lang attribute decides, and English without one.
    assert detect_language("Paris, 1889", declared="fr-FR") == "fr"
    assert detect_language("Paris, 1889") == "en"
    document = html_to_document(
        "https://a.example/", f"<html><body><p>{FRENCH}</p></body></html>", max_chars=10_000
    )
    assert document.language == "fr"
    assert [s.text for s in document.sentences][
        1
    ] == "On lit souvent qu'elle est visible depuis la Lune à l'œil nu."


# Languages the detector does not tell apart, each once read as a language a model judges (issue
# 39 item 6): as English (Romanian, Tagalog, Estonian, Welsh, Somali; Amharic, whose script it did
# not know), as Russian (Serbian), as Indonesian (Javanese).
NOT_TOLD_APART = {
    "ro": "Turnul Eiffel a fost construit pentru Expoziția Universală din 1889 și e făcut din fier forjat.",
    "tl": "Ang Eiffel Tower ay itinayo para sa World's Fair noong 1889 sa Paris at gawa ito sa bakal.",
    "et": "Eiffeli torn ehitati 1889. aasta Pariisi maailmanäituseks ja see on valmistatud sepisrauast.",
    "cy": "Adeiladwyd Tŵr Eiffel ar gyfer Ffair y Byd 1889 ym Mharis ac mae wedi'i wneud o haearn gyr.",
    "so": "Munaaradda Eiffel waxaa loo dhisay Bandhigga Adduunka ee 1889 ee Paris waxaana laga sameeyay bir.",
    "am": "የአይፍል ግንብ በ1889 ለፓሪስ የዓለም ትርኢት ተሠራ።",
    "sr": "Ајфелова кула је изграђена за Светску изложбу 1889. године и направљена је од кованог гвожђа.",
    "jv": "Menara Eiffel dibangun kanggo Pameran Donya 1889 ing Paris lan digawe saka wesi tempa.",
}


@pytest.mark.parametrize("language", sorted(NOT_TOLD_APART))
def test_a_language_the_detector_does_not_tell_apart_is_undetermined_not_another(language):
    assert detect_language(NOT_TOLD_APART[language]) == "und"


def test_french_words_are_stemmed_without_elisions_and_numbers_read_as_french_writes_them():
    words = lexicon("fr")
    assert words.terms("l'œil des astronautes visibles") == words.terms("œil astronaute visible")
    assert words.numbers("2 300 km, 1,5 million et 12\u202f000") == ["2300", "1.5", "12000"]
    # "2 300" in French and "2,300" in English are one number; "1,5" is not 15.
    assert set(words.numbers("2 300")) == set(lexicon("en").numbers("2,300"))
    page = analyse(FRENCH, "fr")

    def against_page(claim: str):
        return overlap(analyse(claim, "fr"), page.term_set, page.numbers, [page.lowered])

    assert against_page("Le récif mesure 2 300 kilomètres.").missing_numbers == 0.0
    assert against_page("Le récif mesure 2 400 kilomètres.").missing_numbers == 1.0
    assert against_page("La barrière s'étend sur des kilomètres.").coverage == 1.0


def test_english_words_read_exactly_as_the_default_model_was_fitted_to():
    # The shipped combiner refuses to run on other terms (features_version): English is unchanged.
    shipped = load_config(default_model_dir())
    assert shipped.features_version == features_version(Retrieval(), Judging())
    assert shipped.languages == ("en",)


def test_statements_are_split_in_the_answer_language_and_carry_it():
    answer = "Selon M. Dupont, le projet coûte env. 3 millions. Il a été lancé par Mme Martin."
    found = statements(answer, ())
    # pysbd's English rules end a sentence at "env."; its French ones know the abbreviation.
    assert [s.text for s in found] == [
        "Selon M. Dupont, le projet coûte env. 3 millions.",
        "Il a été lancé par Mme Martin.",
    ]
    assert {s.language for s in found} == {"fr"}


def _config(name: str, languages: tuple[str, ...]) -> ModelConfig:
    return dataclasses.replace(fake_model(), name=name, languages=languages)


ENGLISH_MODEL, MULTILINGUAL = _config("english", ("en",)), _config("multilingual", ("fr", "en"))
PAGES = {
    "https://fr.example/recif": f"<html><body><p>{FRENCH}</p></body></html>",
    "https://en.example/reef": f"<html><body><p>{ENGLISH} It is home to many species.</p></body></html>",
}


async def _verify(answer: str, urls: list[str]) -> list[StatementJudgment]:
    built: list[str] = []

    def build(config: ModelConfig) -> Judge:
        built.append(config.name)
        return Judge(WordNLI(), config)

    judges = Judges([ENGLISH_MODEL, MULTILINGUAL], build)
    citations, at = [], len(answer)
    for i, url in enumerate(urls):
        citations.append(Citation(f"c{i}", str(i + 1), url, at))
    with ThreadPoolExecutor(2) as pool:
        verifier = Verifier(judges, SourceLoader(MemoryFetcher(PAGES), None, Limits(), pool), pool)
        events = [e async for e in verifier.run(VerifyRequest(PageInfo(), answer, tuple(citations)))]
    return [e for e in events if isinstance(e, StatementJudgment)]


@pytest.mark.parametrize(
    ("answer", "urls", "model"),
    [
        (
            "The reef stretches for more than 2,300 kilometres off Australia.",
            ["https://en.example/reef"],
            "english",
        ),
        (
            "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie.",
            ["https://fr.example/recif"],
            "multilingual",
        ),
        # A French answer citing an English page: only the multilingual model reads both.
        (
            "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie.",
            ["https://en.example/reef"],
            "multilingual",
        ),
        # An English answer citing a French page too.
        (
            "The reef stretches for more than 2,300 kilometres off Australia.",
            ["https://fr.example/recif"],
            "multilingual",
        ),
    ],
)
async def test_each_statement_goes_to_the_model_whose_languages_hold_it_and_its_sources(answer, urls, model):
    (judged,) = await _verify(answer, urls)
    assert judged.model == model


async def test_a_french_answer_is_judged_with_french_words():
    judged = await _verify(
        "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie.",
        ["https://fr.example/recif"],
    )
    # WordNLI entails only when every content term of the claim is on the page: French stems and
    # "2 300" read as one number make that so.
    assert [j.judgment for j in judged] == ["complete_support"]


def test_a_language_no_model_holds_goes_to_the_default_model():
    judges = Judges([ENGLISH_MODEL, MULTILINGUAL], lambda c: Judge(WordNLI(), c))
    german = statements(
        "Das Riff ist vom Mond aus mit bloßem Auge nicht zu sehen, sagen die Astronauten.", ()
    )[0]
    assert german.language == "de"
    assert judges.choose(german, {}).name == "english"
    assert judges.loaded() == []  # choosing loads nothing
