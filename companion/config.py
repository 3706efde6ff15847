"""Every limit, setting and tuning constant of the companion, in one place, with its reason.

Limits are `Final` constants or frozen records (aiohttp habit); what a user may change per run
lives in `Settings`, built once by the CLI and passed down explicitly (no global state). The
lexical scorer's own weights (retrieve.py) and the sentence splitter's chunk size (segment.py)
stay beside the code they shape, each with its reason.
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
    "Judging",
    "Limits",
    "Model",
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
    """Caps that keep one request from taking the companion down (docs/THREAT_MODEL.md)."""

    # docs/THREAT_MODEL.md: ≈ 1 MiB. A long answer fits many times over; pages are fetched, not sent.
    max_body_bytes: int = 1024 * 1024
    max_answer_chars: int = 50_000
    max_statements: int = 200
    max_citations: int = 400
    max_distinct_urls: int = 40
    max_url_chars: int = 2_048
    max_inline_source_bytes: int = 1024 * 1024
    # Two verifications at once keep both cores busy; more would only wait for the model's
    # one-call-per-core pool (infer.py).
    max_concurrent_verifications: int = 2
    # Waiting requests beyond this get 429 at once instead of an unbounded queue.
    max_waiting_verifications: int = 4
    # Fetching (docs/THREAT_MODEL.md): connect ≈ 5 s, total ≈ 15 s, decoded size ≈ 5 MB.
    connect_timeout_s: float = 5.0
    total_timeout_s: float = 15.0
    max_page_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5
    per_host_connections: int = 2
    total_connections: int = 8
    # Text past this is almost always comments and footers; it only costs time.
    max_extracted_chars: int = 200_000
    # PDF sources (issue 11). Reports run to tens of MB, mostly images; this bounds the download.
    max_pdf_bytes: int = 20 * 1024 * 1024
    # Pages read at most. Text past max_extracted_chars (~55 dense pages) ends the reading sooner.
    max_pdf_pages: int = 500
    # Reading stops after this and keeps the pages read so far: a long report must not stall the
    # answer. PDFium reads ~15 dense pages per 100 ms here, so this is never reached by plain text.
    pdf_read_budget_s: float = 5.0
    # The child process that reads a PDF is killed past this: a page that never ends, a bomb.
    pdf_timeout_s: float = 10.0
    # Address space of that child. A 1 MB PDF can inflate to GBs of content stream (measured: a
    # 4 MB one took 5 GB and 28 s in PDFium); the child dies instead of the companion.
    pdf_memory_bytes: int = 1024 * 1024 * 1024
    # One-click pairing (issue 15, docs/THREAT_MODEL.md). A request lives long enough to switch to
    # a terminal and type `citelens pair CODE`, and no longer: one waits at a time.
    pairing_ttl_s: float = 120.0
    # Starts per window, from every origin together (Firefox origins cannot be pinned): enough
    # for a reader who retries, too few to keep the terminal full of requests.
    pairing_starts_per_window: int = 5
    pairing_window_s: float = 600.0
    # Wrong codes typed before the request is cancelled and must be started again.
    pairing_code_attempts: int = 3
    # Results held for their audit cards (results.py): a reader exports within minutes of a check.
    # A 200-statement result is about 1 MB of JSON, so this bounds the memory to tens of MB.
    results_kept: int = 32
    result_ttl_s: float = 3600.0


@dataclass(frozen=True, slots=True)
class Retrieval:
    """How many source windows reach the NLI model per statement and citation.

    Measured with research/evaluation/evaluate.py --candidates on the held data (docs/benchmarks.md): 10, or
    every window, gave the same balanced accuracy as 6 and cost pairs linearly; 3 and 4 were as
    good on those short evidence lists, and 6 keeps a margin for long pages.
    """

    candidates: int = 6
    max_window_sentences: int = 3
    # Joined evidence (ALCE recall) is cut at this many source sentences.
    joined_sentences: int = 4
    # Sentences shorter than this are captions and menu items; they match everything.
    min_sentence_chars: int = 12


@dataclass(frozen=True, slots=True)
class Judging:
    """How the judge reads the model's output. Part of the features version (combiner.py): a
    change here changes what the calibrated weights mean, so the model must be recalibrated."""

    # Share of the claim's content words a window must hold to be on topic, so that the model's
    # "contradiction" can count (an unrelated page reads as contradiction to an SNLI-trained model).
    on_topic: float = 0.3
    # Windows read per source for each atomic claim: atoms are short, their evidence one sentence.
    atom_windows: int = 3
    # Most sentences quoted for one statement and source: a long claim is rarely backed by more,
    # and a quote longer than that stops being a quote.
    evidence_sentences: int = 5
    # The model's entailment at which a window's sentences may be quoted as support (evidence.py):
    # a quote is what the model reads as saying the claim, not what shares its words. Where no
    # window reaches it, the most entailing one at the model's floor is quoted.
    quote_entailment: float = 0.5
    # Where no text reaches it, this many sentences holding most of a fact's words are read alone
    # by the deciding model, and quoted where it reads them so (evidence.covering_quote).
    quote_candidates: int = 3
    # Characters of prefix / suffix around a quote, as W3C TextQuoteSelectors usually keep.
    quote_context: int = 32
    # Share of a claim's content words that another source's best window must hold before the
    # model reads it for "found elsewhere" (issue 12): a source about something else costs no call.
    elsewhere_on_topic: float = 0.5
    # Of those, the model reads at most this many pages' best window (those holding most of the
    # claim's words), and a whole page only where that window reads as support (issue 38): on the
    # benchmark answers the same pages were found as when every on-topic page was read whole.
    elsewhere_pages: int = 3


@dataclass(frozen=True, slots=True)
class Model:
    """How pairs reach onnxruntime (docs/benchmarks.md has the measurements)."""

    # Pairs per call: bigger batches pad more, smaller ones pay more call overhead. 1024 padded
    # tokens measured as fast as 4096 on 2 cores, and onnxruntime's arena keeps ~100-200 MB less.
    batch_tokens: int = 1024
    max_batch: int = 32
    # Scored pairs kept in memory: a re-check of the same answer makes no model call.
    cache_pairs: int = 50_000


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
    # Statements of an answer judged at once: one's rules and retrieval run while the others' pairs
    # are in the model, whose pool takes the earliest statement's calls first (model/pool.py).
    judged_at_once: int = 4
    limits: Limits = field(default_factory=Limits)
    retrieval: Retrieval = field(default_factory=Retrieval)

    @property
    def cache_path(self) -> Path:
        return self.state_dir / "cache.sqlite3"

    @property
    def token_path(self) -> Path:
        return self.state_dir / "token"
