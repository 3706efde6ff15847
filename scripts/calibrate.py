"""Fits the score combiner and the decision thresholds of a model folder on calibration data.

Runs the companion's own judge on the calib parts (scripts/make_splits.py) of AttributionBench and
WiCE, then:
- fits a small L2-regularised logistic regression from combiner.FEATURES to "fully supported"
  (both sets pooled, each weighted equally);
- sets `contradiction`, the bar for flagging a statement as contradicted, on pairs labelled
  contradiction (SNLI test): the lowest bar at which >= 95% of the flags are right. The citation
  sets have no contradiction labels; searched on them, this bar only trades vetoes of "complete"
  for balanced accuracy and drifted to where the flag almost never fires (0.98);
- picks the `complete` and `claim` (atomic-claim) thresholds that together maximise the mean
  balanced accuracy of the two sets, and `partial` for WiCE 3-way macro-F1;
and writes them into <model>/config.json. The held parts stay untouched for reporting; SNLI test
accuracy is an argmax figure that no threshold touches.

    python scripts/calibrate.py --model models/citelens-minilm-nli [--splits runs/splits] [--snli FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from companion.combiner import FEATURES, decide, features_version
from companion.infer import OnnxNLI
from companion.judge import Judge
from companion.model import Thresholds
from scripts.datasets import examples, read_rows
from scripts.evaluate import balanced_accuracy, macro_f1

HERE = Path(__file__).resolve().parent.parent
LABELS3 = ("complete_support", "partial_support", "no_support")


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Newton's method on the weighted, L2-regularised log loss (the bias is not penalised)."""
    mean, std = x.mean(0), x.std(0) + 1e-6
    z = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ beta))
        grad = z.T @ (w * (p - y)) + penalty * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = beta[:-1] / std
    bias = beta[-1] - float((beta[:-1] * mean / std).sum())
    return weights, bias


def collect(judge: Judge, fmt: str, rows: list[dict]) -> list[dict]:
    out = []
    for ex in examples(fmt, rows):
        result = judge.judge(ex.statement, ex.sources)
        out.append(
            {
                "features": list(result.features),
                "gold": ex.gold,
                "atom_features": [list(c.features) for c in result.claims],
                # Judge.judge flags a statement when an on-topic window's contradiction passes the
                # threshold, so the flag can be searched here.
                "contradiction": max((cj.contradiction for cj in result.per_citation), default=0.0),
            }
        )
    return out


def contradiction_bar(nli: OnnxNLI, rows: list[dict], precision: float = 0.95) -> float:
    """The lowest bar whose contradiction flags on labelled NLI pairs are right `precision` of the time."""
    pairs = [(r["premise"], r["hypothesis"]) for r in rows]
    scores = np.array([s.contradiction for s in nli.score_uncached(pairs)])
    truth = np.array([r["label"] == "contradiction" for r in rows])
    for bar in np.round(np.arange(0.5, 0.995, 0.01), 2):
        flagged = scores >= bar
        if flagged.any() and truth[flagged].mean() >= precision:
            return float(bar)
    return 0.99


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    parser.add_argument("--part", default="calib")
    parser.add_argument(
        "--snli", type=Path, default=HERE.parent / "shared" / "data" / "snli" / "test.jsonl.gz"
    )
    args = parser.parse_args()

    nli = OnnxNLI(args.model)
    # Judge with the raw model and a `complete` bar no score reaches, so every example gets its
    # atomic claims scored; the decision is then searched offline.
    raw = dataclasses.replace(nli.config, combiner_weights=(), thresholds=Thresholds(complete=2.0))
    judge = Judge(nli, raw)
    sets = {
        fmt: collect(judge, fmt, read_rows(args.splits / f"{fmt}.{args.part}.jsonl"))
        for fmt in ("attributionbench", "wice")
    }

    x = np.array([r["features"] for rows in sets.values() for r in rows], dtype=float)
    y = np.array([r["gold"] == "complete_support" for rows in sets.values() for r in rows], dtype=float)
    w = np.concatenate([np.full(len(rows), 1.0 / len(rows)) for rows in sets.values()]) * len(x) / len(sets)
    weights, bias = fit_logistic(x, y, w)
    for rows in sets.values():
        for r in rows:
            r["p"] = float(1 / (1 + np.exp(-(bias + np.dot(weights, r["features"])))))
            # Atoms get the same combiner (Judge._atoms); a one-fact statement is its own atom.
            r["atoms"] = [float(1 / (1 + np.exp(-(bias + np.dot(weights, f))))) for f in r["atom_features"]]

    def labels(rows: list[dict], t: Thresholds) -> list[str]:
        return [decide(r["p"], r["atoms"], r["contradiction"] >= t.contradiction, t).judgment for r in rows]

    def mean_ba(t: Thresholds) -> float:
        return float(
            np.mean(
                [
                    balanced_accuracy(
                        [r["gold"] == "complete_support" for r in rows],
                        [label == "complete_support" for label in labels(rows, t)],
                    )
                    for rows in sets.values()
                ]
            )
        )

    grid = np.round(np.arange(0.05, 0.96, 0.01), 2)
    claims = np.round(np.arange(0.3, 0.96, 0.05), 2)
    contradiction = contradiction_bar(nli, read_rows(args.snli))
    # complete and claim together decide "fully supported" (decide()): searched jointly.
    complete, claim = max(
        ((float(c), float(a)) for c in grid for a in claims),
        key=lambda ca: mean_ba(Thresholds(complete=ca[0], claim=ca[1], contradiction=contradiction)),
    )
    wice = sets["wice"]
    # Below 0.15, "partial" would fire on sources that share almost no words with the statement.
    partial = max(
        (float(p) for p in grid if 0.15 <= p < complete),
        default=complete,
        key=lambda p: macro_f1(
            [r["gold"] for r in wice],
            labels(wice, Thresholds(complete=complete, partial=p, claim=claim, contradiction=contradiction)),
            LABELS3,
        ),
    )
    chosen = Thresholds(complete=complete, partial=partial, claim=claim, contradiction=contradiction)
    thresholds = dataclasses.asdict(chosen)
    f1 = macro_f1([r["gold"] for r in wice], labels(wice, chosen), LABELS3)

    config_path = args.model / "config.json"
    config = json.loads(config_path.read_text())
    config["thresholds"] = thresholds
    config["combiner"] = {
        "features": list(FEATURES),
        "features_version": features_version(judge.retrieval, judge.judging),
        "weights": [round(float(v), 6) for v in weights],
        "bias": round(float(bias), 6),
    }
    config["calibration"] = {
        "data": f"{args.part} parts of AttributionBench dev and WiCE dev in {args.splits} "
        "(scripts/make_splits.py, seed 13)",
        "contradiction_data": f"{args.snli.parent.name}/{args.snli.name}, flags right 95% of the time",
        "examples": {fmt: len(rows) for fmt, rows in sets.items()},
        "mean_balanced_accuracy": round(mean_ba(chosen), 4),
        "wice_macro_f1": round(f1, 4),
    }
    config_path.write_text(json.dumps(config, indent=2) + "\n")
    print(json.dumps({"thresholds": thresholds, "combiner": config["combiner"], **config["calibration"]}))


if __name__ == "__main__":
    main()
