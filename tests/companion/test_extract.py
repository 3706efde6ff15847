"""Extraction keeps the article, drops the boilerplate, and keeps offsets exact."""

from pathlib import Path

import pytest

from companion.errors import NotReadable
from companion.extract import decode, document_from_passages, html_to_document
from companion.records import Fetched

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
