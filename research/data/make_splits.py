"""Splits the citation data into train / calib / held parts, grouped so nothing leaks across them.

AttributionBench rows are grouped by question and claim text; WiCE rows by claim, Wikipedia
article and cited page (research/lib/datasets.group_keys): claims about the same article or citing the
same page land on the same side. The split is a seeded hash of the group key, so it is the same on
every machine. Writes <out>/<set>.<part>.jsonl; the files stay out of the repository (data
licences).

--by-claim makes the split models up to 0.2.0 were trained, calibrated and measured on (WiCE by
claim id only; AttributionBench is the same either way), to reproduce them or compare with them:
its WiCE held part shares articles and pages with its train part.

    python -m research.data.make_splits [--data ../shared/data] [--out runs/splits] [--by-claim]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from research.lib.datasets import group_keys, read_rows

PARTS = (("train", 0.65), ("calib", 0.15), ("held", 0.20))
SETS = {"attributionbench": "attributionbench/dev.jsonl", "wice": "wice/dev_oracle_chunks.jsonl"}
BY_CLAIM = {  # the 0.2.0 keys
    "attributionbench": lambda row: row["question"].strip().lower(),
    "wice": lambda row: row["meta"]["id"],
}


def part_of(key: str, seed: int) -> str:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    edge = 0.0
    for name, share in PARTS:
        edge += share
        if u < edge:
            return name
    return PARTS[-1][0]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    here = Path(__file__).resolve().parents[2]
    parser.add_argument("--data", type=Path, default=here.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=here / "runs" / "splits")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--by-claim", action="store_true", help="the 0.2.0 split (WiCE grouped by claim only)"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, path in SETS.items():
        rows = read_rows(args.data / path)
        keys = [BY_CLAIM[name](row) for row in rows] if args.by_claim else group_keys(name, rows)
        parts: dict[str, list[str]] = {p: [] for p, _ in PARTS}
        for row, key in zip(rows, keys):
            parts[part_of(key, args.seed)].append(json.dumps(row, ensure_ascii=False))
        for part, lines in parts.items():
            (args.out / f"{name}.{part}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(name, {p: len(v) for p, v in parts.items()})


if __name__ == "__main__":
    main()
