"""What the model reads of a source (reading.py): a myth's sentence is read with the sentence
after it, where pages refute it."""

from __future__ import annotations

from companion.config import Judging, Retrieval
from companion.extract import document_from_text
from companion.reading import read_sources

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
        WordNLI(), claim, [(document.url, document, "")], Retrieval(), Judging(), language=language
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
