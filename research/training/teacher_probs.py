"""The strong reader's probabilities over its own training pairs, for a student to learn (issue 37).

A distilled student (research/training/train_nli.py --teacher reads the teacher on every batch, which costs
more than the student's own step) can instead read the teacher's probabilities from a file made
once. They are small (three fp16 numbers a pair, under 1 MB for the reader's 97,996 pairs), so
no session labels the pairs twice (the reader's own, for the students of issue 37, are in git
history beside its state; issue 59 commits such a file only if it is small and ships a model).

The teacher is the reader as it is built (research/training/build_reader.py): the frozen base with
the trained fp16 adapters and head (from git history), loaded as training loaded them. The pairs
are the reader's plan (research/training/train_reader.py: the same mix, seed and batches, its
fingerprint checked against the committed state), so run this, like the reader's training, from a
checkout of the commit its PLAN.md names. Resumable: the probabilities read so far are kept
outside the work tree and the run goes on from there.

    python -m research.training.teacher_probs --base runs/mpnet/base/all-mpnet-base-v2 \\
        --state models/training/mpnet8-reader [--out runs/teacher]

Writes OUT/probs.npy (fp16, one row a pair in the plan's order: entailment, neutral,
contradiction) and OUT/probs.json (the plan's fingerprint, the pairs, how they were read).
Needs torch, transformers and peft (the `train` extra).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
from transformers import AutoTokenizer

from research.training.build_reader import adapters
from research.training.train_nli import encode
from research.training.train_reader import build_model, load_trainable, make_plan

HERE = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True, help="the all-mpnet-base-v2 folder")
    parser.add_argument("--state", type=Path, default=HERE / "models" / "training" / "mpnet8-reader")
    parser.add_argument("--out", type=Path, help="default: STATE/teacher")
    parser.add_argument("--data", type=Path, default=HERE.parent / "shared" / "data")
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    parser.add_argument("--partial", type=Path, default=Path.home() / ".cache" / "citelens" / "teacher")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--save-every", type=int, default=100, help="batches between partial saves")
    args = parser.parse_args()

    state = json.loads((args.state / "state.json").read_text())
    if state["step"] != state["total_steps"]:
        raise SystemExit(f"{args.state}: the reader's training is not finished (step {state['step']})")
    # The plan and the model as train_reader.py made them, from the state's own settings.
    for key in ("seed", "batch_size", "layers", "rank"):
        setattr(args, key, state[key])
    args.synthetic = 700
    torch.set_num_threads(args.threads)
    plan = make_plan(args)
    if plan.fingerprint != state["plan"]:
        raise SystemExit(
            f"this checkout makes plan {plan.fingerprint}, the reader trained on {state['plan']}: "
            "run from a checkout of the commit its PLAN.md names"
        )
    model = build_model(args)
    load_trainable(model, adapters(args.state, args.partial / "state"))
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(args.base)

    args.partial.mkdir(parents=True, exist_ok=True)
    partial = args.partial / f"{state['plan']}.npy"
    read = list(np.load(partial)) if partial.exists() else []
    done = len(read) // args.batch_size
    print(f"[teacher] {len(plan.batches)} batches, {done} read before", flush=True)
    started = time.monotonic()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        for i in range(done, len(plan.batches)):
            batch = plan.batches[i]
            logits = model(**encode(tokenizer, batch, state["max_length"])).logits.float()
            read.extend(torch.softmax(logits, dim=-1).numpy().astype(np.float16))
            if (i + 1) % args.save_every == 0 or i + 1 == len(plan.batches):
                np.save(partial, np.stack(read))
                rate = (i + 1 - done) * args.batch_size / (time.monotonic() - started)
                print(f"[teacher] {i + 1}/{len(plan.batches)} batches, {rate:.0f} pairs/s", flush=True)

    probs = np.stack(read)
    gold = np.array([label for batch in plan.batches for _, _, label in batch])
    out = args.out or args.state / "teacher"
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "probs.npy", probs)
    # Two-way rows carry a label past the three classes (train_nli.TWO_WAY): agreement is read
    # on the three-way rows only.
    three = gold < 3
    agreement = float((probs[three].astype(np.float32).argmax(1) == gold[three]).mean())
    (out / "probs.json").write_text(
        json.dumps(
            {
                "plan": state["plan"],
                "pairs": len(probs),
                "labels": ["entailment", "neutral", "contradiction"],
                "teacher": f"{args.state.name}: the frozen base with the committed fp16 adapters and "
                "head, bf16 autocast, max length " + str(state["max_length"]),
                "agreement_with_gold_3way": round(agreement, 4),
                "sha256": hashlib.sha256((out / "probs.npy").read_bytes()).hexdigest(),
            },
            indent=1,
        )
        + "\n"
    )
    print(f"[teacher] wrote {out}: {len(probs)} pairs, 3-way agreement with gold {agreement:.4f}")


if __name__ == "__main__":
    main()
