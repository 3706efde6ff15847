"""A few training steps on a tiny slice, then export, int8 quantization and the companion's loader.

CI never trains a real model; this proves the recipe runs end to end (train → ONNX → int8 → load).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the `train` extra is not installed")
pytest.importorskip("optimum.onnxruntime", reason="the `export` extra is not installed")

from companion.model.infer import OnnxNLI

pytestmark = pytest.mark.slow  # the real model

ROOT = Path(__file__).resolve().parents[3]

SNLI = [
    ("A dog runs in a park.", "An animal is outside.", "entailment"),
    ("A dog runs in a park.", "A cat sleeps indoors.", "contradiction"),
    ("A dog runs in a park.", "The dog is chasing a ball.", "neutral"),
    ("Two women are cooking.", "People are making food.", "entailment"),
] * 8
EVIDENCE = [
    "The bridge opened to traffic in 1932 after four years of work.",
    "It is made of riveted steel.",
    "Its main span is 503 metres long.",
    "The architect was John Bradfield.",
]


def write_data(root: Path) -> tuple[Path, Path]:
    data, splits = root / "data", root / "splits"
    (data / "snli").mkdir(parents=True)
    splits.mkdir()
    for name in ("train_100k", "test"):
        with gzip.open(data / "snli" / f"{name}.jsonl.gz", "wt") as f:
            f.writelines(json.dumps({"premise": p, "hypothesis": h, "label": y}) + "\n" for p, h, y in SNLI)
    ab = [
        {
            "question": "when did the bridge open",
            "claim": "The bridge opened in 1932.",
            "response": "The bridge opened in 1932.",
            "references": [" ".join(EVIDENCE)],
            "attribution_label": label,
            "src_dataset": "handmade",
        }
        for label in ("attributable", "not attributable")
    ]
    wice = [
        {
            "label": "supported",
            "claim": "The main span is 503 metres long.",
            "evidence": EVIDENCE,
            "meta": {"id": "x1", "chunk_idx": [0, 1, 2, 3], "oracle_idx": [2]},
        }
    ]
    (splits / "attributionbench.train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ab))
    (splits / "wice.train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in wice))
    return data, splits


def test_train_export_quantize_load(tmp_path):
    data, splits = write_data(tmp_path)
    run = tmp_path / "run"
    written = tmp_path / "written.jsonl"
    written.write_text(
        json.dumps(
            {"premise": EVIDENCE[0], "hypothesis": "The bridge closed in 1932.", "label": "contradiction"}
        )
        + "\n"
    )
    trained = subprocess.run(
        [
            sys.executable,
            "-m",
            "research.training.train_nli",
            "--data",
            str(data),
            "--splits",
            str(splits),
            "--out",
            str(run),
            "--batch-size",
            "8",
            "--stage1-epochs",
            "0.25",
            "--stage2-epochs",
            "0.5",
            "--synthetic",
            "4",
            "--snli-replay",
            "8",
            "--log-every",
            "1",
            "--snli-eval",
            "8",
            "--stage2-mix",
            f"{written}:3",
        ],
        cwd=ROOT,
        check=True,
        timeout=900,
        capture_output=True,
        text=True,
    )
    assert (run / "final" / "config.json").exists()
    assert f"[mix] {written}: 1 rows x3" in trained.stdout
    subprocess.run(
        [
            sys.executable,
            "-m",
            "scripts.export_model",
            str(run / "final"),
            "--name",
            "smoke",
            "--models",
            str(tmp_path / "models"),
        ],
        cwd=ROOT,
        check=True,
        timeout=900,
        capture_output=True,
    )
    model = tmp_path / "models" / "smoke"
    config = json.loads((model / "config.json").read_text())
    assert config["labels"] == ["entailment", "neutral", "contradiction"] and config["quantization"] == "int8"
    nli = OnnxNLI(model)
    [score] = nli.score([("A dog runs in a park.", "An animal is outside.")])
    assert score.entailment + score.neutral + score.contradiction == pytest.approx(1.0, abs=1e-3)
