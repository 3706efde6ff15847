"""Reads a captured answer (the /v1/verify body of api.md) into typed records.

Every rule of the contract is checked here, once, with the JSON path of the field at fault, so
the server and the CLI give the same clear error. Cited URLs are normalised by urls.py, with the
rules the extension uses (docs/engines.md: URL hygiene), so a page cited twice under two spellings is
fetched once. Answer positions arrive in UTF-16 code units, as the extension counts them, and
leave here as str indices (utf16.py; api.md, "Positions in the answer"). Unknown fields are
ignored: newer extensions may send more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..config import Limits
from ..errors import RequestInvalid
from ..records import Citation, InlineSource, PageInfo, VerifyRequest
from ..text.urls import normalize_url, text_fragment_hint
from ..text.utf16 import OffsetInvalid, Utf16Offsets

__all__ = ["normalize_url", "parse_request", "text_fragment_hint"]

_SURROGATE = re.compile("[\ud800-\udfff]")
# Checked before normalising, for the clearer message: the scheme is what the user got wrong.
_HTTP = re.compile(r"\s*https?:", re.IGNORECASE)


def _clean(value: str) -> str:
    """Lone UTF-16 surrogates (a cut emoji) become U+FFFD: same length, so offsets still hold."""
    return _SURROGATE.sub("\ufffd", value)


def parse_request(body: Any, limits: Limits) -> VerifyRequest:
    """The /v1/verify body as a VerifyRequest; raises RequestInvalid naming the field at fault."""
    if not isinstance(body, dict):
        raise RequestInvalid("the request body must be a JSON object", field="$", status=400)
    answer = _object(body, "answer", required=True)
    text = answer.get("text")
    if isinstance(text, str):
        text = _clean(text)
    if not isinstance(text, str):
        raise RequestInvalid("answer.text must be a string holding the answer", field="answer.text")
    if not text.strip():
        raise RequestInvalid("the answer is empty: select the answer text and try again", field="answer.text")
    if len(text) > limits.max_answer_chars:
        raise RequestInvalid(
            f"the answer is longer than {limits.max_answer_chars} characters",
            field="answer.text",
            status=413,
            code="too_large",
        )
    page_raw = _object(body, "page")
    page = PageInfo(
        **{
            k: _string(page_raw, k, f"page.{k}", max_len=4096)
            for k in ("url", "engine", "title", "query", "captured_at")
        }
    )
    units = Utf16Offsets(text)
    citations = _citations(body.get("citations", []), units, limits)
    sources = _sources(body.get("sources", {}), limits)
    options = _object(body, "options")
    stream = options.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestInvalid("options.stream must be true or false", field="options.stream")
    return VerifyRequest(page=page, answer_text=text, citations=citations, sources=sources, stream=stream)


def _object(body: Mapping[str, Any], key: str, *, required: bool = False) -> dict[str, Any]:
    value = body.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise RequestInvalid(f"{key} must be a JSON object", field=key)
    return value


def _string(body: Mapping[str, Any], key: str, path: str, *, max_len: int, default: str = "") -> str:
    value = body.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise RequestInvalid(f"{path} must be a string", field=path)
    if len(value) > max_len:
        raise RequestInvalid(
            f"{path} is longer than {max_len} characters", field=path, status=413, code="too_large"
        )
    return _clean(value)


def _citations(raw: Any, units: Utf16Offsets, limits: Limits) -> tuple[Citation, ...]:
    if not isinstance(raw, list):
        raise RequestInvalid("citations must be a list", field="citations")
    if len(raw) > limits.max_citations:
        raise RequestInvalid(
            f"more than {limits.max_citations} citations", field="citations", status=413, code="too_large"
        )
    citations = []
    for i, item in enumerate(raw):
        path = f"citations[{i}]"
        if not isinstance(item, dict):
            raise RequestInvalid(f"{path} must be a JSON object", field=path)
        url = _string(item, "url", f"{path}.url", max_len=limits.max_url_chars)
        if not _HTTP.match(url):
            raise RequestInvalid(
                f"{path}.url must be an http(s) address, got {url[:80]!r}", field=f"{path}.url"
            )
        try:
            normalized = normalize_url(url)
        except ValueError as exc:  # no host, bad port or IP address, a user name in it…
            raise RequestInvalid(f"{path}.url is not a valid address ({exc})", field=f"{path}.url") from None
        # api.md: the explicit hint; extensions before it sent the hint as the URL's text fragment.
        # A hint is a sentence of a URL's fragment, so it is never longer than a URL.
        hint = _string(item, "hint", f"{path}.hint", max_len=limits.max_url_chars) or text_fragment_hint(url)
        offset = _position(item.get("offset"), f"{path}.offset", units)
        # Optional: where the block this marker closes begins (api.md), never after the marker.
        block_start = item.get("block_start")
        if block_start is not None:
            block_start = _position(
                block_start, f"{path}.block_start", units, upper=item["offset"], upper_is="its offset"
            )
        citations.append(
            Citation(
                id=_string(item, "id", f"{path}.id", max_len=64) or f"c{i + 1}",
                marker=_string(item, "marker", f"{path}.marker", max_len=64),
                url=normalized,
                offset=offset,
                hint=hint,
                block_start=block_start,
            )
        )
    if len({c.url for c in citations}) > limits.max_distinct_urls:
        raise RequestInvalid(
            f"more than {limits.max_distinct_urls} distinct cited pages",
            field="citations",
            status=413,
            code="too_large",
        )
    ids = [c.id for c in citations]
    if len(set(ids)) != len(ids):
        duplicate = next(i for i in ids if ids.count(i) > 1)
        raise RequestInvalid(f"citation id {duplicate!r} is used twice", field="citations")
    return tuple(citations)


def _position(
    value: Any,
    path: str,
    units: Utf16Offsets,
    *,
    upper: int | None = None,
    upper_is: str = "the answer's length in UTF-16 code units, as JavaScript counts it",
) -> int:
    """A position in answer.text as the API counts it (UTF-16 code units, api.md "Offsets"),
    returned as a str index. Every position a citation carries (`offset`, `block_start`) is read
    here, so they are counted in one and the same unit; `upper` is a bound in that unit."""
    bound = units.units if upper is None else upper
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= bound:
        raise RequestInvalid(f"{path} must be a whole number between 0 and {bound} ({upper_is})", field=path)
    try:
        return units.to_index(value)
    except OffsetInvalid as exc:  # between the two halves of an emoji
        raise RequestInvalid(f"{path} {exc}", field=path) from None


def _sources(raw: Any, limits: Limits) -> dict[str, InlineSource]:
    if not isinstance(raw, dict):
        raise RequestInvalid("sources must be a JSON object keyed by URL", field="sources")
    sources = {}
    for url, item in raw.items():
        path = f"sources[{url[:80]!r}]"
        if not isinstance(item, dict):
            raise RequestInvalid(f"{path} must be a JSON object with html or text", field=path)
        html = _string(item, "html", f"{path}.html", max_len=limits.max_inline_source_bytes)
        text = _string(item, "text", f"{path}.text", max_len=limits.max_inline_source_bytes)
        title = _string(item, "title", f"{path}.title", max_len=4096)
        via = _string(item, "via", f"{path}.via", max_len=16)
        if via not in ("", "browser"):
            raise RequestInvalid(
                f'{path}.via must be "browser" when given, got {via[:16]!r}', field=f"{path}.via"
            )
        # Why the reader's browser could not read it either: a reason, not a page.
        error = _string(item, "error", f"{path}.error", max_len=200)
        try:
            key = normalize_url(url)
        except ValueError as exc:
            raise RequestInvalid(f"{path} is not a valid address ({exc})", field=path) from None
        sources[key] = InlineSource(html=html, text=text, title=title, via=via, error=error if via else "")
    return sources
