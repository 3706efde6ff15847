"""The strong reader's training survives its session (issue 37 item 2): a run cut short resumes
from its checkpoint outside the work tree exactly, and from the compact committed state alone (a
fresh machine) to within fp16/bf16 rounding. A tiny random MPNet stands in for all-mpnet-base-v2,
which CI cannot download; the script, its data plan, LoRA, the optimizer and the state are real.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import MPNetConfig, MPNetModel, PreTrainedTokenizerFast

from research.training.train_reader import MIX

ROOT = Path(__file__).resolve().parents[3]

ROWS = [
    ("A dog runs in a park.", "An animal is outside.", "entailment"),
    ("A dog runs in a park.", "A cat sleeps indoors.", "contradiction"),
    ("A dog runs in a park.", "The dog is chasing a ball.", "neutral"),
    ("Two women are cooking.", "People are making food.", "entailment"),
    ("Two women are cooking.", "Nobody is cooking.", "contradiction"),
    ("The bridge opened in 1932.", "The bridge opened in 1950.", "not_entailment"),
]


def tiny_base(folder: Path) -> Path:
    words = sorted({w for p, h, _ in ROWS for w in f"{p} {h}".replace(".", " .").split()})
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = {token: i for i, token in enumerate(specials + words)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
        model_input_names=["input_ids", "attention_mask"],  # as MPNet's own tokenizer
    )
    torch.manual_seed(0)
    config = MPNetConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=80,
        pad_token_id=1,
    )
    MPNetModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def write_data(root: Path) -> Path:
    for name, _ in MIX:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt") as f:
            f.writelines(json.dumps({"premise": p, "hypothesis": h, "label": y}) + "\n" for p, h, y in ROWS)
    return root


def train(tmp: Path, base: Path, data: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "research.training.train_reader",
            "--base",
            str(base),
            "--name",
            "tiny",
            "--data",
            str(data),
            "--splits",
            str(tmp / "no-splits"),
            "--layers",
            "2",
            "--rank",
            "4",
            "--batch-size",
            "4",
            "--lr",
            "1e-2",
            "--threads",
            "1",
            "--save-every",
            "2",
            # train_reader.py refuses bf16 where the CPU has no bf16 instructions (train_nli.bf16_check)
            *(() if torch.ops.mkldnn._is_mkldnn_bf16_supported() else ("--fp32",)),
            *extra,
        ],
        cwd=ROOT,
        check=True,
        timeout=600,
        capture_output=True,
        text=True,
    )


def folders(tmp: Path, run: str) -> list[str]:
    return [
        "--checkpoints",
        str(tmp / run / "outside"),
        "--state-root",
        str(tmp / run / "committed"),
        "--out",
        str(tmp / run / "runs"),
    ]


def adapters(tmp: Path, run: str) -> dict[str, torch.Tensor]:
    return load_file(tmp / run / "committed" / "tiny" / "weights.safetensors")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("reader")
    base, data = tiny_base(tmp / "base"), write_data(tmp / "data")
    train(tmp, base, data, *folders(tmp, "straight"))
    # Cut at step 7 of 15, resumed on the same machine (the outside checkpoint is there).
    cut = train(tmp, base, data, *folders(tmp, "same"), "--max-steps", "7")
    assert "[train] stopped at step 7/15" in cut.stdout
    state = json.loads((tmp / "same" / "committed" / "tiny" / "state.json").read_text())
    assert state["step"] == 7 and state["total_steps"] == 15
    shutil.copytree(tmp / "same", tmp / "fresh")
    resumed = train(tmp, base, data, *folders(tmp, "same"))
    assert f"[resume] step 7/15 from {tmp / 'same' / 'outside' / 'tiny'}" in resumed.stdout
    # A fresh machine: only what was committed is left.
    shutil.rmtree(tmp / "fresh" / "outside")
    fresh = train(tmp, base, data, *folders(tmp, "fresh"))
    assert f"[resume] step 7/15 from {tmp / 'fresh' / 'committed' / 'tiny'}" in fresh.stdout
    return tmp


def test_a_run_resumed_from_its_outside_checkpoint_ends_where_an_uncut_run_ends(runs):
    straight, same = adapters(runs, "straight"), adapters(runs, "same")
    assert straight.keys() == same.keys()
    assert all(torch.equal(straight[k], same[k]) for k in straight)
    assert (runs / "same" / "runs" / "tiny" / "final" / "config.json").exists()


def test_a_run_resumed_from_the_committed_state_alone_ends_within_rounding(runs):
    straight, fresh = adapters(runs, "straight"), adapters(runs, "fresh")
    moved = max((straight[k].float() - fresh[k].float()).abs().max().item() for k in straight)
    scale = max(straight[k].float().abs().max().item() for k in straight)
    assert scale > 0 and moved < 0.05 * scale, (moved, scale)


def test_the_committed_state_is_small_and_keeps_only_the_adapters_once_done(runs):
    cut = runs / "fresh" / "committed" / "tiny"
    assert {p.name for p in cut.iterdir()} == {"weights.safetensors", "state.json"}
    weights = load_file(cut / "weights.safetensors")
    assert all(v.dtype == torch.float16 for v in weights.values())
    assert all("lora_" in k or "classifier" in k for k in weights)


def test_a_changed_plan_is_refused_instead_of_resumed(runs, tmp_path):
    data = write_data(tmp_path / "data")
    name, _ = MIX[0]
    with gzip.open(data / name, "at") as f:
        f.write(json.dumps({"premise": "One more.", "hypothesis": "More.", "label": "entailment"}) + "\n")
    with pytest.raises(subprocess.CalledProcessError) as refused:
        train(runs, runs / "base", data, *folders(runs, "same"))
    assert "plan was" in refused.value.stderr and "PLAN.md names" in refused.value.stderr


def _teacher(folder: Path, data: Path, tmp: Path, plan: str | None = None) -> Path:
    """Teacher probabilities over the tiny plan that all say "entailment", as
    research/training/teacher_probs.py writes them."""
    import argparse

    import numpy as np

    from research.training.train_reader import make_plan

    made = make_plan(
        argparse.Namespace(data=data, splits=tmp / "no-splits", seed=13, batch_size=4, synthetic=700)
    )
    pairs = sum(len(b) for b in made.batches)
    folder.mkdir(parents=True)
    np.save(folder / "probs.npy", np.tile(np.array([0.98, 0.01, 0.01], dtype=np.float16), (pairs, 1)))
    meta = {"plan": plan or made.fingerprint, "pairs": pairs, "sha256": "0123456789abcdef0123"}
    (folder / "probs.json").write_text(json.dumps(meta))
    return folder


def test_a_student_learns_the_teacher_s_probabilities_of_its_own_plan(runs, tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    data = write_data(tmp_path / "data")
    teacher = _teacher(tmp_path / "teacher", data, runs)
    train(
        runs,
        runs / "base",
        data,
        *folders(runs, "student"),
        "--teacher-probs",
        str(teacher),
        "--distill-weight",
        "1.0",
    )
    state = json.loads((runs / "student" / "committed" / "tiny" / "state.json").read_text())
    assert state["teacher"] == "0123456789abcdef" and state["distill_weight"] == 1.0
    # Taught by a teacher that reads every pair as entailment, and by nothing else, the student
    # reads every training pair so, its contradictions included.
    final = runs / "student" / "runs" / "tiny" / "final"
    model = AutoModelForSequenceClassification.from_pretrained(final).eval()
    tokens = AutoTokenizer.from_pretrained(final)(
        [p for p, _, _ in ROWS], [h for _, h, _ in ROWS], return_tensors="pt", padding=True
    )
    with torch.no_grad():
        assert (model(**tokens).logits.argmax(-1) == 0).all()
    # Probabilities read on another plan are refused, not misaligned.
    elsewhere = _teacher(tmp_path / "elsewhere", data, runs, plan="feedfacefeedface")
    with pytest.raises(subprocess.CalledProcessError) as refused:
        train(runs, runs / "base", data, *folders(runs, "other"), "--teacher-probs", str(elsewhere))
    assert "read on plan feedfacefeedface" in refused.value.stderr


def test_the_adapters_reach_a_bert_student_s_projections():
    import re

    from transformers import BertConfig, BertForSequenceClassification

    from research.training.train_reader import LORA_TARGETS

    config = BertConfig(
        vocab_size=30,
        hidden_size=8,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=16,
        num_labels=3,
    )
    names = [
        n for n, m in BertForSequenceClassification(config).named_modules() if isinstance(m, torch.nn.Linear)
    ]
    adapted = {n.split("layer.0.")[1] for n in names if re.fullmatch(LORA_TARGETS, n) and "layer.0." in n}
    assert adapted == {
        "attention.self.query",
        "attention.self.key",
        "attention.self.value",
        "attention.output.dense",
        "intermediate.dense",
        "output.dense",
    }
    assert not any(re.fullmatch(LORA_TARGETS, n) for n in names if "classifier" in n or "pooler" in n)


def test_a_plan_with_the_citation_pairs_repeated_reads_each_pair_s_own_probabilities(tmp_path):
    import numpy as np

    from research.training.train_reader import Plan, teacher_logits

    once = Plan([[("p1", "h1", 0), ("p2", "h2", 1)], [("p3", "h3", 2)]], "aaaa")
    repeated = Plan([[("p3", "h3", 2), ("p1", "h1", 0)], [("p3", "h3", 2), ("p2", "h2", 1)]], "bbbb")
    probs = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]], dtype=np.float16)
    np.save(tmp_path / "probs.npy", probs)
    (tmp_path / "probs.json").write_text(json.dumps({"plan": "aaaa"}))
    read = [batch.exp().argmax(-1).tolist() for batch in teacher_logits(tmp_path, repeated, once)]
    assert read == [[2, 0], [2, 1]]
    with pytest.raises(SystemExit, match="read on plan aaaa"):
        teacher_logits(tmp_path, repeated, repeated)


def test_a_second_pass_reads_none_of_the_rows_the_first_pass_read(tmp_path, monkeypatch):
    """--init's mix: the first pass's unread rows are found by replaying its shuffles, so a second
    pass never trains twice on a row it meant to add, and sets named "again" are read anew."""
    import random

    from research.training import train_reader
    from research.training.train_nli import mixed_pairs

    for name in ("a.jsonl.gz", "b.jsonl.gz"):
        with gzip.open(tmp_path / name, "wt") as f:
            f.writelines(
                json.dumps({"premise": f"{name} {i}", "hypothesis": "h", "label": "entailment"}) + "\n"
                for i in range(10)
            )
    monkeypatch.setattr(train_reader, "MIX", (("a.jsonl.gz", 4), ("b.jsonl.gz", None)))
    mix = (("a.jsonl.gz", "unread", None), ("b.jsonl.gz", "again", 3))
    first = mixed_pairs([f"{tmp_path / 'a.jsonl.gz'}:1:4", str(tmp_path / "b.jsonl.gz")], random.Random(13))
    second = train_reader.go_on_pairs(tmp_path, 13, mix, random.Random(14))
    read_first = {p for p in first if p[0].startswith("a.")}
    unread = [p for p in second if p[0].startswith("a.")]
    assert len(read_first) == 4 and len(unread) == 6 and not read_first & set(unread)
    assert len([p for p in second if p[0].startswith("b.")]) == 3
