"""Turns a fetched page into its main text, title and sentences (with offsets into that text).

The page's chrome (menus, cookie banners, newsletter boxes, related links, share bars, footers;
chrome.py) is dropped, readability-lxml finds the article in what is left, and chrome inside the
article is dropped from what it kept; when it keeps too little (short pages, unusual markup) the
page's own text, without its chrome, is used instead. Offsets are into the
extracted text, which is what quotes, prefix/suffix and `#:~:text=` fragments are built from.
The bytes come from fetch; PDFs go to pdf.py, which reads them in a child process.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence

import lxml.html
from lxml import etree
from readability import Document as Readable

from ..config import Limits
from ..errors import NotReadable
from ..records import Document, Fetched
from ..text.language import detect_language
from ..text.segment import sentences_of
from .chrome import SKIPPED_TAGS, drop_chrome
from .pdf import is_pdf, pdf_to_document
from .walls import challenge_reason

__all__ = [
    "article_text",
    "decode",
    "document_from_passages",
    "document_from_text",
    "extract",
    "html_to_document",
]

_BLOCKS = frozenset(
    """address article aside blockquote body br dd details dialog div dl dt fieldset figcaption figure
    footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td
    tfoot th thead tr ul caption""".split()
)
_SPACE = re.compile(r"[ \t\r\f\v\u00a0\u200b]+")
_SOURCE_BREAK = re.compile(r"[\r\n]+")
# readability keeping less than this share of the page's text usually means it picked a sidebar.
_MIN_SHARE = 0.25
_MIN_CHARS = 200
# readability-lxml parses pages as UTF-8 bytes; the chrome pass parses them the same way.
_PARSER = lxml.html.HTMLParser(encoding="utf-8")


# Codecs Python has but the web does not (WHATWG Encoding): UTF-7 and the escape codecs turn
# ASCII into lone surrogates, which the tokenizer and SQLite reject.
_NOT_WEB = frozenset(
    {
        "utf_7",
        "unicode_escape",
        "raw_unicode_escape",
        "punycode",
        "idna",
        "utf_16",
        "utf_16_le",
        "utf_16_be",
        "utf_32",
        "utf_32_le",
        "utf_32_be",
    }
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def decode(fetched: Fetched) -> str:
    """Bytes to text: the declared charset, else the page's meta charset, else UTF-8 with repair.

    A declared charset is believed only if its text looks like the content type (markup for
    HTML): a UTF-8 page served as UTF-16 decodes without error into CJK noise. Text that is mostly
    replacement characters is no text at all (NotReadable).
    """
    body = fetched.body
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):  # a UTF-16 byte order mark is the one sure sign
        return _SURROGATE.sub("\ufffd", body.decode("utf-16", errors="replace"))
    for charset in (fetched.charset, _meta_charset(body), "utf-8"):
        if not charset:
            continue
        try:
            if codecs.lookup(charset).name.replace("-", "_") in _NOT_WEB:
                continue
            text = body.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
        if fetched.content_type != "text/plain" and "<" not in text[:2048]:
            continue
        return _SURROGATE.sub("\ufffd", text)
    text = body.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    if bad > 64 and bad > 0.05 * len(text):  # a few broken bytes are repaired; a body of them is not text
        raise NotReadable("not text (the bytes are in no character set we can read)")
    return text


def _meta_charset(body: bytes) -> str | None:
    match = re.search(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_.:-]{1,40})""", body[:4096], re.IGNORECASE)
    return match.group(1).decode("ascii") if match else None


def extract(fetched: Fetched, *, max_chars: int, limits: Limits | None = None) -> Document:
    """A fetched page or PDF as a Document; raises NotReadable. `limits` bound PDF reading."""
    if is_pdf(fetched.content_type, fetched.body):
        return pdf_to_document(fetched.url, fetched.body, limits or Limits(), max_chars=max_chars)
    text = decode(fetched)
    if fetched.content_type == "text/plain":
        return document_from_text(fetched.url, "", text[:max_chars])
    return html_to_document(fetched.url, text, max_chars=max_chars)


def html_to_document(url: str, html: str, *, max_chars: int, title: str = "") -> Document:
    """The main text of an HTML page as a Document; raises NotReadable when there is none."""
    title, text = article_text(html, title=title)
    return document_from_text(url, title, text[:max_chars])


def article_text(html: str, *, title: str = "") -> tuple[str, str]:
    """The title and main text of an HTML page (one line per block); raises NotReadable.

    Consent banners and newsletter boxes are dropped first: they hold prose, and readability-lxml
    took a cookie banner for the article. Then the rest of the chrome (menus, related links,
    share bars, footers: chrome.py) is dropped from what readability kept, inside <main> and
    <article> too, so that the judge reads the same sentences whatever surrounds the article
    (issue 36 item 3). The rest of the chrome is not dropped before readability: that changed its
    pick on real pages (aclu took in the comments), and cleaning by class names before it once
    lost whole articles, since a wrapper whose class says "share" or "sidebar" often holds the
    article (research/evaluation/evaluate_extraction.py on Mozilla's test pages: F1 0.911 and 9 of 130 lost).
    """
    html = html.strip()
    if not html:
        raise NotReadable("the page is empty")
    page = _parse(html)
    body = None if page is None else page.find("body")
    # A page that is all chrome (a consent wall) keeps it: walls.py must still see the wall.
    # Unchanged pages go to readability as they came: a parse and serialisation by lxml alone
    # changes what it picks on some real pages.
    if body is not None and drop_chrome(body, keep=_MIN_CHARS, boxes_only=True):
        html_for_readability = lxml.html.tostring(page, encoding="unicode")
    else:
        html_for_readability = html
    try:
        readable = Readable(html_for_readability)
        kept = lxml.html.fromstring(readable.summary(html_partial=True))
        drop_chrome(kept, keep=0)  # a pick that was all chrome empties out, and the page is read
        main = _text_of(kept)
        title = readable.short_title() or title
    except Exception:  # readability raises bare lxml and parser errors on hostile markup
        main = ""
    if len(main) < _MIN_CHARS:
        root = page if page is not None else _parse(html)
        if root is None:
            raise NotReadable("the page is not HTML we can read") from None
        title = title or (root.findtext(".//title") or "").strip()
        body = root.find("body")
        whole = body if body is not None else root
        drop_chrome(whole, keep=1)
        full = _text_of(whole)
        if len(main) < _MIN_SHARE * len(full):
            main = full
    if not main.strip():
        # A bot check that is all script and iframe (Imperva, DataDome) has no text to judge at all.
        raise NotReadable(challenge_reason(html) or "no readable text on the page")
    return " ".join(title.split()), main


def _parse(html: str) -> lxml.html.HtmlElement | None:
    try:
        return lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=_PARSER)
    except (etree.ParserError, ValueError):
        return None


def _text_of(root: lxml.html.HtmlElement) -> str:
    """Text with one line per block element, so headings and list items stay separate sentences.

    A line break in the HTML source is only white space (pages hard-wrap their paragraphs), so
    it never ends a line here; only block elements and <br> do, and the breaks of <pre>."""
    parts: list[str] = []

    def walk(element: etree._Element, pre: bool) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in SKIPPED_TAGS or not tag:
            if element.tail:
                parts.append(_flow(element.tail, pre))
            return
        block = tag in _BLOCKS
        pre = pre or tag == "pre"
        if block:
            parts.append("\n")
        if element.text:
            parts.append(_flow(element.text, pre))
        for child in element:
            walk(child, pre)
        if block:
            parts.append("\n")
        if element.tail:
            parts.append(_flow(element.tail, pre))

    walk(root, False)
    lines = (_SPACE.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _flow(text: str, pre: bool) -> str:
    return text if pre else _SOURCE_BREAK.sub(" ", text)


def document_from_text(url: str, title: str, text: str, *, declared_language: str = "") -> Document:
    language = detect_language(text, declared=declared_language)
    sentences = sentences_of(text, language)
    return Document(url=url, title=title, text=text, sentences=sentences, language=language)


def document_from_passages(url: str, title: str, passages: Sequence[str]) -> tuple[Document, list[int]]:
    """A Document made of given passages (one per line) and, per sentence, its passage index.

    Evaluation and training give evidence as lists (WiCE sentences, AttributionBench excerpts);
    this keeps the companion's own segmentation while mapping results back to those lists.
    """
    lines, starts = [], []
    at = 0
    for passage in passages:
        line = " ".join(passage.split())
        starts.append(at)
        lines.append(line)
        at += len(line) + 1
    document = document_from_text(url, title, "\n".join(lines))
    owner = []
    for sentence in document.sentences:
        index = max(i for i, s in enumerate(starts) if s <= sentence.start) if starts else 0
        owner.append(index)
    return document, owner
