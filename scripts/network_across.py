"""How well the network alone, without the judge's combiner, tells entailment from the rest on
pairs across languages (issue 39): its entailment probability against one bar, fitted for the best
balanced accuracy on the crossed calibration part and read on the crossed held part (first 400
rows of each, scripts/multilingual_splits.py). An experiment for the next step, not a figure the
companion uses: language_figures.py measures the judge.

    python scripts/network_across.py --model models/citelens-e5-multilingual-nli en-fr fr-en fr
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
from companion.model.infer import OnnxNLI  # noqa: E402
from scripts.evaluate import balanced_accuracy  # noqa: E402
from scripts.language_figures import held_rows  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("parts", nargs="+", help='"<page>-<claim>" pairs, or languages')
    args = parser.parse_args()
    nli = OnnxNLI(args.model)
    bars = [round(0.05 + 0.01 * i, 2) for i in range(91)]
    for key in args.parts:
        read = {}
        for part in ("calib", "held"):
            rows, _ = held_rows(key, args.rows, part=part)
            scores = nli.score_uncached([(r["premise"], r["hypothesis"]) for r in rows])
            read[part] = ([r["label"] == "entailment" for r in rows], [s.entailment for s in scores])
        gold, probs = read["calib"]
        bar = max(bars, key=lambda b: balanced_accuracy(gold, [p >= b for p in probs]))
        held_gold, held_probs = read["held"]
        calib = balanced_accuracy(gold, [p >= bar for p in probs])
        held = balanced_accuracy(held_gold, [p >= bar for p in held_probs])
        print(f"{key}: bar {bar} calib {calib:.3f} held {held:.3f}", flush=True)


if __name__ == "__main__":
    main()
