"""Raw throughput of a model folder on SNLI test pairs (the model card's speed figures).

    python -m research.bench.model_speed --model models/citelens-minilm-nli [--compare runs/fp32] \\
        [--pairs 2000]

Prints pairs per second (batched by length, no cache) for each model, the model file size, and
the speed ratio. Figures depend on the machine; the model card names the one they come from.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from companion.model.infer import OnnxNLI
from research.lib.datasets import read_rows

HERE = Path(__file__).resolve().parents[2]


def speed(model: Path, pairs: list[tuple[str, str]], threads: int) -> dict:
    """Pairs per second as the companion runs the model, and batched by length (32 a call)."""
    out: dict = {"model": str(model), "size_mb": round((model / "model.onnx").stat().st_size / 1e6, 1)}
    for name, batch in (("pairs_per_s", None), ("pairs_per_s_batched", 32)):
        nli = OnnxNLI(model, threads=threads, max_batch=batch)
        nli.score_uncached(pairs[:64])  # warm-up: first calls allocate
        started = time.perf_counter()
        nli.score_uncached(pairs)
        out[name] = round(len(pairs) / (time.perf_counter() - started), 1)
        if batch is None:
            out["max_batch"] = nli.max_batch
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--compare", type=Path, help="a second model folder, e.g. the fp32 export")
    parser.add_argument(
        "--data", type=Path, default=HERE.parent / "shared" / "data" / "snli" / "test.jsonl.gz"
    )
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    rows = read_rows(args.data)
    random.Random(0).shuffle(rows)
    pairs = [(r["premise"], r["hypothesis"]) for r in rows[: args.pairs]]
    results = [speed(args.model, pairs, args.threads)]
    if args.compare:
        results.append(speed(args.compare, pairs, args.threads))
        results[0]["speedup_vs_compare"] = round(results[0]["pairs_per_s"] / results[1]["pairs_per_s"], 2)
    for r in results:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
