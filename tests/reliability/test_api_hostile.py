"""Hostile input to /v1/verify: never a 500, never a hang, a clear 4xx naming the field at fault.

Property-based (hypothesis) against the real app on 127.0.0.1, served from a thread so that the
properties are plain functions. The companion runs with fetching off (nothing leaves the machine)
and with small caps, so that over-the-cap bodies stay small. Most generated bodies are invalid,
so the model runs only for the few valid ones. Every request has a socket timeout: a timeout is
a hang, and fails the test.
"""

from __future__ import annotations

import copy
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from companion.config import ALLOWED_CHROME_EXTENSION_IDS, Limits, Settings

from .live_companion import TOKEN, ThreadedCompanion, raw_request

LIMITS = Limits(
    max_body_bytes=64 * 1024,
    max_answer_chars=2_000,
    max_citations=12,
    max_distinct_urls=4,
    max_inline_source_bytes=16 * 1024,
)
HANG_S = 15.0  # no answer within this is a hang
PROPERTY = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
CHROME_ORIGIN = f"chrome-extension://{next(iter(ALLOWED_CHROME_EXTENSION_IDS))}"

TEXT = "Honeybees dance to show where food is. The queen lays eggs all summer."
URL = "https://example.org/bees"


def valid_body() -> dict[str, Any]:
    return {
        "page": {
            "url": "https://engine.example/search/1",
            "engine": "test",
            "title": "Bees",
            "query": "how do bees talk",
            "captured_at": "2026-11-30T09:00:00Z",
        },
        "answer": {"text": TEXT},
        "citations": [{"id": "c1", "marker": "1", "url": URL, "offset": TEXT.index(".") + 1}],
        "sources": {
            URL: {"text": "Honeybees perform a dance to show other bees where food is.", "title": "Bees"}
        },
        "options": {"stream": False},
    }


@pytest.fixture(scope="module")
def companion(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedCompanion]:
    state = tmp_path_factory.mktemp("state")
    live = ThreadedCompanion(
        Settings(state_dir=state, model_dir=model_dir, limits=LIMITS), fetch=False
    ).start()
    yield live
    live.stop()


def post(
    port: int,
    body: bytes,
    *,
    headers: list[tuple[str, str]] | None = None,
    host: str | None = None,
    method: str = "POST",
    path: str = "/v1/verify",
) -> tuple[int, dict[str, str], bytes]:
    if headers is None:
        headers = [("X-CiteLens-Token", TOKEN), ("Content-Type", "application/json")]
    started = time.perf_counter()
    try:
        answer = raw_request(port, method, path, headers=headers, body=body, host=host, timeout=HANG_S)
    except TimeoutError:
        pytest.fail(f"no answer within {HANG_S} s: a hang ({body[:120]!r})")
    assert time.perf_counter() - started < HANG_S
    return answer


def error_of(status: int, headers: dict[str, str], raw: bytes) -> dict[str, Any]:
    """The JSON error of a 4xx; fails on a 5xx, on non-JSON, or on a leaked stack trace."""
    assert status < 500, f"server error {status}: {raw[:300]!r}"
    assert 400 <= status < 500, f"expected an error, got {status}: {raw[:200]!r}"
    assert headers.get("content-type", "").startswith("application/json"), headers
    error = json.loads(raw)["error"]
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    assert "Traceback" not in raw.decode("utf-8", "replace")
    return error  # type: ignore[no-any-return]


# --- strategies ----------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def not_a(*types: type) -> st.SearchStrategy[Any]:
    return json_values.filter(
        lambda v: not isinstance(v, types) or (isinstance(v, bool) and bool not in types)
    )


bad_urls = st.one_of(
    st.sampled_from(
        [
            "",
            "ftp://example.org/a",
            "javascript:alert(1)",
            "http://",
            "//example.org/a",
            "example.org/a",
            "file:///etc/passwd",
            "data:text/html,<p>x</p>",
            # WHATWG URL parsing (the browser's, and weburl.py's) reads "http:///x" as http://x/,
            # so an empty host takes no path after it.
            "http:///",
            # Forms urllib refuses with ValueError (malformed IPv6, port out of range or not a number).
            "http://[::1",
            "http://example.org:99999/",
            "http://example.org:port/",
            "http://[zz]/",
        ]
    ),
    st.text(min_size=1, max_size=40).map(lambda t: "x-" + t),
)


def _at(body: dict[str, Any], path: list[Any]) -> tuple[dict[str, Any], Any]:
    node = body
    for key in path[:-1]:
        node = node[key]
    return node, path[-1]


# (path in the body, strategy of invalid values, the field the error must name)
MUTATIONS: list[tuple[list[Any], st.SearchStrategy[Any], str]] = [
    (["answer"], not_a(dict), "answer"),
    (
        ["answer", "text"],
        st.one_of(not_a(str), st.sampled_from(["", "   ", "\n\t"]), st.just("x" * 2_001)),
        "answer.text",
    ),
    (["page"], not_a(dict, type(None)), "page"),
    *[
        (["page", k], st.one_of(not_a(str, type(None)), st.just("p" * 4_097)), f"page.{k}")
        for k in ("url", "engine", "title", "query", "captured_at")
    ],
    (["citations"], not_a(list), "citations"),
    (["citations", 0], not_a(dict), "citations[0]"),
    (["citations", 0, "url"], st.one_of(not_a(str, type(None)), bad_urls), "citations[0].url"),
    (
        ["citations", 0, "offset"],
        st.one_of(not_a(int), st.booleans(), st.integers(max_value=-1), st.integers(min_value=len(TEXT) + 1)),
        "citations[0].offset",
    ),
    (["citations", 0, "id"], st.one_of(not_a(str, type(None)), st.just("i" * 65)), "citations[0].id"),
    (["citations", 0, "marker"], st.one_of(not_a(str, type(None)), st.just("m" * 65)), "citations[0].marker"),
    (["sources"], not_a(dict), "sources"),
    (["sources", URL], not_a(dict), f"sources[{URL!r}]"),
    (
        ["sources", URL, "text"],
        st.one_of(not_a(str, type(None)), st.just("t" * (16 * 1024 + 1))),
        f"sources[{URL!r}].text",
    ),
    (["sources", URL, "html"], not_a(str, type(None)), f"sources[{URL!r}].html"),
    (["options"], not_a(dict, type(None)), "options"),
    (["options", "stream"], not_a(bool), "options.stream"),
]


@st.composite
def invalid_bodies(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    path, values, field = draw(st.sampled_from(MUTATIONS))
    body = valid_body()
    node, key = _at(body, path)
    node[key] = draw(values)
    return body, field


# --- properties ----------------------------------------------------------------------------------


@PROPERTY
@given(invalid_bodies())
@example(({**valid_body(), "citations": [{"url": "http://[::1", "offset": 0}]}, "citations[0].url"))
@example(
    ({**valid_body(), "citations": [{"url": "http://example.org:99999/", "offset": 0}]}, "citations[0].url")
)
def test_invalid_body_gets_a_4xx_naming_the_field(
    companion: ThreadedCompanion, case: tuple[dict[str, Any], str]
) -> None:
    body, field = case
    status, headers, raw = post(companion.port, json.dumps(body).encode())
    error = error_of(status, headers, raw)
    assert error.get("field") == field, f"expected field {field!r}, got {error!r}"


@PROPERTY
@given(st.dictionaries(st.text(max_size=12), st.text(max_size=30), max_size=3))
def test_malformed_source_keys_are_a_4xx(companion: ThreadedCompanion, extra: dict[str, str]) -> None:
    """`sources` is keyed by URL; a key urllib cannot parse must be the client's error, not ours."""
    body = valid_body()
    body["sources"]["http://[::1"] = {"text": "x"}
    body["sources"]["http://example.org:99999/"] = {"text": "y"}
    body["sources"].update({k: {"text": v} for k, v in extra.items()})
    status, headers, raw = post(companion.port, json.dumps(body).encode())
    if status != 200:
        error = error_of(status, headers, raw)
        assert error.get("field", "").startswith("sources"), error


@PROPERTY
@given(json_values)
def test_any_json_value_never_fails_the_server(companion: ThreadedCompanion, value: Any) -> None:
    status, headers, raw = post(companion.port, json.dumps(value).encode())
    if status != 200:  # a random dict may happen to be a valid request
        assert error_of(status, headers, raw).get("field"), raw[:200]


@PROPERTY
@given(st.binary(max_size=2_000))
@example(b"\xff\xfe{\x00}\x00")
@example(b'{"answer": {"text": "' + b"\xc3\x28" + b'"}}')
@example(b"[" * 50_000 + b"]" * 50_000)
@example(
    b'{"answer": {"text": "x"}, "citations": [{"url": "https://a.org/", "offset": 1' + b"0" * 5_000 + b"}]}"
)
def test_arbitrary_bytes_get_a_clear_error(companion: ThreadedCompanion, raw_body: bytes) -> None:
    try:
        json.loads(raw_body)
        assume(False)  # valid JSON is the other tests' business
    except (ValueError, RecursionError):
        pass
    status, headers, raw = post(companion.port, raw_body)
    error = error_of(status, headers, raw)
    assert status in (400, 413) and error.get("field", "$") == "$", error


@PROPERTY
@given(st.text(min_size=1, max_size=300).filter(lambda t: t.strip()), st.booleans())
def test_tiny_answers_without_citations_are_answered(
    companion: ThreadedCompanion, text: str, stream: bool
) -> None:
    body = {"answer": {"text": text}, "options": {"stream": stream}}
    status, _, raw = post(companion.port, json.dumps(body).encode())
    assert status == 200, raw[:300]
    if stream:
        lines = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        assert lines[0]["type"] == "start" and lines[-1]["type"] == "summary"
        statements = [line for line in lines if line["type"] == "statement"]
    else:
        statements = json.loads(raw)["statements"]
    assert all(s["judgment"] == "no_citation" for s in statements)


# Lone UTF-16 surrogates are valid JSON ("\ud800") but no valid Unicode: the tokenizer, SQLite and
# a UTF-8 encoder all reject them. An extension may well send one (a broken emoji cut in two).
SURROGATE_CASES = [
    ("answer.text", lambda b: b["answer"].__setitem__("text", "Honeybees \ud800 dance. " + TEXT)),
    ("sources.text", lambda b: b["sources"][URL].__setitem__("text", "Honeybees \udfff dance to show food.")),
    ("page.query", lambda b: b["page"].__setitem__("query", "bees \ud83d")),
    ("citations.id", lambda b: b["citations"][0].__setitem__("id", "c\ud800")),
]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize(("where", "spoil"), SURROGATE_CASES, ids=[w for w, _ in SURROGATE_CASES])
def test_lone_surrogates_are_refused_or_survived(
    companion: ThreadedCompanion, where: str, spoil: Any, stream: bool
) -> None:
    body = valid_body()
    body["options"]["stream"] = stream
    spoil(body)
    status, headers, raw = post(companion.port, json.dumps(body).encode())  # ensure_ascii: "\ud800"
    if status != 200:
        error = error_of(status, headers, raw)
        assert error.get("field"), error
        return
    if stream:
        lines = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
        assert lines[-1]["type"] == "summary", f"the stream broke off after {[x['type'] for x in lines]}"
    else:
        assert "statements" in json.loads(raw)


# --- headers and the listener guard -----------------------------------------------------------------

printable = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=40)


@st.composite
def header_sets(draw: st.DrawFn, port: int) -> tuple[str, list[tuple[str, str]], int]:
    good_hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    host = draw(
        st.one_of(
            st.sampled_from(good_hosts),
            st.sampled_from(
                [
                    f"127.0.0.1:{port + 1}",
                    "127.0.0.1",
                    "localhost",
                    "evil.example",
                    f"evil.example:{port}",
                    f"127.0.0.1.nip.io:{port}",
                    f"0.0.0.0:{port}",
                ]
            ),
            printable,
        )
    )
    origin = draw(
        st.one_of(
            st.none(),
            st.sampled_from(
                [
                    CHROME_ORIGIN,
                    "moz-extension://0f9e8d7c-1234-4a5b-9c8d-0123456789ab",
                    "chrome-extension://abcdef",
                    "https://evil.example",
                    "null",
                    "moz-extension://",
                    "moz-extension://x/y",
                    CHROME_ORIGIN + "x",
                ]
            ),
            printable,
        )
    )
    token = draw(st.one_of(st.none(), st.just(TOKEN), st.just(TOKEN[:-1]), st.just(TOKEN + "x"), printable))
    ctype = draw(
        st.sampled_from(
            [
                "application/json",
                "application/json; charset=utf-8",
                "text/plain",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                None,
            ]
        )
    )
    headers = []
    if origin is not None:
        headers.append(("Origin", origin))
    if token is not None:
        headers.append(("X-CiteLens-Token", token))
    if ctype is not None:
        headers.append(("Content-Type", ctype))

    # docs/THREAT_MODEL.md, in order: Host (421), Origin (403), token (401), then the body's type (415).
    if host not in good_hosts:
        expected = 421
    elif origin is not None and not (
        origin == CHROME_ORIGIN or re.fullmatch(r"moz-extension://[^/]+", origin)
    ):
        expected = 403
    elif token != TOKEN:
        expected = 401
    elif ctype is None or not ctype.startswith("application/json"):
        expected = 415
    else:
        expected = 200
    return host, headers, expected


@PROPERTY
@given(st.data())
def test_listener_guard_decides_in_order(companion: ThreadedCompanion, data: st.DataObject) -> None:
    host, headers, expected = data.draw(header_sets(companion.port))
    body = json.dumps({"answer": {"text": "Hello there."}}).encode()
    status, response_headers, raw = post(companion.port, body, headers=headers, host=host)
    assert status == expected, f"{host=} {headers=}: {status} {raw[:200]!r}"
    assert not any(h.startswith("access-control-") for h in response_headers), response_headers
    if status != 200:
        error_of(status, response_headers, raw)


@PROPERTY
@given(
    st.sampled_from(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "POST", "TRACE"]),
    st.sampled_from(
        [
            "/v1/verify",
            "/v1/audit",
            "/v1/health",
            "/v1/pair/start",
            "/v1/pair/finish",
            "/v1/pair/confirm",
            "/v1/pair",
            "/",
            "/v1/../etc/passwd",
            "/v1/verify/x",
            "/%2e%2e/",
            "/v1/health?x=" + "a" * 2000,
        ]
    ),
    st.booleans(),
)
def test_methods_and_paths_never_fail_the_server(
    companion: ThreadedCompanion, method: str, path: str, with_token: bool
) -> None:
    headers = [("Content-Type", "application/json")] + ([("X-CiteLens-Token", TOKEN)] if with_token else [])
    status, response_headers, raw = post(companion.port, b"{}", headers=headers, method=method, path=path)
    assert status < 500, (method, path, status, raw[:200])
    if status >= 400:
        error_of(status, response_headers, raw)
    if method == "OPTIONS":
        assert status >= 400 and not any(h.startswith("access-control-") for h in response_headers)


def test_body_over_the_cap_is_413(companion: ThreadedCompanion) -> None:
    body = valid_body()
    body["page"]["title"] = "t" * (LIMITS.max_body_bytes + 10)
    status, headers, raw = post(companion.port, json.dumps(body).encode())
    assert status == 413 and error_of(status, headers, raw)["code"] == "too_large"


def test_chunked_body_over_the_cap_is_413(companion: ThreadedCompanion) -> None:
    """Without a Content-Length the cap must still hold while reading."""
    payload = b'{"answer": {"text": "' + b"a" * (LIMITS.max_body_bytes * 2) + b'"}}'
    with socket.create_connection(("127.0.0.1", companion.port), timeout=HANG_S) as sock:
        head = (
            f"POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1:{companion.port}\r\nX-CiteLens-Token: {TOKEN}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        sock.sendall(head.encode())
        try:
            for start in range(0, len(payload), 8192):
                piece = payload[start : start + 8192]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may stop reading once the cap is passed
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_too_many_citations_and_pages_are_413(companion: ThreadedCompanion) -> None:
    body = valid_body()
    body["citations"] = [
        {"id": f"c{i}", "url": f"https://example.org/{i % 3}", "offset": 5}
        for i in range(LIMITS.max_citations + 1)
    ]
    status, headers, raw = post(companion.port, json.dumps(body).encode())
    assert status == 413 and error_of(status, headers, raw)["field"] == "citations"
    body["citations"] = [
        {"id": f"c{i}", "url": f"https://example.org/{i}", "offset": 5}
        for i in range(LIMITS.max_distinct_urls + 1)
    ]
    status, headers, raw = post(companion.port, json.dumps(body).encode())
    assert status == 413 and error_of(status, headers, raw)["field"] == "citations"


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except TimeoutError:
        pytest.fail("the server neither answered nor closed: a hang")
    except ConnectionResetError:
        pass
    return b"".join(chunks)


@PROPERTY
@given(st.binary(min_size=1, max_size=600))
@example(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n")
@example(b"POST /v1/verify HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n")
@example(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a TLS ClientHello to a plain-HTTP port
def test_raw_bytes_on_the_socket_never_fail_the_server(
    companion: ThreadedCompanion, raw_bytes: bytes
) -> None:
    with socket.create_connection(("127.0.0.1", companion.port), timeout=HANG_S) as sock:
        try:
            sock.sendall(raw_bytes + b"\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)  # end of input: the server must answer or close now
        except (BrokenPipeError, ConnectionResetError):
            return
        answer = _read_all(sock)
    if answer:
        match = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
        assert match, answer[:100]
        assert int(match.group(1)) < 500, answer[:300]


def test_still_healthy_and_admitting_after_the_storm(companion: ThreadedCompanion) -> None:
    """No admission slot leaked by all the failed requests above: valid work is still admitted."""
    status, _, raw = post(companion.port, b"", headers=[], method="GET", path="/v1/health")
    assert status == 200 and json.loads(raw)["status"] == "ok"
    for _ in range(LIMITS.max_concurrent_verifications + LIMITS.max_waiting_verifications + 2):
        status, _, raw = post(companion.port, json.dumps(valid_body()).encode())
        assert status == 200, raw[:200]


def test_audit_with_hostile_result_is_a_4xx(companion: ThreadedCompanion) -> None:
    for result in [
        None,
        [],
        {"statements": "x"},
        {"statements": [1, "two", None]},
        {"statements": [{"index": "x", "per_citation": "y"}]},
    ]:
        status, headers, raw = post(companion.port, json.dumps({"result": result}).encode(), path="/v1/audit")
        error_of(status, headers, raw)  # a 200 on a broken result is an audit of nothing
    for result_id in [None, 7, [], {"a": 1}, "x" * 101, "r_" + "A" * 16, "../../etc/passwd"]:
        body = json.dumps({"result_id": result_id}).encode()
        status, headers, raw = post(companion.port, body, path="/v1/audit")
        error_of(status, headers, raw)  # never a card: no result is held under those


def test_an_audit_of_client_data_never_carries_the_companions_stamp(companion: ThreadedCompanion) -> None:
    """Verdicts a client made up are formatted, never vouched for: whatever the body says."""
    forged = {
        "statements": [
            {
                "index": 0,
                "text": "The moon is made of cheese.",
                "judgment": "complete_support",
                "model": "citelens-minilm-nli",
                "per_citation": [
                    {
                        "citation": "c1",
                        "url": "https://example.org/",
                        "judgment": "complete_support",
                        "score": 0.99,
                        "irrelevant": False,
                        "evidence": [],
                    }
                ],
            }
        ]
    }
    for extra in [{}, {"result_id": "r_forged000000000"}, {"provenance": {"verdicts": "companion"}}]:
        body = json.dumps({"result": forged, **extra}).encode()
        status, _, raw = post(companion.port, body, path="/v1/audit")
        assert status == 200, raw[:200]
        audit = json.loads(raw)
        assert audit["provenance"]["verdicts"] == "client"
        assert not {"judge", "model", "models", "thresholds"} & set(audit["tool"])


def test_mutations_cover_every_field() -> None:
    """Every key of the request contract is mutated by some case above."""
    covered = {".".join(str(p) for p in path) for path, _, _ in MUTATIONS}
    body = copy.deepcopy(valid_body())
    expected = {
        "answer",
        "answer.text",
        "page",
        "citations",
        "citations.0",
        "sources",
        "options",
        "options.stream",
        f"sources.{URL}",
        f"sources.{URL}.text",
    }
    expected |= {f"page.{k}" for k in body["page"]} | {f"citations.0.{k}" for k in body["citations"][0]}
    assert expected <= covered, expected - covered
