"""Japanese's train, calibration and held parts for issue 59 item 4, where JNLI dev is read only as
held (research/notes/citelens-e5-multilingual-nli.md, "Japanese trained further").

research/data/multilingual_splits.py cuts JNLI dev into a calibration half and a held half, and
trains on JSICK and JaNLI whole. Here JNLI dev is the held part whole (nothing is fitted on it), and
Japanese's own `complete` bar is fitted on a calibration part cut from JSICK train instead:

- `ja.held.jsonl`: every row of JNLI dev, in file order;
- `ja.calib.jsonl`: the JSICK train rows whose premise group falls in the calibration share (20 %);
- `ja.train.jsonl`: the other JSICK train rows, then JaNLI train whole (2-way); the same rows
  also as `ja-jsick.train.jsonl` and `ja-janli.train.jsonl`, so a run can weigh them apart.

A premise group is every row sharing a premise text (JSICK repeats a premise in rows far apart),
assigned by multilingual_splits.part_of's seeded hash, so the parts do not move when the file gains
rows. Every other language's parts are copied unchanged from `--splits` (multilingual_splits.py's
output), so one folder holds everything research/evaluation/language_figures.py reads.

    python -m research.data.multilingual_splits --out DIR/multilingual
    python -m research.data.japanese_parts --splits DIR/multilingual --out DIR/multilingual-ja
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

from research.data.multilingual_splits import DATA, part_of
from research.lib.datasets import read_rows

CALIB_SHARE = 0.2
PARTS = (("calib", CALIB_SHARE), ("train", 1.0 - CALIB_SHARE))


def japanese_parts(data: Path, seed: int) -> dict[str, list[dict]]:
    """The three Japanese parts, from `data` (../shared/data/multilingual)."""
    jsick = read_rows(data / "jsick_ja_train.jsonl.gz")
    calib = [r for r in jsick if part_of(f"jsick:{r['premise']}", PARTS, seed) == "calib"]
    train = [r for r in jsick if part_of(f"jsick:{r['premise']}", PARTS, seed) == "train"]
    return {
        "held": read_rows(data / "jnli_ja_dev.jsonl.gz"),
        "calib": calib,
        "train": train + read_rows(data / "janli_ja_train.jsonl.gz"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--splits", type=Path, required=True, help="multilingual_splits.py's output folder")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in sorted(args.splits.glob("*.jsonl")):
        if not path.name.startswith("ja."):
            shutil.copyfile(path, args.out / path.name)
    counts = {}
    parts = japanese_parts(args.data, args.seed)
    for name, source in (("ja-jsick", "jsick"), ("ja-janli", "janli")):
        with (args.out / f"{name}.train.jsonl").open("w", encoding="utf-8") as fh:
            for r in parts["train"]:
                if r.get("source") == source:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for part, rows in parts.items():
        with (args.out / f"ja.{part}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        counts[part] = {"rows": len(rows), "labels": dict(Counter(r["label"] for r in rows))}
        print(f"ja.{part}: {counts[part]}")
    summary = {"seed": args.seed, **counts}
    (args.out / "JAPANESE.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
