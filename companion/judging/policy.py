"""The one decision: from what was read of a claim's sources to a support label and its reasons.

The judge (judge.py) reads: the model's entailment and contradiction on each source's windows, the
combiner's features (coverage, missing numbers and names), and what the language's rules found
(meaning.py). Everything here is a pure function of those readings and the model's thresholds,
and it is the same function at run time and in research/evaluation/calibrate.py, so the calibrated thresholds
describe the pipeline that runs.

The rules of the decision (the verifiability study's labels, FActScore's atomic claims; issue 58):
- a label follows the model's reading of each fact, never word overlap alone. A fact (an atomic
  claim; a statement of one fact is its own) is supported where the model reads it entailed:
  its most entailing reading at the model's `entailment_floor`, with that reading's contradiction
  under the model's `contradiction_ceiling` (the statement's own reading entailing counts for
  every fact of it), and its combined score at `claim` (coverage may add to the model's reading,
  never stand in for it); a statement of one fact needs the combined score at `complete`, and no
  rule that finds the source not asserting it (`hedge`);
- a fact is contradicted where a cited source says otherwise: the model's contradiction at
  `contradiction` on an on-topic window that still reads so with the page's other sentences about
  the claim's names; a rule's (`contradict`), or a rule's that needs the model's contradiction on
  the same window at `negated_contradiction`; or a sentence that restates the claim negated or
  with another value (`wording.says_otherwise`). A claim with a negation in it is contradicted by
  the cascade's fast model only where its reader reads the window so too (`WindowFacts.denied`);
- complete support: every fact supported, none contradicted. Partial support: at least one fact
  supported and at least one not (contradicted or not read as entailed). No support: no fact
  supported; flagged as contradicted where a source says otherwise. A statement of one fact is
  therefore complete, not supported or contradicted, never partial. A contradiction of a
  statement of several facts is laid on its facts the model does not read as supported, or, when
  it reads them all, on the least supported one;
- what green means (`confidence`, research/notes/green-rule.md): a complete reading is shown green
  ("high") where the model's most entailing reading of it reaches the model's `green` bar,
  fitted on calib citation data so that green is right nine times in ten, and no window of a
  cited source reads as its opposite at the model's `conflict` bar
  (`model.conflicting_reading`): a reader who trusts green must never be sent past a reading of
  the opposite. Every other complete reading is "low": "likely supported, check the quote".

Across languages (issue 39): a source in another language than its claim is scored on the
model's crossed scale (model.folder.Crossed: a combiner over its entailment alone, and its own
`complete`, `partial` and `claim` bars), since the lexical features find none of the claim's
words there. One score never joins sources of both scales: a statement whose sources lie on both
sides of the language line is decided on each side alone, its sources in the claim's language on
the claim's scale and the others on the crossed one, and takes the better verdict (`decide_sides`);
a contradiction or a reading of the opposite in any of its sources counts on both sides, since
those bars read the model's own probabilities, the same on every scale.

Every verdict names what decided it, as reason ids (docs/api.md, "Reasons"):
`model.entailment` (the model reads support), `model.no_entailment`, `model.contradiction`,
`model.conflicting_reading`, `wording.says_otherwise`, `score.below_complete`,
`claims.unsupported`, and `rule:<id>` for a rule of companion/languages/ (`meaning`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..model.folder import Thresholds
from ..records import Confidence, Entailment, Judgment
from .combiner import Combiner
from .rulebook import Rule

__all__ = [
    "AtomFacts",
    "ClaimFacts",
    "Decision",
    "Scale",
    "Side",
    "SourceFacts",
    "Unconfirmed",
    "Verdicts",
    "WindowFacts",
    "against",
    "atom_score",
    "banded",
    "confidence",
    "conflict_bar",
    "conflicting",
    "contradiction_bar",
    "decide",
    "decide_citation",
    "decide_sides",
    "decide_source",
    "decide_statement",
    "reads",
    "recheck_bar",
    "verdicts",
]


@dataclass(frozen=True, slots=True)
class WindowFacts:
    """One on-topic window of a source, as read for the claim."""

    contradiction: float  # the model's
    # The model's contradiction once the page's sentences giving the claim's missing names and
    # numbers are read with the window (reading.given_elsewhere); read only where `contradiction`
    # reached the contradiction or the conflict bar, otherwise equal to it. Both must reach a bar.
    confirmed: float
    rules: tuple[Rule, ...] = ()  # the contradiction rules that fire on it (meaning.window_findings)
    # Where a sentence restates the claim with another number: (the claim's, the source's), as
    # written; the verdict's reason names both.
    numbers: tuple[str, str] | None = None
    # The cascade's fast model read it and the reader did not: its readings are on the fast
    # model's scale, and are compared with the fast model's bars (contradiction_bar).
    fast: bool = False
    # For a claim that holds a negation, where the fast model reads this window at its
    # contradiction bar: the reader's contradiction (reading._denials), which must reach the
    # reader's bar too for the window to contradict; the fast model's reading still vetoes.
    denied: float | None = None


@dataclass(frozen=True, slots=True)
class Unconfirmed:
    """Sentences of a source flagged as saying the opposite of the claim by a reading that does not
    settle it (judge._read_otherwise): the cascade's fast model's, or a reading of a window of
    several sentences, which does not say which of them says so. Each is read alone before a card
    shows it as saying otherwise (judge._confirmed_otherwise)."""

    sentences: tuple[int, ...]
    fast: bool  # the fast model flagged them; else the deciding model, in one window together


@dataclass(frozen=True, slots=True)
class SourceFacts:
    """What was read of one source for one claim."""

    features: tuple[float, ...]  # combiner.FEATURES of the claim against this source alone
    reading: Entailment  # the model's reading of its most entailing text
    hedges: tuple[str, ...] = ()  # ids of the rules that find it not asserting the claim
    contradictions: tuple[str, ...] = ()  # ids of the rules that find it saying the opposite
    windows: tuple[WindowFacts, ...] = ()
    # The Document's sentences that the model (at the conflict bar) or a rule reads as saying the
    # opposite of the claim: never quoted as its support (evidence.covering_quote).
    says_otherwise: frozenset[int] = frozenset()
    # Those of them that restate the claim negated or with another value (meaning.says_opposite).
    worded_opposite: frozenset[int] = frozenset()
    # Those of `worded_opposite` that refute it outright (meaning.refutes): a contradiction.
    refuting: frozenset[int] = frozenset()
    # What it reads as support, or a sentence beside it, qualifies what it says
    # (meaning.qualified_near): never green.
    qualified: bool = False
    # Sentences that restate the claim as a myth, a belief or an allegation ("Many visitors assume
    # that it must be made of steel"): not what the source says, so never quoted as its support.
    framed: frozenset[int] = frozenset()
    # Those of `says_otherwise` flagged by a reading that does not settle it, reading by reading.
    unconfirmed: tuple[Unconfirmed, ...] = ()


@dataclass(frozen=True, slots=True)
class AtomFacts:
    """One atomic claim of a statement: read against all its sources together, and each alone."""

    text: str
    features: tuple[float, ...]
    reading: Entailment  # the model's most entailing reading, over its sources
    per_source: Mapping[str, tuple[float, ...]]  # url -> features against that source alone


@dataclass(frozen=True, slots=True)
class Side:
    """A statement read against the sources on one side of the language line alone."""

    features: tuple[float, ...]
    reading: Entailment


@dataclass(frozen=True, slots=True)
class ClaimFacts:
    """A statement as read against its readable sources: together, each alone, and fact by fact.
    A one-fact statement is its own single atom."""

    features: tuple[float, ...]  # against the sources read together
    reading: Entailment  # the model's most entailing, over each source and their joined top sentences
    sources: Mapping[str, SourceFacts]
    atoms: tuple[AtomFacts, ...]
    # The sources in another language than the claim (the judge leaves the rules off them).
    across: frozenset[str] = frozenset()
    # With sources on both sides of the language line: the statement against its sources in its
    # own language alone, and against the others alone (decide_sides); else None.
    sides: tuple[Side, Side] | None = None


@dataclass(frozen=True, slots=True)
class Scale:
    """A combiner and the bars read on its scores: the claim language's, or the crossed one."""

    combiner: Combiner
    thresholds: Thresholds

    def score(self, features: Sequence[float]) -> float:
        return self.combiner.score(features)


@dataclass(frozen=True, slots=True)
class Decision:
    """A support label, the atomic claims (by index) it leaves unsupported, the combined score
    and the reasons. Never contradicts itself: complete leaves nothing unsupported, partial some
    facts, no support every fact."""

    judgment: Judgment
    unsupported: tuple[int, ...]
    score: float
    reasons: tuple[str, ...]
    contradicted: bool = False  # some source contradicts it (the reasons say which and how)
    # A reason's particulars: "rule:en.another_number" -> {"claim": "2,000", "source": "4,500"}.
    details: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    reported: float = 0.0  # the score as reported beside the label (banded)
    # For complete support: "high" (green) or "low" ("likely supported: check the quote"); else None.
    confidence: Confidence | None = None


@dataclass(frozen=True, slots=True)
class Verdicts:
    """Every decision for one statement, made in one pass: the statement's, its facts' scores,
    each readable citation's, and why each of those also reads as the opposite (`conflicting`)."""

    statement: Decision
    atom_scores: tuple[float, ...]
    citations: Mapping[str, Decision]
    conflicting: Mapping[str, tuple[str, ...]]
    scale: Scale  # the one the statement's verdict and its facts' scores are on


def verdicts(facts: ClaimFacts, own: Scale, across: Scale | None = None) -> Verdicts:
    """The statement's verdict, its facts' scores, and each of its sources' (decide_sides,
    atom_score, decide_citation, conflicting), each source on its own scale: `own`, the claim
    language's, or `across` for those in another language than the claim, where the model has a
    crossed reading."""
    statement, scale, view = decide_sides(facts, own, across)

    def of(url: str) -> Scale:
        return across if across is not None and url in facts.across else own

    return Verdicts(
        statement,
        tuple(atom_score(a, scale) for a in view.atoms),
        {url: decide_citation(facts, url, of(url)) for url in facts.sources},
        {url: conflicting(source, own.thresholds) for url, source in facts.sources.items()},
        scale,
    )


_RANK = {"no_support": 0, "partial_support": 1, "complete_support": 2}


def decide_sides(facts: ClaimFacts, own: Scale, across: Scale | None) -> tuple[Decision, Scale, ClaimFacts]:
    """The statement's verdict, the scale it is on, and the facts it read (a side's, for a
    statement with sources on both sides of the language line).

    Without a crossed scale every source is read on the claim's, as before issue 39. With one, a
    statement whose sources are all in another language is read on it; one with sources on both
    sides is decided on each side alone and takes the better label (the claim's side on a tie):
    a score over both would add a crossed page's entailment to a same-language page's coverage,
    on a scale fitted to neither. Each side's hedges are its own sources' rules; contradictions
    and readings of the opposite come from every source (`beside`)."""
    if across is None or not facts.across:
        return decide_statement(facts, own), own, facts
    if set(facts.sources) <= facts.across:
        return decide_statement(facts, across), across, facts
    if facts.sides is None:
        raise ValueError("a statement with sources on both sides of the language line needs each side read")
    decided = []
    for side, scale, theirs in ((facts.sides[0], own, False), (facts.sides[1], across, True)):
        urls = frozenset(url for url in facts.sources if (url in facts.across) == theirs)
        view = _side(facts, side, urls)
        beside = [s for url, s in facts.sources.items() if url not in urls]
        decided.append((decide_statement(view, scale, beside), scale, view))
    return max(decided, key=lambda d: _RANK[d[0].judgment])


def _side(facts: ClaimFacts, side: Side, urls: frozenset[str]) -> ClaimFacts:
    """The statement's facts against the sources `urls` alone. Its facts' readings stay those
    over every source: they only meet the model's own floor (`reads`), the same on every scale."""
    return ClaimFacts(
        side.features,
        side.reading,
        {url: s for url, s in facts.sources.items() if url in urls},
        tuple(
            dataclasses.replace(a, per_source={url: f for url, f in a.per_source.items() if url in urls})
            for a in facts.atoms
        ),
    )


def against(source: SourceFacts, t: Thresholds) -> tuple[str, ...]:
    """The reasons this source contradicts the claim; empty where it does not."""
    found = [f"rule:{r}" for r in source.contradictions]
    for window in source.windows:
        if min(window.contradiction, window.confirmed) >= contradiction_bar(t, window.fast) and (
            window.denied is None or window.denied >= t.contradiction
        ):
            found.append("model.contradiction")
        for rule in window.rules:
            if rule.effect == "contradict" or (
                rule.effect == "contradict_with_model" and window.contradiction >= t.negated_contradiction
            ):
                found.append(f"rule:{rule.id}")
    if source.refuting:  # last: a rule of the language's file names the same sentence more exactly
        found.append("wording.says_otherwise")
    return tuple(dict.fromkeys(found))


def conflicting(source: SourceFacts, t: Thresholds) -> tuple[str, ...]:
    """Why this source also reads as the opposite of the claim, short of contradicting it: an
    on-topic window the model reads so at the conflict bar (with the page's other sentences about
    the claim's names, as for a contradiction), or a sentence that negates part of its words
    (meaning.refutes); empty where neither. It keeps a complete reading from green
    (`confidence`)."""
    found = []
    if any(min(w.contradiction, w.confirmed) >= conflict_bar(t, w.fast) for w in source.windows):
        found.append("model.conflicting_reading")
    if source.worded_opposite - source.refuting:
        found.append("wording.says_otherwise")
    if source.qualified:
        found.append("wording.qualified")
    return tuple(found)


def contradiction_bar(t: Thresholds, fast: bool = False) -> float:
    """The contradiction bar on the scale of the model that read a window: the cascade's fast
    model's (`fast`, where it has its own) or the one the thresholds were fitted through."""
    return t.fast_contradiction if fast and t.fast_contradiction is not None else t.contradiction


def conflict_bar(t: Thresholds, fast: bool = False) -> float:
    """The conflict bar on the scale of the model that read a window (contradiction_bar)."""
    return t.fast_conflict if fast and t.fast_conflict is not None else t.conflict


def recheck_bar(t: Thresholds, fast: bool = False) -> float:
    """Where a window's contradiction is read again with the page's other sentences about the
    claim (reading.given_elsewhere): the lower of its model's contradiction and conflict bars."""
    return min(contradiction_bar(t, fast), conflict_bar(t, fast))


def details(sources: Sequence[SourceFacts]) -> dict[str, dict[str, str]]:
    """The particulars of the reasons these sources give: the two numbers that disagree."""
    for source in sources:
        for window in source.windows:
            for rule in window.rules:
                if window.numbers and rule.family == "another_number":
                    claim, said = window.numbers
                    return {f"rule:{rule.id}": {"claim": claim, "source": said}}
    return {}


def decide(
    score: float,
    facts: Sequence[tuple[float, bool]],
    contradicted: Sequence[str],
    hedged: Sequence[str],
    t: Thresholds,
) -> tuple[Judgment, tuple[int, ...], tuple[str, ...]]:
    """The label, the unsupported facts and the reasons, from the combined score, each fact's
    (score, whether the model reads it entailed), the contradiction reasons and the reasons the
    source does not assert the statement (`hedged`: rules, or the model not reading entailment).

    One fact (or none): complete at `complete` with the model reading it and nothing hedged or
    contradicting, else no support. Several: each fact is supported where the model reads it and
    its score reaches `claim`; a contradiction is laid on the facts not supported, or on the
    least supported one (module docstring)."""
    contra, hedges = tuple(contradicted), tuple(hedged)
    if facts and not any(read for _, read in facts) and "model.no_entailment" not in hedges:
        hedges += ("model.no_entailment",)
    if len(facts) <= 1:
        entailed = all(read for _, read in facts)
        if not contra and not hedges and entailed and score >= t.complete:
            return "complete_support", (), ("model.entailment",)
        short = () if score >= t.complete else ("score.below_complete",)
        return "no_support", (0,), contra + hedges + short
    every = tuple(range(len(facts)))
    unsupported = [i for i, (s, read) in enumerate(facts) if not read or s < t.claim]
    least = min(every, key=lambda i: (facts[i][0], i))
    if not unsupported and (contra or hedges or score < t.complete):
        # Every fact reads supported alone, yet the statement is not: name its weakest fact.
        unsupported = [least]
        short = () if score >= t.complete or contra else ("score.below_complete",)
        return "partial_support", (least,), contra + hedges + short
    if not unsupported:
        return "complete_support", (), ("model.entailment",)
    if len(unsupported) < len(facts):
        return "partial_support", tuple(unsupported), ("claims.unsupported",) + contra + hedges
    return "no_support", every, ("claims.unsupported",) + contra + hedges


def confidence(
    decision: Judgment, reading: Entailment, conflicts: Sequence[str], t: Thresholds
) -> Confidence | None:
    """How far a complete reading may be trusted (research/notes/green-rule.md): "high" where the
    model's most entailing reading reaches its `green` bar, with no reading of the opposite, else
    "low"; None for other labels. On the model's entailment, not the combined score: on calib
    citation data the combined score (mostly word coverage) never reached nine right in ten."""
    if decision != "complete_support":
        return None
    return "high" if t.green is not None and reading.entailment >= t.green and not conflicts else "low"


def decide_statement(facts: ClaimFacts, scale: Scale, beside: Sequence[SourceFacts] = ()) -> Decision:
    """The statement's verdict against all its sources: contradicted when any source
    contradicts it; hedged only where no source asserts it, or the model reads no entailment.
    `beside`: the statement's sources on the other side of the language line (decide_sides),
    whose contradictions and readings of the opposite count here too, not their scores or hedges."""
    every = [*facts.sources.values(), *beside]
    t = scale.thresholds
    score = scale.score(facts.features)
    whole = reads(facts.reading, t)
    several = len(facts.atoms) > 1
    scored = [
        (atom_score(a, scale) if several else score, whole or (several and reads(a.reading, t)))
        for a in facts.atoms
    ]
    contra = tuple(dict.fromkeys(r for s in every for r in against(s, t)))
    hedges: tuple[str, ...] = ()
    if not any(not s.hedges and not s.contradictions for s in facts.sources.values()):
        # A source that says the opposite is among `contra` already.
        hedges = tuple(dict.fromkeys(f"rule:{r}" for s in facts.sources.values() for r in s.hedges))
    if not whole and not (several and all(read for _, read in scored)):
        hedges += ("model.no_entailment",)
    conflicts = tuple(dict.fromkeys(r for s in every for r in conflicting(s, t)))
    judgment, unsupported, reasons = decide(score, scored, contra, hedges, t)
    return Decision(
        judgment,
        unsupported,
        score,
        reasons + tuple(r for r in conflicts if r not in reasons and judgment == "complete_support"),
        bool(contra),
        details(every),
        banded(score, judgment, t),
        confidence(judgment, facts.reading, conflicts, t),
    )


def decide_citation(facts: ClaimFacts, url: str, scale: Scale) -> Decision:
    """One citation's verdict: the statement against this source alone, fact by fact. A fact's
    reading in this source is its features' first, the model's best entailment there (FEATURES)."""
    source, t = facts.sources[url], scale.thresholds
    whole = reads(source.reading, t)
    scored = [
        (scale.score(a.per_source[url]), whole or _sigmoid(a.per_source[url][0]) >= t.entailment_floor)
        for a in facts.atoms
        if url in a.per_source
    ]
    if len(scored) <= 1:
        scored = [(scale.score(source.features), whole)]
    return _decide_one(source, scored, scale)


def decide_source(source: SourceFacts, scale: Scale) -> Decision:
    """A source's verdict for the statement as a whole (found elsewhere reads no atoms)."""
    return _decide_one(
        source, [(scale.score(source.features), reads(source.reading, scale.thresholds))], scale
    )


def _decide_one(source: SourceFacts, facts: Sequence[tuple[float, bool]], scale: Scale) -> Decision:
    t = scale.thresholds
    score = scale.score(source.features)
    hedges = tuple(f"rule:{r}" for r in source.hedges)
    if not any(read for _, read in facts):
        hedges += ("model.no_entailment",)
    contra = against(source, t)
    conflicts = conflicting(source, t)
    judgment, unsupported, reasons = decide(score, facts, contra, hedges, t)
    return Decision(
        judgment,
        unsupported,
        score,
        reasons + tuple(r for r in conflicts if r not in reasons and judgment == "complete_support"),
        bool(contra),
        details([source]),
        banded(score, judgment, t),
        confidence(judgment, source.reading, conflicts, t),
    )


def _sigmoid(logit: float) -> float:
    return 1 / (1 + math.exp(-logit))


def atom_score(atom: AtomFacts, scale: Scale) -> float:
    """An atom's score: its best against any one source (the atoms are judged source by source)."""
    return max((scale.score(f) for f in atom.per_source.values()), default=0.0)


def reads(reading: Entailment, t: Thresholds) -> bool:
    """Whether the model reads entailment in its most entailing reading: at the model's floor,
    with that reading's contradiction under the model's ceiling (both fitted as the policy runs,
    research/evaluation/calibrate.py). "Yeah it's a U.S. territory" against "We own the land, but it's not a
    U.S. territory" read 0.07 entailment: over a floor of 0.05, and word coverage did the rest."""
    return reading.entailment >= t.entailment_floor and reading.contradiction < t.contradiction_ceiling


def banded(score: float, judgment: Judgment, thresholds: Thresholds) -> float:
    """The score as reported beside its label: a statement judged no support never shows a score
    in the support band.

    A contradiction, or facts that all fail, make a statement no support whatever its combined
    score; shown as, say, 0.92 beside "no support, contradicted", it would also rank above true
    support wherever scores are read (an AUC, a reader sorting an audit card). Partial support
    keeps its score: a high one there means one fact of several is missing, which is worth
    ranking high (capping it too cost 1.7 points of held WiCE AUC; capping no support alone
    gained 0.4). So the reported `score` is not the calibrated probability for no support: the
    API reports that beside it as `probability` (docs/api.md), which config.json's Brier and ECE
    describe."""
    if judgment != "no_support" or score < thresholds.partial:
        return score
    return thresholds.partial - 1e-4
