"""The training loss of research/training/train_nli.py on three-way and two-way rows, and with a teacher."""

from __future__ import annotations

import argparse
import json
import random

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

from research.data.citation_pairs import LABELS
from research.training.train_nli import (
    NOT_ENTAILED,
    Teacher,
    bf16_check,
    default_base,
    distill_loss,
    encode,
    mixed_pairs,
    nli_loss,
    train_stage,
)


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


def test_without_the_teacher_share_distillation_is_the_gold_loss():
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
    labels = torch.tensor([0, NOT_ENTAILED])
    teacher = torch.tensor([[-1.0, 3.0, 0.0], [0.0, 0.0, 0.0]])
    assert distill_loss(logits, labels, teacher, 0.0).item() == pytest.approx(nli_loss(logits, labels).item())


def test_the_teacher_term_is_zero_for_a_student_that_matches_it_and_pulls_towards_it():
    teacher = torch.tensor([[0.2, 2.0, -0.5]])
    labels = torch.tensor([0])
    matching = distill_loss(teacher.clone(), labels, teacher, 0.5)
    assert matching.item() == pytest.approx(0.5 * nli_loss(teacher, labels).item(), abs=1e-6)
    student = torch.tensor([[2.0, 0.0, 0.0]], requires_grad=True)
    distill_loss(student, labels, teacher, 1.0).backward()
    # The gradient of KL(teacher || softmax(z)) in z is softmax(z) - teacher.
    expected = torch.softmax(student.detach(), -1) - torch.softmax(teacher, -1)
    assert torch.allclose(student.grad, expected, atol=1e-6)


def tiny_nli(seed: int) -> BertForSequenceClassification:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        num_labels=3, id2label=dict(enumerate(LABELS)), label2id={n: i for i, n in enumerate(LABELS)},
    )  # fmt: skip
    return BertForSequenceClassification(config)


def kl_to(student, teacher_logits, enc) -> float:
    with torch.no_grad():
        return distill_loss(
            student(**enc).logits, torch.zeros(len(teacher_logits), dtype=torch.long), teacher_logits, 1.0
        ).item()


def test_a_student_trained_with_a_teacher_moves_to_its_probabilities(tmp_path):
    tokenizer = AutoTokenizer.from_pretrained(default_base())
    teacher_folder = tmp_path / "teacher"
    confident = tiny_nli(1)
    with torch.no_grad():  # a random network is near uniform; a teacher has opinions
        confident.classifier.weight.mul_(300)
    confident.save_pretrained(teacher_folder)
    tokenizer.save_pretrained(teacher_folder)
    teacher = Teacher.load(teacher_folder, 1.0)
    pairs = [
        ("A dog runs in a park.", "An animal is outside.", 0),
        ("Two women cook.", "Nobody cooks.", 2),
    ] * 8
    enc = encode(tokenizer, pairs, 128)
    target = teacher.logits(pairs, 128)
    student = tiny_nli(2)
    before = kl_to(student, target, enc)
    args = argparse.Namespace(
        out=tmp_path / "run", seed=13, batch_size=8, log_every=100, save_every=1000, bf16=False
    )
    args.out.mkdir()
    train_stage("s", student, tokenizer, pairs * 4, args, epochs=6, lr=3e-3, max_length=128, teacher=teacher)
    after = kl_to(student.eval(), target, enc)
    assert after < before / 3, (before, after)
    assert (args.out / "s" / "config.json").exists()


def test_a_teacher_with_other_labels_is_refused(tmp_path):
    model = tiny_nli(1)
    model.config.id2label = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    model.save_pretrained(tmp_path)
    with pytest.raises(SystemExit, match="labels"):
        Teacher.load(tmp_path, 0.5)


@pytest.mark.parametrize("supported", [True, False])
def test_bf16_is_refused_in_words_where_the_cpu_has_no_bf16_instructions(monkeypatch, supported: bool):
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: supported)
    bf16_check(False)  # fp32 runs anywhere
    if supported:
        bf16_check(True)
    else:
        with pytest.raises(SystemExit, match=r"no bf16 instructions.*leave out --bf16.*--fp32"):
            bf16_check(True)
