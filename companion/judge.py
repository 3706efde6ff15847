"""Judges one statement against the pages its citations point to.

The method (docs/method.md), each step in its own module:
- the claim in context (claims.py): the verifiability study reads a statement with the question
  and the answer so far, so "It was built in 1889" is checked as "The tower was built in 1889";
- reading (reading.py): retrieval picks each source's best windows, the NLI model scores them;
- the score and the label (combiner.py): a calibrated combination of the model's best entailment
  and lexical features, then complete / partial / no support (verifiability study), with a
  statement of several facts split into atomic claims (FActScore) and a source that contradicts
  the statement flagged;
- what a small NLI model misses (meaning.py): a source that reports the claim as a myth or an
  allegation, is narrower than it, says the opposite direction, or negates it;
- ALCE's recall and precision (alce.py), and the quote shown to the reader (evidence.py);
- found elsewhere (`Judge.elsewhere`): support in a page of the answer the statement does not
  cite, recorded apart from its own verdict.

Which text feeds what: the model, the on-topic test and the quote read the claim in context
(`hypothesis`); the lexical features read the statement as written, since the context's words are
not the statement's to be supported.
No I/O: sources arrive as Documents, the model behind the NLIBackend protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from .alce import irrelevant
from .claims import atomic_claims, hypothesis
from .combiner import Combiner, Verdict, banded, decide, entailment_of
from .config import Judging, Retrieval
from .evidence import contradicting_quote, covering_quote
from .meaning import Reading, negates, read_meaning, restates_another_number, restates_negated
from .model import ModelConfig
from .reading import SourceReading, given_elsewhere, read_sources
from .records import (
    AtomicClaim,
    Citation,
    CitationJudgment,
    Document,
    Evidence,
    FoundElsewhere,
    Judgment,
    SourceResult,
    Statement,
    StatementJudgment,
)
from .retrieve import overlap, page_index, rank_windows
from .typedefs import NLIBackend

__all__ = ["Judge"]


class Judge:
    """Turns a statement and its sources into a StatementJudgment. Holds no state between calls."""

    def __init__(
        self,
        nli: NLIBackend,
        model: ModelConfig,
        retrieval: Retrieval | None = None,
        judging: Judging | None = None,
        *,
        strict: bool = True,
    ):
        self.nli = nli
        self.model = model
        self.thresholds = model.thresholds
        self.retrieval = retrieval or Retrieval()
        self.judging = judging or Judging()
        self.combiner = Combiner(model, self.retrieval, self.judging, strict=strict)

    def judge(self, statement: Statement, sources: Mapping[str, SourceResult]) -> StatementJudgment:
        citations = _distinct_by_url(statement.citations)
        if not citations:
            return _without_evidence(statement, "no_citation", ())
        readable = [(c, s.document) for c in citations if (s := sources.get(c.url)) and s.document]
        if not readable:
            unread = tuple(_inaccessible(c, sources) for c in citations)
            return _without_evidence(statement, "inaccessible", unread)

        claim = hypothesis(statement.text, statement.previous, statement.question)
        readings = read_sources(
            self.nli,
            claim,
            [(c.url, d, c.hint) for c, d in readable],
            self.retrieval,
            self.judging,
            language=statement.language,
        )
        score, features = self._support(claim, statement.text, list(readings.values()))
        meanings = {
            url: read_meaning(statement.text, r.most_entailing_text(), statement.language)
            for url, r in readings.items()
        }
        contradicted = any(
            self._contradicts(claim, statement.text, r, meanings[url], statement.language)
            for url, r in readings.items()
        )

        # A one-fact statement that the sources fully support needs no atomic check.
        atoms: tuple[AtomicClaim, ...] = ()
        atom_support: dict[str, list[float]] = {}
        if score < self.thresholds.complete or len(atomic_claims(statement.text)) > 1:
            atoms, atom_support = self._atoms(statement, readings, score, features)
        hedged = not any(m.asserts for m in meanings.values()) or not self._model_reads(features, atoms)
        verdict = decide(score, [a.score for a in atoms], contradicted, self.thresholds, hedged=hedged)
        atoms = _marked(atoms, verdict)
        complete = verdict.judgment == "complete_support"

        per_citation = tuple(
            self._citation_judgment(
                c, claim, statement.text, readings[c.url], meanings[c.url], atoms, atom_support
            )
            if c.url in readings
            else _inaccessible(c, sources)
            for c in citations
        )
        unneeded = irrelevant(
            per_citation,
            complete,
            lambda urls: (
                self._support(claim, statement.text, [readings[u] for u in urls])[0]
                >= self.thresholds.complete
            ),
        )
        per_citation = tuple(
            dataclasses.replace(cj, irrelevant=True) if cj.citation.url in unneeded else cj
            for cj in per_citation
        )
        evidence = _unique(
            e
            for cj in per_citation
            if cj.judgment in ("complete_support", "partial_support")
            for e in cj.evidence
        )
        return StatementJudgment(
            statement=statement,
            judgment=verdict.judgment,
            score=round(banded(score, verdict.judgment, self.thresholds), 4),
            contradicted=contradicted and not complete,
            per_citation=per_citation,
            evidence=evidence,
            claims=atoms,
            recall=int(complete),
            features=tuple(round(f, 4) for f in features),
        )

    def elsewhere(
        self, result: StatementJudgment, sources: Mapping[str, SourceResult], cited_by: Mapping[str, Citation]
    ) -> StatementJudgment:
        """`result` with the support found in the answer's other sources (issue 12), best first.

        Only for a statement its own citations do not fully support. `sources` are all the
        answer's pages (never fetched for this), `cited_by` the answer's first citation of each.
        Only sources whose best window holds enough of the claim's words reach the model, and a
        source is judged exactly as a cited one would be, so a page that refutes the claim is
        never "found"."""
        if result.judgment == "complete_support":
            return result
        statement = result.statement
        own = {c.url for c in statement.citations}
        claim = hypothesis(statement.text, statement.previous, statement.question)
        on_topic = [
            (url, source.document, "")
            for url, source in sources.items()
            if url not in own
            and source.document is not None
            and self._on_topic(claim, source.document, statement.language)
        ]
        if not on_topic:
            return result
        readings = read_sources(
            self.nli, claim, on_topic, self.retrieval, self.judging, language=statement.language
        )
        found = []
        for url, reading in readings.items():
            score = self._alone(statement.text, reading)
            meaning = read_meaning(statement.text, reading.most_entailing_text(), statement.language)
            contradicted = self._contradicts(claim, statement.text, reading, meaning, statement.language)
            unread = reading.best_entailment < self.judging.entailment_floor
            verdict = decide(score, [], contradicted, self.thresholds, hedged=bool(meaning.hedged) or unread)
            if reading.best_entailment < self.judging.elsewhere_entailment:
                continue
            if verdict.judgment in ("complete_support", "partial_support"):
                evidence = covering_quote(claim, reading, self.judging)
                found.append(
                    FoundElsewhere(
                        url,
                        cited_by.get(url),
                        verdict.judgment,
                        round(banded(score, verdict.judgment, self.thresholds), 4),
                        evidence,
                    )
                )
        found.sort(key=lambda f: (f.judgment != "complete_support", -f.score, f.url))
        return dataclasses.replace(result, found_elsewhere=tuple(found))

    def _on_topic(self, claim: str, document: Document, language: str) -> bool:
        best = rank_windows(
            document,
            claim,
            limit=1,
            max_sentences=self.retrieval.max_window_sentences,
            min_chars=self.retrieval.min_sentence_chars,
            language=language,
        )
        return (
            bool(best) and overlap(claim, best[0].text, language).coverage >= self.judging.elsewhere_on_topic
        )

    # --- scores ---------------------------------------------------------------------------------

    def _contradicts(
        self, claim: str, text: str, reading: SourceReading, meaning: Reading, language: str
    ) -> bool:
        """The verifiability study's contradiction: the model's, past its calibrated bar; a
        source that says the opposite direction; or an on-topic window that negates the
        statement and that the model reads as a contradiction, or restates it with a negation
        inside it or with another number in place of its own (meaning.py)."""
        if meaning.opposite or self._model_contradicts(claim, reading):
            return True
        bar = self.judging.negated_contradiction
        numbers = page_index(reading.document).numbers
        return any(
            on_topic
            and (
                (score.contradiction >= bar and negates(text, window.text, language))
                or restates_negated(text, window.text, language)
                or restates_another_number(text, window.text, numbers, language)
            )
            for window, score, on_topic in zip(reading.windows, reading.window_scores, reading.on_topic)
        )

    def _model_contradicts(self, claim: str, reading: SourceReading) -> bool:
        """The model's contradiction past its bar, on an on-topic window that still reads so once
        the page's sentences giving the claim's numbers and names it lacks are read with it
        (reading.given_elsewhere): a window refutes what the page says, not what the page says
        in another sentence."""
        bar = self.thresholds.contradiction
        for window, score, on_topic in zip(reading.windows, reading.window_scores, reading.on_topic):
            if not on_topic or score.contradiction < bar:
                continue
            context = given_elsewhere(reading.document, window, claim, reading.language)
            if not context or self.nli.score([(f"{context} {window.text}", claim)])[0].contradiction >= bar:
                return True
        return False

    def _model_reads(self, features: Sequence[float], atoms: Sequence[AtomicClaim]) -> bool:
        """Whether the model itself reads support: its best entailment for the statement, or for
        each of its facts, reaches the floor. Word coverage may say that the source talks about
        the claim; without this, it cannot make the claim completely supported (issue 10)."""
        floor = self.judging.entailment_floor
        if entailment_of(features) >= floor:
            return True
        return len(atoms) > 1 and all(entailment_of(a.features) >= floor for a in atoms)

    def _support(self, claim: str, text: str, readings: Sequence[SourceReading]) -> tuple[float, list[float]]:
        """The combined score of `text` against these sources read together, and its features.

        ALCE reads several citations' evidence joined: with more than one source, the model also
        reads their top sentences side by side."""
        best = max(r.best_entailment for r in readings)
        if len(readings) > 1:
            joint = self.nli.score([(" ".join(r.joined_text for r in readings), claim)])[0]
            best = max(best, joint.entailment)
        features = self.combiner.features(
            text,
            [r.joined_text for r in readings],
            [page_index(r.document) for r in readings],
            best,
            readings[0].language,
        )
        return self.combiner.score(features), features

    def _alone(self, text: str, reading: SourceReading) -> float:
        """The combined score of `text` against one source."""
        features = self.combiner.features(
            text,
            [reading.joined_text],
            [page_index(reading.document)],
            reading.best_entailment,
            reading.language,
        )
        return self.combiner.score(features)

    # --- atomic claims (FActScore) --------------------------------------------------------------

    def _atoms(
        self,
        statement: Statement,
        readings: Mapping[str, SourceReading],
        statement_score: float,
        statement_features: Sequence[float],
    ) -> tuple[tuple[AtomicClaim, ...], dict[str, list[float]]]:
        """Each atomic claim scored like a statement of its own, per source and overall.

        An atom gets the same calibrated combination of model and lexical evidence as a whole
        statement: the model alone is too lenient on short claims whose key words the page lacks.
        """
        texts = atomic_claims(statement.text)
        if len(texts) < 2:  # the statement is its own atom: the statement-level reading stands
            per = {url: [self._alone(statement.text, r)] for url, r in readings.items()}
            atom = AtomicClaim(
                statement.text,
                round(statement_score, 4),
                statement_score >= self.thresholds.claim,
                tuple(statement_features),
            )
            return (atom,), per
        documents: list[tuple[str, Document, str]] = [(url, r.document, "") for url, r in readings.items()]
        per_source: dict[str, list[float]] = {url: [] for url in readings}
        atoms = []
        for text in texts:
            found = read_sources(
                self.nli,
                hypothesis(text, statement.previous),
                documents,
                self.retrieval,
                self.judging,
                limit=self.judging.atom_windows,
                language=statement.language,
            )
            for url, reading in found.items():
                per_source[url].append(self._alone(text, reading))
            features = self.combiner.features(
                text,
                [r.joined_text for r in found.values()],
                [page_index(r.document) for r in found.values()],
                max(r.best_entailment for r in found.values()),
                statement.language,
            )
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

    # --- per citation ---------------------------------------------------------------------------

    def _citation_judgment(
        self,
        citation: Citation,
        claim: str,
        statement_text: str,
        source: SourceReading,
        meaning: Reading,
        atoms: Sequence[AtomicClaim],
        atom_support: dict[str, list[float]],
    ) -> CitationJudgment:
        score = self._alone(statement_text, source)
        support = atom_support.get(source.url, [])
        contradicted = self._contradicts(claim, statement_text, source, meaning, source.language)
        # With several facts, the model's reading is each fact's (statement level), not the whole's.
        unread = len(atoms) <= 1 and source.best_entailment < self.judging.entailment_floor
        verdict = decide(score, support, contradicted, self.thresholds, hedged=bool(meaning.hedged) or unread)
        if verdict.judgment == "no_support" and contradicted:
            evidence = contradicting_quote(source, self.judging)
        else:
            evidence = covering_quote(claim, source, self.judging)
        several = len(atoms) > 1 and len(support) == len(atoms)
        return CitationJudgment(
            citation=citation,
            judgment=verdict.judgment,
            score=round(banded(score, verdict.judgment, self.thresholds), 4),
            contradiction=round(source.contradiction, 4),
            irrelevant=False,
            evidence=evidence,
            entailment=round(source.best_entailment, 4),
            reading=source.first_reading,
            unsupported=tuple(atoms[i].text for i in verdict.unsupported)
            if several
            else ((statement_text,) if verdict.unsupported else ()),
        )


# --- records without a model reading -------------------------------------------------------------


def _marked(atoms: tuple[AtomicClaim, ...], verdict: Verdict) -> tuple[AtomicClaim, ...]:
    """Each atom's `supported` as the verdict has it, so the two never disagree."""
    return tuple(dataclasses.replace(a, supported=i not in verdict.unsupported) for i, a in enumerate(atoms))


def _distinct_by_url(citations: Sequence[Citation]) -> list[Citation]:
    seen: set[str] = set()
    kept = []
    for c in citations:
        if c.url not in seen:
            seen.add(c.url)
            kept.append(c)
    return kept


def _inaccessible(citation: Citation, sources: Mapping[str, SourceResult]) -> CitationJudgment:
    source = sources.get(citation.url)
    reason = (source.reason if source is not None else "") or "not fetched"
    return CitationJudgment(citation, "inaccessible", 0.0, 0.0, False, (), reason=reason)


def _without_evidence(
    statement: Statement, judgment: Judgment, per: tuple[CitationJudgment, ...]
) -> StatementJudgment:
    return StatementJudgment(statement, judgment, 0.0, False, per, (), (), 0)


def _unique(evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
    seen: set[tuple[str, int]] = set()
    kept = []
    for e in evidence:
        if (e.url, e.start) not in seen:
            seen.add((e.url, e.start))
            kept.append(e)
    return tuple(kept)
