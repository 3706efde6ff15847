"""The local HTTP API of api.md on aiohttp: GET /v1/health, POST /v1/verify, POST /v1/audit, and
the pairing calls (POST /v1/pair/start, /v1/pair/finish, /v1/pair/confirm, GET /v1/pair).

Handlers stay thin (parse → pipeline → respond). The listener guard of docs/THREAT_MODEL.md runs first:
Host must be a loopback name with our port (421, DNS rebinding), a present Origin must be the
extension's (403), every call but health carries the pairing token (401), bodies are capped (413),
OPTIONS is refused and no CORS header is ever sent. Pairing bends the token rule in two places
only: start and finish need no token but must carry an extension Origin (a page cannot send
one); confirm and the pending view need the token and no Origin at all (the reader's terminal,
never a browser). One middleware turns every error into
`{"error": {"code", "message", "field"}}` without stack traces.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from .. import __version__
from ..config import ALLOWED_CHROME_EXTENSION_IDS, Settings
from ..errors import CiteLensError, RequestInvalid
from ..records import PageInfo
from ..runtime import Runtime
from ..wire.capture import parse_request
from ..wire.export import (
    ResultBuilder,
    audit_export,
    client_provenance,
    collect,
    companion_provenance,
    event_line,
)
from .pairing import PairingRefused, Pairings, pair_command, token_matches

__all__ = ["PAIRINGS", "Gate", "make_app"]

log = logging.getLogger(__name__)

RUNTIME = web.AppKey("runtime", Runtime)
TOKEN = web.AppKey("token", str)
SETTINGS = web.AppKey("settings", Settings)
PAIRINGS = web.AppKey("pairings", Pairings)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Called by the extension before it has the token: they need an extension Origin instead.
_FROM_EXTENSION = frozenset({"/v1/pair/start", "/v1/pair/finish"})
# The reader's confirmation: the token file proves the local user, and no browser may send it.
_FROM_TERMINAL = frozenset({"/v1/pair/confirm", "/v1/pair"})


def error_response(status: int, code: str, message: str, field: str = "", **headers: str) -> web.Response:
    body: dict[str, Any] = {"code": code, "message": message}
    if field:
        body["field"] = field
    return web.json_response({"error": body}, status=status, headers=headers or None)


class Gate:
    """Bounded admission: a few verifications run, a few wait, the rest get 429 at once."""

    def __init__(self, running: int, waiting: int):
        self._semaphore = asyncio.Semaphore(running)
        self._capacity = running + waiting
        self._inside = 0

    def full(self) -> bool:
        return self._inside >= self._capacity

    async def __aenter__(self) -> None:
        self._inside += 1
        try:
            await self._semaphore.acquire()
        except BaseException:
            self._inside -= 1
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._semaphore.release()
        self._inside -= 1


GATE = web.AppKey("gate", Gate)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except RequestInvalid as exc:
        return error_response(exc.status, exc.code, exc.message, exc.field)
    except PairingRefused as exc:
        retry = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
        return error_response(exc.status, exc.code, exc.message, **retry)
    except web.HTTPRequestEntityTooLarge:
        limit = request.app[SETTINGS].limits.max_body_bytes
        return error_response(413, "too_large", f"the request body is over {limit // (1024 * 1024)} MiB")
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return error_response(exc.status, exc.reason.lower().replace(" ", "_"), exc.reason)
    except (ConnectionResetError, asyncio.CancelledError):
        raise
    except Exception:
        log.exception("internal error on %s %s", request.method, request.path)
        return error_response(500, "internal", "the companion failed on this request; see its log")


@web.middleware
async def guard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    if request.host not in {f"{h}:{settings.port}" for h in _LOOPBACK_HOSTS}:
        return error_response(421, "misdirected", "this companion only answers to 127.0.0.1 / localhost")
    origin = request.headers.get("Origin")
    if origin is not None and not _origin_allowed(origin, settings):
        return error_response(403, "origin_refused", f"requests from {origin[:100]} are not allowed")
    if request.method == "OPTIONS":  # no CORS: a preflight is never granted
        return error_response(405, "method_not_allowed", "OPTIONS is not supported")
    if request.path in _FROM_EXTENSION:
        if origin is None:
            return error_response(
                403, "origin_required", "pairing is started from the CiteLens extension's options page"
            )
        return await handler(request)
    if request.path in _FROM_TERMINAL and origin is not None:
        return error_response(
            403,
            "origin_refused",
            "pairing is confirmed in a terminal with `citelens pair`, not from a browser",
        )
    if request.path != "/v1/health" and not token_matches(
        request.headers.get("X-CiteLens-Token"), request.app[TOKEN]
    ):
        return error_response(
            401,
            "bad_token",
            "missing or wrong pairing token: press Pair with the companion in the CiteLens options "
            "page, or paste the output of `citelens token` there",
        )
    return await handler(request)


def _origin_allowed(origin: str, settings: Settings) -> bool:
    if origin in settings.extra_origins:
        return True
    scheme, _, rest = origin.partition("://")
    if scheme == "chrome-extension":
        return rest in ALLOWED_CHROME_EXTENSION_IDS
    # Firefox makes a random uuid per install, so it cannot be pinned; the token still must match.
    return scheme == "moz-extension" and bool(rest) and "/" not in rest


async def health(request: web.Request) -> web.Response:
    runtime = request.app[RUNTIME]
    model, loaded = runtime.model, runtime.judges.loaded()
    return web.json_response(
        {
            "status": "ok",
            "version": __version__,
            "model": {"name": model.name, "quantization": model.quantization, "labels": list(model.labels)},
            # Every model a statement may go to, by language (judges.py); the others load on first use.
            "models": [
                {"name": c.name, "languages": list(c.languages), "loaded": c.name in loaded}
                for c in runtime.judges.configs
            ],
            # The test switch `--allow-private`, so the extension reads those private test pages
            # through the browser too: one switch, here, for both sides. Empty unless in TEST MODE.
            "allow_private": sorted(request.app[SETTINGS].allow_private),
        }
    )


async def _json_body(request: web.Request) -> Any:
    ctype = request.content_type
    if ctype != "application/json":
        raise RequestInvalid(
            f"send JSON with Content-Type application/json, not {ctype or 'nothing'}",
            status=415,
            code="unsupported_media_type",
        )
    limit = request.app[SETTINGS].limits.max_body_bytes
    if request.content_length is not None and request.content_length > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=request.content_length)
    raw = await request.read()
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RequestInvalid(
            f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            field="$",
            status=400,
            code="bad_json",
        ) from None
    except (UnicodeDecodeError, RecursionError, ValueError):
        raise RequestInvalid(
            "the body is not valid UTF-8 JSON", field="$", status=400, code="bad_json"
        ) from None


def _string_field(body: Any, name: str, most: int) -> str:
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value or len(value) > most:
        raise RequestInvalid(f"{name} must be a string of at most {most} characters", field=name)
    return value


_NO_STORE = {"Cache-Control": "no-store"}


async def pair_start(request: web.Request) -> web.Response:
    await _json_body(request)  # 415 for the cross-site "simple" shape, 400 for broken JSON
    started = request.app[PAIRINGS].start(request.headers["Origin"])
    return web.json_response(
        {"request": started.request, "code": started.code, "expires_in": started.expires_in},
        status=201,
        headers=_NO_STORE,
    )


async def pair_finish(request: web.Request) -> web.Response:
    request_id = _string_field(await _json_body(request), "request", 100)
    pairings = request.app[PAIRINGS]
    token = pairings.finish(request_id, request.headers["Origin"])
    if token is None:
        return web.json_response(
            {"status": "waiting", "expires_in": pairings.expires_in()}, status=202, headers=_NO_STORE
        )
    return web.json_response({"status": "paired", "token": token}, headers=_NO_STORE)


async def pair_confirm(request: web.Request) -> web.Response:
    code = _string_field(await _json_body(request), "code", 20)
    origin = request.app[PAIRINGS].confirm(code)
    return web.json_response({"status": "confirmed", "origin": origin}, headers=_NO_STORE)


async def pair_pending(request: web.Request) -> web.Response:
    return web.json_response({"pending": request.app[PAIRINGS].waiting()}, headers=_NO_STORE)


_STOPPED = "the companion was stopped before it finished this answer"


def _stream_error(code: str, message: str) -> bytes:
    """The last line of a stream that cannot end with its summary (api.md: `error`)."""
    return (json.dumps({"type": "error", "error": {"code": code, "message": message}}) + "\n").encode()


def _busy() -> web.Response:
    return error_response(
        429, "busy", "the companion is checking other answers; try again in a moment", **{"Retry-After": "2"}
    )


async def verify(request: web.Request) -> web.StreamResponse:
    runtime, gate = request.app[RUNTIME], request.app[GATE]
    body = await _json_body(request)
    verify_request = parse_request(body, runtime.settings.limits)
    if gate.full():
        return _busy()
    results = runtime.results
    result_id = results.new_id()
    async with gate:
        if not verify_request.stream:
            events = runtime.verifier.run(verify_request)
            result = await collect(events, runtime.model, result_id, units=verify_request.units)
            results.put(result_id, verify_request.page, result)
            return web.json_response(result)
        response = web.StreamResponse(
            headers={"Content-Type": "application/x-ndjson", "Cache-Control": "no-store"}
        )
        await response.prepare(request)
        events = runtime.verifier.run(verify_request)
        built = ResultBuilder()
        try:
            async for event in events:
                line = event_line(event, runtime.model, result_id, units=verify_request.units)
                built.add(event, line)
                if line["type"] == "summary":
                    # Held before the summary goes out: the reader may export the card at once.
                    results.put(result_id, verify_request.page, built.result())
                await response.write((json.dumps(line, ensure_ascii=False) + "\n").encode())
        except ConnectionResetError:
            log.info("client went away; stopped checking")
            return response
        except asyncio.CancelledError:
            # `citelens serve` is stopping (SIGTERM, Ctrl-C): the reader learns why the answer was
            # cut, not only that it was (api.md: the `error` line).
            log.warning("stopped while checking an answer")
            with contextlib.suppress(ConnectionError, RuntimeError):  # the reader may be gone too
                await response.write(_stream_error("stopped", _STOPPED))
                await response.write_eof()
            raise
        except Exception as exc:
            # The 200 and its headers are gone: a JSON error response now would be written into the
            # chunked body. Say it in the stream, then end it properly.
            log.exception("verification failed after the stream started")
            # A CiteLensError is worded for people (a model that cannot be loaded); a bug's own
            # words are for the log.
            why = str(exc) if isinstance(exc, CiteLensError) else "its log says why"
            await response.write(_stream_error("internal", f"the companion failed on this answer: {why}"))
        finally:
            await events.aclose()
        await response.write_eof()
        return response


async def audit(request: web.Request) -> web.Response:
    runtime, gate = request.app[RUNTIME], request.app[GATE]
    body = await _json_body(request)
    if isinstance(body, dict) and "result_id" in body:
        result_id = body["result_id"]
        if not isinstance(result_id, str) or len(result_id) > 100:
            raise RequestInvalid("result_id must be the string a /v1/verify summary gave", field="result_id")
        held = runtime.results.get(result_id)
        if held is not None:
            return web.json_response(
                audit_export(
                    held.page,
                    held.result,
                    runtime.model,
                    runtime.judges.configs,
                    provenance=companion_provenance(held.id, held.judged_at),
                )
            )
        if "result" not in body:
            minutes = round(runtime.settings.limits.result_ttl_s / 60)
            return error_response(
                404,
                "result_expired",
                f"this companion no longer holds that result (results are kept {minutes} minutes, "
                "or until it restarts): check the answer again, then export",
                "result_id",
            )
    if isinstance(body, dict) and "result" in body:
        reason = "its result id had expired" if "result_id" in body else "no result id was given"
        return _client_audit(body, runtime, reason)
    verify_request = parse_request(body, runtime.settings.limits)
    if gate.full():
        return _busy()
    result_id = runtime.results.new_id()
    async with gate:
        events = runtime.verifier.run(verify_request)
        result = await collect(events, runtime.model, result_id, units=verify_request.units)
    held = runtime.results.put(result_id, verify_request.page, result)
    return web.json_response(
        audit_export(
            verify_request.page,
            result,
            runtime.model,
            runtime.judges.configs,
            provenance=companion_provenance(held.id, held.judged_at),
        )
    )


def _client_audit(body: dict[str, Any], runtime: Runtime, reason: str) -> web.Response:
    """A card of the result the client sent; its provenance says the verdicts are the client's."""
    result = body["result"]
    statements = result.get("statements") if isinstance(result, dict) else None
    if not isinstance(statements, list) or not all(
        isinstance(s, dict)
        and isinstance(s.get("per_citation", []), list)
        and all(isinstance(pc, dict) for pc in s.get("per_citation", []))
        for s in statements
    ):
        raise RequestInvalid(
            "result must be a /v1/verify result with a statements list", field="result.statements"
        )
    page_raw = body["page"] if isinstance(body.get("page"), dict) else {}
    page = PageInfo(
        **{k: str(page_raw.get(k, "")) for k in ("url", "engine", "title", "query", "captured_at")}
    )
    try:
        card = audit_export(
            page, result, runtime.model, runtime.judges.configs, provenance=client_provenance(reason)
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise RequestInvalid(
            f"result is not a /v1/verify result (bad or missing {exc})", field="result.statements"
        ) from None
    return web.json_response(card)


def make_app(
    runtime: Runtime, token: str, *, announce: Callable[[str], None] | None = None
) -> web.Application:
    """`announce` shows pairing requests to the reader (`citelens serve` prints them); the log
    when not given."""
    settings = runtime.settings
    limits = settings.limits
    app = web.Application(
        middlewares=[errors_middleware, guard_middleware],
        client_max_size=settings.limits.max_body_bytes,
    )
    app[RUNTIME] = runtime
    app[TOKEN] = token
    app[SETTINGS] = settings
    app[GATE] = Gate(settings.limits.max_concurrent_verifications, settings.limits.max_waiting_verifications)
    app.router.add_get("/v1/health", health)
    app.router.add_post("/v1/verify", verify)
    app.router.add_post("/v1/audit", audit)
    app[PAIRINGS] = Pairings(
        token,
        ttl_s=limits.pairing_ttl_s,
        starts_per_window=limits.pairing_starts_per_window,
        window_s=limits.pairing_window_s,
        code_attempts=limits.pairing_code_attempts,
        announce=announce or (lambda line: log.warning("%s", line)),
        pair=pair_command(settings.port),
    )
    app.router.add_post("/v1/pair/start", pair_start)
    app.router.add_post("/v1/pair/finish", pair_finish)
    app.router.add_post("/v1/pair/confirm", pair_confirm)
    app.router.add_get("/v1/pair", pair_pending)
    return app
