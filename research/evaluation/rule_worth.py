"""What each meaning rule is worth: the judge with every rule, then with each rule left out.

A rule stays only where it pays (issue 26, docs/rules.md): on the frozen written set it must
lower false complete verdicts without costing supported ones, and on the held citation parts it
may cost less than half a point of balanced accuracy. This prints, for the full book and for
each rule left out, the frozen set's false completes (unsupported or refuted claims judged
complete) and supported completes, and the held parts' balanced accuracy, with the verdict the
criterion gives each rule. The model reads every pair once: later passes hit its cache.

    python -m research.evaluation.rule_worth --language en [--model DIR] [--splits runs/splits_new] \\
        [--out FILE]

French has no frozen written set: its rules are measured on the held French RTE-3 part alone.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.judging.judge import Judge
from companion.judging.rulebook import rule_book
from companion.model.folder import default_model_dir
from companion.model.infer import OnnxNLI, load_reader
from research.evaluation.evaluate import balanced_accuracy
from research.lib.datasets import MEANING, examples, read_rows

HERE = Path(__file__).resolve().parents[2]
FROZEN = MEANING.parent / "frozen.jsonl"
# Half a point of balanced accuracy: the most a rule may cost on a held part.
TOLERANCE = 0.005


def complete(judge: Judge, fmt: str, rows: list[dict]) -> list[bool]:
    return [
        judge.judge(ex.statement, ex.sources).judgment == "complete_support" for ex in examples(fmt, rows)
    ]


def figures(judge: Judge, sets: dict[str, tuple[str, list[dict]]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, (fmt, rows) in sets.items():
        got = complete(judge, fmt, rows)
        gold = [ex.gold in ("complete_support", "entailment") for ex in examples(fmt, rows)]
        if fmt == "meaning":
            out[f"{name}_false_complete"] = sum(g for g, ok in zip(got, gold) if not ok)
            out[f"{name}_supported_complete"] = sum(g for g, ok in zip(got, gold) if ok)
        elif name == "lingnli_val":
            out[f"{name}_ba"] = round(balanced_accuracy(gold, got), 4)
            out[f"{name}_contradicted_complete"] = sum(
                g for g, r in zip(got, rows) if r["label"] == "contradiction"
            )
        else:
            out[f"{name}_ba"] = round(balanced_accuracy(gold, got), 4)
    return out


def verdict(full: dict, without: dict, held: list[str], frozen: bool) -> str:
    """`keep` when the rule pays by the criterion, else why it goes."""
    costs = [n for n in held if full[f"{n}_ba"] < without[f"{n}_ba"] - TOLERANCE]
    if "lingnli_val_ba" in full:
        # Contradicted hypotheses of LingNLI val (MNLI's genres, written by crowd workers, never
        # trained on) that the rule keeps from a green badge, at no cost to that set's accuracy.
        refuted = without["lingnli_val_contradicted_complete"] - full["lingnli_val_contradicted_complete"]
        if refuted > 0 and not costs:
            return f"keep: keeps {refuted} LingNLI contradictions from complete support"
    if costs:
        return "drop: costs " + ", ".join(f"{n} {without[f'{n}_ba'] - full[f'{n}_ba']:+.4f}" for n in costs)
    if not frozen:
        return (
            "keep"
            if any(full[f"{n}_ba"] > without[f"{n}_ba"] for n in held)
            else "drop: changes nothing held"
        )
    caught = without["frozen_false_complete"] - full["frozen_false_complete"]
    lost = without["frozen_supported_complete"] - full["frozen_supported_complete"]
    if caught <= 0:
        return "drop: catches no false complete on the frozen set"
    if lost > 0:
        return f"drop: catches {caught}, costs {lost} supported completes on the frozen set"
    return f"keep: catches {caught} on the frozen set"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--language", default="en", choices=("en", "fr"))
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits_new")
    parser.add_argument(
        "--french", type=Path, default=HERE / "runs" / "splits" / "french" / "rte3_fr.held.jsonl"
    )
    parser.add_argument(
        "--lingnli", type=Path, default=HERE.parent / "shared" / "data" / "nli_more" / "lingnli_val.jsonl.gz"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    if args.language == "en":
        sets = {
            "frozen": ("meaning", read_rows(FROZEN)),
            "ab_held": ("attributionbench", read_rows(args.splits / "attributionbench.held.jsonl")),
            "wice_held": ("wice", read_rows(args.splits / "wice.held.jsonl")),
            "lingnli_val": ("snli", read_rows(args.lingnli)),
        }
        model_dir = args.model or default_model_dir()
    else:
        sets = {"rte3_fr_held": ("snli", read_rows(args.french))}
        model_dir = args.model or default_model_dir().parent / "citelens-e5-multilingual-nli"
    held = [n for n, (fmt, _) in sets.items() if fmt != "meaning"]
    nli = OnnxNLI(model_dir, cache_pairs=5_000_000)
    reader = load_reader(nli.config, cache_pairs=5_000_000)
    book = rule_book(args.language)

    def judge_without(ids: list[str]) -> Judge:
        return Judge(
            nli,
            nli.config,
            reader=reader,
            rules=lambda language: book.without(ids) if language == book.language else rule_book(language),
        )

    def leave_one_out(kept: list[str]) -> dict[str, dict]:
        """Each kept rule's verdict, measured against the book of the kept rules without it."""
        dropped_now = [r.id for r in book.rules if r.id not in kept]
        full = figures(judge_without(dropped_now), sets)
        table: dict[str, dict] = {"kept rules": {**full, "rules": kept}}
        for rule in kept:
            without = figures(judge_without([*dropped_now, rule]), sets)
            table[rule] = {**without, "verdict": verdict(full, without, held, "frozen" in sets)}
            print(json.dumps({rule: table[rule]}), flush=True)
        return table

    # Backward: leave each rule out of the book, drop those that do not pay, and measure the rest
    # again, until every rule left pays against the others left. Then forward: a dropped rule
    # whose catches the others had covered gets one chance to pay alone beside the kept ones.
    kept = [r.id for r in book.rules]
    passes = []
    while True:
        table = leave_one_out(kept)
        passes.append(table)
        failing = [r for r in kept if not table[r]["verdict"].startswith("keep")]
        if not failing:
            break
        kept = [r for r in kept if r not in failing]
        if not kept:
            break
    added = {}
    base = figures(judge_without([r.id for r in book.rules if r.id not in kept]), sets)
    for rule in [r.id for r in book.rules if r.id not in kept]:
        others = [r.id for r in book.rules if r.id not in kept and r.id != rule]
        with_it = figures(judge_without(others), sets)
        added[rule] = {**with_it, "verdict": verdict(with_it, base, held, "frozen" in sets)}
        print(json.dumps({f"+{rule}": added[rule]}), flush=True)
        if added[rule]["verdict"].startswith("keep"):
            kept.append(rule)
            base = with_it
    final = figures(judge_without([r.id for r in book.rules if r.id not in kept]), sets)
    report = {
        "model": nli.config.name,
        "version": nli.config.version,
        "language": args.language,
        "criterion": f"frozen: fewer false completes, no supported one lost; held: cost under {TOLERANCE}",
        "all rules": figures(judge_without([]), sets),
        "no rules": figures(judge_without([r.id for r in book.rules]), sets),
        "passes": passes,
        "added back": added,
        "kept": [r.id for r in book.rules if r.id in kept],
        "kept figures": final,
    }
    print(json.dumps({k: report[k] for k in ("all rules", "no rules", "kept", "kept figures")}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
