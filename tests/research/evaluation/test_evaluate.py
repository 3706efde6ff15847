"""research/evaluation/evaluate.py: its output format on a hand-made file, its metrics on known
answers, and the meaning test's data file (issue 10) holding the shape it promises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from research.evaluation.evaluate import auc, balanced_accuracy, macro_f1, meaning_counts, metrics
from research.lib.datasets import MEANING, group_keys, read_rows
from tests.conftest import model_dir

ROOT = Path(__file__).resolve().parents[3]
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


def evaluate(tmp_path: Path, fmt: str, rows: list[dict]) -> tuple[dict, Path]:
    """research/evaluation/evaluate.py run as a user would on `rows`: its summary line and
    predictions file."""
    data, out = tmp_path / f"{fmt}.jsonl", tmp_path / "pred.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    command = [sys.executable, "-m", "research.evaluation.evaluate", "--format", fmt]
    command += ["--data", str(data), "--out", str(out), "--model", str(model_dir())]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True, cwd=ROOT)
    return json.loads(run.stdout.strip().splitlines()[-1]), out


@pytest.mark.slow  # the real model
def test_script_writes_one_line_per_input_in_order(tmp_path):
    summary, out = evaluate(tmp_path, "wice", WICE)
    assert summary["n"] == 3 and set(summary) >= {
        "balanced_accuracy",
        "auc",
        "macro_f1_3way",
        "evidence_recall",
    }
    preds = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["line"] for p in preds] == [0, 1, 2]
    for p in preds:
        assert set(p) == {
            "line",
            "score",
            "judgment",
            "evidence",
            "confidence",
            "probability",
            "entailment",
            "contradicted",
            "reasons",
        }
        assert 0 <= p["score"] <= 1 and p["judgment"] in {"complete_support", "partial_support", "no_support"}
        assert 0 <= p["entailment"] <= 1
        assert all(isinstance(k, int) and 0 <= k < 2 for k in p["evidence"])
    assert preds[0]["score"] > preds[2]["score"]
    assert 0 in preds[0]["evidence"]


@pytest.mark.slow  # the real model
def test_snli_lines_carry_a_label(tmp_path):
    data = tmp_path / "snli.jsonl"
    rows = [
        {"premise": "A man plays a guitar.", "hypothesis": "A man plays music.", "label": "entailment"},
        {"premise": "A man plays a guitar.", "hypothesis": "Nobody is playing.", "label": "contradiction"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "pred.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "research.evaluation.evaluate",
            "--format",
            "snli",
            "--data",
            str(data),
            "--out",
            str(out),
            "--model",
            str(model_dir()),
        ],
        cwd=ROOT,
        capture_output=True,
        timeout=300,
        check=True,
    )
    labels = [json.loads(line)["label"] for line in out.read_text().splitlines()]
    assert labels == ["entailment", "contradiction"]
    # Entailment against the rest, the figure issue 14's French bar is stated in.
    metrics = json.loads(done.stdout.splitlines()[-1])
    assert metrics["accuracy"] == 1.0 and metrics["balanced_accuracy_2way"] == 1.0
    # The badge a reader sees, counted against the gold label (issue 27's figures).
    judgments = [json.loads(line)["judgment"] for line in out.read_text().splitlines()]
    contradicted_complete = int(judgments[1] == "complete_support")
    assert metrics["contradicted_judged_complete"] == f"{contradicted_complete}/1"
    expected = ((judgments[0] == "complete_support") + (not contradicted_complete)) / 2
    assert metrics["judge_balanced_accuracy_2way"] == expected
    # The red badge, counted on each side of the gold label.
    flagged = [json.loads(line)["contradicted"] for line in out.read_text().splitlines()]
    assert metrics["contradiction_flagged"] == f"{int(flagged[1])}/1"
    assert metrics["others_flagged"] == f"{int(flagged[0])}/1"


MEANING_FAMILIES = {"myth", "negation", "quantifier", "direction", "attribution", "scope"}


@pytest.mark.parametrize(("name", "least", "per_family"), [("pairs.jsonl", 60, 5), ("holdout.jsonl", 36, 3)])
def test_meaning_pairs_are_the_yardstick_the_issue_asks_for(name, least, per_family):
    rows = read_rows(MEANING.parent / name)
    ids = {r["id"] for r in read_rows(MEANING)} | {
        r["id"] for r in read_rows(MEANING.parent / "holdout.jsonl")
    }
    assert len(rows) >= least and len({r["id"] for r in rows}) == len(rows)
    assert len(ids) == len(read_rows(MEANING)) + len(read_rows(MEANING.parent / "holdout.jsonl"))
    supported = [r for r in rows if r["label"] == "supported"]
    against = [r for r in rows if r["label"] != "supported"]
    assert len(supported) == len(against) and {r["label"] for r in against} <= {"refuted", "unsupported"}
    for family in MEANING_FAMILIES:
        assert sum(r["family"] == family for r in against) >= per_family, family
    assert {r["family"] for r in supported} <= MEANING_FAMILIES | {"paraphrase"}
    assert sum(r["family"] == "paraphrase" for r in supported) >= len(supported) / 3
    for r in rows:
        sentences = [s for s in r["page"].replace("; ", ". ").split(". ") if s]
        assert 3 <= len(sentences) <= 8, r["id"]


def test_meaning_counts_on_known_answers():
    page = "The tower is made of iron. It was finished in 1889. It is 330 metres tall."
    rows = [
        {"id": i, "family": f, "label": label, "claim": "The tower is iron.", "page": page}
        for i, f, label in [
            ("a", "myth", "refuted"),
            ("b", "myth", "supported"),
            ("c", "paraphrase", "supported"),
            ("d", "scope", "unsupported"),
        ]
    ]
    judged = ["complete_support", "complete_support", "no_support", "partial_support"]
    preds = [
        {"score": s, "judgment": j, "evidence": [], "contradicted": c}
        for s, j, c in zip([0.9, 0.8, 0.1, 0.4], judged, [False, False, False, True])
    ]
    m = metrics("meaning", rows, preds)
    assert m["false_complete_on_unsupported"] == "1/2" and m["supported_judged_complete"] == "1/2"
    assert m["contradicted_on_refuted"] == "0/1"
    assert m["balanced_accuracy"] == pytest.approx(0.5) and m["auc"] == pytest.approx(0.25)
    assert meaning_counts(rows, preds)["per_family"] == {
        "myth": {"unsupported_complete": "1/1", "supported_complete": "1/1"},
        "paraphrase": {"supported_complete": "0/1"},
        "scope": {"unsupported_complete": "0/1"},
    }


@pytest.mark.slow  # the real model
def test_meaning_format_runs_the_judge_on_the_pairs(tmp_path):
    # Plumbing only: one page's two rows through the real judge, not a verdict on the model.
    rows = [r for r in read_rows(MEANING) if r["page_id"] == "negation-02"]
    summary, out = evaluate(tmp_path, "meaning", rows)
    assert summary["n"] == 2 and summary["false_complete_on_unsupported"].endswith("/1")
    assert summary["supported_judged_complete"].endswith("/1") and set(summary["per_family"]) == {"negation"}
    preds = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(p["line"], p["id"], p["family"]) for p in preds] == [
        (i, r["id"], r["family"]) for i, r in enumerate(rows)
    ]
    for p in preds:
        assert 0 <= p["score"] <= 1 and isinstance(p["contradicted"], bool)
        assert p["judgment"] in {"complete_support", "partial_support", "no_support"}


def _wice(claim_id: str, title: str, evidence: list[str]) -> dict:
    return {
        "claim": "c",
        "evidence": evidence,
        "label": "supported",
        "meta": {"id": claim_id, "claim_title": title},
    }


def test_split_groups_keep_an_article_and_a_cited_page_on_one_side():
    page = "The orchestra's first concert in the new hall took place on 3 May 1962."
    furniture = "Your email address will not be published. Required fields are marked."
    rows = [
        _wice("w1", "Alpha", ["Alpha was founded in 1901.", furniture]),
        _wice("w2", "Alpha", ["Another page about Alpha entirely, long enough to count."]),
        _wice("w3", "Beta", [page, furniture]),
        _wice("w4", "Gamma", ["  " + page.upper(), furniture]),  # the same page, cited from another article
        _wice("w5", "Delta", ["Delta is a river delta with a very long sentence here.", furniture]),
    ]
    keys = group_keys("wice", rows)
    assert keys[0] == keys[1] == "alpha"
    assert keys[2] == keys[3] == "beta"
    # A sentence found under more than two articles is site furniture, not one cited page.
    assert len({keys[0], keys[2], keys[4]}) == 3
    ab = [
        {"question": "Why is the sky blue? ", "claim": "Rayleigh scattering."},
        {"question": "why is the sky blue?", "claim": "Because of the air."},
        {"question": "What colour is the sky", "claim": "Rayleigh  scattering."},
        {"question": "Who wrote Hamlet?", "claim": "Shakespeare."},
    ]
    assert group_keys("attributionbench", ab) == ["what colour is the sky"] * 3 + ["who wrote hamlet?"]


def test_meaning_pairs_keep_the_claims_words_on_the_page_with_the_right_label():
    import random

    from research.data import meaning_pairs as mp

    rng = random.Random(0)
    s = "The bridge was built by the city council in 1932."
    clause = mp.parse(s)
    assert clause == mp.Clause("The bridge", "was", "built by the city council in 1932")
    assert mp.negate(clause) == "The bridge was not built by the city council in 1932."
    assert mp.negate(mp.parse("The farm had two horses in the war years.")) == (
        "The farm did not have two horses in the war years."
    )
    assert mp.parse("In 1932 the bridge was built by the council.") is None  # not the main clause
    labels = {(kind, label) for _, _, label, kind in mp.myth(s, clause, rng)}
    assert labels == {("myth_claim", "contradiction"), ("myth_fact", "entailment")}
    for _ in range(4):  # both orientations: the myth may be the sentence or its negation
        pairs = mp.myth(s, clause, rng)
        claims = {label: claim for _, claim, label, _ in pairs}
        negated = [c for c in claims.values() if " not " in c or " never " in c]
        assert len(negated) == 1 and pairs[0][0] == pairs[1][0]
        # The page holds the claim it contradicts (as the myth) and the one it supports (as the fact).
        assert all(c.rstrip(".").lower()[4:] in pairs[0][0].lower() for c in claims.values())
    [(page, claim, label, _)] = mp.direction("Profits rose 12 percent in 2020.", rng)
    assert (page, claim, label) == (
        "Profits rose 12 percent in 2020.",
        "Profits fell 12 percent in 2020.",
        "contradiction",
    )
    assert mp.direction("Profits did not rise in 2020.", rng) == []
    pairs = mp.quantifier("The clinic treated 40 patients last year.", random.Random(1))
    page = pairs[0][0]
    assert page.startswith("The clinic treated ") and " of the 40 patients last year." in page
    assert (pairs[0][1], pairs[0][2]) == (
        "The clinic treated all 40 patients last year.",
        "contradiction",
    )
    assert mp.quantifier("The race lasted 40 minutes in the rain.", rng) == []
    for page, _claim, label, _ in mp.attribution(s, clause, random.Random(2)):
        assert " that the bridge was built by the city council in 1932" in page
        assert label in {"neutral", "contradiction", "entailment"}
    [(page, claim, label, _)] = mp.scope(s, clause, rng)
    assert "partly built" in page and label == "contradiction" and "built" in claim


def test_meaning_pairs_are_seeded():
    from research.data import meaning_pairs as mp

    pages = [
        (
            "wice",
            ["The bridge opened in 1932.", "The bridge was built by the city council in 1932.", "It is red."],
        ),
        (
            "wice",
            ["Sales rose 12 percent in 2020 after the merger.", "The clinic treated 40 patients last year."],
        ),
    ]
    first = mp.generate(pages, per_kind=5, seed=3)
    assert first == mp.generate(pages, per_kind=5, seed=3) and first
    assert {r["label"] for r in first} <= {"entailment", "neutral", "contradiction"}


def test_written_pairs_give_a_page_row_and_an_evidence_row_and_drop_evidence_not_on_the_page():
    from research.data.written_pairs import training_rows

    page = "The club was relegated in 2024. It had been promoted in 2022. Its stadium holds 14,200."
    rows = [
        {
            "premise": page,
            "hypothesis": "The club was promoted in 2024.",
            "label": "contradiction",
            "family": "direction",
            "evidence": "The club was relegated in 2024.",
        },
        {
            "premise": page,
            "hypothesis": "The club won the cup.",
            "label": "neutral",
            "family": "attribution",
            "evidence": "The club won the cup in 2023.",  # not on the page
        },
    ]
    out, dropped = training_rows(rows)
    assert dropped == 1
    assert [(r["premise"], r["label"]) for r in out] == [
        (page, "contradiction"),
        ("The club was relegated in 2024.", "contradiction"),
    ]
