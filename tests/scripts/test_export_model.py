"""scripts/export_model.py, offline, on a tiny randomly initialised checkpoint this test makes.

A user with internet runs the same script on a Hub checkpoint (MiniCheck, DeBERTa-v3 NLI…);
here the checkpoint is built locally so the test needs no network: a 2-layer BERT with a
WordPiece tokenizer, saved with its own label order, exported, quantized, and loaded by the
companion, which must read that label order from the config.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers", reason="the `export` extra is not installed")
pytest.importorskip("optimum.onnxruntime", reason="the `export` extra is not installed")

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors  # noqa: E402

from companion.model.folder import load_config  # noqa: E402
from companion.model.infer import OnnxNLI  # noqa: E402

pytestmark = pytest.mark.slow  # the real model

ROOT = Path(__file__).resolve().parents[2]
WORDS = "the a dog cat runs sleeps park home is in on outside animal".split()


def tiny_checkpoint(folder: Path, id2label: dict[int, str]) -> Path:
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def export(checkpoint: Path, models_dir: Path, name: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "scripts.export_model",
            str(checkpoint),
            "--name",
            name,
            "--models",
            str(models_dir),
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_three_way_checkpoint_keeps_its_label_order(tmp_path):
    # MNLI-style order, which differs from ours: the config must carry it, not assume it.
    checkpoint = tiny_checkpoint(tmp_path / "ckpt", {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"})
    run = export(checkpoint, tmp_path / "models", "tiny", "--max-length", "64")
    assert run.returncode == 0, run.stderr[-2000:]
    folder = tmp_path / "models" / "tiny"
    assert {p.name for p in folder.iterdir()} >= {"model.onnx", "tokenizer.json", "config.json"}
    config = load_config(folder)
    assert config.labels == ("contradiction", "neutral", "entailment")
    assert config.quantization == "int8" and config.max_length == 64
    [score] = OnnxNLI(folder).score([("the dog runs in the park", "a animal is outside")])
    assert score.entailment + score.neutral + score.contradiction == pytest.approx(1.0, abs=1e-3)


def test_two_label_fact_checker_maps_to_entailment_and_neutral(tmp_path):
    checkpoint = tiny_checkpoint(tmp_path / "ckpt", {0: "unsupported", 1: "supported"})
    assert export(checkpoint, tmp_path / "models", "checker", "--no-quantize").returncode == 0
    folder = tmp_path / "models" / "checker"
    assert json.loads((folder / "config.json").read_text())["labels"] == ["neutral", "entailment"]
    [score] = OnnxNLI(folder).score([("the cat sleeps", "the cat sleeps at home")])
    assert score.contradiction == 0.0 and score.entailment + score.neutral == pytest.approx(1.0, abs=1e-3)


def test_unknown_label_names_are_refused_with_advice(tmp_path):
    checkpoint = tiny_checkpoint(tmp_path / "ckpt", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    run = export(checkpoint, tmp_path / "models", "odd")
    assert run.returncode != 0 and "--labels" in run.stderr
    run = export(checkpoint, tmp_path / "models", "odd", "--labels", "entailment", "neutral", "contradiction")
    assert run.returncode == 0, run.stderr[-2000:]
