"""The per-install pairing token, and the one-click pairing that hands it to the extension.

The token is made at first start and kept 0600 in the config folder. The extension's options page
holds a copy; every request but /v1/health and the pairing calls carries it in X-CiteLens-Token,
which a web page cannot know, so a cross-site POST to 127.0.0.1 is refused. How the token reaches
the extension without copy and paste is `Pairings` (protocol in docs/api.md, threats in
docs/THREAT_MODEL.md).
"""

from __future__ import annotations

import contextlib
import hmac
import math
import os
import secrets
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import DEFAULT_PORT

__all__ = [
    "PairingRefused",
    "PairingStarted",
    "Pairings",
    "load_or_create_token",
    "pair_command",
    "read_token",
    "spaced",
    "token_matches",
]


def read_token(path: Path) -> str:
    """The stored token; raises OSError when it is missing or unreadable."""
    token = path.read_text(encoding="utf-8").strip()
    if len(token) < 16:
        raise OSError(f"{path} holds no valid token; delete it and start `citelens serve` again")
    return token


def load_or_create_token(path: Path, *, rotate: bool = False) -> str:
    if not rotate:
        try:
            return read_token(path)
        except FileNotFoundError:
            pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    # A temporary file of this process's own, 0600 from the start (mkstemp; a chmod after writing
    # would leave a window), then linked into place, which fails if the token appeared meanwhile:
    # `citelens serve` and `citelens token` started at once must agree on one token.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        if rotate:
            os.replace(tmp, path)
            return token
        try:
            os.link(tmp, path)
        except FileExistsError:
            return read_token(path)
        return token
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def token_matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def pair_command(port: int) -> str:
    """The command that confirms a code with the companion on `port`: `citelens pair` alone
    reaches only the default port, so any other is named (issue 36)."""
    return "citelens pair" if port == DEFAULT_PORT else f"citelens pair --port {port}"


# --- one-click pairing (issue 15) -------------------------------------------------------------
#
# The extension asks (start), the companion shows a short code in its terminal, the extension
# shows the same code, and the reader, having compared them, confirms with `citelens pair CODE`.
# Only then does the next poll (finish) from the same origin get the token, once. A web page
# cannot take part: it cannot send an extension Origin, and confirming needs the token file.

# Four digits: the code is compared by eye, not guessed. Confirming needs the token, so nobody
# who could try codes gains anything by it; wrong codes still cancel the request (Limits).
_CODE_DIGITS = 4


class PairingRefused(Exception):
    """Why a pairing call is refused: an HTTP status, a code and words for the reader."""

    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


@dataclass
class _Request:
    id: str
    origin: str
    code: str
    expires: float
    confirmed: bool = False
    wrong_codes: int = 0


@dataclass(frozen=True, slots=True)
class PairingStarted:
    request: str
    code: str
    expires_in: int


class Pairings:
    """At most one pairing request at a time, short-lived, rate-limited; the token once."""

    def __init__(
        self,
        token: str,
        *,
        ttl_s: float,
        starts_per_window: int,
        window_s: float,
        code_attempts: int,
        announce: Callable[[str], None],
        pair: str = "citelens pair",  # pair_command() of the companion's port
        clock: Callable[[], float] = time.monotonic,  # test hook: a hand-moved clock
    ):
        self._token = token
        self._ttl_s, self._window_s = ttl_s, window_s
        self._starts_per_window, self._code_attempts = starts_per_window, code_attempts
        self._announce, self._clock = announce, clock
        self._pair = pair
        self._pending: _Request | None = None
        self._starts: deque[float] = deque()

    def _current(self) -> _Request | None:
        pending = self._pending
        if pending is not None and self._clock() >= pending.expires:
            self._announce(f"Pairing request from {pending.origin} expired (code {spaced(pending.code)}).")
            self._pending = None
        return self._pending

    def start(self, origin: str) -> PairingStarted:
        now = self._clock()
        pending = self._current()
        # One at a time: a second origin waits. The same extension asking again (the options page
        # reloaded, the button pressed twice) replaces its own request, with a new code.
        if pending is not None and pending.origin != origin:
            raise PairingRefused(
                409,
                "pairing_pending",
                "another pairing request is waiting for confirmation; try again when it has expired",
                retry_after=max(1, math.ceil(pending.expires - now)),
            )
        while self._starts and now - self._starts[0] >= self._window_s:
            self._starts.popleft()
        if len(self._starts) >= self._starts_per_window:
            raise PairingRefused(
                429,
                "too_many_pairings",
                "too many pairing requests; wait a few minutes and try again",
                retry_after=max(1, math.ceil(self._starts[0] + self._window_s - now)),
            )
        self._starts.append(now)
        code = "".join(secrets.choice("0123456789") for _ in range(_CODE_DIGITS))
        self._pending = _Request(secrets.token_urlsafe(24), origin, code, now + self._ttl_s)
        self._announce(
            f"Pairing request from {origin}: code {spaced(code)}. If your browser shows the same "
            f"code, confirm it with `{self._pair} {code}` within {round(self._ttl_s)} s; otherwise "
            "ignore it."
        )
        return PairingStarted(self._pending.id, code, round(self._ttl_s))

    def confirm(self, code: str) -> str:
        """The reader typed the code the browser shows; returns the origin it was for."""
        pending = self._current()
        if pending is None:
            raise PairingRefused(
                404, "no_pairing", "no pairing request is waiting (start one in the extension)"
            )
        typed = "".join(ch for ch in code if ch.isdigit())
        if not hmac.compare_digest(typed.encode(), pending.code.encode()):
            pending.wrong_codes += 1
            left = self._code_attempts - pending.wrong_codes
            if left <= 0:
                self._pending = None
                self._announce(
                    f"Pairing request from {pending.origin} cancelled: wrong code typed too often."
                )
                raise PairingRefused(409, "wrong_code", "wrong code; the pairing request is cancelled")
            raise PairingRefused(409, "wrong_code", f"wrong code; {left} more tries for this request")
        pending.confirmed = True
        self._announce(f"Pairing confirmed for {pending.origin}; the extension receives the token now.")
        return pending.origin

    def finish(self, request_id: str, origin: str) -> str | None:
        """The token once the reader confirmed, else None (still waiting). Raises when there is
        no such request for this origin: unknown, expired, cancelled or already finished."""
        pending = self._current()
        if (
            pending is None
            or not hmac.compare_digest(request_id.encode(), pending.id.encode())
            or pending.origin != origin
        ):
            raise PairingRefused(
                404, "no_such_pairing", "this pairing request is unknown, expired or finished; start again"
            )
        if not pending.confirmed:
            return None
        self._pending = None  # the token travels once
        return self._token

    def waiting(self) -> dict[str, object] | None:
        """The request waiting for confirmation, for `citelens pair` to show."""
        pending = self._current()
        if pending is None or pending.confirmed:
            return None
        return {
            "origin": pending.origin,
            "code": pending.code,
            "expires_in": max(0, math.ceil(pending.expires - self._clock())),
        }

    def expires_in(self) -> int:
        pending = self._current()
        return 0 if pending is None else max(0, math.ceil(pending.expires - self._clock()))


def spaced(code: str) -> str:
    """4729 → 4-7-2-9: easier to compare digit by digit."""
    return "-".join(code)
