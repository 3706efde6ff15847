"""The companion's exceptions (httpx habit: the whole tree in one place).

CiteLensError
├── RequestInvalid     the /v1/verify body breaks the contract (400/413/422, with a field path)
├── SourceUnavailable  a cited page cannot be had; becomes `inaccessible` with this reason
│   ├── Blocked        the address guard refused it (private, loopback, bad scheme…)
│   └── NotReadable    fetched, but holds no text we can judge (binary, empty, unparseable)
├── ModelUnavailable   the NLI model folder is missing or broken
└── ServiceError       `citelens service` cannot install or remove the login service here
"""

from __future__ import annotations

__all__ = [
    "Blocked",
    "CiteLensError",
    "ModelUnavailable",
    "NotReadable",
    "RequestInvalid",
    "ServiceError",
    "SourceUnavailable",
]


class CiteLensError(Exception):
    """Base of every error the companion raises on purpose."""


class RequestInvalid(CiteLensError):
    def __init__(self, message: str, *, field: str = "", status: int = 422, code: str = "invalid_request"):
        super().__init__(message)
        self.message = message
        self.field = field
        self.status = status
        self.code = code


class SourceUnavailable(CiteLensError):
    """The `reason` is what the user sees next to the source, e.g. "http 403" or "timeout".

    `browser_may_read` is decided where the reason is made: True when the site turned away an
    automated reader (401, 402, 403, 429, a bot check, a timeout) and the reader's own browser,
    with its cookies and subscription, may be let in (docs/api.md: read through your browser).
    """

    def __init__(self, reason: str, *, browser_may_read: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.browser_may_read = browser_may_read


class Blocked(SourceUnavailable):
    pass


class NotReadable(SourceUnavailable):
    pass


class ModelUnavailable(CiteLensError):
    pass


class ServiceError(CiteLensError):
    """Said as it is to the reader: what could not be done, and what to do instead."""
