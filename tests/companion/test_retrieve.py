"""Retrieval: the cheap scorer must put the evidence first and keep windows minimal."""

from companion.extract import document_from_text
from companion.retrieve import overlap, rank_windows, top_sentences

PAGE = document_from_text(
    "https://example.org",
    "Bees",
    "Bees are insects.\nThe waggle dance tells other bees where food is.\nHoney is sweet and sticky.\n"
    "Karl von Frisch decoded the dance.\nHe received the Nobel Prize in 1973.\nMenu\nContact us.",
)


def test_best_window_holds_the_evidence():
    windows = rank_windows(PAGE, "The waggle dance shows bees where the food is.", limit=3)
    assert windows[0].text == "The waggle dance tells other bees where food is."
    assert windows[0].first == windows[0].last  # one sentence suffices: no padding


def test_two_sentence_evidence_is_found_as_one_window():
    windows = rank_windows(
        PAGE, "Karl von Frisch received the Nobel Prize in 1973 for decoding the dance.", limit=3
    )
    best = windows[0]
    assert (best.first, best.last) == (3, 4)
    assert top_sentences(windows, 2) == [3, 4]


def test_hint_from_a_text_fragment_wins():
    windows = rank_windows(PAGE, "Bees make honey.", limit=2, hint="Honey is sweet")
    assert "Honey is sweet" in windows[0].text


def test_overlap_flags_missing_numbers_and_names():
    o = overlap("Karl von Frisch won the Nobel Prize in 1975 with Konrad Lorenz.", PAGE.text)
    assert o.missing_numbers == 1.0
    assert 0 < o.missing_names < 1  # Karl, Frisch and Nobel found; Konrad and Lorenz not
