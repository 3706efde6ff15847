"""Fits a model's green bar by the rule written before any figure (research/notes/green-rule.md)
and reports green's precision and recall on calib and held parts side by side.

    python -m research.evaluation.green_bar --model models/citelens-minilm-nli \\
        --calib runs/eval/attributionbench.calib.jsonl runs/eval/wice.calib.jsonl \\
        --held runs/eval/attributionbench.held.jsonl runs/eval/wice.held.jsonl [--write]

Each file is a prediction file of research/evaluation/evaluate.py (`--out`), named <set>.<part>.jsonl, beside
the data it read (runs/splits/<set>.<part>.jsonl, or --splits). The bar reads each statement's
`entailment` (its most entailing reading), its judgment and its reasons (those of
policy.conflicting keep it from green whatever its reading); the judge that wrote them may
have had any green bar, since green changes no judgment. `--write` puts the bar into the model's
config.json (`thresholds.green`).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
GRID = [round(0.50 + 0.01 * i, 2) for i in range(50)]  # 0.50 ... 0.99
POOLED, EACH, LEAST = 0.92, 0.90, 5
# Reasons a complete reading carries that keep it from green whatever its reading (policy.conflicting).
_KEPT_FROM_GREEN = {"model.conflicting_reading", "wording.says_otherwise", "wording.qualified"}


@dataclass(frozen=True)
class Row:
    supported: bool  # gold: AttributionBench attributable, WiCE supported
    complete: bool
    entailment: float  # the most entailing reading's, by the deciding model
    conflicting: bool

    def green(self, bar: float) -> bool:
        return self.complete and not self.conflicting and self.entailment >= bar


def read(path: Path, splits: Path) -> list[Row]:
    # "<set>.<part>", after any prefix of the run's own ("e5.wice.calib.jsonl").
    name = ".".join(path.name.removesuffix(".jsonl").split(".")[-2:])
    data = [json.loads(line) for line in (splits / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    preds = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if len(data) != len(preds):
        raise SystemExit(f"{path}: {len(preds)} predictions for {len(data)} rows of {splits / name}.jsonl")
    rows = []
    for row, pred in zip(data, preds, strict=True):
        gold = row.get("attribution_label") == "attributable" or row.get("label") == "supported"
        rows.append(
            Row(
                gold,
                pred["judgment"] == "complete_support",
                float(pred["entailment"]),
                bool(_KEPT_FROM_GREEN & set(pred.get("reasons") or [])),
            )
        )
    return rows


def precision(rows: list[Row], bar: float) -> tuple[float | None, int]:
    green = [r for r in rows if r.green(bar)]
    return (sum(r.supported for r in green) / len(green) if green else None), len(green)


def recall(rows: list[Row], bar: float) -> float:
    supported = [r for r in rows if r.supported]
    return sum(r.green(bar) for r in supported) / len(supported) if supported else 0.0


def holds(parts: list[list[Row]], bar: float) -> bool:
    pooled, _ = precision([r for p in parts for r in p], bar)
    each = [precision(p, bar) for p in parts]
    return pooled is not None and pooled >= POOLED and all(p is not None and p >= EACH for p, _ in each)


def fit(parts: list[list[Row]]) -> float | None:
    """The lowest grid bar that holds and keeps holding at every higher bar that still shows at
    least LEAST statements green on each part (green-rule.md)."""
    for bar in GRID:
        higher = [b for b in GRID if b >= bar and all(precision(p, b)[1] >= LEAST for p in parts)]
        if higher and all(holds(parts, b) for b in higher):
            return bar
    return None


def report(label: str, files: list[Path], parts: list[list[Row]], bar: float | None) -> None:
    for path, rows in zip(files, parts, strict=True):
        if bar is None:
            print(f"{label} {path.name}: no green bar")
            continue
        p, n = precision(rows, bar)
        shown = "-" if p is None else f"{p:.3f}"
        kept = recall(rows, bar)
        print(f"{label} {path.name}: green {n}/{len(rows)}, precision {shown}, recall {kept:.3f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--calib", type=Path, nargs="+", required=True)
    ap.add_argument("--held", type=Path, nargs="*", default=[])
    ap.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    calib = [read(p, args.splits) for p in args.calib]
    bar = fit(calib)
    print(f"green bar: {bar} (rule: pooled >= {POOLED}, each >= {EACH}, at >= {LEAST} green a part)")
    report("calib", args.calib, calib, bar)
    report("held ", args.held, [read(p, args.splits) for p in args.held], bar)
    if args.write:
        config = args.model / "config.json"
        raw = json.loads(config.read_text())
        raw["thresholds"]["green"] = bar
        config.write_text(json.dumps(raw, indent=2) + "\n")
        print(f"wrote green {bar} into {config}")


if __name__ == "__main__":
    main()
