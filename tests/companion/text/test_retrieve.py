"""Retrieval: the cheap scorer must put the evidence first and keep windows minimal."""

import os
import subprocess
import sys
from pathlib import Path

from companion.sources.extract import document_from_text
from companion.text.analysis import analyse
from companion.text.retrieve import rank_windows, top_sentences

ROOT = Path(__file__).resolve().parents[3]

PAGE = document_from_text(
    "https://example.org",
    "Bees",
    "Bees are insects.\nThe waggle dance tells other bees where food is.\nHoney is sweet and sticky.\n"
    "Karl von Frisch decoded the dance.\nHe received the Nobel Prize in 1973.\nMenu\nContact us.",
)


def test_best_window_holds_the_evidence():
    windows = rank_windows(PAGE, analyse("The waggle dance shows bees where the food is.", "en"), limit=3)
    assert windows[0].text == "The waggle dance tells other bees where food is."
    assert windows[0].first == windows[0].last  # one sentence suffices: no padding


def test_two_sentence_evidence_is_found_as_one_window():
    windows = rank_windows(
        PAGE,
        analyse("Karl von Frisch received the Nobel Prize in 1973 for decoding the dance.", "en"),
        limit=3,
    )
    best = windows[0]
    assert (best.first, best.last) == (3, 4)
    assert top_sentences(windows, 2) == [3, 4]


def test_hint_from_a_text_fragment_wins():
    windows = rank_windows(PAGE, analyse("Bees make honey.", "en"), limit=2, hint="Honey is sweet")
    assert "Honey is sweet" in windows[0].text


def test_ranking_is_the_same_in_every_process():
    """Python seeds string hashing per process; set order must not reach the scores (it broke ties)."""
    script = (
        "from companion.sources.extract import document_from_text\n"
        "from companion.text.analysis import analyse\n"
        "from companion.text.retrieve import rank_windows\n"
        "words = 'amber basalt cobalt dune ember fjord glacier harbor island jungle kelp lagoon'.split()\n"
        "text = ' '.join(' '.join(words[i:] + words[:i][: i % 5]) + '.' for i in range(12))\n"
        "doc = document_from_text('https://x.test/', 'T', text)\n"
        "claim = analyse(' '.join(words) + ' mesa nebula 1889 2,000', 'en')\n"
        "print([(w.first, w.last, w.relevance.hex()) for w in rank_windows(doc, claim, limit=12)])\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
        for seed in range(1, 9)
    }
    assert len(outputs) == 1, outputs


def test_a_window_never_begins_or_ends_on_a_sentence_that_shares_no_word_with_the_claim():
    """Issue 36: a window reaching into the unrelated paragraph beside the article read
    differently for what merely sat there (a site's other paragraphs changed 10 % of verdicts)."""
    claim = analyse("Karl von Frisch received the Nobel Prize in 1973 for decoding the dance.", "en")
    windows = rank_windows(PAGE, claim, limit=50)
    held = [bool(analyse(s.text, "en").term_set & claim.term_set) for s in PAGE.sentences]
    several = [w for w in windows if w.last > w.first]
    assert several  # the claim's two sentences still make one window
    assert all(held[w.first] and held[w.last] for w in several)
