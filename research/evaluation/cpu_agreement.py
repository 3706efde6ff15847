"""Do the shipped models give the same numbers on every x86-64 CPU? (issue 24)

Scores a fixed set of pairs with each model on this CPU, then again in this same Python under
`qemu-x86_64 -cpu Haswell-v4` (Debian's qemu-user: an AVX2-only CPU, without VNNI, AVX-512 or
AMX), and compares the probabilities:

    python -m research.evaluation.cpu_agreement              # native vs Haswell-v4, every shipped model
    python -m research.evaluation.cpu_agreement --models runs/e5-7bit --pairs 20
    python -m research.evaluation.cpu_agreement --cpu Skylake-Server-v4   # AVX-512 without VNNI

The pairs: the first SNLI test pairs from ../shared/data (short sentences), then the written
claim/page pairs of tests/fixtures/meaning/pairs.jsonl (a claim against a 3–5 sentence page, as
the companion reads sources). Exits 1 when a probability differs by more than --tolerance or an
argmax flips. `score` is the half that runs inside the emulator; one emulator runs per core
(--workers), each on its share of the pairs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
from companion.model.cpu import int8_kernel  # noqa: E402
from companion.model.folder import default_model_dir  # noqa: E402
from companion.model.infer import OnnxNLI  # noqa: E402
from research.lib.datasets import MEANING, read_rows  # noqa: E402

SNLI_TEST = HERE.parent / "shared" / "data" / "snli" / "test.jsonl.gz"
TOLERANCE = 0.002
MODULE = "research.evaluation.cpu_agreement"  # what the emulator runs, in this checkout
EMULATED_CPU = "Haswell-v4"


def shipped_models() -> list[Path]:
    root = default_model_dir().parent
    return sorted(p for p in root.iterdir() if (p / "config.json").exists())


def fixed_pairs(count: int, snli: Path = SNLI_TEST) -> list[tuple[str, str]]:
    """`count` pairs: 60 % SNLI test (in file order), 40 % written claim/page pairs."""
    n_snli = round(count * 0.6)
    rows = [r for r in read_rows(snli) if r.get("label") in ("entailment", "neutral", "contradiction")]
    pairs = [(r["premise"], r["hypothesis"]) for r in rows[:n_snli]]
    pairs += [(r["page"], r["claim"]) for r in read_rows(MEANING)[: count - n_snli]]
    if len(pairs) != count:
        raise SystemExit(f"only {len(pairs)} pairs at hand, {count} asked for")
    return pairs


def score(models: list[Path], pairs: list[tuple[str, str]]) -> dict[str, object]:
    """Each model's probabilities for `pairs`, in the companion's own way (one pair per call)."""
    out: dict[str, object] = {"kernel": dataclasses.asdict(int8_kernel()), "models": {}}
    for model_dir in models:
        nli = OnnxNLI(model_dir, threads=1, cache_pairs=0)
        start = time.perf_counter()
        probs = [[e.entailment, e.neutral, e.contradiction] for e in nli.score_uncached(pairs)]
        out["models"][model_dir.name] = {  # type: ignore[index]
            "probabilities": probs,
            "sha256": nli.config.onnx_sha256,
            "seconds": round(time.perf_counter() - start, 2),
        }
    return out


def compare(native: dict, emulated: dict) -> list[dict[str, object]]:
    rows = []
    for name, mine in native["models"].items():
        theirs = emulated["models"][name]
        diffs = [
            max(abs(a - b) for a, b in zip(p, q, strict=True))
            for p, q in zip(mine["probabilities"], theirs["probabilities"], strict=True)
        ]
        flips = sum(
            p.index(max(p)) != q.index(max(q))
            for p, q in zip(mine["probabilities"], theirs["probabilities"], strict=True)
        )
        worst = max(range(len(diffs)), key=diffs.__getitem__)
        rows.append(
            {
                "model": name,
                "pairs": len(diffs),
                "largest_difference": max(diffs),
                "argmax_flips": flips,
                "worst_pair": worst,
                "native_s": mine["seconds"],
                "emulated_s": theirs["seconds"],
            }
        )
    return rows


def emulate(cpu: str, models: list[Path], count: int, qemu: str, workers: int) -> dict:
    """The emulated scores, the pairs dealt out to `workers` emulators at once (pair i to worker
    i % workers): each pair is scored alone in either case, so the split changes no number, and
    an emulated pair costs seconds, which one emulator spends on one core."""
    # Files, not pipes: an emulator blocked on a full pipe would wait for a reader busy with another.
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for w in range(workers):
            out, err = Path(tmp, f"{w}.json"), Path(tmp, f"{w}.err")
            with out.open("w") as stdout, err.open("w") as stderr:
                command = [qemu, "-cpu", cpu, sys.executable, "-m", MODULE, "score", "--pairs", str(count)]
                command += ["--part", f"{w}/{workers}", "--models", *(str(m.resolve()) for m in models)]
                runs.append((subprocess.Popen(command, stdout=stdout, stderr=stderr, cwd=HERE), out, err))
        parts = []
        try:
            for run, out, err in runs:
                # qemu warns once per run that TCG lacks features a server CPU names (pcid, x2apic…).
                if run.wait() != 0:
                    tail = err.read_text()[-2000:]
                    raise SystemExit(f"the emulated run failed ({run.returncode}):\n{tail}")
                parts.append(json.loads(out.read_text()))
        finally:
            for run, _, _ in runs:
                if run.poll() is None:
                    run.kill()
                    run.wait()
    merged: dict = {"kernel": parts[0]["kernel"], "models": {}}
    for name in parts[0]["models"]:
        shares = [part["models"][name] for part in parts]
        merged["models"][name] = {
            "probabilities": [shares[i % workers]["probabilities"][i // workers] for i in range(count)],
            "sha256": shares[0]["sha256"],
            "seconds": max(share["seconds"] for share in shares),
        }
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", nargs="?", choices=["compare", "score"], default="compare")
    parser.add_argument("--models", nargs="+", type=Path, help="model folders (default: every shipped one)")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--cpu", default=EMULATED_CPU, help="the qemu CPU model to compare with")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE)
    parser.add_argument("--json", type=Path, help="also write the comparison here")
    parser.add_argument(
        "--workers", type=int, default=len(os.sched_getaffinity(0)), help="emulators run at once"
    )
    parser.add_argument("--part", default="0/1", help="score: the pairs i, i+k, i+2k… of I/K only")
    args = parser.parse_args()
    models = args.models or shipped_models()
    pairs = fixed_pairs(args.pairs)
    if args.mode == "score":
        part, parts = map(int, args.part.split("/"))
        print(json.dumps(score(models, pairs[part::parts])))
        return
    qemu = shutil.which("qemu-x86_64")
    if qemu is None:
        raise SystemExit("qemu-x86_64 is missing: apt-get install qemu-user (scripts/setup.sh --dev does)")
    native = score(models, pairs)
    emulated = emulate(args.cpu, models, args.pairs, qemu, max(1, min(args.workers, args.pairs)))
    rows = compare(native, emulated)
    print(f"native int8 kernel: {native['kernel']}; emulated {args.cpu}: {emulated['kernel']}")
    print(f"{'model':34} {'pairs':>5} {'largest diff':>12} {'flips':>5} {'native s':>8} {'qemu s':>7}")
    for r in rows:
        print(
            f"{r['model']:34} {r['pairs']:>5} {r['largest_difference']:>12.6f} {r['argmax_flips']:>5} "
            f"{r['native_s']:>8} {r['emulated_s']:>7}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"native": native["kernel"], "emulated": emulated["kernel"], "cpu": args.cpu, "rows": rows},
                indent=2,
            )
            + "\n"
        )
    bad = [r for r in rows if r["largest_difference"] > args.tolerance or r["argmax_flips"]]
    if bad:
        raise SystemExit(f"{len(bad)} model(s) differ by more than {args.tolerance} or flip an argmax")


if __name__ == "__main__":
    main()
