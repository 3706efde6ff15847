"""The plain typed records that pass between the pipeline's stages, in data-flow order.

capture → VerifyRequest; segment → Statement; fetch → Fetched; extract → Document (Sentences);
retrieve → Window; infer → Entailment; judge → StatementJudgment; export → dicts of api.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from .text.utf16 import Utf16Offsets

__all__ = [
    "JUDGMENTS",
    "AtomicClaim",
    "Citation",
    "CitationJudgment",
    "Confidence",
    "Document",
    "Entailment",
    "Evidence",
    "Fetched",
    "FoundElsewhere",
    "InlineSource",
    "Judgment",
    "PageIndex",
    "PageInfo",
    "Sentence",
    "SourceResult",
    "Started",
    "Statement",
    "StatementJudgment",
    "Summary",
    "VerifyRequest",
    "Via",
    "Window",
    "Words",
]

Judgment = Literal[
    "complete_support", "partial_support", "no_support", "inaccessible", "not_checked", "no_citation"
]
# How far a complete reading may be trusted: "high" is the green badge, "low" is "likely
# supported: check the quote" (judging.policy.confidence, research/notes/green-rule.md).
Confidence = Literal["high", "low"]
JUDGMENTS: tuple[Judgment, ...] = (
    "complete_support",
    "partial_support",
    "no_support",
    "inaccessible",
    # The statement or its page is in a language no shipped model reads (judges.py): never judged
    # by a model and rules made for another language.
    "not_checked",
    "no_citation",
)


# --- capture: what the extension (or a person) sends -------------------------------------------


@dataclass(frozen=True, slots=True)
class PageInfo:
    url: str = ""
    engine: str = ""
    title: str = ""
    query: str = ""
    captured_at: str = ""


@dataclass(frozen=True, slots=True)
class Citation:
    id: str
    marker: str
    url: str  # normalized: redirectors unwrapped, tracking parameters and fragment dropped
    offset: int
    # The `#:~:text=` an engine put on its link: the sentence it says it used (docs/engines.md).
    hint: str = ""
    # Where the paragraph or list item this marker closes begins, for an engine whose chip cites
    # its whole block (Google's AI Overview and AI Mode, issue 25); same unit as `offset`.
    block_start: int | None = None


@dataclass(frozen=True, slots=True)
class InlineSource:
    html: str = ""
    text: str = ""
    title: str = ""
    # "browser": the extension read the page through the reader's browser (api.md), so the fetch
    # guard's address rules still apply to its URL; "" for a page the extension already had.
    via: str = ""
    # With via "browser" and no page: why the reader's browser could not read it either.
    error: str = ""


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    page: PageInfo
    answer_text: str
    citations: tuple[Citation, ...]
    sources: Mapping[str, InlineSource] = field(default_factory=dict)
    stream: bool = False
    # answer_text's positions in the API's unit (UTF-16 code units, docs/api.md "Offsets"), for
    # export.py to write spans in the unit the citation offsets came in.
    units: Utf16Offsets = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", Utf16Offsets(self.answer_text))


# --- segment: the answer's statements ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Statement:
    index: int
    text: str  # markers stripped
    span: tuple[int, int]  # [start, end) in the answer text as sent
    citations: tuple[Citation, ...]
    # The preceding statement and the question: read with the statement so that "it" resolves.
    previous: str = ""
    question: str = ""
    language: str = "en"  # the answer's language (companion.text.language), which picks the model
    # Cited by the link that closes its paragraph or list item, having no marker of its own.
    block_cited: bool = False


# --- fetch and extract: the cited sources ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str
    final_url: str
    status: int
    content_type: str
    body: bytes
    charset: str | None = None


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    start: int  # [start, end) in Document.text
    end: int
    page: int | None = None  # 1-based page of a PDF source; None for web pages


@dataclass(frozen=True, slots=True)
class Document:
    url: str
    title: str
    text: str
    sentences: tuple[Sentence, ...]
    language: str = "en"  # ISO 639-1, detected when the page is read (companion.text.language)
    # Built once when the page is read (retrieve.index_page), not again for every claim.
    index: PageIndex | None = field(default=None, compare=False, repr=False)
    # Its sentences' words per language, analysed once for all the claims that read them
    # (text.analysis.sentence_words): a cache, filled as claims of a language first read the page.
    analysed: dict[str, tuple[Words, ...]] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Words:
    """A text's words as the judging reads them (text.analysis): worked out once for a claim when
    its statement is made, and once for each sentence of a page."""

    text: str
    language: str  # the lexicon's that read it
    terms: tuple[str, ...]  # stemmed content words and numbers, in order
    term_set: frozenset[str]
    numbers: frozenset[str]  # in one canonical form ("2,000" → "2000")
    names: frozenset[str]  # capitalised words, lower-cased, stop words aside
    lowered: str


@dataclass(frozen=True, slots=True)
class PageIndex:
    """What retrieval and the lexical features read of a whole page."""

    titles: tuple[bool, ...]  # per sentence: does it repeat the page's title (never a window's part)
    sentence_terms: tuple[frozenset[str], ...]  # each sentence's content terms (stemmed)
    idf: Mapping[str, float]
    terms: frozenset[str]  # the page's content terms
    numbers: frozenset[str]
    lowered: str  # the text, lower-cased, where names are looked for


Via = Literal["companion", "inline", "browser"]


@dataclass(frozen=True, slots=True)
class SourceResult:
    url: str
    document: Document | None
    reason: str = ""  # why it is inaccessible; empty when the document is there
    # Inaccessible to the companion, but the reader's browser may get in (a 403, a bot check, a
    # paywall…): the extension offers to read it there. Decided where the reason is made.
    browser_may_read: bool = False
    # Who read the page: the companion (fetched or cached), the extension (inline), or the
    # reader's browser at the reader's request.
    via: Via = "companion"

    @property
    def ok(self) -> bool:
        return self.document is not None


# --- retrieve and infer ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Window:
    """One to a few consecutive source sentences, the unit the NLI model reads as premise."""

    first: int  # index of the first sentence in Document.sentences
    last: int  # inclusive
    text: str
    relevance: float = 0.0


@dataclass(frozen=True, slots=True)
class Entailment:
    entailment: float
    neutral: float
    contradiction: float


# --- pipeline events ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    statements: int
    sources: int
    # The distinct cited pages in order of first citation: the plain result lists its sources in
    # this order, not in the order they happened to arrive (issue 16: same answer, same output).
    urls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    counts: dict[str, int]
    citation_recall: float | None
    citation_precision: float | None
    elapsed_ms: int
    # Found elsewhere (issue 12): statements supported only by a source they do not cite, and
    # statements citing nothing that a source of the answer supports.
    misplaced_citations: int = 0
    uncited_but_supported: int = 0
    # Statements cited by the link closing their paragraph or list item, not a marker of their own.
    block_cited: int = 0
    # What ALCE's figures were computed over (issue 25): recall over `alce_statements` (those
    # citing a page that could be read), `alce_block_cited` of them block-cited; precision over
    # their `alce_citations` citations of readable pages.
    alce_statements: int = 0
    alce_citations: int = 0
    alce_block_cited: int = 0
    # The models that judged statements, (name, version), the one that judged most first.
    models: tuple[tuple[str, str], ...] = ()


# --- judge -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evidence:
    """A source sentence quoted as evidence, anchored like a W3C TextQuoteSelector."""

    text: str
    start: int
    end: int
    prefix: str
    suffix: str
    fragment_url: str
    sentence_index: int
    url: str = ""
    page: int | None = None  # the quote's PDF page, which fragment_url opens (`#page=N`)


@dataclass(frozen=True, slots=True)
class AtomicClaim:
    text: str
    score: float
    supported: bool
    features: tuple[float, ...] = ()  # the combiner's inputs for this claim (calibration reads them)


@dataclass(frozen=True, slots=True)
class CitationJudgment:
    citation: Citation
    judgment: Judgment
    score: float
    contradiction: float
    irrelevant: bool
    evidence: tuple[Evidence, ...]
    reason: str = ""
    entailment: float = 0.0  # the model's best entailment probability, before the combiner
    unsupported: tuple[str, ...] = ()  # atomic claims this source does not support
    # The model's 3-way reading of the most relevant window, before any gating or combining.
    reading: Entailment | None = None
    reasons: tuple[str, ...] = ()  # what decided the judgment (policy.py, docs/api.md "Reasons")
    # The combiner's calibrated probability of complete support, as the policy read it; None
    # where nothing was judged. `score` is the same but for a no-support verdict (policy.banded).
    probability: float | None = None
    # Where the source also says the opposite (a conflicting reading, policy.py): that sentence,
    # shown beside the support ("supports: … / says otherwise: …").
    says_otherwise: tuple[Evidence, ...] = ()
    # A reason's particulars, e.g. "rule:en.another_number" -> {"claim": "2,000", "source": "4,500"}.
    reason_details: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # For complete support: "high" (green) or "low" ("likely supported: check the quote"); else None
    # (judging.policy.confidence).
    confidence: Confidence | None = None


@dataclass(frozen=True, slots=True)
class FoundElsewhere:
    """Support for a statement in a source of the answer that it does not cite, recorded apart from
    its own verdict (ALCE and the verifiability study judge only the cited sources): it tells a
    misplaced citation from a claim no source makes."""

    url: str
    citation: Citation | None  # the answer's first citation that points there
    judgment: Judgment  # complete_support or partial_support
    score: float
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True, slots=True)
class StatementJudgment:
    statement: Statement
    judgment: Judgment
    score: float
    contradicted: bool
    per_citation: tuple[CitationJudgment, ...]
    evidence: tuple[Evidence, ...]
    claims: tuple[AtomicClaim, ...]
    # ALCE citation recall: 1 when the statement is completely supported by its citations read together.
    recall: int
    features: tuple[float, ...] = ()  # the combiner's inputs (combiner.FEATURES), for the audit
    found_elsewhere: tuple[FoundElsewhere, ...] = ()  # best first; only for statements not fully supported
    model: str = ""  # the name of the model that judged it (judges.py picks one by language)
    model_version: str = ""
    reasons: tuple[str, ...] = ()  # what decided the judgment (policy.py, docs/api.md "Reasons")
    probability: float | None = None  # as CitationJudgment's, for the citations read together
    says_otherwise: tuple[Evidence, ...] = ()  # as CitationJudgment's, over its citations
    reason_details: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    confidence: Confidence | None = None  # as CitationJudgment's

    @property
    def unsupported_assertions(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.claims if not c.supported)
