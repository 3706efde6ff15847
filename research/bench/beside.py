"""Speed and memory of this build beside an older one, interleaved (issue 59 item 5).

    python -m research.bench.beside --before TREE [--after TREE] [--rounds 3] [--runs N] [--skip-large]
                                    [--out FILE.jsonl]

Why interleaved: this machine's speed varies by day and by minute (the training job, other work;
two identical builds read 0.83x and 1.02x of each other here), so one build's figures taken after
the other's compare the minutes as much as the builds. Each round runs before, then after, each a
fresh bench process; a build's figure is the median of its rounds' warm medians, its peak RSS the
largest of its rounds'.

Each build runs its own bench (research/bench/bench.py, or scripts/bench.py before issue 61 moved
it: at 0.15.6 the two differ only in their imports) through research/lib/builds.py's `run_in`, so
the bench and the `citelens serve` it starts (`python -m companion.service.cli serve`, same folder
and environment) import the tree's companion; the version that command reports is printed and
checked against the tree's companion/__init__.py. Each build reads its own shipped model,
TREE/models/<DEFAULT_MODEL_NAME>, passed as --model (the installed package maps
`companion.default_models` to the main checkout's models/, whatever the tree).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.bench.bench import training_running
from research.lib.builds import ROOT, run_in

__all__ = ["RSS_BAR_MB", "WARM_BAR", "Build", "summary"]

# The bars: warm medians at most 1.1x of the older build's, peak RSS at most 400 MB.
WARM_BAR = 1.1
RSS_BAR_MB = 400.0
WORKLOADS = {"A": "12 sentences", "B": "40 sentences"}


@dataclass(frozen=True, slots=True)
class Build:
    label: str  # "before" or "after"
    tree: Path
    version: str  # from the tree's companion/__init__.py
    module: str  # its bench
    model: Path


def _read(tree: Path, path: str, pattern: str) -> str:
    found = re.search(pattern, (tree / path).read_text("utf-8"), re.MULTILINE)
    if not found:
        sys.exit(f"{tree}: no {pattern!r} in {path}")
    return found.group(1)


def build(label: str, tree: Path) -> Build:
    tree = tree.resolve()
    version = _read(tree, "companion/__init__.py", r'^__version__ = "([^"]+)"')
    name = _read(tree, "companion/config.py", r'^DEFAULT_MODEL_NAME[^=]*= "([^"]+)"')
    model = tree / "models" / name
    reader = json.loads((model / "config.json").read_text("utf-8")).get("cascade", {}).get("reader")
    for folder in [model] + ([model.parent / reader] if reader else []):
        if not (folder / "model.onnx").is_file():
            # Before 0.16.0 the reader was built by scripts/setup.sh, not committed; the one committed
            # in 0b595b4 is that build: `git archive 0b595b4 models/citelens-mpnet8-reader | tar -x -C TREE`.
            sys.exit(f"{label}: no {folder}/model.onnx (git-ignored in that build: build or extract it)")
    bench = "research.bench.bench" if (tree / "research/bench/bench.py").is_file() else "scripts.bench"
    return Build(label, tree, version, bench, model)


def run(b: Build, module: str, argv: list[str]) -> str:
    """`python -m module argv` with b's companion; its output, or the end of it and exit on failure."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        code = run_in(b.tree, module, argv, stdout=out)
        out.seek(0)
        text = out.read()
    if code != 0:
        sys.exit(f"{b.label} ({b.tree}): {module} exited {code}:\n{text[-3000:]}")
    return text


def figures(result: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Warm median (s) and peak RSS (MB) per workload of one bench --json line."""
    out = {"A": (float(result["warm_median_s"]), float(result["peak_rss_mb"]))}
    if result.get("large"):
        out["B"] = (float(result["large"]["warm_median_s"]), float(result["large"]["peak_rss_mb"]))
    return out


def summary(builds: dict[str, str], results: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The table and the verdict, from each build's bench results in round order.

    `builds`: label ("before", "after") -> its name in the table."""
    lines = [f"{'workload':18} {'build':18} {'warm median':>11}  {'peak RSS':>9}  rounds (warm s)"]
    verdicts, rss_after = [], 0.0
    for key, what in WORKLOADS.items():
        medians = {}
        for label, name in builds.items():
            rounds = [figures(r)[key] for r in results[label] if key in figures(r)]
            if not rounds:
                continue
            medians[label] = statistics.median(warm for warm, _ in rounds)
            rss = max(mb for _, mb in rounds)
            rss_after = max(rss_after, rss) if label == "after" else rss_after
            per_round = " ".join(f"{warm:.3f}" for warm, _ in rounds)
            row = f"{key} ({what})"
            lines.append(f"{row:18} {name:18} {medians[label]:>9.3f} s  {rss:>6.0f} MB  {per_round}")
        if len(medians) < 2:
            verdicts.append(f"{key} not measured")
            continue
        ratio = medians["after"] / medians["before"]
        lines.append(f"{'':18} {'after/before':18} {ratio:>9.3f}x  (bar <= {WARM_BAR}x)")
        verdicts.append(f"{key} {ratio:.3f}x {'met' if ratio <= WARM_BAR else 'MISSED'}")
    verdicts.append(f"after's peak RSS {rss_after:.0f} MB {'met' if rss_after <= RSS_BAR_MB else 'MISSED'}")
    missed, unmeasured = any("MISSED" in v for v in verdicts), any("not measured" in v for v in verdicts)
    passed = "FAIL" if missed else "INCOMPLETE" if unmeasured else "PASS"
    lines.append(
        f"verdict: {passed}: "
        + "; ".join(verdicts)
        + f" (bars: warm median <= {WARM_BAR}x of before's on A and B, peak RSS <= {RSS_BAR_MB:.0f} MB)"
    )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, required=True, help="the older build's checkout (a worktree)")
    parser.add_argument("--after", type=Path, default=ROOT, help="default: this checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=None, help="bench.py's --runs (default: its own)")
    parser.add_argument("--skip-large", action="store_true", help="only workload A (verdict INCOMPLETE)")
    parser.add_argument("--out", type=Path, default=None, help="every run's JSON, a line each")
    args = parser.parse_args()
    builds = [build("before", args.before), build("after", args.after)]
    names = {b.label: f"{b.label} {b.version}" for b in builds}
    for b in builds:
        reported = run(b, "companion.service.cli", ["--version"]).strip()
        print(f"{b.label}: {b.tree} · companion: {reported} · bench {b.module} · model {b.model}", flush=True)
        if reported.split()[-1] != b.version:
            sys.exit(f"{b.label}: the companion imported says {reported!r}, the tree {b.version}")
    argv = ["--json", *(["--runs", str(args.runs)] if args.runs else [])]
    argv += ["--skip-large"] if args.skip_large else []
    results: dict[str, list[dict[str, Any]]] = {b.label: [] for b in builds}
    for n in range(1, args.rounds + 1):
        for b in builds:
            result = json.loads(run(b, b.module, [*argv, "--model", str(b.model)]).strip().splitlines()[-1])
            results[b.label].append(result)
            shown = ", ".join(f"{k} {w:.3f} s {mb:.0f} MB" for k, (w, mb) in figures(result).items())
            # The older bench.py knows only scripts/train_*.py as the training job: asked here too.
            result["training_running"] = bool(result.get("training_running")) or training_running()
            busy = " (training job running)" if result["training_running"] else ""
            print(f"round {n}/{args.rounds} {names[b.label]}: warm {shown}{busy}", flush=True)
            if args.out:
                with args.out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({"build": b.label, "version": b.version, "round": n, **result}) + "\n")
    print("\n".join(summary(names, results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
