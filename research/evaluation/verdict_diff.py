"""Whether a change to the judging code changed any verdict (issue 38): dump, then diff.

    python -m research.evaluation.verdict_diff dump --tree DIR --out VERDICTS.jsonl [--model DIR] [--limit N]
    python -m research.evaluation.verdict_diff diff BEFORE.jsonl AFTER.jsonl

`dump` judges the frozen written set (tests/fixtures/meaning/pairs.jsonl) and the held parts
(runs/splits/attributionbench.held.jsonl, runs/splits/wice.held.jsonl) with the companion of the
checkout `DIR` (a git worktree of the build before, or this one), through that checkout's own
evaluation code (research/evaluation/evaluate.py, or research/evaluation/evaluate.py in a build from before
research/), and writes one line per example: the statement's judgment, score, reasons,
contradicted flag and its evidence texts, and each citation's the same. Pass the same --model to
both dumps: the thresholds live in the model's config.json, which calibration rewrites.
`diff` prints each example whose verdict differs, and a count per set; it exits 1 when any does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from research.lib.builds import judges_here, run_in

HERE = Path(__file__).resolve().parents[2]
SETS = (
    ("meaning", None),
    ("attributionbench", "runs/splits/attributionbench.held.jsonl"),
    ("wice", "runs/splits/wice.held.jsonl"),
)


def _verdict(result: Any) -> dict[str, Any]:
    """What a reader sees of a statement's verdict, and of each citation's."""
    return {
        "judgment": result.judgment,
        "score": result.score,
        "contradicted": result.contradicted,
        "reasons": list(result.reasons),
        "evidence": [e.text for e in result.evidence],
        "says_otherwise": [e.text for e in result.says_otherwise],
        "citations": [
            {
                "judgment": cj.judgment,
                "score": cj.score,
                "reasons": list(cj.reasons),
                "evidence": [e.text for e in cj.evidence],
                "says_otherwise": [e.text for e in cj.says_otherwise],
                "unsupported": list(cj.unsupported),
            }
            for cj in result.per_citation
        ],
    }


def dump(tree: Path, out: Path, model: Path | None, limit: int | None, root: Path) -> None:
    # The build under test is the one imported (research/lib/builds.py): its companion, and its
    # own evaluation code, which moved from scripts/ to research/.
    import companion
    from companion.judging.judge import Judge
    from companion.model.folder import default_model_dir
    from companion.model.infer import OnnxNLI, load_reader

    if (tree / "scripts" / "evaluate.py").is_file():
        from scripts.datasets import MEANING, read_rows  # type: ignore[import-not-found]
        from scripts.evaluate import run  # type: ignore[import-not-found]
    else:
        from research.evaluation.evaluate import run
        from research.lib.datasets import MEANING, read_rows

    print(f"judging with {Path(companion.__file__).parent}", file=sys.stderr)
    nli = OnnxNLI(model or default_model_dir())
    judge = Judge(nli, nli.config, reader=load_reader(nli.config))
    with out.open("w", encoding="utf-8") as f:
        for fmt, data in SETS:
            rows = read_rows(root / data if data else MEANING)[:limit]
            _, results = run(judge, fmt, rows)
            for i, result in enumerate(results):
                f.write(json.dumps({"set": fmt, "line": i, **_verdict(result)}, ensure_ascii=False) + "\n")
    print(f"{nli.pairs_scored} pairs scored", file=sys.stderr)


def diff(before: Path, after: Path) -> int:
    def read(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
        with path.open(encoding="utf-8") as f:
            return {(v["set"], v["line"]): v for v in map(json.loads, f)}

    old, new = read(before), read(after)
    changed: dict[str, int] = {}
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        changed[key[0]] = changed.get(key[0], 0) + 1
        print(f"--- {key[0]} line {key[1]}")
        for field in sorted((a or {}).keys() | (b or {}).keys()):
            if (a or {}).get(field) != (b or {}).get(field):
                print(f"  {field}: {(a or {}).get(field)!r}\n  {'':{len(field)}}→ {(b or {}).get(field)!r}")
    for name, _ in SETS:
        total = sum(1 for k in old if k[0] == name)
        print(f"{name}: {changed.get(name, 0)} of {total} verdicts differ")
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("dump")
    d.add_argument("--tree", type=Path, default=HERE, help="the checkout whose companion judges")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--model", type=Path, default=None)
    d.add_argument("--limit", type=int, default=None)
    d.add_argument("--root", type=Path, default=HERE, help="the checkout whose runs/splits are read")
    c = commands.add_parser("diff")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        tree = args.tree.resolve()
        if not judges_here(tree):
            argv = ["dump", "--tree", str(tree), "--out", str(args.out.resolve())]
            argv += ["--root", str(args.root.resolve())]
            argv += ["--model", str(args.model.resolve())] if args.model else []
            argv += ["--limit", str(args.limit)] if args.limit is not None else []
            return run_in(tree, "research.evaluation.verdict_diff", argv)
        dump(tree, args.out, args.model, args.limit, args.root.resolve())
        return 0
    return diff(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
