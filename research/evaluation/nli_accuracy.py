"""The raw networks side by side: 3-way NLI figures of trained fp32 models on the same pairs.

`research/evaluation/evaluate.py` measures a shipped model through the whole judge; this reads the network
alone, before export and calibration, which is what comparing bases (issue 27 item 2) and
checking a teacher's bar needs. Every model reads the same pairs in the same order, so the
differences come with a paired bootstrap interval (the pairs resampled, seeded).

    python -m research.evaluation.nli_accuracy --model runs/bases/minilm/final \\
        --model runs/bases/mpnet/final --data ../shared/data/nli_more/lingnli_val.jsonl.gz \\
        --data ../shared/data/snli/test.jsonl.gz:2000

Per set and model: 3-way accuracy, entailment-vs-rest balanced accuracy, the contradictions the
network reads as entailment, and pairs per second (batch 64, --threads; the models run one
after the other, so the rates are comparable only within one run).

Needs torch and transformers (the `train` extra).
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

HERE = Path(__file__).resolve().parents[2]
from research.data.citation_pairs import LABELS  # noqa: E402
from research.lib.datasets import read_rows  # noqa: E402
from research.training.train_nli import encode  # noqa: E402

BATCH = 64


@dataclass(frozen=True)
class Reading:
    predictions: list[int]
    seconds: float


def nli_rows(spec: str) -> list[tuple[str, str, int]]:
    """FILE[:LIMIT]: the three-way rows of a premise / hypothesis / label file, first LIMIT kept."""
    path, _, limit = spec.partition(":")
    rows = [r for r in read_rows(Path(path)) if r["label"] in LABELS]
    pairs = [(r["premise"], r["hypothesis"], LABELS.index(r["label"])) for r in rows]
    return pairs[: int(limit)] if limit else pairs


@torch.no_grad()
def read(folder: Path, pairs: list[tuple[str, str, int]], max_length: int) -> Reading:
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    labels = [model.config.id2label[i] for i in range(model.config.num_labels)]
    if labels != list(LABELS):
        raise SystemExit(f"{folder} has labels {labels}, not {list(LABELS)}")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    start, predictions = time.perf_counter(), []
    for i in range(0, len(pairs), BATCH):
        logits = model(**encode(tokenizer, pairs[i : i + BATCH], max_length)).logits
        predictions += logits.argmax(-1).tolist()
    return Reading(predictions, time.perf_counter() - start)


def figures(gold: list[int], predicted: list[int]) -> dict[str, float]:
    entail = [g == 0 for g in gold]
    said = [p == 0 for p in predicted]
    positives = sum(entail) or 1
    negatives = (len(gold) - sum(entail)) or 1
    tpr = sum(e and s for e, s in zip(entail, said)) / positives
    tnr = sum(not e and not s for e, s in zip(entail, said)) / negatives
    return {
        "accuracy": sum(g == p for g, p in zip(gold, predicted)) / len(gold),
        "entail_ba": (tpr + tnr) / 2,
        "contradiction_read_entailed": sum(g == 2 and p == 0 for g, p in zip(gold, predicted)),
        "contradictions": sum(g == 2 for g in gold),
    }


def paired_interval(
    gold: list[int], a: list[int], b: list[int], draws: int, seed: int
) -> tuple[float, float]:
    """95 % interval of accuracy(b) - accuracy(a) over pairs resampled with replacement."""
    rng = random.Random(seed)
    gains = [int(pb == g) - int(pa == g) for g, pa, pb in zip(gold, a, b)]
    n = len(gains)
    means = sorted(sum(gains[rng.randrange(n)] for _ in range(n)) / n for _ in range(draws))
    return means[int(0.025 * draws)], means[int(0.975 * draws) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, action="append", required=True, help="trained folder; repeat")
    parser.add_argument("--data", action="append", required=True, metavar="FILE[:LIMIT]", help="repeat")
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    for spec in args.data:
        pairs = nli_rows(spec)
        gold = [p[2] for p in pairs]
        print(f"\n{spec}: {len(pairs)} pairs")
        header = f"{'model':<44} {'3-way':>7} {'ent BA':>7} {'C->E':>9} {'pairs/s':>8}"
        print(f"{header}  3-way gain vs first, 95 %")
        first: list[int] | None = None
        for folder in args.model:
            reading = read(folder, pairs, args.max_length)
            f = figures(gold, reading.predictions)
            gain = ""
            if first is None:
                first = reading.predictions
            else:
                low, high = paired_interval(gold, first, reading.predictions, args.draws, args.seed)
                gain = f"{f['accuracy'] - figures(gold, first)['accuracy']:+.4f} [{low:+.4f}, {high:+.4f}]"
            print(
                f"{folder!s:<44} {f['accuracy']:>7.4f} {f['entail_ba']:>7.4f} "
                f"{f['contradiction_read_entailed']:>4}/{f['contradictions']:<4} "
                f"{len(pairs) / reading.seconds:>8.1f}  {gain}",
                flush=True,
            )


if __name__ == "__main__":
    main()
