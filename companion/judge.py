"""Judges one statement against the pages its citations point to.

The method (design.md):
- ALCE (Gao et al. 2023): the statement is the NLI hypothesis, cited text the premise. Citation
  recall: the joined evidence of all its citations entails it. A citation is *irrelevant* when it
  cannot support the statement alone and the remaining citations still support it without it.
- Verifiability study (Liu et al. 2023): complete / partial / no support, inaccessible kept apart,
  citations judged together, contradictions flagged, the minimal set of evidence sentences kept,
  the statement read in its context (companion.claims.hypothesis).
- FActScore (Min et al. 2023): a statement that is not fully supported is split into atomic
  claims; partial support means some of them are supported, and the rest are reported.

Per cited source, the NLI model reads the few windows that retrieval ranked best and their joined
top sentences; the best entailment, the contradiction and cheap lexical features are combined by a
small logistic model calibrated on held-out citation data (scripts/calibrate.py).
No I/O: sources arrive as Documents, the model behind the NLIBackend protocol.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote

from .claims import atomic_claims, hypothesis
from .config import Retrieval
from .model import ModelConfig
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
from .retrieve import overlap, rank_windows, top_sentences
from .typedefs import NLIBackend

__all__ = ["FEATURES", "Judge", "text_fragment"]

# The combiner's inputs, in order (scripts/calibrate.py fits one weight per name).
FEATURES = (
    "max_entailment_logit",
    "joined_entailment_logit",
    "max_contradiction",
    "coverage",
    "missing_numbers",
    "missing_names",
)
_QUOTE_CONTEXT = 32  # characters of prefix / suffix, as W3C TextQuoteSelectors usually keep
_ATOM_WINDOWS = 3
_NO_SCORE = Entailment(0.0, 1.0, 0.0)


@dataclass(frozen=True, slots=True)
class _Scored:
    """What the model read for one cited source, and what it said."""

    url: str
    document: Document
    windows: tuple[Window, ...]
    window_scores: tuple[Entailment, ...]
    joined_ids: tuple[int, ...]
    joined_text: str
    joined_score: Entailment

    @property
    def best_entailment(self) -> float:
        return max([s.entailment for s in self.window_scores] + [self.joined_score.entailment])

    @property
    def contradiction(self) -> float:
        return max([s.contradiction for s in self.window_scores] + [self.joined_score.contradiction])

    def ranked_windows(self) -> list[tuple[Window, Entailment]]:
        pairs = list(zip(self.windows, self.window_scores, strict=True))
        return sorted(pairs, key=lambda p: -p[1].entailment)


class _AtomSupport(NamedTuple):
    score: float  # best entailment of the atomic claim by this source
    sentences: tuple[int, ...]  # the premise that gave it


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


class Judge:
    """Turns a statement and its sources into a StatementJudgment. Holds no state between calls."""

    def __init__(self, nli: NLIBackend, model: ModelConfig, retrieval: Retrieval | None = None):
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
        complete = score >= self.thresholds.complete

        claims: tuple[AtomicClaim, ...] = ()
        atom_support: dict[str, list[_AtomSupport]] = {}
        if not complete:  # early exit: a fully supported statement needs no atomic check
            claims, atom_support = self._atoms(statement, list(scored.values()), score)
            if self.model.atoms_complete and len(claims) > 1 and all(c.supported for c in claims):
                complete = True
        if complete:
            judgment: Judgment = "complete_support"
            claims = tuple(AtomicClaim(c.text, c.score, True) for c in claims)
        elif any(c.supported for c in claims) or score >= self.thresholds.partial:
            judgment = "partial_support"
        else:
            judgment = "no_support"

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
            contradicted=not complete
            and any(s.contradiction >= self.thresholds.contradiction for s in scored.values()),
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
        best = max(s.best_entailment for s in scored)
        joined = joint.entailment if joint else max(s.joined_score.entailment for s in scored)
        if joint:
            best = max(best, joint.entailment)
        evidence_text = " ".join(s.joined_text for s in scored)
        whole_text = " ".join(s.document.text for s in scored)
        top = overlap(statement_text, evidence_text)
        anywhere = overlap(statement_text, whole_text)
        return [
            _logit(best),
            _logit(joined),
            max(s.contradiction for s in scored),
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
        self, claim: str, citations: Sequence[Citation], documents: Mapping[str, Document]
    ) -> dict[str, _Scored]:
        r = self.retrieval
        plans = []
        for citation in citations:
            document = documents[citation.url]
            found = rank_windows(
                document,
                claim,
                limit=r.candidates,
                max_sentences=r.max_window_sentences,
                min_chars=r.min_sentence_chars,
                hint=citation.hint,
            )
            ids = tuple(top_sentences(found, r.joined_sentences))
            joined = " ".join(document.sentences[i].text for i in ids)
            plans.append((citation.url, document, tuple(found), ids, joined))
        pairs = [(w.text, claim) for plan in plans for w in plan[2]] + [(plan[4], claim) for plan in plans]
        results = self.nli.score(pairs)
        window_count = sum(len(plan[2]) for plan in plans)
        scored: dict[str, _Scored] = {}
        at = 0
        for k, (url, document, windows, ids, joined) in enumerate(plans):
            own = tuple(results[at : at + len(windows)])
            at += len(windows)
            joined_score = results[window_count + k] if joined else _NO_SCORE
            scored[url] = _Scored(url, document, windows, own, ids, joined, joined_score)
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
        self, statement: Statement, scored: Sequence[_Scored], statement_score: float
    ) -> tuple[tuple[AtomicClaim, ...], dict[str, list[_AtomSupport]]]:
        """Each atomic claim's best entailment over the sources (FActScore), and where, per source."""
        texts = atomic_claims(statement.text)
        if len(texts) < 2:
            best = max(s.best_entailment for s in scored)
            supported = statement_score >= self.thresholds.partial and best >= self.thresholds.claim
            per = {s.url: [_AtomSupport(s.best_entailment, ())] for s in scored}
            return (AtomicClaim(statement.text, round(best, 4), supported),), per
        claims = [hypothesis(t, statement.previous) for t in texts]
        pairs: list[tuple[str, str]] = []
        places: list[tuple[str, int, tuple[int, ...]]] = []  # (url, claim index, premise sentences)
        for source in scored:
            for k, claim in enumerate(claims):
                windows = rank_windows(
                    source.document,
                    claim,
                    limit=_ATOM_WINDOWS,
                    max_sentences=self.retrieval.max_window_sentences,
                    min_chars=self.retrieval.min_sentence_chars,
                )
                for w in windows:
                    pairs.append((w.text, claim))
                    places.append((source.url, k, tuple(range(w.first, w.last + 1))))
                if source.joined_text:
                    pairs.append((source.joined_text, claim))
                    places.append((source.url, k, source.joined_ids))
        results = self.nli.score(pairs)
        per_source = {s.url: [_AtomSupport(0.0, ())] * len(claims) for s in scored}
        for (url, k, ids), result in zip(places, results, strict=True):
            if result.entailment > per_source[url][k].score:
                per_source[url][k] = _AtomSupport(result.entailment, ids)
        atoms = []
        for k, text in enumerate(texts):
            best = max(per_source[s.url][k].score for s in scored)
            atoms.append(AtomicClaim(text, round(best, 4), best >= self.thresholds.claim))
        return tuple(atoms), per_source

    # --- per citation -------------------------------------------------------------------------

    def _citation_judgment(
        self,
        citation: Citation,
        claim: str,
        statement_text: str,
        source: _Scored,
        atoms: Sequence[AtomicClaim],
        atom_support: dict[str, list[_AtomSupport]],
    ) -> CitationJudgment:
        score = self.combine(self.features(statement_text, [source], None))
        places = atom_support.get(source.url, [])
        support = [p.score for p in places]
        if score >= self.thresholds.complete:
            judgment: Judgment = "complete_support"
        elif any(a >= self.thresholds.claim for a in support) or score >= self.thresholds.partial:
            judgment = "partial_support"
        else:
            judgment = "no_support"
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
            evidence=self._minimal_evidence(claim, source, citation.url, places),
            entailment=round(source.best_entailment, 4),
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

    def _minimal_evidence(
        self, claim: str, source: _Scored, url: str, atoms: Sequence[_AtomSupport] = ()
    ) -> tuple[Evidence, ...]:
        """The smallest set of source sentences whose joined text entails the statement.

        Greedy, as the verifiability study's annotators do: a single sentence if one suffices;
        else the best window, pruned of any sentence it does not need; else the joined top
        sentences, pruned the same way. When nothing entails: the best partial evidence, i.e.
        the best window and where each supported atomic claim was found.
        """
        ranked = source.ranked_windows()
        if not ranked:
            return ()
        need = self.thresholds.claim
        singles = [(w, s) for w, s in ranked if w.first == w.last and s.entailment >= need]
        if singles:
            chosen = [singles[0][0].first]
        elif ranked[0][1].entailment >= need:
            chosen = self._prune(
                claim, source.document, list(range(ranked[0][0].first, ranked[0][0].last + 1))
            )
        elif source.joined_score.entailment >= need:
            chosen = self._prune(claim, source.document, list(source.joined_ids))
        else:
            best = ranked[0][0]
            found = {i for a in atoms if a.score >= need and len(a.sentences) <= 3 for i in a.sentences}
            chosen = sorted(found | set(range(best.first, best.last + 1)))
        return tuple(_evidence(source.document, i, url) for i in chosen)

    def _prune(self, claim: str, document: Document, ids: list[int]) -> list[int]:
        """Drops sentences whose removal keeps the entailment (one pass, one model call)."""
        if len(ids) < 2:
            return ids
        subsets = [[j for j in ids if j != i] for i in ids]
        results = self.nli.score(
            [(" ".join(document.sentences[j].text for j in sub), claim) for sub in subsets]
        )
        best = max(range(len(subsets)), key=lambda k: results[k].entailment)
        if results[best].entailment >= self.thresholds.claim:
            return self._prune(claim, document, subsets[best]) if len(subsets[best]) > 1 else subsets[best]
        return ids


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
