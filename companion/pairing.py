"""The per-install pairing token: made at first start, kept 0600 in the config folder.

The extension's options page holds a copy; every request but /v1/health carries it in
X-CiteLens-Token, which a web page cannot know, so a cross-site POST to 127.0.0.1 is refused.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

__all__ = ["load_or_create_token", "read_token", "token_matches"]


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
    # Create with 0600 from the start: a chmod after writing would leave a window.
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    os.replace(tmp, path)
    return token


def token_matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())
