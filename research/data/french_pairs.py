"""French NLI pairs for the multilingual model (issue 14): a grouped held part and synthetic pairs.

Reads `../shared/data/french/` (RTE-3 French dev, 3-way; DACCORD, contradiction /
non_contradiction) and writes, under --out:

- `rte3_fr.train.jsonl` / `rte3_fr.held.jsonl`: RTE-3 split by premise (several hypotheses share a
  premise; a split by row would put the same page on both sides). The held part is never trained
  on and is what `research/evaluation/evaluate.py --format snli` reports.
- `daccord.train.jsonl` / `daccord.held.jsonl`: the same, by premise. Only `contradiction` rows
  are trained on: `non_contradiction` mixes entailed and merely compatible hypotheses, so it has no
  3-way label.
- `french_synthetic.jsonl`: pairs made from the *train* parts only, for the families of the
  meaning test in French — myth framing ("On lit souvent que H. C'est faux."), reported claims
  ("Des critiques affirmaient que H, sans preuve.") and a negated hypothesis ("n'est pas",
  "ne … pas") against the premise that entails the positive one.

Seeded: the same inputs give the same files.

    python -m research.data.french_pairs --out runs/splits/french
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
from research.lib.datasets import read_rows  # noqa: E402

HELD_SHARE = 0.25

# "X est Y" → "X n'est pas Y": the copulas and auxiliaries RTE hypotheses are mostly built on.
_NEGATIONS = [
    (
        r"\b(est|sont|était|étaient|a|ont|avait|avaient|sera|seront|peut|peuvent|doit|doivent)\b",
        lambda m: ("n'" if m.group(1)[0] in "aeéiou" else "ne ") + m.group(1) + " pas",
    ),
]
_MYTH = [
    ("On lit souvent que {h} C'est faux.", "contradiction"),
    ("Selon une idée reçue, {h} En réalité, ce n'est pas le cas.", "contradiction"),
    ("Des critiques affirmaient que {h} Cela n'a jamais été confirmé.", "neutral"),
    ("Il est établi que {h}", "entailment"),
]


def held(key: str, seed: int) -> bool:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < HELD_SHARE


def negate(sentence: str) -> str | None:
    pattern, repl = _NEGATIONS[0]
    if re.search(r"\b(ne|n'|pas|jamais)\b", sentence):
        return None
    out, n = re.subn(pattern, repl, sentence, count=1)
    return out if n else None


def lower_first(text: str) -> str:
    text = text.strip()
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def synthetic(rows: list[dict], rng: random.Random) -> list[dict]:
    out = []
    for row in rows:
        if row["label"] != "entailment":
            continue
        hypothesis = row["hypothesis"].strip()
        if not hypothesis.endswith("."):
            hypothesis += "."
        template, label = rng.choice(_MYTH)
        out.append(
            {
                "premise": template.format(h=lower_first(hypothesis)),
                "hypothesis": hypothesis,
                "label": label,
                "kind": "framing",
            }
        )
        negated = negate(hypothesis)
        if negated:
            out.append(
                {
                    "premise": row["premise"],
                    "hypothesis": negated,
                    "label": "contradiction",
                    "kind": "negation",
                }
            )
    return out


def write(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{path}: {len(rows)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=HERE.parent / "shared" / "data" / "french")
    parser.add_argument("--out", type=Path, default=HERE / "runs" / "splits" / "french")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)

    rte = read_rows(args.data / "rte3_fr_dev.jsonl")
    rte_train = [r for r in rte if not held(r["premise"], args.seed)]
    write(args.out / "rte3_fr.train.jsonl", rte_train)
    write(args.out / "rte3_fr.held.jsonl", [r for r in rte if held(r["premise"], args.seed)])

    daccord = read_rows(args.data / "daccord.jsonl")
    write(
        args.out / "daccord.train.jsonl",
        [r for r in daccord if not held(r["premise"], args.seed) and r["label"] == "contradiction"],
    )
    write(args.out / "daccord.held.jsonl", [r for r in daccord if held(r["premise"], args.seed)])

    write(args.out / "french_synthetic.jsonl", synthetic(rte_train, rng))


if __name__ == "__main__":
    main()
