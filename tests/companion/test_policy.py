"""The one decision (policy.py) as tables: labels, the facts it names and the reasons it gives,
from readings alone, without a model."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.config import Judging, Retrieval
from companion.judging.combiner import Combiner
from companion.judging.policy import (
    AtomFacts,
    ClaimFacts,
    SourceFacts,
    WindowFacts,
    against,
    decide,
    decide_citation,
    decide_statement,
    recheck_bar,
)
from companion.judging.rulebook import Rule
from companion.model.folder import Thresholds
from companion.records import Entailment

from .fakes import fake_model

T = Thresholds(
    complete=0.5,
    partial=0.25,
    claim=0.5,
    contradiction=0.9,
    entailment_floor=0.3,
    negated_contradiction=0.7,
)
CONTRA = ("model.contradiction",)
HEDGE = ("rule:en.framed",)


@pytest.mark.parametrize(
    ("score", "atoms", "contradicted", "judgment", "unsupported"),
    [
        # one fact: the score decides, a contradiction rules out support
        (0.8, [], False, "complete_support", ()),
        (0.8, [0.8], False, "complete_support", ()),
        (0.3, [0.3], False, "partial_support", (0,)),
        (0.1, [0.1], False, "no_support", (0,)),
        (0.8, [0.8], True, "no_support", (0,)),
        (0.3, [], True, "no_support", (0,)),
        # several facts (FActScore): as supported as its facts
        (0.9, [0.9, 0.9], False, "complete_support", ()),
        (0.4, [0.7, 0.6], False, "partial_support", (1,)),
        (0.9, [0.9, 0.1], False, "partial_support", (1,)),
        (0.2, [0.1, 0.6, 0.2], False, "partial_support", (0, 2)),
        (0.9, [0.1, 0.2], False, "no_support", (0, 1)),
        (0.9, [0.9, 0.1], True, "partial_support", (1,)),
        (0.9, [0.9, 0.9], True, "no_support", (0, 1)),  # the source says otherwise as a whole
    ],
)
def test_decide_table(score, atoms, contradicted, judgment, unsupported):
    got = decide(score, atoms, CONTRA if contradicted else (), (), T)
    assert got[:2] == (judgment, unsupported)
    assert ("model.contradiction" in got[2]) == (
        (contradicted and judgment == "no_support")
        or (contradicted and len(atoms) > 1 and judgment == "partial_support")
    )


@pytest.mark.parametrize(
    ("score", "atoms", "judgment", "unsupported"),
    [
        (0.9, [0.9], "partial_support", (0,)),  # reported, not asserted: never complete
        (0.1, [], "no_support", (0,)),
        (0.9, [0.9, 0.6], "partial_support", (1,)),  # the least supported fact is named
        (0.9, [0.9, 0.1], "partial_support", (1,)),
    ],
)
def test_decide_when_no_source_asserts_the_statement(score, atoms, judgment, unsupported):
    got = decide(score, atoms, (), HEDGE, T)
    assert got[:2] == (judgment, unsupported)
    assert "rule:en.framed" in got[2]


@pytest.mark.parametrize(
    ("score", "atoms", "reasons"),
    [
        (0.8, [], ("model.entailment",)),
        (0.3, [], ("score.below_complete",)),
        (0.1, [], ("score.below_complete", "score.below_partial")),
        (0.9, [0.9, 0.1], ("claims.unsupported",)),
        (0.4, [0.9, 0.9], ("score.below_complete",)),
    ],
)
def test_each_verdict_names_what_decided_it(score, atoms, reasons):
    assert decide(score, atoms, (), (), T)[2] == reasons


@given(
    score=st.floats(0, 1),
    atoms=st.lists(st.floats(0, 1), max_size=6),
    contradicted=st.booleans(),
    hedged=st.booleans(),
)
def test_a_verdict_never_contradicts_itself(score, atoms, contradicted, hedged):
    judgment, unsupported, reasons = decide(
        score, atoms, CONTRA if contradicted else (), HEDGE if hedged else (), T
    )
    facts = max(1, len(atoms))
    assert reasons
    if judgment == "complete_support":
        assert unsupported == () and not contradicted and not hedged and reasons == ("model.entailment",)
    elif judgment == "partial_support":
        assert len(unsupported) > 0 and (facts == 1 or len(unsupported) < facts)
        assert "model.entailment" not in reasons
    else:
        assert len(unsupported) == facts and "model.entailment" not in reasons


NEGATES = Rule("en.negates", "negates", "contradict_with_model")
RESTATED = Rule("en.restates_negated", "restates_negated", "contradict")


@pytest.mark.parametrize(
    ("window", "reasons"),
    [
        (WindowFacts(0.95, 0.95), ("model.contradiction",)),
        # the page's other sentences about the claim's names lift the contradiction
        (WindowFacts(0.95, 0.2), ()),
        (WindowFacts(0.75, 0.75, (NEGATES,)), ("rule:en.negates",)),
        (WindowFacts(0.6, 0.6, (NEGATES,)), ()),  # a negation the model does not read as one
        (WindowFacts(0.1, 0.1, (RESTATED,)), ("rule:en.restates_negated",)),
    ],
)
def test_what_contradicts(window, reasons):
    assert against(SourceFacts((0.0,) * 4, 0.9, windows=(window,)), T) == reasons


def _logit(p: float) -> float:
    import math

    return math.log(p / (1 - p))


COMBINER = Combiner(fake_model(), Retrieval(), Judging())  # uncalibrated: the score is the entailment


def _facts(entailment: float, *, hedges=(), windows=()) -> ClaimFacts:
    features = (_logit(entailment), 1.0, 0.0, 0.0)
    reading = Entailment(entailment, 1 - entailment, 0.0)
    source = SourceFacts(features, reading, hedges, windows=windows)
    atoms = (AtomFacts("claim", features, reading, {"u": features}),)
    return ClaimFacts(features, reading, {"u": source}, atoms)


def test_complete_support_needs_the_models_own_reading():
    assert decide_statement(_facts(0.9), COMBINER, T).judgment == "complete_support"
    # Full coverage with a combiner that reads it as support: the model's entailment under its
    # floor still rules out complete support.
    weighted = Thresholds(complete=0.05, partial=0.01, claim=0.05, contradiction=0.9, entailment_floor=0.3)
    verdict = decide_statement(_facts(0.2), COMBINER, weighted)
    assert verdict.judgment == "partial_support"
    assert "model.no_entailment" in verdict.reasons


def test_a_rule_finding_is_named_and_a_negation_the_model_reads_contradicts():
    hedged = decide_statement(_facts(0.9, hedges=("en.framed",)), COMBINER, T)
    assert (hedged.judgment, hedged.reasons) == ("partial_support", ("rule:en.framed",))
    negated = decide_statement(_facts(0.9, windows=(WindowFacts(0.75, 0.75, (NEGATES,)),)), COMBINER, T)
    assert negated.judgment == "no_support" and negated.contradicted
    assert negated.reasons[0] == "rule:en.negates"
    assert decide_citation(_facts(0.9, hedges=("en.framed",)), "u", COMBINER, T).reasons == (
        "rule:en.framed",
    )


def test_a_source_that_says_the_opposite_contradicts_and_is_named_first():
    features = (_logit(0.9), 1.0, 0.0, 0.0)
    reading = Entailment(0.9, 0.1, 0.0)
    source = SourceFacts(features, reading, contradictions=("en.opposite",))
    facts = ClaimFacts(
        features, reading, {"u": source}, (AtomFacts("claim", features, reading, {"u": features}),)
    )
    verdict = decide_statement(facts, COMBINER, T)
    assert verdict.judgment == "no_support" and verdict.contradicted
    assert verdict.reasons[0] == "rule:en.opposite"


# --- issue 36: one reading of the opposite vetoes complete support ---------------------------------

VETO = Thresholds(
    complete=0.5, partial=0.25, claim=0.5, contradiction=0.9, entailment_floor=0.3, conflict=0.6
)


@pytest.mark.parametrize(
    ("window", "judgment", "first_reason"),
    [
        (WindowFacts(0.30, 0.30), "complete_support", "model.entailment"),
        # under the contradiction bar, over the conflict bar: at most partial, and named
        (WindowFacts(0.75, 0.75), "partial_support", "model.conflicting_reading"),
        # read again with the page's sentences about the claim's names, it no longer conflicts
        (WindowFacts(0.75, 0.20), "complete_support", "model.entailment"),
        (WindowFacts(0.95, 0.95), "no_support", "model.contradiction"),
    ],
)
def test_one_window_read_as_the_opposite_rules_out_complete_support(window, judgment, first_reason):
    facts = _facts(0.95, windows=(WindowFacts(0.01, 0.01), window))
    for verdict in (decide_statement(facts, COMBINER, VETO), decide_citation(facts, "u", COMBINER, VETO)):
        assert verdict.judgment == judgment
        assert verdict.reasons[0] == first_reason
        assert verdict.contradicted == (judgment == "no_support")
    # With the bar off (the default) the same window is a plain partial reading: complete.
    off = dataclasses.replace(VETO, conflict=1.01)
    expected = "no_support" if judgment == "no_support" else "complete_support"
    assert decide_statement(facts, COMBINER, off).judgment == expected


@given(
    entailment=st.floats(0.0, 1.0),
    readings=st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), max_size=4),
)
def test_green_never_stands_beside_a_reading_of_the_opposite(entailment, readings):
    windows = tuple(WindowFacts(c, k) for c, k in readings)
    verdict = decide_statement(_facts(min(max(entailment, 0.01), 0.99), windows=windows), COMBINER, VETO)
    if any(min(c, k) >= VETO.conflict for c, k in readings):
        assert verdict.judgment != "complete_support"


def test_numbers_that_disagree_contradict_and_the_reason_names_both():
    another = Rule("en.another_number", "another_number", "contradict")
    window = WindowFacts(0.2, 0.2, (another,), ("2,000", "4,500"))
    verdict = decide_statement(_facts(0.9, windows=(window,)), COMBINER, VETO)
    assert verdict.judgment == "no_support" and verdict.contradicted
    assert verdict.reasons[0] == "rule:en.another_number"
    assert verdict.details == {"rule:en.another_number": {"claim": "2,000", "source": "4,500"}}


# --- issue 37: in a cascade, each window is read on the scale of the model that read it -----------

CASCADE = dataclasses.replace(
    VETO, contradiction=0.7, conflict=0.5, fast_contradiction=0.94, fast_conflict=0.8
)


@pytest.mark.parametrize(
    ("window", "judgment"),
    [
        # the reader's 0.75 reaches its own contradiction bar; the fast model's 0.75 not even its conflict bar
        (WindowFacts(0.75, 0.75), "no_support"),
        (WindowFacts(0.75, 0.75, fast=True), "complete_support"),
        # the fast model's 0.85: over its conflict bar, under its contradiction bar
        (WindowFacts(0.85, 0.85, fast=True), "partial_support"),
        (WindowFacts(0.96, 0.96, fast=True), "no_support"),
        # the reader's 0.6: a conflicting reading on its scale
        (WindowFacts(0.6, 0.6), "partial_support"),
    ],
)
def test_a_window_is_compared_with_the_bars_of_the_model_that_read_it(window, judgment):
    facts = _facts(0.95, windows=(WindowFacts(0.01, 0.01), window))
    assert decide_statement(facts, COMBINER, CASCADE).judgment == judgment
    # Without fast bars (one model, or a cascade fitted before them) every window reads on one scale.
    one = dataclasses.replace(CASCADE, fast_contradiction=None, fast_conflict=None)
    assert (
        decide_statement(facts, COMBINER, one).judgment
        == decide_statement(
            _facts(0.95, windows=(WindowFacts(0.01, 0.01), dataclasses.replace(window, fast=False))),
            COMBINER,
            CASCADE,
        ).judgment
    )


def test_a_window_is_read_again_with_its_page_at_the_lower_bar_of_the_model_that_read_it():
    assert recheck_bar(CASCADE) == 0.5  # the reader's conflict bar, under its contradiction bar
    assert recheck_bar(CASCADE, fast=True) == 0.8  # the fast model's conflict bar
    one = dataclasses.replace(CASCADE, fast_contradiction=None, fast_conflict=None)
    assert recheck_bar(one, fast=True) == recheck_bar(one) == 0.5
