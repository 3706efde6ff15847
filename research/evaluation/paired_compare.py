"""Two builds' verdicts on the same rows, compared pair by pair (issue 37's decision on a fresh part).

Reads the rows (`--data`, two-way or three-way NLI: "entailment" against the rest) and the two
`research/evaluation/evaluate.py --out` files, made on those rows in the same order, and prints for each the
judge's balanced accuracy (complete support against the rest) and the not-entailed claims judged
complete, then the difference (B minus A) with its paired bootstrap interval: the same resampled
rows for both builds, `--resamples` times, seeded.

    python -m research.evaluation.paired_compare --data runs/splits/fever.fresh.jsonl A.jsonl B.jsonl [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from research.lib.datasets import read_rows


def balanced_accuracies(gold: np.ndarray, judged: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Balanced accuracy per resample; `rows` holds one resample of row indices per line."""
    g, j = gold[rows], judged[rows]
    positives = g.sum(axis=1)
    recall = (g & j).sum(axis=1) / np.maximum(positives, 1)
    specificity = (~g & ~j).sum(axis=1) / np.maximum(g.shape[1] - positives, 1)
    return (recall + specificity) / 2  # type: ignore[no-any-return]


def compare(gold: np.ndarray, a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> dict:
    everything = np.arange(len(gold))[None, :]
    whole = [float(balanced_accuracies(gold, x, everything)[0]) for x in (a, b)]
    drawn = np.random.default_rng(seed).integers(0, len(gold), size=(resamples, len(gold)))
    difference = balanced_accuracies(gold, b, drawn) - balanced_accuracies(gold, a, drawn)
    low, high = np.percentile(difference, [2.5, 97.5])
    return {
        "rows": len(gold),
        "balanced_accuracy": [round(x, 4) for x in whole],
        "not_entailed_judged_complete": [int((~gold & x).sum()) for x in (a, b)],
        "not_entailed": int((~gold).sum()),
        "difference": round(whole[1] - whole[0], 4),
        "interval_95": [round(float(low), 4), round(float(high), 4)],
        "resamples": resamples,
        "seed": seed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("a", type=Path, help="evaluate.py --out of the build compared against")
    parser.add_argument("b", type=Path, help="evaluate.py --out of the candidate")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = read_rows(args.data)
    judged = []
    for path in (args.a, args.b):
        preds = read_rows(path)
        if [p["line"] for p in preds] != list(range(len(rows))):
            raise SystemExit(f"{path}: not one prediction per row of {args.data}, in order")
        judged.append(np.array([p["judgment"] == "complete_support" for p in preds]))
    gold = np.array([r["label"] == "entailment" for r in rows])
    result = compare(gold, judged[0], judged[1], args.resamples, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    (ba_a, ba_b), (fc_a, fc_b) = result["balanced_accuracy"], result["not_entailed_judged_complete"]
    print(f"{result['rows']} rows, {result['not_entailed']} not entailed")
    print(f"  A {args.a}: balanced accuracy {ba_a:.4f}, not entailed judged complete {fc_a}")
    print(f"  B {args.b}: balanced accuracy {ba_b:.4f}, not entailed judged complete {fc_b}")
    low, high = result["interval_95"]
    print(f"  B - A: {result['difference']:+.4f}, paired bootstrap 95 % interval [{low:+.4f}, {high:+.4f}]")


if __name__ == "__main__":
    main()
