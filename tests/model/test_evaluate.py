"""scripts/evaluate.py: its output format on a hand-made file, and its metrics on known answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.evaluate import auc, balanced_accuracy, macro_f1, metrics
from tests.conftest import model_dir

ROOT = Path(__file__).resolve().parents[2]
WICE = [
    {
        "label": "supported",
        "claim": "The bridge opened in 1932.",
        "evidence": ["The bridge opened to traffic in 1932.", "It is made of steel."],
        "meta": {"chunk_idx": [4, 9], "oracle_idx": [4]},
    },
    {
        "label": "partially_supported",
        "claim": "The bridge opened in 1932 and cost 10 million dollars.",
        "evidence": ["The bridge opened to traffic in 1932.", "It is made of steel."],
        "meta": {"chunk_idx": [4, 9], "oracle_idx": [4]},
    },
    {
        "label": "not_supported",
        "claim": "The bridge is painted pink.",
        "evidence": ["The bridge opened to traffic in 1932.", "It is made of steel."],
        "meta": {"chunk_idx": [4, 9], "oracle_idx": []},
    },
]


def test_metric_functions_on_known_answers():
    assert auc([0.9, 0.8], [0.1, 0.85]) == pytest.approx(0.75)
    assert balanced_accuracy([True, True, False, False], [True, False, False, False]) == pytest.approx(0.75)
    assert macro_f1(["a", "b"], ["a", "a"], ["a", "b"]) == pytest.approx((2 / 3 + 0) / 2)
    preds = [
        {"score": 0.9, "judgment": "complete_support", "evidence": [0]},
        {"score": 0.4, "judgment": "partial_support", "evidence": [0, 1]},
        {"score": 0.2, "judgment": "no_support", "evidence": []},
    ]
    m = metrics("wice", WICE, preds)
    assert m["balanced_accuracy"] == 1.0 and m["auc"] == 1.0 and m["macro_f1_3way"] == 1.0
    assert m["evidence_recall"] == 1.0 and m["evidence_precision"] == pytest.approx(2 / 3, abs=1e-3)


def test_script_writes_one_line_per_input_in_order(tmp_path):
    data = tmp_path / "wice.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in WICE))
    out = tmp_path / "pred.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "evaluate.py"),
            "--format",
            "wice",
            "--data",
            str(data),
            "--out",
            str(out),
            "--model",
            str(model_dir()),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["n"] == 3 and set(summary) >= {
        "balanced_accuracy",
        "auc",
        "macro_f1_3way",
        "evidence_recall",
    }
    preds = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["line"] for p in preds] == [0, 1, 2]
    for p in preds:
        assert set(p) == {"line", "score", "judgment", "evidence"}
        assert 0 <= p["score"] <= 1 and p["judgment"] in {"complete_support", "partial_support", "no_support"}
        assert all(isinstance(k, int) and 0 <= k < 2 for k in p["evidence"])
    assert preds[0]["score"] > preds[2]["score"]
    assert 0 in preds[0]["evidence"]


def test_snli_lines_carry_a_label(tmp_path):
    data = tmp_path / "snli.jsonl"
    rows = [
        {"premise": "A man plays a guitar.", "hypothesis": "A man plays music.", "label": "entailment"},
        {"premise": "A man plays a guitar.", "hypothesis": "Nobody is playing.", "label": "contradiction"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "pred.jsonl"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "evaluate.py"),
            "--format",
            "snli",
            "--data",
            str(data),
            "--out",
            str(out),
            "--model",
            str(model_dir()),
        ],
        capture_output=True,
        timeout=300,
        check=True,
    )
    labels = [json.loads(line)["label"] for line in out.read_text().splitlines()]
    assert labels == ["entailment", "contradiction"]
