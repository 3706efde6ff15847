"""Citation URLs, by the rules the extension applies too (docs/engines.md: URL hygiene).

The rules are data, in `extension/shared/url-rules.json`: which links are redirectors, which query
keys only track the reader, what becomes of fragments, how an evidence link quotes its sentence.
Addresses are parsed and written back as the extension's `URL` class does (weburl.py), so the
extension and the companion turn one citation into the same string: a page cited under two
spellings is fetched once, and the companion's names for pages match the extension's.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote, unquote_to_bytes

from .weburl import WebUrl, parse

__all__ = ["normalize_url", "pdf_page_fragment", "text_fragment", "text_fragment_hint"]

# String.prototype.trim's white space (the extension trims with it before parsing).
_JS_SPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPACE_RUN: Final = re.compile(f"[{_JS_SPACE}]+")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")

RULES_FILE: Final = "url-rules.json"
# From a checkout (tests, an editable install) the rules are read where the extension keeps them;
# an installed package carries a copy as package data (pyproject maps extension/shared there).
_CHECKOUT_RULES: Final = Path(__file__).resolve().parents[2] / "extension" / "shared" / RULES_FILE


@dataclass(frozen=True)
class _Redirector:
    host: re.Pattern[str]
    path: re.Pattern[str]
    params: tuple[str, ...]
    decode: str


@dataclass(frozen=True)
class _Rules:
    max_redirects: int
    redirectors: tuple[_Redirector, ...]
    tracking_keys: frozenset[str]
    tracking_prefixes: tuple[str, ...]
    engine_valued_keys: frozenset[str]
    engine_values: tuple[str, ...]
    keep_plain_fragments: bool
    whole_quote_max_words: int
    edge_words: int


_DECODERS: Final = ("", "bing-a1")


def _load_rules() -> _Rules:
    if _CHECKOUT_RULES.is_file():
        text = _CHECKOUT_RULES.read_text(encoding="utf-8")
    else:
        text = (resources.files("companion.shared") / RULES_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    redirectors = []
    for rule in data["redirectors"]:
        decode = rule.get("decode", "")
        if decode not in _DECODERS:
            raise ValueError(f"{RULES_FILE}: unknown decode {decode!r} for {rule['name']}")
        redirectors.append(
            _Redirector(re.compile(rule["host"]), re.compile(rule["path"]), tuple(rule["params"]), decode)
        )
    tracking, fragment = data["tracking"], data["fragment"]
    return _Rules(
        max_redirects=int(data["max_redirects"]),
        redirectors=tuple(redirectors),
        tracking_keys=frozenset(tracking["keys"]),
        tracking_prefixes=tuple(tracking["prefixes"]),
        engine_valued_keys=frozenset(tracking["engine_valued_keys"]),
        engine_values=tuple(tracking["engine_values"]),
        keep_plain_fragments=bool(fragment["keep_plain"]),
        whole_quote_max_words=int(fragment["whole_quote_max_words"]),
        edge_words=int(fragment["edge_words"]),
    )


_RULES = _load_rules()


def normalize_url(url: str) -> str:
    """The address to fetch and to de-duplicate by: what the extension's normalizeUrl gives.

    Raises ValueError for what the extension refuses (its normalizeUrl gives null): anything but
    an absolute http(s) address, a user name or password in it, a host or port that is not one.
    """
    return _clean(url)[0]


def text_fragment_hint(url: str) -> str:
    """The textStart of the `#:~:text=` directive the (unwrapped) link carries, decoded; or ''."""
    return _clean(url)[1]


def pdf_page_fragment(url: str, page: int) -> str:
    """The link that opens a PDF at a page (RFC 8118 `#page=N`, honoured by Chromium's, Firefox's
    and Acrobat's viewers); a PDF viewer ignores text fragments, so this replaces `#:~:text=`."""
    return f"{url.split('#', 1)[0]}#page={page}"


def text_fragment(url: str, quote_text: str) -> str:
    """A link that opens `url` scrolled to the quote (URL Fragment Text Directives, WICG).

    The extension's CL.overlay.fragmentUrl gives the same link for the same arguments.
    """
    base, _, fragment = url.partition("#")
    plain = fragment.split(":~:", 1)[0]
    if _RULES.keep_plain_fragments and plain:
        base = f"{base}#{plain}"
    words = [w for w in _JS_SPACE_RUN.split(_LONE_SURROGATE.sub("\ufffd", quote_text)) if w]
    if not words:
        return base
    if len(words) <= _RULES.whole_quote_max_words:
        directive = _directive_part(" ".join(words))
    else:
        edge = _RULES.edge_words
        directive = f"{_directive_part(' '.join(words[:edge]))},{_directive_part(' '.join(words[-edge:]))}"
    return f"{base}{'' if '#' in base else '#'}:~:text={directive}"


def _directive_part(text: str) -> str:
    # encodeURIComponent's set, plus '-': in a text directive '-' marks a prefix or suffix, and
    # ',' and '&' separate parts and directives.
    return quote(text, safe="!'()*~").replace("-", "%2D")


def _clean(raw: str) -> tuple[str, str]:
    # The extension trims what it reads from the page with String.prototype.trim first.
    url = parse(raw.strip(_JS_SPACE))
    for _ in range(_RULES.max_redirects):
        target = _unwrap_once(url)
        if target is None:
            break
        url = parse(target)
    if url.credentials:
        raise ValueError("an address with a user name or password")
    fragment = url.fragment or ""
    hint = _hint(fragment)
    query = "&".join(piece for piece in (url.query or "").split("&") if piece and not _is_tracking(piece))
    plain = fragment.split(":~:", 1)[0] if _RULES.keep_plain_fragments else ""
    return url.href(query=query or None, fragment=plain or None), hint


def _unwrap_once(url: WebUrl) -> str | None:
    for rule in _RULES.redirectors:
        if not (rule.host.search(url.host) and rule.path.search(url.path)):
            continue
        params = _form_pairs(url.query or "")
        for name in rule.params:
            value = next((v for k, v in params if k == name), "")
            if not value:
                continue
            target = _decode_bing(value) if rule.decode == "bing-a1" else value
            if target and _HTTP_PREFIX.match(target):
                return target
    return None


_HTTP_PREFIX: Final = re.compile(r"https?://", re.IGNORECASE)


def _is_tracking(piece: str) -> bool:
    key, _, value = piece.partition("=")
    key = _form_decode(key).lower()
    if key in _RULES.tracking_keys or key.startswith(_RULES.tracking_prefixes):
        return True
    if key not in _RULES.engine_valued_keys:
        return False
    value = _form_decode(value).lower()
    return any(value == name or value.endswith("." + name) for name in _RULES.engine_values)


def _hint(fragment: str) -> str:
    at = fragment.find(":~:")
    if at < 0:
        return ""
    for directive in fragment[at + 3 :].split("&"):
        if not directive.startswith("text="):
            continue
        # Of prefix-,textStart,textEnd,-suffix only textStart is sure to be one run of the page's text.
        parts = [p for p in directive[5:].split(",") if p and not p.endswith("-") and not p.startswith("-")]
        return _decode_component(parts[0]) if parts else ""
    return ""


def _decode_component(text: str) -> str:
    """JavaScript's decodeURIComponent, except that what it refuses comes back as it was."""
    if _BAD_ESCAPE.search(text):
        return text
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        return text


_BAD_ESCAPE: Final = re.compile("%(?![0-9A-Fa-f]{2})")


def _form_pairs(query: str) -> list[tuple[str, str]]:
    """application/x-www-form-urlencoded parsing, as URLSearchParams does it."""
    pairs = []
    for piece in query.split("&"):
        if piece:
            key, _, value = piece.partition("=")
            pairs.append((_form_decode(key), _form_decode(value)))
    return pairs


def _form_decode(text: str) -> str:
    return unquote_to_bytes(text.replace("+", " ")).decode("utf-8", "replace")


_BASE64: Final = re.compile("[A-Za-z0-9+/]*")


def _decode_bing(value: str) -> str | None:
    """Bing's `u` parameter: "a1" then URL-safe base64 of the target; what atob() accepts."""
    if not value.startswith("a1"):
        return value
    data = value[2:].replace("-", "+").replace("_", "/")
    data += "=" * (-len(data) % 4)
    data = re.sub("[\t\n\f\r ]", "", data)  # forgiving-base64 drops ASCII white space
    if len(data) % 4 == 0:
        data = data[:-2] if data.endswith("==") else data[:-1] if data.endswith("=") else data
    if len(data) % 4 == 1 or not _BASE64.fullmatch(data):
        return None
    try:
        decoded = base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except binascii.Error:
        return None
    return decoded.decode("utf-8", "replace")
