"""Splits the citation data into train / calib / held parts, grouped so no question leaks.

AttributionBench rows are grouped by question, WiCE rows by claim id (each claim comes in several
evidence chunks). The split is a seeded hash of the group key, so it is the same on every machine.
Writes <out>/<set>.<part>.jsonl; the files stay out of the repository (data licences).

    python scripts/make_splits.py [--data ../shared/data] [--out runs/splits]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

PARTS = (("train", 0.65), ("calib", 0.15), ("held", 0.20))
SETS = {
    "attributionbench": ("attributionbench/dev.jsonl", lambda row: row["question"].strip().lower()),
    "wice": ("wice/dev_oracle_chunks.jsonl", lambda row: row["meta"]["id"]),
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
    here = Path(__file__).resolve().parent.parent
    parser.add_argument("--data", type=Path, default=here.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=here / "runs" / "splits")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (path, key) in SETS.items():
        rows = [json.loads(line) for line in (args.data / path).open(encoding="utf-8") if line.strip()]
        parts: dict[str, list[str]] = {p: [] for p, _ in PARTS}
        for row in rows:
            parts[part_of(key(row), args.seed)].append(json.dumps(row, ensure_ascii=False))
        for part, lines in parts.items():
            (args.out / f"{name}.{part}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(name, {p: len(v) for p, v in parts.items()})


if __name__ == "__main__":
    main()
