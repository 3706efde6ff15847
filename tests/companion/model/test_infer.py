"""The shipped model through the companion's loader: labels, batching, cache, and sense."""

from __future__ import annotations

import json
import shutil

import pytest

from companion.errors import ModelUnavailable
from companion.model.folder import load_config
from companion.model.infer import OnnxNLI
from tests.conftest import model_dir

pytestmark = pytest.mark.slow  # the real model

PAIRS = [
    ("A man is playing a guitar on stage.", "A man is playing an instrument."),
    ("A man is playing a guitar on stage.", "A woman is sleeping at home."),
    ("The tower was completed in 1889.", "The tower was completed in 1889."),
    (
        "Two dogs run across a snowy field while children watch from a wooden fence nearby.",
        "Animals are outside.",
    ),
]


@pytest.fixture(scope="module")
def nli() -> OnnxNLI:
    return OnnxNLI(model_dir())


def test_shipped_model_is_small_int8_with_a_complete_config():
    config = load_config(model_dir())
    assert config.quantization == "int8"
    assert set(config.labels) == {"entailment", "neutral", "contradiction"}
    assert (model_dir() / "model.onnx").stat().st_size < 30 * 1024 * 1024
    assert config.combiner_weights and 0 < config.thresholds.partial < config.thresholds.complete < 1
    assert (model_dir() / "README.md").exists()


def test_scores_are_probabilities_and_make_sense(nli):
    scores = nli.score(PAIRS)
    for s in scores:
        assert s.entailment + s.neutral + s.contradiction == pytest.approx(1.0, abs=1e-3)
    assert scores[0].entailment > 0.5
    assert scores[1].entailment < 0.5
    assert scores[2].entailment > 0.8


def test_batches_are_planned_by_length_within_the_token_budget():
    batching = OnnxNLI(model_dir(), max_batch=3)  # the shipped int8 model scores one pair a call
    lengths = [5, 300, 40, 41, 39, 600, 42, 7]
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches = list(batching._batches(order, lengths))
    assert [i for batch in batches for i in batch] == order  # every pair once, in length order
    assert any(len(batch) > 1 for batch in batches)
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or max(lengths[i] for i in batch) * len(batch) <= 1024


def test_batched_scores_come_back_to_their_own_pairs():
    """With real batches of several pairs, each score is the one of its pair (labels agree with the
    one-pair calls; int8 scores move with batch mates, so not the digits, and a pair the model
    reads as a near tie is left out: 0.3.0 reads "A man is playing an instrument." against "…a
    guitar on stage." as 0.49 neutral / 0.50 contradiction alone, 0.64 / 0.36 in a batch)."""
    batching = OnnxNLI(model_dir(), max_batch=4)
    pairs = PAIRS + [(h, p) for p, h in PAIRS]
    alone = [batching.score_uncached([pair], by_length=False)[0] for pair in pairs]
    batched = batching.score_uncached(pairs)

    def label(e):
        return max(
            ("entailment", e.entailment),
            ("neutral", e.neutral),
            ("contradiction", e.contradiction),
            key=lambda x: x[1],
        )[0]

    def clear(e):
        top, second = sorted((e.entailment, e.neutral, e.contradiction), reverse=True)[:2]
        return top - second >= 0.2

    kept = [i for i, a in enumerate(alone) if clear(a)]
    assert len(kept) >= 6
    assert [label(batched[i]) for i in kept] == [label(alone[i]) for i in kept]


def test_ordering_by_length_and_the_cache_do_not_change_scores(nli):
    naive = nli.score_uncached(PAIRS, by_length=False)
    batched = nli.score_uncached(PAIRS)
    for a, b in zip(naive, batched, strict=True):
        assert a.entailment == pytest.approx(b.entailment, abs=1e-4)
    before = nli.pairs_scored
    again = nli.score(PAIRS + PAIRS[:1])
    assert nli.pairs_scored - before <= len(PAIRS)  # duplicates and earlier pairs come from the cache
    assert again[0] == again[-1]


def test_a_pairs_score_is_its_own_whatever_runs_beside_it(nli):
    """int8 scales activations per call: batch mates or parallel calls must not move a score."""
    alone = [nli.score_uncached([pair])[0].entailment for pair in PAIRS]
    together = nli.score_uncached(PAIRS * 3)
    one_worker = OnnxNLI(model_dir(), threads=1).score_uncached(PAIRS)
    for i, expected in enumerate(alone):
        assert together[i].entailment == pytest.approx(expected, abs=1e-5)
        assert together[i + 2 * len(PAIRS)].entailment == pytest.approx(expected, abs=1e-5)
        assert one_worker[i].entailment == pytest.approx(expected, abs=1e-5)


def test_label_order_comes_from_the_config(tmp_path, nli):
    swapped = tmp_path / "swapped"
    shutil.copytree(model_dir(), swapped)
    config = json.loads((swapped / "config.json").read_text())
    order = config["labels"]
    config["labels"] = [order[2], order[1], order[0]]  # lie about the order: scores must follow
    config.pop("cascade", None)  # its reader is a sibling folder, not copied: this model is read alone
    (swapped / "config.json").write_text(json.dumps(config))
    honest, lying = nli.score_uncached(PAIRS[:1])[0], OnnxNLI(swapped).score_uncached(PAIRS[:1])[0]
    assert lying.entailment == pytest.approx(honest.contradiction, abs=1e-4)


def test_missing_or_broken_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelUnavailable, match=r"config\.json missing"):
        OnnxNLI(tmp_path)
    (tmp_path / "config.json").write_text('{"labels": ["yes", "no"]}')
    with pytest.raises(ModelUnavailable, match="labels"):
        OnnxNLI(tmp_path)
