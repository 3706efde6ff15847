"""research/training/onnx_to_torch.py on the shipped int8 model: the rebuilt fp32 checkpoint loads as a
train_nli.py base and scores like the ONNX model it came from.

The pairs are written here (SNLI-style, unambiguous), so the test needs no data set.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the `train` extra is not installed")
transformers = pytest.importorskip("transformers", reason="the `train` extra is not installed")

pytestmark = pytest.mark.slow  # the real model

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "models" / "citelens-minilm-nli"

PAIRS = [
    ("A dog runs through a park.", "An animal is outside.", "entailment"),
    ("A dog runs through a park.", "A cat sleeps on a sofa indoors.", "contradiction"),
    ("A dog runs through a park.", "The dog is chasing its owner's ball.", "neutral"),
    ("Two women are cooking dinner in a kitchen.", "People are making food.", "entailment"),
    ("Two women are cooking dinner in a kitchen.", "Two men are swimming in the sea.", "contradiction"),
    ("Two women are cooking dinner in a kitchen.", "The women are sisters.", "neutral"),
    ("A man plays a guitar on a stage.", "A man is performing music.", "entailment"),
    ("A man plays a guitar on a stage.", "The man is asleep in bed.", "contradiction"),
    ("A man plays a guitar on a stage.", "The man is a famous rock star.", "neutral"),
    ("A child is riding a red bicycle down the street.", "A kid is on a bike.", "entailment"),
    (
        "A child is riding a red bicycle down the street.",
        "The child is sitting in a classroom.",
        "contradiction",
    ),
    ("A child is riding a red bicycle down the street.", "The child is going to school.", "neutral"),
    ("Several people are waiting at a bus stop in the rain.", "People are outdoors.", "entailment"),
    ("Several people are waiting at a bus stop in the rain.", "Nobody is outside.", "contradiction"),
    ("Several people are waiting at a bus stop in the rain.", "The bus is late.", "neutral"),
    ("A woman in a blue dress is reading a book.", "A woman is reading.", "entailment"),
    ("A woman in a blue dress is reading a book.", "A woman is running a marathon.", "contradiction"),
    ("A woman in a blue dress is reading a book.", "The book is a mystery novel.", "neutral"),
    ("Two boys are playing soccer on a field.", "Children are playing a sport.", "entailment"),
    ("Two boys are playing soccer on a field.", "The boys are watching television.", "contradiction"),
]


def figure(output: str, name: str) -> float:
    match = re.search(rf"^\s*{re.escape(name)}:? ([0-9.e+-]+)", output, re.MULTILINE)
    assert match, f"no {name!r} in:\n{output}"
    return float(match.group(1))


def rebuild(tmp_path: Path, model: Path, *extra: str) -> tuple[Path, str]:
    """Runs onnx_to_torch.py on `model`, checked on PAIRS; the checkpoint folder and its output."""
    snli = tmp_path / "pairs.jsonl.gz"
    with gzip.open(snli, "wt") as f:
        f.writelines(json.dumps({"premise": p, "hypothesis": h, "label": y}) + "\n" for p, h, y in PAIRS)
    out = tmp_path / "fp32"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "research.training.onnx_to_torch",
            str(model),
            "--out",
            str(out),
            "--check",
            "20",
            "--snli",
            str(snli),
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    # The conversion itself is exact: only the int8 side's activation quantization differs.
    assert (
        figure(run.stdout, "rebuild alone, float twin of the graph vs torch: max abs logit difference") < 1e-3
    )
    return out, run.stdout


def test_rebuilt_checkpoint_matches_the_int8_model(tmp_path):
    out, output = rebuild(tmp_path, MODEL)
    assert figure(output, "argmax agreement") >= 0.95
    assert figure(output, "max abs logit difference") < 5.0

    model = transformers.AutoModelForSequenceClassification.from_pretrained(out)
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    assert model.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}
    assert model.config.num_hidden_layers == 6 and model.config.hidden_size == 384
    logits = model(
        **tokenizer("A dog runs through a park.", "An animal is outside.", return_tensors="pt")
    ).logits
    assert logits.shape == (1, 3) and int(logits.argmax()) == 0


def test_the_multilingual_model_rebuilds_with_its_own_vocabulary(tmp_path):
    """XLM-R's special tokens (<s> </s> <pad>), not BERT's: padding must point at a real row."""
    out, _ = rebuild(tmp_path, ROOT / "models" / "citelens-e5-multilingual-nli", "--min-agreement", "0.9")
    model = transformers.AutoModelForSequenceClassification.from_pretrained(out)
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    assert tokenizer.pad_token == "<pad>" and model.config.pad_token_id == tokenizer.pad_token_id == 1
    assert model.config.num_hidden_layers == 12
    encoded = tokenizer(["Un chien court dans un parc."], ["Un animal est dehors."], return_tensors="pt")
    assert tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])[0] == "<s>"
    assert int(model(**encoded).logits.argmax()) == 0
