"""The /v1/verify body: contract checks with field paths, and URL hygiene (engines.md)."""

import base64

import pytest

from companion.capture import normalize_url, parse_request, text_fragment_hint
from companion.config import Limits
from companion.errors import RequestInvalid

LIMITS = Limits()


def body(**over):
    base = {
        "answer": {"text": "Paris is the capital of France."},
        "citations": [{"id": "c1", "marker": "1", "url": "https://example.org/a", "offset": 31}],
    }
    base.update(over)
    return base


def error_of(raw) -> RequestInvalid:
    with pytest.raises(RequestInvalid) as info:
        parse_request(raw, LIMITS)
    return info.value


def test_valid_request_parses_with_defaults_and_ignores_unknown_fields():
    req = parse_request(body(extra={"x": 1}, page={"engine": "perplexity", "query": "capital?"}), LIMITS)
    assert req.page.engine == "perplexity" and req.stream is False
    assert req.citations[0].url == "https://example.org/a" and req.citations[0].offset == 31


@pytest.mark.parametrize(
    ("raw", "field", "status"),
    [
        ([], "$", 400),
        ({}, "answer", 422),
        ({"answer": {"text": 5}}, "answer.text", 422),
        ({"answer": {"text": "   "}}, "answer.text", 422),
        (body(citations={}), "citations", 422),
        (body(citations=[{"url": "ftp://x.org/a", "offset": 0}]), "citations[0].url", 422),
        (body(citations=[{"url": "https://x.org/a", "offset": 99}]), "citations[0].offset", 422),
        (body(citations=[{"url": "https://x.org/a", "offset": True}]), "citations[0].offset", 422),
        (body(citations=[{"url": "https://x.org/a"}]), "citations[0].offset", 422),
        (body(citations=["https://x.org/a"]), "citations[0]", 422),
        (body(options={"stream": "yes"}), "options.stream", 422),
        (body(page={"query": 3}), "page.query", 422),
        (body(sources={"https://x.org/a": "<html>"}), "sources['https://x.org/a']", 422),
        ({"answer": {"text": "x" * (LIMITS.max_answer_chars + 1)}}, "answer.text", 413),
    ],
)
def test_invalid_bodies_name_the_field(raw, field, status):
    err = error_of(raw)
    assert (err.field, err.status) == (field, status)
    assert err.message


def test_too_many_distinct_pages_is_413():
    cites = [{"url": f"https://x{i}.org/", "offset": 0} for i in range(LIMITS.max_distinct_urls + 1)]
    err = error_of(body(citations=cites))
    assert (err.status, err.field) == (413, "citations")


def test_duplicate_citation_ids_are_refused():
    cites = [
        {"id": "c1", "url": "https://x.org/", "offset": 0},
        {"id": "c1", "url": "https://y.org/", "offset": 0},
    ]
    assert error_of(body(citations=cites)).field == "citations"


def test_tracking_parameters_fragments_and_redirectors_are_normalised():
    assert (
        normalize_url("https://Example.org/a?utm_source=chatgpt.com&id=3#top") == "https://example.org/a?id=3"
    )
    assert normalize_url("https://www.google.com/url?q=https://example.org/b&sa=U") == "https://example.org/b"
    target = "https://en.wikipedia.org/wiki/Honey_bee"
    encoded = base64.urlsafe_b64encode(target.encode()).decode().rstrip("=")
    assert normalize_url(f"https://www.bing.com/ck/a?!&&p=1&u=a1{encoded}&ntb=1") == target
    assert normalize_url("https://example.org/x?ref=openai&page=2") == "https://example.org/x?page=2"


def test_text_fragment_is_kept_as_a_hint_but_not_in_the_url():
    req = parse_request(
        body(citations=[{"url": "https://example.org/a#:~:text=capital%20of,France", "offset": 0}]), LIMITS
    )
    assert req.citations[0].url == "https://example.org/a"
    assert req.citations[0].hint == "capital of"
    assert text_fragment_hint("https://example.org/") == ""
