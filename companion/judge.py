"""Judges one statement against the pages its citations point to.

The method (design.md):
- ALCE (Gao et al. 2023): the statement is the NLI hypothesis, cited text the premise. Citation
  recall: the joined evidence of all its citations entails it. A citation is *irrelevant* when it
  cannot support the statement alone and the remaining citations still support it without it.
- Verifiability study (Liu et al. 2023): complete / partial / no support, inaccessible kept apart,
  citations judged together, contradictions flagged, the statement read in its context
  (companion.claims.hypothesis), and as evidence the fewest sentences that hold its words.
- FActScore (Min et al. 2023): a statement that is not fully supported is split into atomic
  claims; partial support means some of them are supported, and the rest are reported.

Per cited source, the NLI model reads the few windows that retrieval ranked best and their joined
top sentences; the best entailment and cheap lexical features are combined by a small logistic
model calibrated on held-out citation data (scripts/calibrate.py), and an on-topic contradiction
past its own bar flags the statement.
No I/O: sources arrive as Documents, the model behind the NLIBackend protocol.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from .claims import atomic_claims, hypothesis
from .config import Retrieval
from .errors import ModelUnavailable
from .model import ModelConfig, Thresholds
from .records import (
    AtomicClaim,
    Citation,
    CitationJudgment,
    Document,
    Entailment,
    Evidence,
    Judgment,
    SourceResult,
    Statement,
    StatementJudgment,
    Window,
)
from .retrieve import content_terms, overlap, rank_windows, top_sentences
from .typedefs import NLIBackend

__all__ = ["FEATURES", "Judge", "decide", "text_fragment"]

# The combiner's inputs, in order (scripts/calibrate.py fits one weight per name). Contradiction is
# not one: it has its own flag and bar, and fitted on 303 calib examples its weight learned that an
# on-topic window "contradicts" on WiCE, which cost the combined score 2.7 points of held WiCE AUC
# once the model read negated pages (cross-validated on calib, these four ranked best for both models).
FEATURES = (
    "max_entailment_logit",
    "coverage",
    "missing_numbers",
    "missing_names",
)
_QUOTE_CONTEXT = 32  # characters of prefix / suffix, as W3C TextQuoteSelectors usually keep
_ATOM_WINDOWS = 3
# Most sentences quoted for one statement and source: a long claim is rarely backed by more, and a
# quote longer than that stops being a quote.
_EVIDENCE_SENTENCES = 5
_NO_SCORE = Entailment(0.0, 1.0, 0.0)
# Share of the claim's content words a window must hold to be on topic, so that the model's
# "contradiction" can count (an unrelated page reads as contradiction to an SNLI-trained model).
_ON_TOPIC = 0.3


@dataclass(frozen=True, slots=True)
class _Scored:
    """What the model read for one cited source, and what it said."""

    url: str
    document: Document
    windows: tuple[Window, ...]
    window_scores: tuple[Entailment, ...]
    joined_text: str
    joined_score: Entailment
    on_topic: tuple[bool, ...]  # per window: does it hold enough of the claim's words to contradict it?

    @property
    def best_entailment(self) -> float:
        return max([s.entailment for s in self.window_scores] + [self.joined_score.entailment])

    @property
    def contradiction(self) -> float:
        """Contradiction by a window that is about the statement: an unrelated page reads as
        "contradiction" to an SNLI-trained model, but it only fails to support."""
        return max([s.contradiction for s, t in zip(self.window_scores, self.on_topic) if t], default=0.0)

    def contradicting_window(self) -> Window | None:
        relevant = [(w, s) for w, s, t in zip(self.windows, self.window_scores, self.on_topic) if t]
        if not relevant:
            return None
        top = max(s.contradiction for _, s in relevant)
        return min((w for w, s in relevant if s.contradiction >= top - 0.05), key=lambda w: w.last - w.first)

    def ranked_windows(self) -> list[tuple[Window, Entailment]]:
        pairs = list(zip(self.windows, self.window_scores, strict=True))
        return sorted(pairs, key=lambda p: -p[1].entailment)


def decide(score: float, atoms: Sequence[float], contradicted: bool, thresholds: Thresholds) -> Judgment:
    """The support label from the combined score and the atomic claims' entailments.

    Complete support needs the combined score, no source that contradicts the statement (the
    verifiability study flags those) and, for a statement of several facts, every atomic claim
    (FActScore: a sentence is only as supported as its least supported fact). Partial
    support needs some supported atomic claim, or, for one fact, a middling score that no source
    contradicts. scripts/calibrate.py searches thresholds with this same function.
    """
    several = len(atoms) > 1
    supported = [a >= thresholds.claim for a in atoms]
    if score >= thresholds.complete and not contradicted and (not several or all(supported)):
        return "complete_support"
    if (several and any(supported)) or (score >= thresholds.partial and not contradicted):
        return "partial_support"
    return "no_support"


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


class Judge:
    """Turns a statement and its sources into a StatementJudgment. Holds no state between calls."""

    def __init__(self, nli: NLIBackend, model: ModelConfig, retrieval: Retrieval | None = None):
        if model.combiner_weights and model.combiner_features != FEATURES:
            raise ModelUnavailable(
                f"{model.path / 'config.json'}: its combiner was fitted to {list(model.combiner_features)}, "
                f"this CiteLens reads {list(FEATURES)}; rerun scripts/calibrate.py --model {model.path}"
            )
        self.nli = nli
        self.model = model
        self.thresholds = model.thresholds
        self.retrieval = retrieval or Retrieval()

    def judge(self, statement: Statement, sources: Mapping[str, SourceResult]) -> StatementJudgment:
        citations = _distinct_by_url(statement.citations)
        if not citations:
            return _without_evidence(statement, "no_citation", ())
        readable = {c.url: (c, s.document) for c in citations if (s := sources.get(c.url)) and s.document}
        if not readable:
            per = tuple(_inaccessible(c, sources.get(c.url)) for c in citations)
            return _without_evidence(statement, "inaccessible", per)

        claim = hypothesis(statement.text, statement.previous, statement.question)
        scored = self._score_sources(
            claim, [c for c, _ in readable.values()], {u: d for u, (_, d) in readable.items()}
        )
        joint = self._joint_score(claim, list(scored.values()))
        features = self.features(statement.text, list(scored.values()), joint)
        score = self.combine(features)
        contradicted = any(s.contradiction >= self.thresholds.contradiction for s in scored.values())

        # Early exit: a one-fact statement that the sources fully support needs no atomic check.
        claims: tuple[AtomicClaim, ...] = ()
        atom_support: dict[str, list[float]] = {}
        if score < self.thresholds.complete or len(atomic_claims(statement.text)) > 1:
            claims, atom_support = self._atoms(statement, scored, score, features)
        judgment = decide(score, [c.score for c in claims], contradicted, self.thresholds)
        if judgment == "complete_support":
            claims = tuple(dataclasses.replace(c, supported=True) for c in claims)
        elif judgment == "no_support" and len(claims) == 1:
            claims = (dataclasses.replace(claims[0], supported=False),)
        complete = judgment == "complete_support"

        per_citation = tuple(
            self._citation_judgment(c, claim, statement.text, scored[c.url], claims, atom_support)
            if c.url in scored
            else _inaccessible(c, sources.get(c.url))
            for c in citations
        )
        per_citation = self._mark_irrelevant(claim, statement.text, per_citation, scored, complete)
        evidence = tuple(
            e
            for cj in per_citation
            if cj.judgment in ("complete_support", "partial_support")
            for e in cj.evidence
        )
        return StatementJudgment(
            statement=statement,
            judgment=judgment,
            score=round(score, 4),
            contradicted=contradicted and not complete,
            per_citation=per_citation,
            evidence=_unique(evidence),
            claims=claims,
            recall=int(complete),
            features=tuple(round(f, 4) for f in features),
        )

    def features(
        self, statement_text: str, scored: Sequence[_Scored], joint: Entailment | None
    ) -> list[float]:
        """The combiner's inputs (FEATURES) for one or several cited sources read together."""
        best = max([s.best_entailment for s in scored] + ([joint.entailment] if joint else []))
        evidence_text = " ".join(s.joined_text for s in scored)
        whole_text = " ".join(s.document.text for s in scored)
        top = overlap(statement_text, evidence_text)
        anywhere = overlap(statement_text, whole_text)
        return [
            _logit(best),
            top.coverage,
            anywhere.missing_numbers,
            anywhere.missing_names,
        ]

    def combine(self, features: Sequence[float]) -> float:
        """The calibrated probability that the cited text fully supports the statement."""
        weights = self.model.combiner_weights
        if not weights:  # an uncalibrated model: its own best entailment probability
            z = features[0]
        else:
            z = self.model.combiner_bias + sum(w * f for w, f in zip(weights, features, strict=True))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    # --- the model's reading ------------------------------------------------------------------

    def _score_sources(
        self,
        claim: str,
        citations: Sequence[Citation],
        documents: Mapping[str, Document],
        *,
        limit: int | None = None,
    ) -> dict[str, _Scored]:
        r = self.retrieval
        plans = []
        for citation in citations:
            document = documents[citation.url]
            found = rank_windows(
                document,
                claim,
                limit=limit or r.candidates,
                max_sentences=r.max_window_sentences,
                min_chars=r.min_sentence_chars,
                hint=citation.hint,
            )
            joined = " ".join(document.sentences[i].text for i in top_sentences(found, r.joined_sentences))
            plans.append((citation.url, document, tuple(found), joined))
        pairs = [(w.text, claim) for plan in plans for w in plan[2]] + [(plan[3], claim) for plan in plans]
        results = self.nli.score(pairs)
        window_count = sum(len(plan[2]) for plan in plans)
        scored: dict[str, _Scored] = {}
        at = 0
        for k, (url, document, windows, joined) in enumerate(plans):
            own = tuple(results[at : at + len(windows)])
            at += len(windows)
            joined_score = results[window_count + k] if joined else _NO_SCORE
            on_topic = tuple(overlap(claim, w.text).coverage >= _ON_TOPIC for w in windows)
            scored[url] = _Scored(url, document, windows, own, joined, joined_score, on_topic)
        return scored

    def _joint_score(self, claim: str, scored: Sequence[_Scored]) -> Entailment | None:
        """ALCE recall reads all citations' evidence joined; one source needs no second call."""
        if len(scored) < 2:
            return None
        return self.nli.score([(" ".join(s.joined_text for s in scored), claim)])[0]

    def _supports(self, claim: str, statement_text: str, scored: Sequence[_Scored]) -> bool:
        if not scored:
            return False
        joint = self._joint_score(claim, scored)
        return self.combine(self.features(statement_text, scored, joint)) >= self.thresholds.complete

    # --- atomic claims ------------------------------------------------------------------------

    def _atoms(
        self,
        statement: Statement,
        scored: Mapping[str, _Scored],
        statement_score: float,
        statement_features: Sequence[float],
    ) -> tuple[tuple[AtomicClaim, ...], dict[str, list[float]]]:
        """Each atomic claim scored like a statement of its own (FActScore), per source and overall.

        An atom gets the same calibrated combination of model and lexical evidence as a whole
        statement: the model alone is too lenient on short claims whose key words the page lacks.
        """
        texts = atomic_claims(statement.text)
        if len(texts) < 2:  # the statement is its own atom: the statement-level reading stands
            per = {url: [self._support(statement.text, s)] for url, s in scored.items()}
            atom = AtomicClaim(
                statement.text,
                round(statement_score, 4),
                statement_score >= self.thresholds.claim,
                tuple(statement_features),
            )
            return (atom,), per
        citations = [Citation(id="", marker="", url=url, offset=0) for url in scored]
        documents = {url: s.document for url, s in scored.items()}
        per_source: dict[str, list[float]] = {url: [] for url in scored}
        atoms = []
        for text in texts:
            found = self._score_sources(
                hypothesis(text, statement.previous), citations, documents, limit=_ATOM_WINDOWS
            )
            for url, source in found.items():
                per_source[url].append(self._support(text, source))
            features = self.features(text, list(found.values()), None)
            score = max(per_source[url][-1] for url in found)
            atoms.append(
                AtomicClaim(
                    text,
                    round(score, 4),
                    score >= self.thresholds.claim,
                    tuple(round(f, 4) for f in features),
                )
            )
        return tuple(atoms), per_source

    def _support(self, text: str, source: _Scored) -> float:
        """The claim's combined score against this one source."""
        return self.combine(self.features(text, [source], None))

    # --- per citation -------------------------------------------------------------------------

    def _citation_judgment(
        self,
        citation: Citation,
        claim: str,
        statement_text: str,
        source: _Scored,
        atoms: Sequence[AtomicClaim],
        atom_support: dict[str, list[float]],
    ) -> CitationJudgment:
        score = self.combine(self.features(statement_text, [source], None))
        support = atom_support.get(source.url, [])
        contradicted = source.contradiction >= self.thresholds.contradiction
        judgment = decide(score, support, contradicted, self.thresholds)
        if judgment == "complete_support":
            unsupported: tuple[str, ...] = ()
        elif len(atoms) > 1 and len(support) == len(atoms):
            unsupported = tuple(a.text for a, s in zip(atoms, support) if s < self.thresholds.claim)
        else:
            unsupported = (statement_text,)
        return CitationJudgment(
            citation=citation,
            judgment=judgment,
            score=round(score, 4),
            contradiction=round(source.contradiction, 4),
            irrelevant=False,
            evidence=self._contradicting(source, citation.url)
            if contradicted and judgment == "no_support"
            else self._covering_evidence(claim, source, citation.url),
            entailment=round(source.best_entailment, 4),
            reading=source.window_scores[0] if source.window_scores else source.joined_score,
            unsupported=unsupported or (statement_text,) if judgment != "complete_support" else (),
        )

    def _mark_irrelevant(
        self,
        claim: str,
        statement_text: str,
        per_citation: tuple[CitationJudgment, ...],
        scored: Mapping[str, _Scored],
        recall: bool,
    ) -> tuple[CitationJudgment, ...]:
        """ALCE precision: irrelevant = cannot support alone, and the others support without it."""
        judged = [cj for cj in per_citation if cj.citation.url in scored]
        if not recall or len(judged) < 2:
            return per_citation
        marked = []
        for cj in per_citation:
            if cj.citation.url in scored and cj.judgment != "complete_support":
                rest = [scored[o.citation.url] for o in judged if o is not cj]
                if self._supports(claim, statement_text, rest):
                    cj = _replace_irrelevant(cj)
            marked.append(cj)
        return tuple(marked)

    def _covering_evidence(self, claim: str, source: _Scored, url: str) -> tuple[Evidence, ...]:
        """The fewest candidate sentences that together hold every word of the claim the source holds.

        Greedy set cover over the sentences the model read, the model's entailment breaking ties, so
        a claim of several facts gets a sentence for each fact, as the verifiability study's and
        WiCE's annotators mark it. Chosen over the smallest set the model alone calls entailing:
        on WiCE calib, evidence recall / precision 0.60 / 0.62 against 0.45 / 0.64, and no model call.
        """
        reading: dict[int, float] = {}
        for window, score in zip(source.windows, source.window_scores, strict=True):
            for i in range(window.first, window.last + 1):
                reading[i] = max(reading.get(i, 0.0), score.entailment)
        wanted = set(content_terms(claim))
        held = {i: wanted & set(content_terms(source.document.sentences[i].text)) for i in reading}
        chosen: list[int] = []
        covered: set[str] = set()
        while len(chosen) < _EVIDENCE_SENTENCES:
            rest = [i for i in held if i not in chosen]
            best = max(rest, key=lambda i: (len(held[i] - covered), reading[i], -i), default=None)
            if best is None or not held[best] - covered:
                break
            chosen.append(best)
            covered |= held[best]
        if not chosen and source.windows:  # nothing shares a word: the model's best reading
            window = source.ranked_windows()[0][0]
            chosen = list(range(window.first, window.last + 1))
        return tuple(_evidence(source.document, i, url) for i in sorted(chosen))

    def _contradicting(self, source: _Scored, url: str) -> tuple[Evidence, ...]:
        """For a contradicted statement the quote to show is the sentence that says otherwise."""
        window = source.contradicting_window()
        if window is None:
            return ()
        return tuple(_evidence(source.document, i, url) for i in range(window.first, window.last + 1))


# --- records without a model reading ---------------------------------------------------------


def _distinct_by_url(citations: Sequence[Citation]) -> list[Citation]:
    seen: set[str] = set()
    kept = []
    for c in citations:
        if c.url not in seen:
            seen.add(c.url)
            kept.append(c)
    return kept


def _inaccessible(citation: Citation, source: SourceResult | None) -> CitationJudgment:
    reason = source.reason if source is not None else "not fetched"
    return CitationJudgment(citation, "inaccessible", 0.0, 0.0, False, (), reason=reason or "unavailable")


def _without_evidence(
    statement: Statement, judgment: Judgment, per: tuple[CitationJudgment, ...]
) -> StatementJudgment:
    return StatementJudgment(statement, judgment, 0.0, False, per, (), (), 0)


def _replace_irrelevant(cj: CitationJudgment) -> CitationJudgment:
    return dataclasses.replace(cj, irrelevant=True)


def _unique(evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    seen: set[tuple[str, int]] = set()
    kept = []
    for e in evidence:
        if (e.url, e.start) not in seen:
            seen.add((e.url, e.start))
            kept.append(e)
    return tuple(kept)


def _evidence(document: Document, index: int, url: str) -> Evidence:
    sentence = document.sentences[index]
    text = document.text
    return Evidence(
        text=sentence.text,
        start=sentence.start,
        end=sentence.end,
        prefix=text[max(0, sentence.start - _QUOTE_CONTEXT) : sentence.start],
        suffix=text[sentence.end : sentence.end + _QUOTE_CONTEXT],
        fragment_url=text_fragment(url, sentence.text),
        sentence_index=index,
        url=url,
    )


def text_fragment(url: str, quote_text: str) -> str:
    """A link that opens `url` scrolled to the quote (URL Fragment Text Directives, WICG).

    Long quotes use the textStart,textEnd form: browsers match it more reliably than a long
    exact string that may differ in white space from the rendered page.
    """
    words = quote_text.split()
    if len(words) > 10:
        directive = f"{_encode(' '.join(words[:5]))},{_encode(' '.join(words[-5:]))}"
    else:
        directive = _encode(" ".join(words))
    return f"{url.split('#', 1)[0]}#:~:text={directive}"


def _encode(text: str) -> str:
    # '-', '&' and ',' are syntax inside a text directive, so they must be percent-encoded too.
    return quote(text, safe="").replace("-", "%2D")
