"""Every limit and setting of the companion, in one place, with the reason for each value.

Limits are `Final` constants (aiohttp habit); what a user may change per run lives in `Settings`,
built once by the CLI and passed down explicitly (no global state).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = [
    "ALLOWED_CHROME_EXTENSION_IDS",
    "DEFAULT_MODEL_NAME",
    "DEFAULT_PORT",
    "Limits",
    "Retrieval",
    "Settings",
    "config_dir",
]

DEFAULT_PORT: Final = 8765
DEFAULT_MODEL_NAME: Final = "citelens-minilm-nli"

# The id that follows from the `key` pinned in extension/manifest.json; Chromium derives unpacked
# ids from the folder path otherwise, and the Origin allow-list would break on every install.
ALLOWED_CHROME_EXTENSION_IDS: Final = frozenset({"fklgpffhkpenbggfhkflghdlonombjol"})


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps that keep one request from taking the companion down (security.md)."""

    # security.md: ≈ 1 MiB. A long answer fits many times over; pages are fetched, not sent.
    max_body_bytes: int = 1024 * 1024
    max_answer_chars: int = 50_000
    max_statements: int = 200
    max_citations: int = 400
    max_distinct_urls: int = 40
    max_url_chars: int = 2_048
    max_inline_source_bytes: int = 1024 * 1024
    # Two verifications at once keep both cores busy; more would only queue inside onnxruntime.
    max_concurrent_verifications: int = 2
    # Waiting requests beyond this get 429 at once instead of an unbounded queue.
    max_waiting_verifications: int = 4
    # Fetching (security.md): connect ≈ 5 s, total ≈ 15 s, decoded size ≈ 5 MB.
    connect_timeout_s: float = 5.0
    total_timeout_s: float = 15.0
    max_page_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5
    per_host_connections: int = 2
    total_connections: int = 8
    # Text past this is almost always comments and footers; it only costs time.
    max_extracted_chars: int = 200_000


@dataclass(frozen=True, slots=True)
class Retrieval:
    """How many source windows reach the NLI model per statement and citation.

    Measured with scripts/evaluate.py --candidates on the held data (docs/benchmarks.md): 10, or
    every window, gave the same balanced accuracy as 6 and cost pairs linearly; 3 and 4 were as
    good on those short evidence lists, and 6 keeps a margin for long pages.
    """

    candidates: int = 6
    max_window_sentences: int = 3
    # Joined evidence (ALCE recall) is cut at this many source sentences.
    joined_sentences: int = 4
    # Sentences shorter than this are captions and menu items; they match everything.
    min_sentence_chars: int = 12


def config_dir() -> Path:
    """Where the token, paired origins and the page cache live (api.md conventions)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "citelens"


@dataclass(frozen=True, slots=True)
class Settings:
    """What one companion process runs with; built once, then passed down."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    state_dir: Path = field(default_factory=config_dir)
    # A folder in models/ layout; None means the shipped default model.
    model_dir: Path | None = None
    # "host:port" pairs the fetcher may reach although they are private (tests serve pages locally).
    allow_private: frozenset[str] = frozenset()
    extra_origins: frozenset[str] = frozenset()
    cache_ttl_s: float = 24 * 3600.0
    cache_max_bytes: int = 200 * 1024 * 1024
    use_cache: bool = True
    onnx_threads: int = 0  # model calls side by side, one core each; 0: one per usable core
    limits: Limits = field(default_factory=Limits)
    retrieval: Retrieval = field(default_factory=Retrieval)

    @property
    def cache_path(self) -> Path:
        return self.state_dir / "cache.sqlite3"

    @property
    def token_path(self) -> Path:
        return self.state_dir / "token"
