"""What the model reads of a source (reading.py): a myth's sentence is read with the sentence
after it, where pages refute it."""

from __future__ import annotations

from companion.config import Judging, Retrieval
from companion.judging.claim import claim_language
from companion.judging.reading import given_elsewhere, read_sources
from companion.records import Window
from companion.sources.extract import document_from_text
from companion.text.analysis import analyse

from .fakes import WordNLI

MYTH = (
    "The Great Barrier Reef lies off the coast of Queensland.\n"
    "A popular myth holds that the reef is visible from the Moon with the naked eye.\n"
    "Astronauts report that it cannot be seen from the Moon.\n"
    "The reef was made a World Heritage Site in 1981."
)


def windows_read(text: str, claim: str, language: str = "en") -> list[str]:
    document = document_from_text("https://example.org/reef", "", text)
    readings = read_sources(
        WordNLI(),
        analyse(claim, language),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
        language=claim_language(language),
    )
    return [w.text for w in readings[document.url].windows]


def test_a_myth_is_read_with_the_sentence_that_follows_it():
    read = windows_read(MYTH, "The reef is visible from the Moon with the naked eye.")
    assert read[0] == (
        "A popular myth holds that the reef is visible from the Moon with the naked eye. "
        "Astronauts report that it cannot be seen from the Moon."
    )
    # The myth's sentence is never read alone, and no window is read twice.
    assert "A popular myth holds that the reef is visible from the Moon with the naked eye." not in read
    assert len(read) == len(set(read))


def test_a_sentence_that_already_refutes_is_read_as_it_is():
    text = "The myth that the reef is visible from the Moon is false.\nThe reef was listed in 1981."
    assert "The myth that the reef is visible from the Moon is false." in windows_read(
        text, "The reef is visible from the Moon."
    )


def test_french_myths_are_read_on_too():
    text = (
        "On lit souvent qu'elle est visible depuis la Lune à l'œil nu.\n"
        "C'est faux : les astronautes ne la distinguent pas depuis la Lune.\n"
        "Le récif est inscrit au patrimoine mondial depuis 1981."
    )
    read = windows_read(text, "Elle est visible depuis la Lune à l'œil nu.", "fr")
    assert read[0].startswith("On lit souvent") and "C'est faux" in read[0]
    assert windows_read(text, "Elle est visible depuis la Lune à l'œil nu.", "en")[0] == (
        "On lit souvent qu'elle est visible depuis la Lune à l'œil nu."
    )


def test_the_numbers_and_names_a_window_lacks_are_taken_from_the_rest_of_the_page():
    text = (
        "The tower was completed in March 1889.\n"
        "It was designed by the company of Gustave Eiffel.\n"
        "When it opened, the tower was 300 metres tall.\n"
        "Its paint is renewed every seven years."
    )
    document = document_from_text("https://example.org/tower", "", text)
    window = Window(2, 2, document.sentences[2].text, 1.0)
    claim = "When it opened in 1889, the tower by Eiffel was 300 metres tall."
    assert given_elsewhere(document, window, analyse(claim, "en"), claim_language("en")) == (
        "The tower was completed in March 1889. It was designed by the company of Gustave Eiffel."
    )
    assert (
        given_elsewhere(document, window, analyse(claim, "en"), claim_language("en"), limit=1)
        == "The tower was completed in March 1889."
    )
    # Nothing is missing, or the page does not give it: nothing to add.
    assert (
        given_elsewhere(
            document, window, analyse("The tower was 300 metres tall.", "en"), claim_language("en")
        )
        == ""
    )
    assert (
        given_elsewhere(
            document, window, analyse("It was 300 metres tall in 1920.", "en"), claim_language("en")
        )
        == ""
    )


def test_words_of_frequency_do_not_put_a_window_on_topic():
    document = document_from_text(
        "https://example.org/paris", "", "Snow is rare in Paris and seldom stays on the ground."
    )
    claim_reading = read_sources(
        WordNLI(),
        analyse("Paris is rarely windy, so the tower seldom sways.", "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
    )[document.url]
    assert claim_reading.on_topic == (False,)
    on_topic = read_sources(
        WordNLI(),
        analyse("Snow is rarely seen in Paris.", "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
    )[document.url]
    assert on_topic.on_topic == (True,)
