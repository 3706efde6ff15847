"""Turns hand-written claim/page pairs into NLI training rows for `train_nli.py --mix`.

    python -m research.data.written_pairs research/data/written_pairs.jsonl.gz --out runs/written_mix.jsonl

Each input line (see the model card, "0.4"): {"premise": page, "hypothesis": claim, "label":
entailment|neutral|contradiction, "family", "evidence": the page sentences that decide the label,
"page_id"}. Every claim gives two rows: against the whole page, and against its deciding
sentences alone, since the companion reads windows of one to three sentences as well as the
joined top sentences of a page. Rows whose evidence is not on their page are dropped and counted.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from research.data.citation_pairs import LABELS
from research.lib.datasets import read_rows


def training_rows(rows: list[dict]) -> tuple[list[dict], int]:
    out, dropped = [], 0
    for row in rows:
        page, claim, label, evidence = row["premise"], row["hypothesis"], row["label"], row["evidence"]
        if label not in LABELS or not evidence.strip() or not _on_page(evidence, page):
            dropped += 1
            continue
        out.append({"premise": page, "hypothesis": claim, "label": label, "family": row["family"]})
        if evidence.strip() != page.strip():
            out.append({"premise": evidence, "hypothesis": claim, "label": label, "family": row["family"]})
    return out, dropped


def _on_page(evidence: str, page: str) -> bool:
    """Every sentence of the evidence is copied from the page (a myth's belief and its refutation
    are joined by a space, so the evidence as a whole need not be)."""
    parts = [p.strip() for p in evidence.replace("? ", "?\n").replace(". ", ".\n").splitlines()]
    return all(p in page for p in parts if p)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rows = [r for path in args.inputs for r in read_rows(path)]
    out, dropped = training_rows(rows)
    with args.out.open("w", encoding="utf-8") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts = Counter((r["family"], r["label"]) for r in out)
    print(f"{len(rows)} claims, {dropped} dropped, {len(out)} rows -> {args.out}")
    print(json.dumps({f"{f}/{lab}": n for (f, lab), n in sorted(counts.items())}))


if __name__ == "__main__":
    main()
