"""Finds a page's chrome: menus, cookie and consent banners, newsletter boxes, related links,
share bars and footers, wherever they sit (issue 36 item 3).

A verdict must not depend on what surrounds the article: a cookie banner that readability takes
for the article, or a "read more" list left between two of its paragraphs, changes the sentences
the judge reads and so its verdict. Chrome is recognised by structure (nav, footer, aside,
roles, aria-labels, class and id tokens), by what it says (consent wording next to accept and
reject buttons, an e-mail field under "newsletter", a "read more" heading) and by links (a block
that is mostly links). Real content is protected by what it holds, not by where it sits: an
element with paragraphs of prose, or the page's <main> or <article>, is never chrome, and a page
is never emptied (a consent wall must still read as one, walls.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

import lxml.html

from .. import languages

__all__ = ["SKIPPED_TAGS", "drop_chrome"]

# Never text: scripts, styles, form controls (a button says "Accept", not a claim).
SKIPPED_TAGS = frozenset(
    """script style noscript template svg canvas iframe object embed head button select""".split()
)
# The page itself or its article: chrome sits inside them, never is them.
_PROTECTED_TAGS = frozenset({"html", "body", "main", "article"})
_CHROME_TAGS = frozenset({"nav", "footer", "aside", "menu", "dialog"})
_CHROME_ROLES = frozenset(
    {"navigation", "contentinfo", "banner", "complementary", "dialog", "alertdialog", "search", "menu",
     "menubar", "toolbar"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Words:
    """What chrome says, in every language with words for it (`chrome` of the files in
    companion/languages/): a page's chrome is read before its language is known."""

    # Class and id tokens: the weakest signal, since wrappers are named after what they once held
    # ("post-share-wrapper" around a whole article), so they are capped together (_MAX_WEAK_SHARE).
    # Matched inside longer names ("cookieBanner", "nl-signup").
    class_parts: tuple[str, ...]
    # Short tokens matched as whole words only: "ad" is inside "header", "nav" inside "canvas".
    class_words: frozenset[str]
    label: re.Pattern[str]  # aria-labels
    # Consent banners: their wording, and the buttons that answer them.
    consent_words: re.Pattern[str]
    consent_action: re.Pattern[str]
    subscribe_words: re.Pattern[str]
    email_field: re.Pattern[str]
    # Headings and labels of chrome, whole: the "Read more" above a list of links, "Share" before
    # the buttons. Lower case, without trailing punctuation.
    phrases: frozenset[str]


@cache
def _words() -> _Words:
    found = [record.chrome for record in map(languages.language, languages.codes()) if record is not None]

    def pattern(alternatives: Iterable[str]) -> re.Pattern[str]:
        return re.compile("|".join(alternatives) or r"(?!)", re.IGNORECASE)

    return _Words(
        tuple(part for words in found for part in words.class_parts),
        frozenset().union(*(words.class_words for words in found)),
        pattern(label for words in found for label in words.labels),
        pattern(w for words in found for w in words.consent_words),
        pattern(w for words in found for w in words.consent_actions),
        pattern(w for words in found for w in words.subscribe_words),
        pattern(w for words in found for w in words.email_words),
        frozenset().union(*(words.phrases for words in found)),
    )


_PHRASE_TAGS = frozenset("h1 h2 h3 h4 h5 h6 p span div strong b em a li header label".split())
_PHRASE_MAX_CHARS = 60
_PHRASE_TRIM = " \t\n:;.,!›»→…>|-–—"
# Not tables: a table whose cells are links (a list of cities, of papers) is data.
_LINK_BLOCKS = frozenset("ul ol dl div section nav header footer aside menu".split())
_PROSE_TAGS = frozenset({"p", "blockquote", "pre"})

_MAX_CLIMB = 5  # from a button or an e-mail field up to its banner or box
# Prose an element may hold and still be chrome: a banner's sentence or two, a footer's line.
# Consent and newsletter boxes, known by their wording, say more (TCF banners run long).
_PROSE_CAP = 400
_BOX_PROSE_CAP = 1500
_PROSE_MIN_CHARS = 80  # a paragraph this long, mostly not links, is prose
# Chrome is small: past this size (or this share of the page) only a block of links still is.
_CHROME_MAX_CHARS = 1500
_MAX_DROP_SHARE = 0.15
_LINK_SHARE = 0.6  # a block whose text is this much links is a menu, a list of stories, a footer
_LINK_BLOCK_MIN_LINKS = 3
_LINK_GAP_CHARS = 15  # text between a menu's links: a heading, a separator, a copyright line
# readability turns a <div> of inline links (a share bar) into a <p>: a short one is still a bar.
_LINK_LINE_MAX_CHARS = 200
# Class tokens alone never take more than this share of the text (every paragraph of some pages
# carries a "related-paragraph" class; dropping them all would leave nothing).
_MAX_WEAK_SHARE = 0.5


@dataclass
class _Measures:
    """Text, link text and prose of every element, counted once bottom up (a page can hold
    thousands of nested elements; counting each one's subtree again would be quadratic)."""

    chars: dict[lxml.html.HtmlElement, int] = field(default_factory=dict)
    link_chars: dict[lxml.html.HtmlElement, int] = field(default_factory=dict)
    links: dict[lxml.html.HtmlElement, int] = field(default_factory=dict)
    prose: dict[lxml.html.HtmlElement, int] = field(default_factory=dict)
    holds_main: dict[lxml.html.HtmlElement, bool] = field(default_factory=dict)

    def link_share(self, element: lxml.html.HtmlElement) -> float:
        return self.link_chars[element] / max(self.chars[element], 1)


def _measure(elements: list[lxml.html.HtmlElement]) -> _Measures:
    m = _Measures()
    for element in reversed(elements):  # document order reversed: children before parents
        tag = element.tag
        skipped = tag in SKIPPED_TAGS
        chars = 0 if skipped else len((element.text or "").strip())
        link_chars = links = prose = 0
        holds_main = False
        for child in element:
            tail = len((child.tail or "").strip())
            if not isinstance(child.tag, str):  # comments and processing instructions
                chars += tail
                continue
            chars += m.chars[child] + tail
            link_chars += m.link_chars[child]
            links += m.links[child]
            prose += m.prose[child]
            holds_main = holds_main or m.holds_main[child] or child.tag == "main"
        if skipped:
            chars = link_chars = prose = 0
        elif tag == "a" and element.get("href"):
            link_chars, links = chars, links + 1
        if tag in _PROSE_TAGS and chars >= _PROSE_MIN_CHARS and link_chars < 0.5 * chars:
            prose = chars
        holds_main = holds_main or "articleBody" in (element.get("itemprop") or "")
        m.chars[element], m.link_chars[element], m.links[element] = chars, link_chars, links
        m.prose[element], m.holds_main[element] = prose, holds_main
    return m


def _phrase(element: lxml.html.HtmlElement) -> str:
    return " ".join(element.text_content().split()).lower().strip(_PHRASE_TRIM)


def _class_says_chrome(element: lxml.html.HtmlElement) -> bool:
    names = f"{element.get('class', '')} {element.get('id', '')}".lower()
    if any(part in names for part in _words().class_parts):
        return True
    return not _words().class_words.isdisjoint(re.split(r"[^a-z0-9]+", names))


def _boxes(root: lxml.html.HtmlElement, m: _Measures) -> set[lxml.html.HtmlElement]:
    """Consent banners (a button that answers one, under consent wording) and newsletter boxes
    (an e-mail field under subscription wording), found from their controls up."""
    boxes: set[lxml.html.HtmlElement] = set()
    for control in root.iter():
        if control.tag == "input":
            kind = (control.get("type") or "text").lower()
            named = f"{control.get('name', '')} {control.get('placeholder', '')} {control.get('id', '')}"
            if kind != "email" and not (kind == "text" and _words().email_field.search(named)):
                continue
            wording = _words().subscribe_words
        elif _is_button(control):
            text = " ".join(control.text_content().split()).strip(_PHRASE_TRIM)
            if len(text) > 40 or not _words().consent_action.fullmatch(text):
                continue
            wording = _words().consent_words
        else:
            continue
        box = _box_above(control, wording, m)
        if box is not None:
            boxes.add(box)
    return boxes


def _is_button(element: lxml.html.HtmlElement) -> bool:
    """A control: a button, or a link that stands alone (a link inside a paragraph is prose's)."""
    if element.tag == "button" or (element.get("role") or "").lower() == "button":
        return True
    parent = element.getparent()
    return element.tag == "a" and parent is not None and parent.tag not in _PROSE_TAGS


def _box_above(
    control: lxml.html.HtmlElement, wording: re.Pattern[str], m: _Measures
) -> lxml.html.HtmlElement | None:
    """The nearest ancestor that says what the control is for, grown by a title or a wrapper
    that adds little text."""
    for depth, ancestor in enumerate(control.iterancestors()):
        if depth >= _MAX_CLIMB or ancestor.tag in _PROTECTED_TAGS or m.chars[ancestor] > _CHROME_MAX_CHARS:
            return None
        if wording.search(ancestor.text_content()):
            box = ancestor
            parent = box.getparent()
            while (
                parent is not None
                and parent.tag not in _PROTECTED_TAGS
                and m.chars[parent] <= m.chars[box] + _PHRASE_MAX_CHARS
            ):
                box, parent = parent, parent.getparent()
            return box
    return None


Signal = Literal["box", "strong", "weak", ""]


def _signal(element: lxml.html.HtmlElement, m: _Measures, boxes: set[lxml.html.HtmlElement]) -> Signal:
    """How sure it is that `element` is chrome: a consent or newsletter box, a strong sign
    (structure, links, a chrome heading), a weak one (a class name), or none."""
    if element in boxes:
        return "box"
    tag = element.tag
    role = (element.get("role") or "").lower()
    if tag in _CHROME_TAGS or role in _CHROME_ROLES or _words().label.search(element.get("aria-label") or ""):
        return "strong"
    if tag == "header" and _site_header(element, m):
        return "strong"
    if (tag in _LINK_BLOCKS or (tag == "p" and m.chars[element] <= _LINK_LINE_MAX_CHARS)) and _all_links(
        element, m
    ):
        return "strong"
    if (
        tag in _PHRASE_TAGS
        and 0 < m.chars[element] <= _PHRASE_MAX_CHARS
        and _phrase(element) in _words().phrases
    ):
        return "strong"
    if tag == "form" or _class_says_chrome(element):
        return "weak"
    return ""


def _site_header(element: lxml.html.HtmlElement, m: _Measures) -> bool:
    """A site's header holds its menu; an article's header (inside <article>) its title and
    standfirst, which are content."""
    if any(ancestor.tag == "article" for ancestor in element.iterancestors()):
        return False
    return element.find(".//nav") is not None or m.link_share(element) >= _LINK_SHARE


def _all_links(element: lxml.html.HtmlElement, m: _Measures) -> bool:
    """Mostly links, with little said between them: a menu, a list of stories, a share bar. A
    list whose items say something around their links ("Ana fixed <a>the crash</a> in …") is not."""
    links = m.links[element]
    return (
        links >= _LINK_BLOCK_MIN_LINKS
        and m.link_share(element) >= _LINK_SHARE
        and m.chars[element] - m.link_chars[element] <= _LINK_GAP_CHARS * links
    )


def _droppable(element: lxml.html.HtmlElement, signal: Signal, m: _Measures, total: int) -> bool:
    if element.tag in _PROTECTED_TAGS or m.holds_main[element]:
        return False
    if m.prose[element] > (_BOX_PROSE_CAP if signal == "box" else _PROSE_CAP):
        return False
    small = m.chars[element] <= max(_MAX_DROP_SHARE * total, _CHROME_MAX_CHARS)
    return small or m.link_share(element) >= 0.5


def _find(root: lxml.html.HtmlElement, *, boxes_only: bool) -> tuple[list[lxml.html.HtmlElement], _Measures]:
    """The outermost chrome under `root` in document order, and the measures it was found by."""
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    m = _measure(elements)
    total = m.chars[root]
    boxes = _boxes(root, m)
    chrome: list[lxml.html.HtmlElement] = []
    inside: set[lxml.html.HtmlElement] = set()
    weak = 0
    for element in elements:
        parent = element.getparent()
        if parent in inside:
            inside.add(element)
            continue
        if element is root:
            continue
        signal = _signal(element, m, boxes)
        if not signal or (boxes_only and signal != "box") or not _droppable(element, signal, m, total):
            continue
        if signal == "weak":
            weak += m.chars[element]
        chrome.append(element)
        inside.add(element)
    if weak > _MAX_WEAK_SHARE * total:
        chrome = [e for e in chrome if _signal(e, m, boxes) != "weak"]
    return chrome, m


def drop_chrome(root: lxml.html.HtmlElement, *, keep: int, boxes_only: bool = False) -> bool:
    """Drops the chrome under `root` in place and says whether it dropped any; nothing when less
    than `keep` characters of text would be left: a page that is all chrome (a consent wall, a
    stub) stays as it is, for walls.py and the reader to see. keep=0 lets a readability pick
    that was all chrome empty out. `boxes_only`: consent and newsletter boxes alone."""
    chrome, m = _find(root, boxes_only=boxes_only)
    left = m.chars[root] - sum(m.chars[e] for e in chrome)
    if left < keep or not chrome:
        return False
    _drop(chrome)
    return True


def _drop(elements: Iterable[lxml.html.HtmlElement]) -> None:
    for element in elements:
        if element.getparent() is not None:
            element.drop_tree()  # keeps its tail: the text after it belongs to its parent
