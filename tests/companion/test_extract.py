"""Extraction keeps the article, drops the boilerplate, and keeps offsets exact."""

from pathlib import Path

import pytest

from companion.errors import NotReadable
from companion.records import Fetched
from companion.sources.extract import decode, document_from_passages, html_to_document

PAGES = Path(__file__).parent.parent / "fixtures" / "pages"


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
