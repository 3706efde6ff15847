"""The /v1/verify body: contract checks with field paths, and URL hygiene (docs/engines.md)."""

import base64

import pytest

from companion.config import Limits
from companion.errors import RequestInvalid
from companion.text import urls
from companion.wire.capture import normalize_url, parse_request, text_fragment_hint

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


def test_cited_urls_and_source_keys_are_normalised_by_the_shared_rules():
    # The rules themselves are tested case by case in text/test_urls.py, on the cases the extension runs.
    assert (normalize_url, text_fragment_hint) == (urls.normalize_url, urls.text_fragment_hint)
    target = "https://en.wikipedia.org/wiki/Honey_bee"
    encoded = base64.urlsafe_b64encode(target.encode()).decode().rstrip("=")
    req = parse_request(
        body(
            citations=[
                {"url": f"https://www.bing.com/ck/a?!&&p=1&u=a1{encoded}&ntb=1", "offset": 0},
                {
                    "url": "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fa%3Fgbraid%3D1",
                    "offset": 0,
                },
            ],
            sources={"https://Example.org:443/a?pk_campaign=ai#top": {"text": "inline"}},
        ),
        LIMITS,
    )
    assert [c.url for c in req.citations] == [target, "https://example.org/a"]
    assert list(req.sources) == ["https://example.org/a"]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://x.org/a", "must be an http(s) address"),
        ("https://user:pw@x.org/a", "not a valid address"),
        ("https://x.org:99999/", "not a valid address"),
        ("http://[::1/", "not a valid address"),
    ],
)
def test_a_url_the_extension_would_refuse_is_refused(url, message):
    error = error_of(body(citations=[{"url": url, "offset": 0}]))
    assert error.field == "citations[0].url" and message in str(error)


def test_the_hint_field_is_the_engines_sentence():
    req = parse_request(
        body(citations=[{"url": "https://example.org/a", "offset": 0, "hint": "capital of France"}]), LIMITS
    )
    assert req.citations[0].url == "https://example.org/a"
    assert req.citations[0].hint == "capital of France"


def test_without_the_hint_field_the_text_fragment_is_the_hint_as_older_extensions_sent_it():
    cites = [
        {"url": "https://example.org/a#:~:text=capital%20of,France", "offset": 0},
        {"url": "https://example.org/b#:~:text=from%20the%20url", "offset": 0, "hint": "from the field"},
        {"url": "https://example.org/c", "offset": 0},
    ]
    req = parse_request(body(citations=cites), LIMITS)
    assert [c.url for c in req.citations] == [
        "https://example.org/a",
        "https://example.org/b",
        "https://example.org/c",
    ]
    assert [c.hint for c in req.citations] == ["capital of", "from the field", ""]


@pytest.mark.parametrize(("hint", "status"), [(7, 422), ("x" * (LIMITS.max_url_chars + 1), 413)])
def test_a_hint_must_be_a_string_no_longer_than_a_url(hint, status):
    error = error_of(body(citations=[{"url": "https://x.org/", "offset": 0, "hint": hint}]))
    assert (error.field, error.status) == ("citations[0].hint", status)


def test_block_start_says_where_the_chips_block_begins():
    text = "Paris is big. It is the capital of France."
    cited = {"id": "c1", "url": "https://example.org/a", "offset": len(text), "block_start": 0}
    req = parse_request({"answer": {"text": text}, "citations": [cited]}, LIMITS)
    assert req.citations[0].block_start == 0
    assert parse_request(body(), LIMITS).citations[0].block_start is None


@pytest.mark.parametrize("block_start", [-1, 32, True, "0", 1.5])
def test_block_start_must_lie_between_the_answer_start_and_its_marker(block_start):
    cited = {"url": "https://example.org/a", "offset": 31, "block_start": block_start}
    error = error_of(body(citations=[cited]))
    assert error.field == "citations[0].block_start" and error.status == 422
