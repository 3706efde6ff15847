"""Measures how well a model judges each language, and writes the figures beside the floor a
language needs to be checked into its config.json (issue 39 item 3).

The figure is the judge's entail-vs-rest balanced accuracy (a one-sentence answer citing a page
that holds the premise, `scripts/evaluate.py --format snli`) on the language's held part from
scripts/multilingual_splits.py: XNLI development pairs grouped by the English premise they
translate (so no pair trained on in one language is held in another), or the native development
set where XNLI has none (Japanese: JNLI; Portuguese: ASSIN, ASSIN2, InferBR; Indonesian: IndoNLI;
Italian: RTE-3). The floor, FLOOR, was written here before any figure was read; a language whose
figure is under it stays "not checked", with its figure in the reason
(companion/judging/judges.py), and `citelens doctor` lists each figure.

    python scripts/multilingual_splits.py
    python scripts/language_figures.py --model models/citelens-e5-multilingual-nli --languages en fr es de
        [--rows 400]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
from companion.judging.judge import Judge  # noqa: E402
from companion.model.infer import OnnxNLI, load_reader  # noqa: E402
from scripts.datasets import read_rows  # noqa: E402
from scripts.evaluate import metrics, run  # noqa: E402

FLOOR = 0.72  # the bar for a checked language, fixed before measuring
DATA = HERE / "runs" / "splits" / "multilingual"
LABELS = {"entailment", "neutral", "contradiction"}


def held_rows(language: str, rows: int, data: Path = DATA) -> tuple[list[dict], str]:
    """The language's held part (labelled 3-way or 2-way), its first `rows` rows."""
    path = data / f"{language}.held.jsonl"
    if not path.exists():
        raise SystemExit(f"no held part for {language!r} in {data}: run scripts/multilingual_splits.py")
    found = [r for r in read_rows(path) if r.get("label") in LABELS | {"not_entailment"}]
    held = [{**r, "label": "neutral" if r["label"] == "not_entailment" else r["label"]} for r in found][:rows]
    sources = sorted({r.get("source", "?") for r in held})
    return held, f"{'+'.join(sources)} held part (grouped by premise), first {len(held)} rows"


def measure(model: Path, languages: list[str], rows: int, data: Path = DATA) -> dict[str, dict]:
    nli = OnnxNLI(model)
    judge = Judge(nli, nli.config, reader=load_reader(nli.config))
    figures = {}
    for language in languages:
        held, described = held_rows(language, rows, data)
        preds, _ = run(judge, "snli", held)
        figure = metrics("snli", held, preds)["judge_balanced_accuracy_2way"]
        figures[language] = {"figure": figure, "data": described}
        print(f"{language}: {figure:.4f} on {described}", flush=True)
    return figures


def write(model: Path, figures: dict[str, dict]) -> None:
    path = model / "config.json"
    config = json.loads(path.read_text())
    recorded = config.get("language_figures") or {}
    config["language_figures"] = {
        "floor": FLOOR,
        "metric": "entail-vs-rest balanced accuracy of the judge on the language's held part "
        "(scripts/language_figures.py); under the floor the language is not checked",
        "figures": {**recorded.get("figures", {}), **figures},
    }
    path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--languages", nargs="+", required=True)
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    write(args.model, measure(args.model, args.languages, args.rows, args.data))


if __name__ == "__main__":
    main()
