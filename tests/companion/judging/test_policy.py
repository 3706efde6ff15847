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
    Scale,
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

from ..fakes import fake_model

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


def _read(scores: list[float], read: bool = True) -> list[tuple[float, bool]]:
    return [(s, read) for s in scores]


@pytest.mark.parametrize(
    ("score", "atoms", "contradicted", "judgment", "unsupported"),
    [
        # one fact: complete, not supported or contradicted, never partly (issue 58)
        (0.8, [], False, "complete_support", ()),
        (0.8, [0.8], False, "complete_support", ()),
        (0.3, [0.3], False, "no_support", (0,)),
        (0.1, [0.1], False, "no_support", (0,)),
        (0.8, [0.8], True, "no_support", (0,)),
        (0.3, [], True, "no_support", (0,)),
        # several facts (FActScore): partly where some are supported and some not
        (0.9, [0.9, 0.9], False, "complete_support", ()),
        (0.4, [0.7, 0.6], False, "partial_support", (1,)),
        (0.9, [0.9, 0.1], False, "partial_support", (1,)),
        (0.2, [0.1, 0.6, 0.2], False, "partial_support", (0, 2)),
        (0.9, [0.1, 0.2], False, "no_support", (0, 1)),
        # a contradiction lies on the facts not supported, or on the least supported one
        (0.9, [0.9, 0.1], True, "partial_support", (1,)),
        (0.9, [0.9, 0.8], True, "partial_support", (1,)),
        (0.9, [0.1, 0.2], True, "no_support", (0, 1)),
    ],
)
def test_decide_table(score, atoms, contradicted, judgment, unsupported):
    got = decide(score, _read(atoms), CONTRA if contradicted else (), (), T)
    assert got[:2] == (judgment, unsupported)
    assert ("model.contradiction" in got[2]) == contradicted


def test_a_fact_the_model_does_not_read_is_not_supported_whatever_its_words():
    """Coverage never stands in for the model's reading (issue 58 item 1)."""
    assert decide(0.9, [(0.9, True), (0.95, False)], (), (), T)[:2] == ("partial_support", (1,))
    assert decide(0.9, [(0.9, False), (0.95, False)], (), (), T)[:2] == ("no_support", (0, 1))
    assert decide(0.9, [(0.9, False)], (), (), T)[:2] == ("no_support", (0,))


@pytest.mark.parametrize(
    ("score", "atoms", "judgment", "unsupported"),
    [
        (0.9, [0.9], "no_support", (0,)),  # reported, not asserted: never complete, never partly
        (0.1, [], "no_support", (0,)),
        (0.9, [0.9, 0.6], "partial_support", (1,)),  # the least supported fact is named
        (0.9, [0.9, 0.1], "partial_support", (1,)),
    ],
)
def test_decide_when_no_source_asserts_the_statement(score, atoms, judgment, unsupported):
    got = decide(score, _read(atoms), (), HEDGE, T)
    assert got[:2] == (judgment, unsupported)
    assert "rule:en.framed" in got[2]


@pytest.mark.parametrize(
    ("score", "atoms", "reasons"),
    [
        (0.8, [], ("model.entailment",)),
        (0.3, [], ("score.below_complete",)),
        (0.1, [], ("score.below_complete",)),
        (0.9, [0.9, 0.1], ("claims.unsupported",)),
        (0.4, [0.9, 0.9], ("score.below_complete",)),
    ],
)
def test_each_verdict_names_what_decided_it(score, atoms, reasons):
    assert decide(score, _read(atoms), (), (), T)[2] == reasons


@given(
    score=st.floats(0, 1),
    atoms=st.lists(st.tuples(st.floats(0, 1), st.booleans()), max_size=6),
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
        assert facts > 1 and 0 < len(unsupported) < facts
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
    assert decide_statement(_facts(0.9), Scale(COMBINER, T)).judgment == "complete_support"
    # Full coverage with a combiner that reads it as support: the model's entailment under its
    # floor still rules out complete support.
    weighted = Thresholds(complete=0.05, partial=0.01, claim=0.05, contradiction=0.9, entailment_floor=0.3)
    verdict = decide_statement(_facts(0.2), Scale(COMBINER, weighted))
    assert verdict.judgment == "no_support"
    assert "model.no_entailment" in verdict.reasons


def test_a_rule_finding_is_named_and_a_negation_the_model_reads_contradicts():
    hedged = decide_statement(_facts(0.9, hedges=("en.framed",)), Scale(COMBINER, T))
    assert (hedged.judgment, hedged.reasons) == ("no_support", ("rule:en.framed",))
    negated = decide_statement(
        _facts(0.9, windows=(WindowFacts(0.75, 0.75, (NEGATES,)),)), Scale(COMBINER, T)
    )
    assert negated.judgment == "no_support" and negated.contradicted
    assert negated.reasons[0] == "rule:en.negates"
    assert decide_citation(_facts(0.9, hedges=("en.framed",)), "u", Scale(COMBINER, T)).reasons == (
        "rule:en.framed",
    )


def test_a_source_that_says_the_opposite_contradicts_and_is_named_first():
    features = (_logit(0.9), 1.0, 0.0, 0.0)
    reading = Entailment(0.9, 0.1, 0.0)
    source = SourceFacts(features, reading, contradictions=("en.opposite",))
    facts = ClaimFacts(
        features, reading, {"u": source}, (AtomFacts("claim", features, reading, {"u": features}),)
    )
    verdict = decide_statement(facts, Scale(COMBINER, T))
    assert verdict.judgment == "no_support" and verdict.contradicted
    assert verdict.reasons[0] == "rule:en.opposite"


# --- issue 36, as issue 58 reads it: one reading of the opposite keeps a reading from green --------

VETO = Thresholds(
    complete=0.5, partial=0.25, claim=0.5, contradiction=0.9, entailment_floor=0.3, conflict=0.6, green=0.8
)


@pytest.mark.parametrize(
    ("window", "judgment", "confidence", "reasons"),
    [
        (WindowFacts(0.30, 0.30), "complete_support", "high", ("model.entailment",)),
        # under the contradiction bar, over the conflict bar: complete, never green, and named
        (
            WindowFacts(0.75, 0.75),
            "complete_support",
            "low",
            ("model.entailment", "model.conflicting_reading"),
        ),
        # read again with the page's sentences about the claim's names, it no longer conflicts
        (WindowFacts(0.75, 0.20), "complete_support", "high", ("model.entailment",)),
        (WindowFacts(0.95, 0.95), "no_support", None, ("model.contradiction",)),
    ],
)
def test_one_window_read_as_the_opposite_keeps_a_reading_from_green(window, judgment, confidence, reasons):
    facts = _facts(0.95, windows=(WindowFacts(0.01, 0.01), window))
    for verdict in (
        decide_statement(facts, Scale(COMBINER, VETO)),
        decide_citation(facts, "u", Scale(COMBINER, VETO)),
    ):
        assert (verdict.judgment, verdict.confidence, verdict.reasons) == (judgment, confidence, reasons)
        assert verdict.contradicted == (judgment == "no_support")
    # With the bar off (the default) the same window is no reading of the opposite: green.
    off = dataclasses.replace(VETO, conflict=1.01)
    assert decide_statement(facts, Scale(COMBINER, off)).confidence == ("high" if confidence else None)


def test_green_needs_the_models_green_bar():
    assert decide_statement(_facts(0.95), Scale(COMBINER, VETO)).confidence == "high"
    assert decide_statement(_facts(0.7), Scale(COMBINER, VETO)).confidence == "low"  # complete, under 0.8
    assert (
        decide_statement(_facts(0.95), Scale(COMBINER, dataclasses.replace(VETO, green=None))).confidence
        == "low"
    )
    assert decide_statement(_facts(0.1), Scale(COMBINER, VETO)).confidence is None


@given(
    entailment=st.floats(0.0, 1.0),
    readings=st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), max_size=4),
)
def test_green_never_stands_beside_a_reading_of_the_opposite(entailment, readings):
    windows = tuple(WindowFacts(c, k) for c, k in readings)
    verdict = decide_statement(
        _facts(min(max(entailment, 0.01), 0.99), windows=windows), Scale(COMBINER, VETO)
    )
    if any(min(c, k) >= VETO.conflict for c, k in readings):
        assert verdict.confidence != "high"


def test_numbers_that_disagree_contradict_and_the_reason_names_both():
    another = Rule("en.another_number", "another_number", "contradict")
    window = WindowFacts(0.2, 0.2, (another,), ("2,000", "4,500"))
    verdict = decide_statement(_facts(0.9, windows=(window,)), Scale(COMBINER, VETO))
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
        # the fast model's 0.85: over its conflict bar, under its contradiction bar (not green)
        (WindowFacts(0.85, 0.85, fast=True), "complete_support"),
        (WindowFacts(0.96, 0.96, fast=True), "no_support"),
        # the reader's 0.6: a conflicting reading on its scale (not green)
        (WindowFacts(0.6, 0.6), "complete_support"),
    ],
)
def test_a_window_is_compared_with_the_bars_of_the_model_that_read_it(window, judgment):
    facts = _facts(0.95, windows=(WindowFacts(0.01, 0.01), window))
    assert decide_statement(facts, Scale(COMBINER, CASCADE)).judgment == judgment
    # Without fast bars (one model, or a cascade fitted before them) every window reads on one scale.
    one = dataclasses.replace(CASCADE, fast_contradiction=None, fast_conflict=None)
    assert (
        decide_statement(facts, Scale(COMBINER, one)).judgment
        == decide_statement(
            _facts(0.95, windows=(WindowFacts(0.01, 0.01), dataclasses.replace(window, fast=False))),
            Scale(COMBINER, CASCADE),
        ).judgment
    )


def test_a_window_is_read_again_with_its_page_at_the_lower_bar_of_the_model_that_read_it():
    assert recheck_bar(CASCADE) == 0.5  # the reader's conflict bar, under its contradiction bar
    assert recheck_bar(CASCADE, fast=True) == 0.8  # the fast model's conflict bar
    one = dataclasses.replace(CASCADE, fast_contradiction=None, fast_conflict=None)
    assert recheck_bar(one, fast=True) == recheck_bar(one) == 0.5
