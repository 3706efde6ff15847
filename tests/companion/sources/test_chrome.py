"""Verdicts do not depend on the page's chrome (issue 36 item 3): metamorphic tests of extraction.

The same article, bare or inside a site's menu, cookie banner, newsletter box, related links,
share bar and footer (research/lib/chrome_pages.py), must give the judge the same sentences in the
same order, contiguous, and none of the chrome. The unrelated paragraph put before and after it
is real content: it may stay, as sentences of its own, never merged into the article's.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import lxml.html
import pytest

from companion.config import Retrieval
from companion.records import Document
from companion.sources.extract import document_from_text, html_to_document
from companion.text.analysis import analyse
from companion.text.retrieve import rank_windows
from research.evaluation.evaluate_extraction import default_data, read_pages
from research.lib.chrome_pages import PLACEMENTS, Chrome, chrome_for, wrap

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
FIXTURES = sorted(PAGES.glob("*.html"))
# A seeded sample keeps the run short (each page is extracted four times) and the same in CI.
MOZILLA_SEED = 36
MOZILLA_SAMPLE = 12


def _document(html: str) -> Document:
    return html_to_document("https://example.org/article", html, max_chars=1_000_000)


def _sentences(html: str) -> list[str]:
    return [s.text for s in _document(html).sentences]


def _unrelated_sentences(chrome: Chrome) -> set[str]:
    """The unrelated paragraphs as the companion segments them: the only text allowed besides
    the article's."""
    texts = (chrome.before, chrome.after)
    return {
        s.text
        for html in texts
        for s in document_from_text("u", "", " ".join(_plain(html).split())).sentences
    }


def _plain(html: str) -> str:
    return lxml.html.fromstring(html).text_content()


def _run_at(haystack: Sequence[str], needle: Sequence[str]) -> int | None:
    """Where `needle` sits in `haystack` as one contiguous run, or None."""
    for at in range(len(haystack) - len(needle) + 1):
        if list(haystack[at : at + len(needle)]) == list(needle):
            return at
    return None


def assert_chrome_does_not_change_the_article(bare_html: str, placement: str, name: str) -> None:
    chrome_language = "fr" if 'lang="fr' in bare_html[:600] else "en"
    chrome = chrome_for(chrome_language)
    bare = _sentences(bare_html)
    wrapped = _sentences(wrap(bare_html, placement))
    assert bare, f"{name}: nothing extracted from the bare page"
    at = _run_at(wrapped, bare)
    assert at is not None, (
        f"{name} ({placement}): the bare page's {len(bare)} sentences are not one run of the "
        f"wrapped page's {len(wrapped)}; only in wrapped: {[s for s in wrapped if s not in bare][:6]}; "
        f"lost: {[s for s in bare if s not in wrapped][:6]}"
    )
    around = wrapped[:at] + wrapped[at + len(bare) :]
    stray = [s for s in around if s not in _unrelated_sentences(chrome)]
    assert not stray, f"{name} ({placement}): chrome left in the sentences: {stray}"
    bare_text, wrapped_text = "\n".join(bare), "\n".join(wrapped)
    leaked = [p for p in chrome.phrases if p in wrapped_text and p not in bare_text]
    assert not leaked, f"{name} ({placement}): chrome text in the article: {leaked}"


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("page", FIXTURES, ids=lambda p: p.stem)
def test_fixture_pages_give_the_same_sentences_inside_a_sites_chrome(page: Path, placement: str) -> None:
    assert_chrome_does_not_change_the_article(page.read_text(encoding="utf-8"), placement, page.name)


def test_there_are_fixture_pages_to_wrap() -> None:
    # An empty glob would make the parametrized test above vanish, not fail.
    assert len(FIXTURES) >= 7


@pytest.fixture(scope="module")
def mozilla_sample() -> list[dict[str, str]]:
    path = default_data()
    if not path.exists():
        pytest.skip(f"Mozilla Readability test pages not found at {path} (../shared/data)")
    pages = read_pages(path)
    return random.Random(MOZILLA_SEED).sample(pages, MOZILLA_SAMPLE)


@pytest.mark.parametrize("position", range(MOZILLA_SAMPLE))
def test_real_articles_give_the_same_sentences_inside_a_sites_chrome(
    mozilla_sample: list[dict[str, str]], position: int
) -> None:
    row = mozilla_sample[position]
    # Readability.js's reference article, as a page of its own: real article markup (figures,
    # lists, tables, links in paragraphs) whose bare extraction is the article itself.
    bare_html = (
        f'<!doctype html><html lang="{row.get("lang") or "en"}"><head><title>{row["name"]}</title>'
        f"</head><body>{row['expected_html']}</body></html>"
    )
    for placement in PLACEMENTS:
        assert_chrome_does_not_change_the_article(bare_html, placement, row["name"])


# The page of the issue: a myth named and then denied, where a stray or merged sentence of chrome
# changes which windows the judge reads and so its verdict.
MYTH_CLAIM = "The Eiffel Tower is made of steel."
MYTH_DENIAL = "It is not: the Eiffel Tower is not made of steel."


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_the_myth_page_reads_the_same_bare_and_wrapped(placement: str) -> None:
    bare_html = (PAGES / "eiffel.html").read_text(encoding="utf-8")
    bare, wrapped = _document(bare_html), _document(wrap(bare_html, placement))
    bare_sentences = [s.text for s in bare.sentences]
    article = [
        s for s in (s.text for s in wrapped.sentences) if s not in _unrelated_sentences(chrome_for("en"))
    ]
    assert MYTH_DENIAL in bare_sentences
    assert article == bare_sentences
    for junk in ("cookies", "Accept all", "Subscribe", "Read more", "Facebook", "All rights reserved"):
        assert junk not in wrapped.text
    retrieval = Retrieval()
    windows = [
        [
            w.text
            for w in rank_windows(d, analyse(MYTH_CLAIM, "en"), limit=retrieval.candidates, max_sentences=3)
        ]
        for d in (bare, wrapped)
    ]
    assert windows[0] == windows[1]
    assert any(MYTH_DENIAL in w for w in windows[1])


# --- the judge's verdicts, with the real model, on held NLI pairs ----------------------------------

HELD_PAIRS = Path(__file__).resolve().parents[4] / "shared" / "data" / "nli_more" / "lingnli_val.jsonl.gz"


@pytest.mark.slow
def test_held_pairs_get_the_same_verdict_bare_and_wrapped():
    """A seeded sample of LingNLI val (MNLI's genres, never trained on), each pair an answer
    sentence citing a page that holds its premise (research/evaluation/trust_probe.py): the verdict and its
    quote are the same bare and inside each placement of a site's chrome. (The score may move a
    little: the unrelated paragraphs are real content, and the page's word statistics count them.)"""
    from companion.judging.judge import Judge
    from companion.model.folder import default_model_dir
    from companion.model.infer import OnnxNLI, load_reader
    from companion.records import Citation, SourceResult, Statement
    from research.evaluation.trust_probe import URL, page, sample

    assert HELD_PAIRS.exists(), f"{HELD_PAIRS} is missing: CI runs with ../shared beside the clone"
    nli = OnnxNLI(default_model_dir())
    judge = Judge(nli, nli.config, reader=load_reader(nli.config))

    def judged(claim: str, html: str) -> tuple:
        document = html_to_document(URL, html, max_chars=200_000)
        statement = Statement(0, claim, (0, len(claim)), (Citation("c1", "1", URL, len(claim)),))
        r = judge.judge(statement, {URL: SourceResult(URL, document)})
        return r.judgment, r.contradicted, tuple(e.text for e in r.evidence)

    rows = sample(f"{HELD_PAIRS}:18", seed=36)
    for i, row in enumerate(rows):
        bare_html = page(row["premise"])
        bare = judged(row["hypothesis"], bare_html)
        wrapped = judged(row["hypothesis"], wrap(bare_html, PLACEMENTS[i % len(PLACEMENTS)]))
        assert wrapped == bare, (row, PLACEMENTS[i % len(PLACEMENTS)])
