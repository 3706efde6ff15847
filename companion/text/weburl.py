"""http(s) addresses parsed and written back as the WHATWG URL Standard says, without a base.

This is what the extension's `URL` class does (jsdom's whatwg-url and Firefox exactly; Chromium
also percent-encodes "|" in paths and accepts invalid punycode labels), so that urls.py and the
extension's url-hygiene.js turn one citation into one string.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote_to_bytes

import idna

__all__ = ["WebUrl", "parse"]

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
class WebUrl:
    """One address, each part already written as the URL Standard writes it."""

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


def parse(raw: str) -> WebUrl:
    """`new URL(raw)` for http(s); raises ValueError where it throws or the scheme is another."""
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
    return WebUrl(
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
