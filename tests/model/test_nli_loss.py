"""The training loss of scripts/train_nli.py on three-way and two-way rows."""

from __future__ import annotations

import json
import random

import pytest
import torch

from scripts.train_nli import NOT_ENTAILED, mixed_pairs, nli_loss


def test_three_way_rows_get_plain_cross_entropy():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
    labels = torch.tensor([0, 2])
    assert nli_loss(logits, labels).item() == pytest.approx(
        torch.nn.functional.cross_entropy(logits, labels).item(), abs=1e-6
    )


def test_a_two_way_row_trains_the_marginal_of_neutral_and_contradiction():
    logits = torch.tensor([[1.0, 0.0, 2.0]], requires_grad=True)
    loss = nli_loss(logits, torch.tensor([NOT_ENTAILED]))
    p = torch.softmax(logits.detach(), dim=-1)[0]
    assert loss.item() == pytest.approx(-torch.log(p[1] + p[2]).item(), abs=1e-6)
    loss.backward()
    grad = logits.grad[0]
    # Only entailment is pushed down; neutral and contradiction both rise, neither is preferred
    # over the other beyond their current odds.
    assert grad[0] > 0 and grad[1] < 0 and grad[2] < 0
    assert (grad[1] / grad[2]).item() == pytest.approx((p[1] / p[2]).item(), rel=1e-5)


def test_mixed_files_keep_their_two_way_rows(tmp_path):
    rows = [
        {"premise": "A", "hypothesis": "B", "label": "not_entailment"},
        {"premise": "C", "hypothesis": "D", "label": "non-entailment"},
        {"premise": "E", "hypothesis": "F", "label": "contradiction"},
        {"premise": "G", "hypothesis": "H", "label": "unknown"},
    ]
    path = tmp_path / "two_way.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pairs = mixed_pairs([f"{path}:2"], random.Random(0))
    assert sorted(pairs) == sorted([("A", "B", NOT_ENTAILED), ("C", "D", NOT_ENTAILED), ("E", "F", 2)] * 2)
