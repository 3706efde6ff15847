"""Judges one statement against the pages its citations point to.

The method (docs/method.md), each step in its own module, in the order the data flows; each
reads what the steps before it made and never asks them again (issue 38):
- the claim (claim.py): the statement and its atomic claims analysed once, in context (the
  verifiability study reads a statement with the question and the answer so far, so "It was
  built in 1889" is checked as "The tower was built in 1889") and as written;
- reading (reading.py): retrieval picks each source's best windows, the NLI model scores them,
  for the statement and its atoms in one backend call, then rechecks what contradicts;
- what a small NLI model misses (relation.py, meaning.py, rules as data per language): a source
  that reports the claim as a myth or an allegation, is narrower than it, says the opposite
  direction, or negates it; the claim's relation to every sentence a rule reads is computed
  first, into one table (relation.Relations), which the rules read without asking again;
- the score (combiner.py): a calibrated combination of the model's best entailment and lexical
  features, for the statement, each source alone and each atomic claim (FActScore); a source in
  another language than the claim is scored on the model's crossed scale instead, its entailment
  alone, and no rule reads it (issue 39: the rules and the lexical features compare the claim's
  words with the page's, and across languages they share none);
- the label and its reasons (policy.py): complete / partial / no support (verifiability study),
  from those readings alone, as `read` and `conclude` split it: research/evaluation/calibrate.py fits the
  thresholds on `read`'s output through the same policy;
- the quote shown to the reader (evidence.py), and ALCE's recall and precision (alce.py, which
  reads whether some of the citations alone support the statement);
- found elsewhere (`Judge.elsewhere`): support in a page of the answer the statement does not
  cite, recorded apart from its own verdict.

Which text feeds what: the model, the on-topic test and the quote read the claim in context
(`Claim.read`); the rules and the lexical features read the statement as written
(`Claim.written`), since the context's words are not the statement's to be supported.
No I/O: sources arrive as Documents, the model behind the NLIBackend protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..config import Judging, Retrieval
from ..errors import ModelUnavailable
from ..model.folder import ModelConfig
from ..records import (
    AtomicClaim,
    Citation,
    CitationJudgment,
    Document,
    Entailment,
    Evidence,
    FoundElsewhere,
    Judgment,
    SourceResult,
    Statement,
    StatementJudgment,
    Window,
    Words,
)
from ..text.language import UNDETERMINED
from ..typedefs import NLIBackend
from .alce import PrecisionTest, irrelevant, supported_by
from .claim import Claim, StatementClaims, analyse_statement
from .combiner import Combiner, crossed_combiner
from .evidence import contradicting_quote, covering_quote, quote
from .meaning import SourceFindings, SupportFindings, source_findings
from .policy import (
    AtomFacts,
    ClaimFacts,
    Scale,
    Side,
    SourceFacts,
    Unconfirmed,
    Verdicts,
    WindowFacts,
    decide_source,
    recheck_bar,
    verdicts,
)
from .reading import (
    CascadeReader,
    SourceWindows,
    StatementWindows,
    best_window_entailment,
    read_jointly,
    read_sources,
    read_statement,
)
from .relation import Relations, relate_sources
from .rulebook import Rule, RuleBook, rule_book

__all__ = ["Judge", "StatementFindings"]


@dataclass(frozen=True, slots=True)
class StatementFindings:
    """What the model and the rules read of a statement's cited sources, before any threshold:
    the policy (policy.py) turns it into verdicts, at run time and in research/evaluation/calibrate.py."""

    claims: StatementClaims  # the statement's claim and atomic claims, analysed once
    sources: Mapping[str, SourceWindows]  # the windows the model scored in each cited source
    facts: ClaimFacts
    # Per atomic claim, its sources as read for it (none for a statement of one fact): its quotes.
    atom_sources: tuple[Mapping[str, SourceWindows], ...] = ()


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
        rules: Callable[[str], RuleBook] = rule_book,
        reader: NLIBackend | None = None,
    ):
        """`rules` gives a language's rules (meaning.rule_book); research/evaluation/evaluate.py passes books
        with a rule left out to measure what it is worth. `reader` is the cascade's reader that
        the model's config names (model.infer.load_reader): its thresholds were fitted through
        it, so a judge without it would decide on the wrong scale."""
        if (model.cascade is None) != (reader is None):
            raise ModelUnavailable(
                f"{model.name}: "
                + (
                    f"its cascade reader {model.cascade.reader.name} is not loaded"
                    if model.cascade
                    else "no cascade to read with"
                )
            )
        self.nli = nli
        self.model = model
        self.thresholds = model.thresholds
        # Where a window's contradiction is read again with its page, on each model's scale:
        # worked out once for every statement this judge reads.
        self.recheck_at = recheck_bar(self.thresholds)
        self.fast_recheck_at = recheck_bar(self.thresholds, fast=True)
        c = model.cascade
        self.cascade = (
            CascadeReader(
                reader,
                c.windows,
                c.contradiction,
                c.against,
                c.gate,
                self.fast_recheck_at,
                self.thresholds.fast_contradiction,
            )
            if c and reader
            else None
        )
        self.retrieval = retrieval or Retrieval()
        self.judging = judging or Judging()
        self.rules = rules
        self.combiner = Combiner(model, self.retrieval, self.judging, strict=strict)
        crossed = crossed_combiner(model, self.retrieval, self.judging, strict=strict)
        # The scale of sources in another language than their claim (policy.decide_sides).
        self.across = Scale(crossed, model.crossed.thresholds) if crossed and model.crossed else None
        # The claim languages' own scales (model.folder.ModelConfig.thresholds_for), made once.
        self.scales = {language: Scale(self.combiner, t) for language, t in model.by_language}
        self.scale = Scale(self.combiner, self.thresholds)

    def judge(self, statement: Statement, sources: Mapping[str, SourceResult]) -> StatementJudgment:
        citations = _distinct_by_url(statement.citations)
        if not citations:
            return _without_evidence(statement, "no_citation", ())
        read = self.read(statement, sources)
        if read is None:
            unread = tuple(_inaccessible(c, sources) for c in citations)
            return _without_evidence(statement, "inaccessible", unread)
        return self.conclude(statement, read, sources)

    def read(self, statement: Statement, sources: Mapping[str, SourceResult]) -> StatementFindings | None:
        """What the statement's readable cited sources say of it; None when none could be read."""
        readable = [
            (c, s.document)
            for c in _distinct_by_url(statement.citations)
            if (s := sources.get(c.url)) and s.document
        ]
        if not readable:
            return None
        claims = analyse_statement(statement, self.rules(statement.language))
        read = read_statement(
            self.nli,
            claims,
            [(c.url, d, c.hint) for c, d in readable],
            self.retrieval,
            self.judging,
            self.recheck_at,
            self.cascade,
        )
        across = frozenset(
            url for url, r in read.sources.items() if _across(claims.language.code, r.document)
        )
        # The rules read the statement as written, each sentence they read related to it once.
        relations = relate_sources(
            claims.claim,
            claims.rules,
            claims.language.lexicon,
            [r for url, r in read.sources.items() if url not in across],
        )
        per_source = {
            url: self._source_facts(claims.claim, relations, r, url in across)
            for url, r in read.sources.items()
        }
        features, best = self._features_together(claims.claim, list(read.sources.values()), read.joint)
        atoms = self._atoms(claims, read, features, best, per_source)
        sides = self._language_sides(claims.claim, read.sources, across)
        facts = ClaimFacts(tuple(features), best, per_source, atoms, across, sides)
        return StatementFindings(claims, read.sources, facts, read.atoms)

    def conclude(
        self, statement: Statement, read: StatementFindings, sources: Mapping[str, SourceResult]
    ) -> StatementJudgment:
        """The verdicts (policy.py) of a reading, with their quotes and ALCE precision."""
        facts = read.facts
        decided = verdicts(facts, self._own_scale(read.claims.language.code), self.across)
        t = decided.scale.thresholds
        verdict = decided.statement
        complete = verdict.judgment == "complete_support"
        several = len(facts.atoms) > 1
        atoms: tuple[AtomicClaim, ...] = ()
        if several or verdict.score < t.complete:
            atoms = tuple(
                AtomicClaim(
                    a.text,
                    round(decided.atom_scores[i] if several else verdict.score, 4),
                    i not in verdict.unsupported,
                    tuple(round(f, 4) for f in a.features),
                )
                for i, a in enumerate(facts.atoms)
            )
        per_citation = tuple(
            self._citation_judgment(c, read, decided) if c.url in read.sources else _inaccessible(c, sources)
            for c in _distinct_by_url(statement.citations)
        )
        test = PrecisionTest(
            read.claims.claim,
            read.sources,
            read.facts.across,
            self._own_scale(read.claims.language.code),
            self.across,
            self.combiner,
            self._joint_reader,
        )
        unneeded = irrelevant(per_citation, complete, lambda urls: supported_by(test, urls))
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
            score=round(verdict.reported, 4),
            probability=round(verdict.score, 4),
            contradicted=verdict.contradicted and not complete,
            per_citation=per_citation,
            evidence=evidence,
            claims=atoms,
            recall=int(complete),
            features=tuple(round(f, 4) for f in facts.features),
            reasons=verdict.reasons,
            says_otherwise=_unique(e for cj in per_citation for e in cj.says_otherwise),
            reason_details=verdict.details,
            confidence=verdict.confidence,
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
        claims = analyse_statement(statement, self.rules(statement.language))
        others = [
            (url, source.document, "")
            for url, source in sources.items()
            if url not in own and source.document is not None
        ]
        # The model reads the whole page only where its best window alone reads as support: a
        # page whose best window does not rarely has the support elsewhere (issue 38).
        first = best_window_entailment(
            self.nli, claims.claim.read, others, self.retrieval, self.judging, claims.language
        )
        promising = [
            (url, document, "")
            for url, document, _ in others
            if first.get(url, 0.0) >= self.thresholds.elsewhere_entailment
        ]
        if not promising:
            return result
        readings = read_sources(
            self.nli,
            claims.claim.read,
            promising,
            self.retrieval,
            self.judging,
            language=claims.language,
            recheck_at=self.recheck_at,
            reread=self.cascade,
        )
        found = []
        kept = {
            url: reading
            for url, reading in readings.items()
            if reading.best_entailment >= self.thresholds.elsewhere_entailment
        }
        relations = relate_sources(
            claims.claim,
            claims.rules,
            claims.language.lexicon,
            [r for r in kept.values() if not _across(claims.language.code, r.document)],
        )
        for url, reading in kept.items():
            crossed = _across(claims.language.code, reading.document)
            facts = self._source_facts(claims.claim, relations, reading, crossed)
            scale = self.across if crossed and self.across else self._own_scale(claims.language.code)
            verdict = decide_source(facts, scale)
            if verdict.judgment in ("complete_support", "partial_support"):
                evidence = covering_quote(
                    [(claims.claim.read, [reading])],
                    self.judging,
                    scale.thresholds.entailment_floor,
                    _unquotable(facts),
                )
                score = round(verdict.reported, 4)
                found.append(FoundElsewhere(url, cited_by.get(url), verdict.judgment, score, evidence))
        found.sort(key=lambda f: (f.judgment != "complete_support", -f.score, f.url))
        return dataclasses.replace(result, found_elsewhere=tuple(found))

    # --- readings -------------------------------------------------------------------------------

    def _source_facts(
        self, claim: Claim, relations: Relations, reading: SourceWindows, crossed: bool = False
    ) -> SourceFacts:
        """One source read for the statement: its features alone, what the rules find in its
        most entailing text and in each on-topic window, with each window's contradiction as
        rechecked with the page's sentences giving the claim's names and numbers the window lacks
        (reading.given_elsewhere): a window refutes what the page says, not what the page says in
        another sentence. On a page in another language than the claim (`crossed`) no rule runs:
        each compares the claim's words, cue words or numbers as written with the page's, in
        the claim's language, and across languages a match or a miss means nothing."""
        if crossed:
            none: tuple[tuple[tuple[Rule, ...], tuple[str, str] | None], ...] = tuple(
                ((), None) for t in reading.on_topic if t
            )
            found = SourceFindings(SupportFindings(), none, frozenset())
        else:
            found = source_findings(relations, reading)
        denied = reading.denied or (None,) * len(reading.windows)
        windows = tuple(
            WindowFacts(score.contradiction, confirmed, rules, swapped, fast, by_reader)
            for score, confirmed, fast, by_reader, (rules, swapped) in zip(
                (s for s, t in zip(reading.window_scores, reading.on_topic) if t),
                (c for c, t in zip(reading.confirmed, reading.on_topic) if t),
                (f for f, t in zip(reading.fast, reading.on_topic) if t),
                (d for d, t in zip(denied, reading.on_topic) if t),
                found.windows,
                strict=True,
            )
        ) + tuple(WindowFacts(o.score.contradiction, o.confirmed) for o in reading.opposed)
        otherwise, unconfirmed = self._read_otherwise(reading)
        return SourceFacts(
            tuple(self._features(claim, [reading], reading.best_entailment)),
            reading.best_reading,
            found.support.hedges,
            found.support.contradictions,
            windows,
            otherwise | found.worded_opposite,
            found.worded_opposite,
            found.refuting,
            found.qualified,
            framed=found.framed,
            unconfirmed=unconfirmed,
        )

    def _read_otherwise(self, reading: SourceWindows) -> tuple[frozenset[int], tuple[Unconfirmed, ...]]:
        """The sentences the model reads as the opposite of the claim: each sentence read by the
        shortest on-topic window that holds it (a one-sentence window is that sentence's own
        reading), at the conflict bar or the contradiction bar, whichever is lower, of the model
        that read that window; the cascade's reader's added readings (`opposed`) at the reader's
        bar too. Those the wording does are meaning.py's (`worded_opposite`). With them, those
        flagged by a reading that does not settle it, reading by reading (Unconfirmed)."""
        shortest: dict[int, tuple[int, float, float, Window, bool]] = {}
        for window, score, on_topic, fast in zip(
            reading.windows, reading.window_scores, reading.on_topic, reading.fast
        ):
            if not on_topic:
                continue
            size = window.last - window.first
            bar = self.fast_recheck_at if fast else self.recheck_at
            for i in range(window.first, window.last + 1):
                known = shortest.get(i)
                if known is None or (size, -score.contradiction) < (known[0], -known[1]):
                    shortest[i] = (size, score.contradiction, bar, window, fast)
        flagged = {i: (w, fast) for i, (_, c, bar, w, fast) in shortest.items() if c >= bar}
        for o in reading.opposed:
            window = reading.windows[o.window]
            if o.score.contradiction >= self.recheck_at:
                size = window.last - window.first
                for i in range(window.first, window.last + 1):
                    if shortest[i][0] >= size:
                        flagged.setdefault(i, (window, False))
        unsettled: dict[tuple[Window, bool], list[int]] = {}
        for i, (window, fast) in sorted(flagged.items()):
            if fast or window.last > window.first:
                unsettled.setdefault((window, fast), []).append(i)
        return frozenset(flagged), tuple(Unconfirmed(tuple(s), fast) for (_, fast), s in unsettled.items())

    def _confirmed_otherwise(self, claim: Words, source: SourceWindows, facts: SourceFacts) -> SourceFacts:
        """`facts` with only the sentences the deciding model reads as the opposite alone left
        saying otherwise, for the card's quotes (docs/rules.md, "What says otherwise, sentence by
        sentence"). On the myth page the fast model reads "It is made of puddled iron …" as the
        opposite of "The tower is made of puddled iron, not steel." (0.87; the reader: 0.15): that
        sentence, which supports the claim, must be neither shown as saying otherwise nor kept
        from being its quote. Where the deciding model read a window of several sentences as the
        opposite and reads none of them so alone, the opposite is in their combination and they
        all stay. No verdict reads these sentences."""
        if not facts.unconfirmed:
            return facts
        todo = sorted({i for u in facts.unconfirmed for i in u.sentences})
        scores = self._joint_reader.score([(source.document.sentences[i].text, claim.text) for i in todo])
        alone = {i: score.contradiction for i, score in zip(todo, scores, strict=True)}
        cleared: set[int] = set()
        for unconfirmed in facts.unconfirmed:
            said = [i for i in unconfirmed.sentences if alone[i] >= self.recheck_at]
            if said or unconfirmed.fast:
                cleared.update(i for i in unconfirmed.sentences if i not in said)
        kept = facts.says_otherwise - (cleared - facts.worded_opposite)
        return dataclasses.replace(facts, says_otherwise=kept, unconfirmed=())

    def _features_together(
        self, claim: Claim, readings: Sequence[SourceWindows], joint: Entailment | None
    ) -> tuple[list[float], Entailment]:
        """The features of the claim as written against these sources read together, and the
        model's most entailing reading over them: ALCE reads several citations' evidence joined,
        so with more than one source the model also read their top sentences side by side
        (`joint`; alce.py reads a subset of them so)."""
        best = max((r.best_reading for r in readings), key=lambda s: s.entailment)
        if joint is not None:
            best = max(best, joint, key=lambda s: s.entailment)
        return self._features(claim, readings, best.entailment), best

    def _language_sides(
        self, claim: Claim, readings: Mapping[str, SourceWindows], across: frozenset[str]
    ) -> tuple[Side, Side] | None:
        """A statement with sources on both sides of the language line, read against each side
        alone (policy.decide_sides), where the model has a crossed scale to read them on."""
        if not across or len(across) == len(readings) or self.across is None:
            return None
        sides = []
        for theirs in (False, True):
            side = [r for url, r in readings.items() if (url in across) == theirs]
            joint = read_jointly(self._joint_reader, claim.read, side) if len(side) > 1 else None
            features, best = self._features_together(claim, side, joint)
            sides.append(Side(tuple(features), best))
        return sides[0], sides[1]

    def _own_scale(self, language: str) -> Scale:
        """The scale of sources in the claim's own language."""
        return self.scales.get(language, self.scale)

    @property
    def _joint_reader(self) -> NLIBackend:
        """Whoever reads the statement's joint text: one scale for every joint reading."""
        return self.cascade.reader if self.cascade else self.nli

    def _features(self, claim: Claim, readings: Sequence[SourceWindows], best: float) -> list[float]:
        """combiner.FEATURES of a claim as written against these sources, from what was read."""
        return self.combiner.features(
            claim.written, [r.joined_words for r in readings], [r.page for r in readings], best
        )

    # --- atomic claims (FActScore) --------------------------------------------------------------

    def _atoms(
        self,
        claims: StatementClaims,
        read: StatementWindows,
        features: Sequence[float],
        best: Entailment,
        per_source: Mapping[str, SourceFacts],
    ) -> tuple[AtomFacts, ...]:
        """Each atomic claim read like a statement of its own, per source and overall.

        An atom gets the same calibrated combination of model and lexical evidence as a whole
        statement: the model alone is too lenient on short claims whose key words the page lacks.
        A one-fact statement is its own atom, read already."""
        if not claims.atoms:
            return (
                AtomFacts(
                    claims.claim.text,
                    tuple(features),
                    best,
                    {url: s.features for url, s in per_source.items()},
                ),
            )
        atoms = []
        for atom, found in zip(claims.atoms, read.atoms, strict=True):
            atom_best = max((r.best_reading for r in found.values()), key=lambda s: s.entailment)
            joint = self._features(atom, list(found.values()), atom_best.entailment)
            alone = {url: tuple(self._features(atom, [r], r.best_entailment)) for url, r in found.items()}
            atoms.append(AtomFacts(atom.text, tuple(joint), atom_best, alone))
        return tuple(atoms)

    # --- per citation ---------------------------------------------------------------------------

    def _citation_judgment(
        self, citation: Citation, read: StatementFindings, decided: Verdicts
    ) -> CitationJudgment:
        """One citation's verdict (decided already) with its quotes."""
        source = read.sources[citation.url]
        facts = read.facts.sources[citation.url]
        verdict = decided.citations[citation.url]
        opposite: tuple[Evidence, ...] = ()
        contradicted = verdict.judgment == "no_support" and verdict.contradicted
        if decided.conflicting[citation.url] or (contradicted and not facts.worded_opposite):
            facts = self._confirmed_otherwise(read.claims.claim.read, source, facts)
        evidence: tuple[Evidence, ...] = ()
        if contradicted:
            evidence = self._opposite_quote(read.claims.claim.read, source, facts)
        elif verdict.judgment != "no_support":
            # Only what the model reads as saying the statement, or each of its facts this source
            # supports (evidence.py): never a quote for a fact it leaves unsupported.
            atoms = read.claims.atoms
            supported = [
                (atoms[i].read, [readings[citation.url], source])
                for i, readings in enumerate(read.atom_sources)
                if i not in verdict.unsupported and citation.url in readings
            ]
            floor = decided.scale.thresholds.entailment_floor
            quoted = supported or [(read.claims.claim.read, [source])]
            never = _unquotable(facts)
            evidence = covering_quote(quoted, self.judging, floor, never, self._joint_reader)
            if decided.conflicting[citation.url] or verdict.contradicted:
                shown = {e.sentence_index for e in evidence}
                opposite = tuple(
                    e
                    for e in self._opposite_quote(
                        read.claims.claim.read, source, facts, contradicted=verdict.contradicted
                    )
                    if e.sentence_index not in shown
                )
        return CitationJudgment(
            citation=citation,
            judgment=verdict.judgment,
            score=round(verdict.reported, 4),
            probability=round(verdict.score, 4),
            contradiction=round(source.contradiction, 4),
            irrelevant=False,
            evidence=evidence,
            entailment=round(source.best_entailment, 4),
            reading=source.first_reading,
            unsupported=tuple(read.facts.atoms[i].text for i in verdict.unsupported),
            reasons=verdict.reasons,
            says_otherwise=opposite,
            reason_details=verdict.details,
            confidence=verdict.confidence,
        )

    def _opposite_quote(
        self, claim: Words, source: SourceWindows, facts: SourceFacts, *, contradicted: bool = True
    ) -> tuple[Evidence, ...]:
        """What says the opposite: the sentences that restate the claim negated or with another
        value, in its own words, where there are any; else the one or two the deciding model reads
        most as the opposite, each alone, at its contradiction bar for a contradicted claim and at
        its conflict bar beside support: a card names the sentence that says otherwise, not every
        sentence of a page the fast model flagged ("Opening hours" for "The tower is not open to
        the public"); else, for a contradicted claim, the window the model reads so."""
        document = source.document
        if facts.worded_opposite:
            chosen = sorted(facts.worded_opposite)[: self.judging.evidence_sentences]
            return tuple(quote(document, i, source.url, self.judging) for i in chosen)
        if facts.says_otherwise:
            flagged = sorted(facts.says_otherwise)
            scores = self._joint_reader.score([(document.sentences[i].text, claim.text) for i in flagged])
            # A heading ("Opening hours") is no sentence to show as saying otherwise.
            ranked = sorted(
                zip(flagged, scores, strict=True),
                key=lambda fs: (len(source.sentences[fs[0]].terms) < 3, -fs[1].contradiction),
            )
            bar = self.thresholds.contradiction if contradicted else self.recheck_at
            kept = [
                i for i, score in ranked if score.contradiction >= bar and len(source.sentences[i].terms) >= 3
            ][:2]
            if kept or not contradicted:
                return tuple(quote(document, i, source.url, self.judging) for i in sorted(kept))
        return contradicting_quote(source, self.judging) if contradicted else ()


# --- records without a model reading -------------------------------------------------------------


def _across(claim: str, page: Document) -> bool:
    """Whether a page is in another language than its claim; an undetermined one is neither."""
    return UNDETERMINED not in (claim, page.language) and page.language != claim


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


def _unquotable(facts: SourceFacts) -> frozenset[int]:
    """The sentences never shown as support (evidence.covering_quote)."""
    return facts.says_otherwise | facts.framed


def _unique(evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
    seen: set[tuple[str, int]] = set()
    kept = []
    for e in evidence:
        if (e.url, e.start) not in seen:
            seen.add((e.url, e.start))
            kept.append(e)
    return tuple(kept)
