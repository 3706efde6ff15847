"""Citation URLs, by the rules the extension applies too (engines.md: URL hygiene).

The rules are data, in `extension/shared/url-rules.json`: which links are redirectors, which query
keys only track the reader, what becomes of fragments, how an evidence link quotes its sentence.
Addresses are parsed and written back the way the WHATWG URL Standard says (the extension's `URL`
class), so the extension and the companion turn one citation into the same string: a page cited
under two spellings is fetched once, and the companion's names for pages match the extension's.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote, unquote_to_bytes

import idna

__all__ = ["normalize_url", "text_fragment", "text_fragment_hint"]

RULES_FILE: Final = "url-rules.json"
# From a checkout (tests, an editable install) the rules are read where the extension keeps them;
# an installed package carries a copy as package data (pyproject maps extension/shared there).
_CHECKOUT_RULES: Final = Path(__file__).resolve().parents[1] / "extension" / "shared" / RULES_FILE


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


# --- cleaning: the rules of url-rules.json over a parsed address ---------------------------------


def _clean(raw: str) -> tuple[str, str]:
    # The extension trims what it reads from the page with String.prototype.trim first.
    url = _parse(raw.strip(_JS_SPACE))
    for _ in range(_RULES.max_redirects):
        target = _unwrap_once(url)
        if target is None:
            break
        url = _parse(target)
    if url.credentials:
        raise ValueError("an address with a user name or password")
    fragment = url.fragment or ""
    hint = _hint(fragment)
    query = "&".join(piece for piece in (url.query or "").split("&") if piece and not _is_tracking(piece))
    plain = fragment.split(":~:", 1)[0] if _RULES.keep_plain_fragments else ""
    return url.href(query=query or None, fragment=plain or None), hint


def _unwrap_once(url: _Url) -> str | None:
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


# --- parsing: the WHATWG URL Standard for http(s), without a base --------------------------------

# String.prototype.trim's white space (the extension trims with it before parsing).
_JS_SPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPACE_RUN: Final = re.compile(f"[{_JS_SPACE}]+")
_C0_OR_SPACE: Final = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE: Final = re.compile("[\t\n\r]")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
# Percent-encode sets: the C0 control set (below U+0020, above U+007E) plus these.
_PATH_SET: Final = frozenset(' "#<>?^`{}')
_QUERY_SET: Final = frozenset(" \"#'<>")  # the special-query set
_FRAGMENT_SET: Final = frozenset(' "<>`')
_FORBIDDEN_DOMAIN: Final = frozenset(" #%/:<>?@[\\]^|\x7f") | frozenset(map(chr, range(0x20)))


@dataclass(frozen=True)
class _Url:
    credentials: bool  # a user name or password (an empty one is none)
    scheme: str
    host: str  # serialized: lower case, punycode, dotted IPv4, [compressed IPv6]
    port: str  # '' for the scheme's default
    path: str
    query: str | None
    fragment: str | None

    def href(self, *, query: str | None, fragment: str | None) -> str:
        port = f":{self.port}" if self.port else ""
        tail = ("" if query is None else f"?{query}") + ("" if fragment is None else f"#{fragment}")
        return f"{self.scheme}://{self.host}{port}{self.path}{tail}"


def _parse(raw: str) -> _Url:
    # The URL class takes a USVString: lone surrogates are already U+FFFD when it parses.
    text = _LONE_SURROGATE.sub("\ufffd", raw).strip(_C0_OR_SPACE)
    text = _TAB_OR_NEWLINE.sub("", text)
    match = _SCHEME.match(text)
    if not match:
        raise ValueError("not an absolute address")
    scheme = match.group(1).lower()
    if scheme not in _DEFAULT_PORTS:
        raise ValueError(f"not an http(s) address ({scheme}:)")
    rest = text[match.end() :].lstrip("/\\")
    end = next((i for i, c in enumerate(rest) if c in "/\\?#"), len(rest))
    authority, rest = rest[:end], rest[end:]
    userinfo, at, authority = authority.rpartition("@")
    host_text, port_text = _split_port(authority)
    host = _host(host_text)
    port = _port(port_text, scheme)
    rest, hash_mark, fragment = rest.partition("#")
    path_text, question_mark, query = rest.partition("?")
    return _Url(
        credentials=bool(at) and userinfo not in ("", ":"),
        scheme=scheme,
        host=host,
        port=port,
        path=_path(path_text),
        query=_encode(query, _QUERY_SET) if question_mark else None,
        fragment=_encode(fragment, _FRAGMENT_SET) if hash_mark else None,
    )


def _split_port(authority: str) -> tuple[str, str | None]:
    in_brackets = False
    for i, c in enumerate(authority):
        if c == "[":
            in_brackets = True
        elif c == "]":
            in_brackets = False
        elif c == ":" and not in_brackets:
            return authority[:i], authority[i + 1 :]
    return authority, None


def _port(text: str | None, scheme: str) -> str:
    if not text:
        return ""
    if not text.isascii() or not text.isdigit():
        raise ValueError(f"the port {text!r} is not a number")
    port = int(text)
    if port > 65535:
        raise ValueError(f"the port {port} is out of range")
    return "" if port == _DEFAULT_PORTS[scheme] else str(port)


def _host(text: str) -> str:
    if not text:
        raise ValueError("no host")
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError("an unclosed IPv6 address")
        return f"[{_ipv6(text[1:-1])}]"
    domain = _domain_to_ascii(unquote_to_bytes(text).decode("utf-8", "replace"))
    if not domain or _FORBIDDEN_DOMAIN.intersection(domain):
        raise ValueError(f"{text!r} is not a host name")
    return _ipv4(domain) if _ends_in_number(domain) else domain


def _domain_to_ascii(domain: str) -> str:
    labels = domain.split(".")
    if domain.isascii() and not any(label.lower().startswith("xn--") for label in labels):
        return domain.lower()
    # UTS #46 non-transitional processing, as the URL Standard asks: "faß" stays a distinct name.
    mapped = idna.uts46_remap(domain, std3_rules=False, transitional=False)
    labels = mapped.split(".")
    unicode_labels = [_unicode_label(label) for label in labels]
    # A name with any right-to-left label is a Bidi domain name: every label must then pass.
    rtl = any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for label in unicode_labels for c in label)
    for label in unicode_labels:
        if label:
            idna.check_bidi(label, check_ltr=rtl)
    return ".".join(x if x.isascii() else "xn--" + x.encode("punycode").decode() for x in labels)


def _unicode_label(label: str) -> str:
    """The label in Unicode, checked as UTS #46 asks with the URL Standard's flags (no CheckHyphens)."""
    if label.startswith("xn--"):
        try:
            decoded = label[4:].encode("ascii").decode("punycode")
        except (UnicodeError, IndexError):
            raise ValueError(f"{label!r} is not punycode") from None
        unchanged = idna.uts46_remap(decoded, std3_rules=False, transitional=False) == decoded
        if not decoded or decoded.isascii() or "." in decoded or not unchanged:
            raise ValueError(f"{label!r} is not a valid international name")
        label = decoded
    if label:
        idna.check_initial_combiner(label)
    if any(c in "\u200c\u200d" and not idna.valid_contextj(label, i) for i, c in enumerate(label)):
        raise ValueError(f"{label!r} joins letters that cannot be joined")
    return label


def _ends_in_number(domain: str) -> bool:
    labels = domain.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    return bool(re.fullmatch("[0-9]+|0[xX][0-9A-Fa-f]*", last))


def _ipv4(domain: str) -> str:
    """The URL Standard's IPv4 parser: 0x7f.1 and 2130706433 are both 127.0.0.1."""
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise ValueError(f"{domain!r} is not an IPv4 address")
    numbers = [_ipv4_number(part) for part in parts]
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise ValueError(f"{domain!r} is not an IPv4 address")
    value = numbers[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(numbers[:-1]))
    return ".".join(str(value >> shift & 255) for shift in (24, 16, 8, 0))


def _ipv4_number(part: str) -> int:
    radix, digits = 10, "[0-9]+"
    if part[:2] in ("0x", "0X"):
        part, radix, digits = part[2:], 16, "[0-9A-Fa-f]*"
    elif len(part) > 1 and part.startswith("0"):
        part, radix, digits = part[1:], 8, "[0-7]+"
    if not re.fullmatch(digits, part):
        raise ValueError(f"{part!r} is not an IPv4 number")
    return int(part, radix) if part else 0


def _ipv6(text: str) -> str:
    if not re.fullmatch("[0-9A-Fa-f:.]+", text):
        raise ValueError(f"[{text}] is not an IPv6 address")
    try:
        packed = ipaddress.IPv6Address(text).packed
    except ipaddress.AddressValueError:
        raise ValueError(f"[{text}] is not an IPv6 address") from None
    pieces = [packed[i] << 8 | packed[i + 1] for i in range(0, 16, 2)]
    # The first longest run of two or more zero pieces becomes "::".
    best, best_len, i = -1, 1, 0
    while i < 8:
        if pieces[i]:
            i += 1
            continue
        j = i
        while j < 8 and not pieces[j]:
            j += 1
        if j - i > best_len:
            best, best_len = i, j - i
        i = j
    if best < 0:
        return ":".join(f"{p:x}" for p in pieces)
    head = ":".join(f"{p:x}" for p in pieces[:best])
    tail = ":".join(f"{p:x}" for p in pieces[best + best_len :])
    return f"{head}::{tail}"


def _path(text: str) -> str:
    segments: list[str] = []
    parts = re.split(r"[/\\]", text[1:]) if text else [""]
    for i, segment in enumerate(parts):
        last = i == len(parts) - 1
        lower = segment.lower()
        if lower in ("..", ".%2e", "%2e.", "%2e%2e"):
            if segments:
                segments.pop()
            if last:
                segments.append("")
        elif lower in (".", "%2e"):
            if last:
                segments.append("")
        else:
            segments.append(_encode(segment, _PATH_SET))
    return "/" + "/".join(segments)


def _encode(text: str, escape: frozenset[str]) -> str:
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode("utf-8")) if c in escape or not " " <= c <= "~" else c
        for c in text
    )
