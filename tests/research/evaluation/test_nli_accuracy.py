"""research/evaluation/nli_accuracy.py: the figures of a raw network and the paired interval of two."""

from __future__ import annotations

import json
import random

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

from research.data.citation_pairs import LABELS
from research.evaluation.nli_accuracy import figures, nli_rows, paired_interval, read
from research.training.train_nli import default_base


def test_figures_count_what_each_name_says():
    gold = [0, 0, 1, 2, 2, 2]
    said = [0, 1, 1, 0, 2, 0]
    f = figures(gold, said)
    assert f["accuracy"] == pytest.approx(3 / 6)
    # entailment recall 1/2, rest read as rest 2/4
    assert f["entail_ba"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert (f["contradiction_read_entailed"], f["contradictions"]) == (2, 3)


def test_the_interval_holds_a_clear_gain_and_straddles_none():
    rng = random.Random(0)
    gold = [rng.randrange(3) for _ in range(400)]
    wrong = [(g + 1) % 3 for g in gold]
    half = [g if i % 2 else w for i, (g, w) in enumerate(zip(gold, wrong))]
    low, high = paired_interval(gold, wrong, half, draws=500, seed=1)
    assert 0.4 < low <= 0.5 <= high < 0.6
    low, high = paired_interval(gold, half, half, draws=200, seed=1)
    assert low == high == 0


def test_rows_keep_three_way_labels_and_the_limit(tmp_path):
    rows = [
        {"premise": "P1", "hypothesis": "H1", "label": "entailment"},
        {"premise": "P2", "hypothesis": "H2", "label": "not_entailment"},
        {"premise": "P3", "hypothesis": "H3", "label": "contradiction"},
        {"premise": "P4", "hypothesis": "H4", "label": "neutral"},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert nli_rows(str(path)) == [("P1", "H1", 0), ("P3", "H3", 2), ("P4", "H4", 1)]
    assert nli_rows(f"{path}:2") == [("P1", "H1", 0), ("P3", "H3", 2)]


def test_a_saved_network_is_read_in_order_and_one_with_other_labels_refused(tmp_path):
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        num_labels=3, id2label=dict(enumerate(LABELS)), label2id={n: i for i, n in enumerate(LABELS)},
    )  # fmt: skip
    model = BertForSequenceClassification(config)
    with torch.no_grad():  # whatever the input, the network says contradiction
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 0.0, 5.0]))
    model.save_pretrained(tmp_path / "m")
    AutoTokenizer.from_pretrained(default_base()).save_pretrained(tmp_path / "m")
    pairs = [(f"premise {i}", f"hypothesis {i}", i % 3) for i in range(70)]  # two batches
    assert read(tmp_path / "m", pairs, 128).predictions == [2] * 70
    model.config.id2label = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    model.save_pretrained(tmp_path / "other")
    AutoTokenizer.from_pretrained(default_base()).save_pretrained(tmp_path / "other")
    with pytest.raises(SystemExit, match="labels"):
        read(tmp_path / "other", pairs, 128)
