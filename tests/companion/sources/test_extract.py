"""Extraction keeps the article, drops the boilerplate, and keeps offsets exact."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from companion.errors import NotReadable
from companion.records import Fetched
from companion.sources.chrome import drop_chrome
from companion.sources.extract import decode, document_from_passages, html_to_document
from research.evaluation.evaluate_extraction import default_data, evaluate, read_pages

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"


def test_article_text_without_boilerplate_and_sentence_offsets_are_exact():
    html = (PAGES / "dance.html").read_text(encoding="utf-8")
    doc = html_to_document("https://example.org/dance", html, max_chars=100_000)
    assert doc.title.startswith("How honeybees talk")
    assert "waggle dance" in doc.text
    for junk in ("cookies", "Advertisement", "newsletter", "Privacy"):
        assert junk not in doc.text
    for sentence in doc.sentences:
        assert doc.text[sentence.start : sentence.end] == sentence.text


def test_a_line_break_in_the_html_source_does_not_cut_a_sentence():
    html = (
        "<html><body><article><p>The reef stretches for more than 2,300 kilometres along the\n"
        "coast of Queensland. It is\r\nthe largest reef system in the world.</p>"
        "<h2>Its fish</h2><p>One line<br>and the next.</p>"
        "<pre>keep\nthese lines</pre></article></body></html>"
    )
    doc = html_to_document("https://example.org", html, max_chars=10_000)
    assert [s.text for s in doc.sentences][:2] == [
        "The reef stretches for more than 2,300 kilometres along the coast of Queensland.",
        "It is the largest reef system in the world.",
    ]
    lines = doc.text.split("\n")
    assert {"Its fish", "One line", "and the next.", "keep", "these lines"} <= set(lines)


def test_fallback_when_readability_keeps_too_little():
    html = "<html><body><nav>Home</nav><div>Short page. It says one thing.</div><footer>(c)</footer></body>"
    doc = html_to_document("https://example.org", html, max_chars=1000)
    assert [s.text for s in doc.sentences] == ["Short page.", "It says one thing."]


def test_hostile_markup_does_not_crash_and_scripts_are_not_text():
    html = (
        "<html><body><script>alert('x')</script><p>Real text is here for once.</p><style>p{}</style>"
        + ("<div>" * 3000)
        + "</body>"
    )
    doc = html_to_document("https://example.org", html, max_chars=1000)
    assert "alert" not in doc.text and "Real text is here for once." in doc.text


def test_empty_page_is_not_readable():
    with pytest.raises(NotReadable):
        html_to_document("https://example.org", "   ", max_chars=1000)
    with pytest.raises(NotReadable):
        html_to_document(
            "https://example.org", "<html><body><script>x()</script></body></html>", max_chars=1000
        )


def test_charsets_declared_in_meta_or_broken():
    latin = "<html><head><meta charset='iso-8859-1'></head><body><p>Caf\xe9 au lait.</p></body></html>"
    assert "Café" in decode(Fetched("u", "u", 200, "text/html", latin.encode("latin-1")))
    broken = b"<p>ok \xff\xfe bytes</p>"
    assert "ok" in decode(Fetched("u", "u", 200, "text/html", broken, charset="utf-8"))


def test_passages_map_sentences_back_to_their_list_items():
    doc, owner = document_from_passages("u", "", ["One. Two.", "Three."])
    assert [s.text for s in doc.sentences] == ["One.", "Two.", "Three."] and owner == [0, 0, 1]


ARTICLE = " ".join(
    f"Paragraph {k} of the report says that the river rose by {k} centimetres over the night."
    for k in range(40)
)


@pytest.mark.parametrize(
    ("open_tag", "close_tag"),
    [
        ('<div class="post-share-wrapper sidebar-layout">', "</div>"),  # a class that says "share"
        ('<div id="author-content" class="promo related">', "</div>"),
        ('<form id="aspnetForm" action="/x">', "</form>"),  # ASP.NET wraps the whole page in a form
        ("<aside>", "</aside>"),
    ],
)
def test_a_wrapper_named_like_boilerplate_keeps_its_article(open_tag: str, close_tag: str) -> None:
    paragraphs = "".join(f"<p>{s}.</p>" for s in ARTICLE.split(". "))
    html = (
        "<html><head><title>River</title></head><body><nav><a href='/'>Home</a></nav>"
        f"{open_tag}<h1>The river rose</h1>{paragraphs}"
        '<div class="share-bar">Share on Facebook</div>'
        f"{close_tag}</body></html>"
    )
    doc = html_to_document("https://example.org/river", html, max_chars=100_000)
    assert "Paragraph 39 of the report" in doc.text and "Paragraph 0 of the report" in doc.text
    assert "Share on Facebook" not in doc.text  # the small share bar inside is still trimmed


def test_trimming_never_takes_most_of_the_text() -> None:
    # Every paragraph carries a class the boilerplate rule knows: dropping them all would leave nothing.
    html = (
        "<html><body>"
        + "".join(f'<p class="related-paragraph">{s}.</p>' for s in ARTICLE.split(". "))
        + "</body></html>"
    )
    doc = html_to_document("https://example.org/river", html, max_chars=100_000)
    assert "Paragraph 39 of the report" in doc.text and "Paragraph 1 of the report" in doc.text


def test_chrome_rules_keep_the_article_parts_that_look_like_chrome() -> None:
    """Issue 36 item 3: chrome goes, but not a paragraph with links, an article's own header,
    a list that is content, or a changelog list whose items say something around their links."""
    links = " ".join(f'<a href="/s/{k}">source {k}</a>' for k in range(3))
    html = (
        "<html><body><main><article>"
        "<header><h1>The river rose</h1><p>What the gauges said on the night of the flood.</p>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/local'>Local</a></nav></header>"
        f"<p>{ARTICLE[:400]} The figures come from {links}, which agree within a centimetre.</p>"
        "<ul><li>The river rose by 40 centimetres.</li><li>Two bridges were closed.</li>"
        "<li>Nobody was hurt.</li></ul>"
        # Mostly link text, but each item says who: a changelog, not a menu.
        "<ul><li>Ana, on the night shift, <a href='/b/1'>fixed the broken water gauge on the old "
        "stone bridge</a></li><li>Bo, at the harbour office, <a href='/b/2'>logged the river "
        "readings every hour until the dawn</a></li>"
        "<li>Cy, with the weir crew, <a href='/b/3'>checked the sluices at the weir</a></li></ul>"
        "<div><h3>Read more</h3><ul><li><a href='/a/1'>Ten bridges that changed engineering</a></li>"
        "<li><a href='/a/2'>Why the trains are late again this week</a></li>"
        "<li><a href='/a/3'>The lighthouse keepers of the north coast</a></li></ul></div>"
        "</article></main></body></html>"
    )
    root = lxml.html.document_fromstring(html)
    assert drop_chrome(root.find("body"), keep=0)
    text = " ".join(root.text_content().split())
    for kept in ("The river rose", "What the gauges said", "source 2, which agree", "Nobody was hurt",
                 "fixed the broken water gauge", "checked the sluices"):  # fmt: skip
        assert kept in text
    for dropped in ("Home", "Read more", "Ten bridges", "lighthouse keepers"):
        assert dropped not in text


def test_a_page_that_is_all_consent_banner_is_left_for_the_wall_check() -> None:
    html = (
        "<html><body><div><p>We and our partners use cookies to store and access information on "
        "your device.</p><button>Accept all</button><button>Reject all</button></div></body></html>"
    )
    doc = html_to_document("https://example.org", html, max_chars=10_000)
    assert "use cookies" in doc.text


# Extraction on Mozilla Readability.js's 130 real test pages stays at readability-lxml's level.
#
# Regression floor for issue 11: pre-cleaning by class names once lost whole articles (F1 0.911,
# 9 pages lost). The data live outside the repository (../shared/data, or
# CITELENS_EXTRACTION_DATA); this test fails, not skips, when they are missing, so CI cannot pass
# without having measured.

# Measured here: companion F1 0.968 (P 0.980, R 0.956), 0 pages lost; plain readability-lxml
# F1 0.966, 1 lost. The floor leaves room for a library update, not for losing articles again.
F1_FLOOR = 0.955
MAX_LOST = 1


@pytest.fixture(scope="module")
def pages() -> list[dict[str, str]]:
    path = default_data()
    if not path.exists():
        pytest.fail(
            f"extraction benchmark data missing: {path} (Mozilla Readability.js test pages, see "
            "../shared/data/README.md); set CITELENS_EXTRACTION_DATA to its path"
        )
    return read_pages(path)


def test_companion_keeps_the_articles_of_real_pages_and_takes_none_for_a_wall(
    pages: list[dict[str, str]],
) -> None:
    assert len(pages) == 130, "the benchmark file changed: re-measure and update the floor"
    report = evaluate(pages, "companion")
    lost = [f"{p.name} (recall {p.recall:.2f}{', ' + p.error if p.error else ''})" for p in report.lost]
    assert len(lost) <= MAX_LOST, f"articles lost on {len(lost)} pages: {lost}"
    assert report.f1 >= F1_FLOOR, (
        f"extraction F1 {report.f1:.3f} (P {report.precision:.3f}, R {report.recall:.3f}) "
        f"is under the floor {F1_FLOOR}"
    )
    # Measured: 0 of 130. These are articles; a wall verdict would make them inaccessible.
    walled = [f"{p.name} ({p.wall})" for p in report.walled]
    assert not walled, f"real articles taken for bot checks, consent walls or paywalls: {walled}"
