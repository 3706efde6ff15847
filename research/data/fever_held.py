"""A fresh, grouped held part of FEVER dev RTE for the cascade's decision (issue 37).

The reader (research/training/train_reader.py) trained on 8,000 rows of `nli_more/fever_dev_rte.jsonl.gz`,
drawn by train_nli.mixed_pairs over its MIX with `random.Random(seed)`; no other model here trained
on FEVER. This draws those 8,000 again the same way, keeps every row whose premise and claim both
differ from every premise and claim among them (the same claim or the same evidence is never on
both sides), and writes `--rows` of those, drawn with `--seed`, to `--out` in the file's own order.

    python -m research.data.fever_held [--out runs/splits/fever.fresh.jsonl] [--rows 3000]

Needs the `train` extra (it imports the reader's training code to draw its rows the same way).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
from research.lib.datasets import read_rows  # noqa: E402
from research.training.train_nli import mixed_pairs  # noqa: E402
from research.training.train_reader import MIX  # noqa: E402

FEVER = "nli_more/fever_dev_rte.jsonl.gz"
DATA_DEFAULT = HERE.parent / "shared" / "data"


def trained_rows(data: Path, seed: int) -> list[tuple[str, str, int]]:
    """The FEVER rows the reader trained on: its MIX drawn up to FEVER's turn, as its plan drew it."""
    names = [name for name, _ in MIX]
    upto = MIX[: names.index(FEVER) + 1]
    specs = [f"{data / name}:1:{limit}" if limit else f"{data / name}" for name, limit in upto]
    pairs = mixed_pairs(specs, random.Random(seed))
    limit = dict(MIX)[FEVER]
    assert limit is not None
    return pairs[-limit:]


def fresh_rows(data: Path, seed: int, count: int) -> list[dict]:
    trained = trained_rows(data, seed)
    seen = {p for p, _, _ in trained} | {h for _, h, _ in trained}
    rows = [r for r in read_rows(data / FEVER) if r["premise"] not in seen and r["hypothesis"] not in seen]
    keep = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [rows[i] for i in keep]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA_DEFAULT)
    parser.add_argument("--out", type=Path, default=HERE / "runs" / "splits" / "fever.fresh.jsonl")
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rows = fresh_rows(args.data, args.seed, args.rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    labels = {label: sum(r["label"] == label for r in rows) for label in sorted({r["label"] for r in rows})}
    print(f"{len(rows)} rows to {args.out}: {labels}")


if __name__ == "__main__":
    main()
