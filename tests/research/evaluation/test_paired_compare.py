"""research/evaluation/paired_compare.py (issue 37's decision on a fresh part) and
research/data/fever_held.py."""

import numpy as np
import pytest

from research.evaluation.paired_compare import balanced_accuracies, compare


def test_balanced_accuracy_by_hand():
    gold = np.array([True, True, False, False])
    judged = np.array([True, False, False, True])
    # recall 1/2, specificity 1/2
    assert balanced_accuracies(gold, judged, np.arange(4)[None, :])[0] == 0.5
    assert balanced_accuracies(gold, gold, np.arange(4)[None, :])[0] == 1.0


def test_the_same_verdicts_differ_by_nothing():
    rng = np.random.default_rng(1)
    gold = rng.random(500) < 0.5
    a = rng.random(500) < 0.5
    result = compare(gold, a, a.copy(), resamples=200, seed=13)
    assert result["difference"] == 0.0 and result["interval_95"] == [0.0, 0.0]


def test_a_clearly_better_build_has_its_interval_above_zero_and_a_worse_one_below():
    rng = np.random.default_rng(2)
    gold = rng.random(1000) < 0.5
    weak = np.where(rng.random(1000) < 0.6, gold, ~gold)  # right 60 % of the time
    strong = np.where(rng.random(1000) < 0.9, gold, ~gold)  # right 90 %
    better = compare(gold, weak, strong, resamples=500, seed=13)
    assert better["interval_95"][0] > 0 and better["difference"] > 0.2
    worse = compare(gold, strong, weak, resamples=500, seed=13)
    assert worse["interval_95"][1] < 0
    assert better["not_entailed_judged_complete"] == [int((~gold & weak).sum()), int((~gold & strong).sum())]


@pytest.mark.slow
def test_the_fresh_fever_part_shares_no_claim_or_evidence_with_the_readers_training():
    from research.data.fever_held import DATA_DEFAULT, fresh_rows, trained_rows

    trained = trained_rows(DATA_DEFAULT, 13)
    assert len(trained) == 8000
    fresh = fresh_rows(DATA_DEFAULT, 13, 3000)
    seen = {p for p, _, _ in trained} | {h for _, h, _ in trained}
    assert fresh and all(r["premise"] not in seen and r["hypothesis"] not in seen for r in fresh)
    assert {r["label"] for r in fresh} == {"entailment", "not_entailment"}
