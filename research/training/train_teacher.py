"""Trains the reader's teacher (issue 59): all-mpnet-base-v2, all 12 layers fully fine-tuned, as a
3-way NLI cross-encoder, in runs that stop and resume anywhere.

Its plan (research/training/teacher12/PLAN.md) is made once and written into the run's folder
outside the work tree (`~/.cache/citelens-train/<run>/plan.jsonl.gz`): every pair in the order it is
read. A resume reads that file, never re-derives it, so the companion's code (which makes the
citation pairs) may change while a run is under way. The folder also holds the checkpoint (weights,
Adam's moments, the scheduler, the random state, the step; about 1.3 GB, written every
--save-minutes) and the log. The log is also appended to --log in the work tree, to be committed.
Nothing of the training state goes into git.

    python -m research.training.train_teacher --base ~/.cache/citelens/mpnet-base/all-mpnet-base-v2

The same script trains on a GPU (`--device cuda`): `--pack FILE` writes the plan and held pairs into
one file to carry there, and `--from-pack FILE` trains from it with no ../shared/data beside it.
A finished run writes the network (fp32, Hugging Face folder) to `<run>/final`, and each finished
epoch's to `<run>/epoch-<n>`.

Needs torch and transformers (the `train` extra).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# oneDNN caches a kernel per tensor shape; length-bucketed batches meet hundreds of shapes and the
# cache grew a reader run to 12 GB (models/training/mpnet8-reader3/PLAN.md). Read when torch loads.
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from research.training.train_nli import NOT_ENTAILED, batches, encode, nli_loss, shuffled_pairs

LABELS = ("entailment", "neutral", "contradiction")
Pair = tuple[str, str, int]
HERE = Path(__file__).resolve().parents[2]

# The teacher's mix, fixed in PLAN.md before the run: FILE under the data folder, and at most how
# many rows (None: all). Every English training set of ../shared/data; template sets (HANS, Breaking
# NLI) capped so they do not teach their templates. FEVER is handled apart (its fresh held part).
MIX: tuple[tuple[str, int | None], ...] = (
    ("nli_more/lingnli_train.jsonl.gz", None),
    ("snli/train_100k.jsonl.gz", 20000),
    ("nli_more/taxinli_mnli_train.jsonl.gz", None),
    ("nli_more/conjnli_adversarial_train.jsonl.gz", 8000),
    ("nli_more/breaking_nli.jsonl.gz", 3000),
    ("nli_more/negation_nli.jsonl.gz", None),
    ("nli_more/med_monotonicity.jsonl.gz", 3000),
    ("nli_extra/cad_snli_train.jsonl.gz", None),
    ("nli_extra/hans_generated.jsonl.gz", 4000),
    ("nli_extra/factcg_cg2c_doc.jsonl.gz", None),
    ("nli_extra/factcg_cg2c_musique_negatives.jsonl.gz", None),
)
# Held pairs read every --eval-every steps (never trained on): LingNLI val and XNLI-en dev.
HELD = (("nli_more/lingnli_val.jsonl.gz", 600), ("multilingual/xnli_en_dev.jsonl.gz", 600))


def pairs_of(path: Path, rng: random.Random, limit: int | None) -> list[Pair]:
    rows = shuffled_pairs(path, rng)[:limit]
    print(f"[mix] {path.name}: {len(rows)} rows", flush=True)
    return rows


def make_plan(data: Path, splits: Path, seed: int, epochs: int, batch_size: int) -> list[list[Pair]]:
    """Every batch of every epoch, in order (each epoch the same pairs, shuffled anew)."""
    from research.data.citation_pairs import citation_pairs, synthetic_pairs
    from research.data.fever_held import trained_rows

    rng = random.Random(seed)
    pairs = [p for name, limit in MIX for p in pairs_of(data / name, rng, limit)]
    # FEVER: only the 8,000 rows the shipped reader read; the rest are its fresh held part
    # (research/data/fever_held.py), which stays unread.
    fever = trained_rows(data, 13)
    print(f"[mix] fever_dev_rte (the reader's rows): {len(fever)}", flush=True)
    cited = citation_pairs(splits, rng) + synthetic_pairs(splits, 700, rng)
    print(f"[mix] citation and synthetic pairs (train parts): {len(cited)}", flush=True)
    pairs += fever + cited
    plan: list[list[Pair]] = []
    for _ in range(epochs):
        plan += batches(pairs, batch_size, rng)
    return plan


def held_pairs(data: Path, seed: int) -> list[Pair]:
    rng = random.Random(seed)
    return [p for name, limit in HELD for p in shuffled_pairs(data / name, rng)[:limit]]


def write_pairs(path: Path, rows: list) -> None:
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def read_pairs(path: Path) -> list:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@dataclass(frozen=True)
class Run:
    """A run's folder outside the work tree and what it holds."""

    folder: Path

    @property
    def plan_file(self) -> Path:
        return self.folder / "plan.jsonl.gz"

    @property
    def held_file(self) -> Path:
        return self.folder / "held.jsonl.gz"

    @property
    def checkpoint(self) -> Path:
        return self.folder / "checkpoint.pt"

    def settings(self) -> dict:
        return json.loads((self.folder / "settings.json").read_text())


class Log:
    """Lines to stdout, the run's own log and the committed copy."""

    def __init__(self, *paths: Path) -> None:
        self.paths = paths
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(self, line: str) -> None:
        stamped = f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} {line}"
        print(stamped, flush=True)
        for path in self.paths:
            with path.open("a", encoding="utf-8") as f:
                f.write(stamped + "\n")


def build_model(base: Path, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)  # the head's start, the same on every run
    model = AutoModelForSequenceClassification.from_pretrained(
        base,
        num_labels=3,
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    # Embeddings frozen: about 7 % faster per step (training.md), and the vocabulary's vectors
    # keep what mpnet's pre-training gave words the NLI data never shows.
    model.base_model.embeddings.requires_grad_(False)
    return model


@torch.no_grad()
def held_figures(
    model: torch.nn.Module, tokenizer, held: list[Pair], device: str, dtype: torch.dtype | None
) -> tuple[float, float]:
    """Mean loss and 3-way accuracy on the held pairs."""
    model.eval()
    losses, right = [], 0
    for i in range(0, len(held), 64):
        chunk = held[i : i + 64]
        enc = encode(tokenizer, chunk, 256).to(device)
        with torch.autocast(device.split(":")[0], dtype=dtype or torch.float32, enabled=dtype is not None):
            logits = model(**enc).logits.float()
        labels = torch.tensor([p[2] for p in chunk], device=device)
        losses.append(nli_loss(logits, labels).item() * len(chunk))
        right += int((logits.argmax(-1) == labels).sum())
    model.train()
    return sum(losses) / len(held), right / len(held)


def train(args: argparse.Namespace, run: Run, log: Log) -> None:
    settings = run.settings()
    plan: list[list[Pair]] = [[tuple(p) for p in batch] for batch in read_pairs(run.plan_file)]
    held = [tuple(p) for p in read_pairs(run.held_file)]
    total, per_epoch = len(plan), len(plan) // settings["epochs"]
    device = args.device
    dtype = None if args.fp32 else torch.bfloat16
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    model = build_model(args.base, settings["seed"]).to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings["lr"], weight_decay=0.01)
    warmup = max(1, int(0.06 * total))

    def factor(step: int) -> float:
        return min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    step = 0
    if run.checkpoint.exists():
        state = torch.load(run.checkpoint, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        step = state["step"]
        log(f"[resume] step {step}/{total} from {run.checkpoint}")
    else:
        epochs, size = settings["epochs"], settings["batch_size"]
        log(f"[start] {total} steps ({epochs} epochs of {per_epoch}), batch {size}")

    def save() -> None:
        state = {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "step": step,
        }
        tmp = run.checkpoint.with_suffix(".tmp")
        torch.save(state, tmp)
        os.replace(tmp, run.checkpoint)
        log(f"[save] step {step}/{total}")

    model.train()
    started, at_start, last_save, loss_sum, seen = time.time(), step, time.time(), 0.0, 0
    while step < total:
        batch = plan[step]
        labels = torch.tensor([p[2] for p in batch], device=device)
        with torch.autocast(device.split(":")[0], dtype=dtype or torch.float32, enabled=dtype is not None):
            logits = model(**encode(tokenizer, batch, settings["max_length"]).to(device)).logits
        loss = nli_loss(logits.float(), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        loss_sum, seen = loss_sum + loss.item(), seen + 1
        if step % args.log_every == 0:
            rate = (step - at_start) / (time.time() - started)
            log(
                f"[train] step {step}/{total} loss {loss_sum / seen:.4f} "
                f"{rate * settings['batch_size']:.1f} pairs/s eta {(total - step) / rate / 3600:.1f} h"
            )
            loss_sum, seen = 0.0, 0
        if step % args.eval_every == 0 or step % per_epoch == 0:
            held_loss, accuracy = held_figures(model, tokenizer, held, device, dtype)
            log(f"[held] step {step}/{total} loss {held_loss:.4f} 3-way {accuracy:.4f} ({len(held)} pairs)")
        if step % per_epoch == 0:
            model.save_pretrained(run.folder / f"epoch-{step // per_epoch}")
            tokenizer.save_pretrained(run.folder / f"epoch-{step // per_epoch}")
            log(f"[epoch] {step // per_epoch} written to {run.folder / f'epoch-{step // per_epoch}'}")
        out_of_time = args.max_minutes is not None and time.time() - started > args.max_minutes * 60
        if step < total and (time.time() - last_save > args.save_minutes * 60 or out_of_time):
            save()
            last_save = time.time()
        if out_of_time:
            log(f"[stop] --max-minutes reached at step {step}/{total}")
            return
    model.save_pretrained(run.folder / "final")
    tokenizer.save_pretrained(run.folder / "final")
    run.checkpoint.unlink(missing_ok=True)
    log(f"[done] {run.folder / 'final'}")


def prepare(args: argparse.Namespace, run: Run, log: Log) -> None:
    """The run's plan, held pairs and settings, written once."""
    if (run.folder / "settings.json").exists():
        return
    run.folder.mkdir(parents=True, exist_ok=True)
    if args.from_pack:
        pack = json.loads(gzip.decompress(args.from_pack.read_bytes()))
        plan, held, settings = pack["plan"], pack["held"], pack["settings"]
    else:
        plan = make_plan(args.data, args.splits, args.seed, args.epochs, args.batch_size)
        held = held_pairs(args.data, args.seed)
        settings = {
            "seed": args.seed,
            "epochs": args.epochs,
            "batch_size": args.batch_size,
            "lr": args.lr,
            "max_length": args.max_length,
        }
    if args.limit_steps:  # a dry run on a tiny model before a GPU's minutes are spent
        per_epoch = len(plan) // settings["epochs"]
        plan = [b for e in range(settings["epochs"]) for b in plan[e * per_epoch :][: args.limit_steps]]
        held = held[: 64]
    write_pairs(run.plan_file, plan)
    write_pairs(run.held_file, held)
    (run.folder / "settings.json").write_text(json.dumps(settings, indent=1) + "\n")
    counts = [sum(1 for b in plan for p in b if p[2] == i) for i in (*range(len(LABELS)), NOT_ENTAILED)]
    pairs = sum(map(len, plan))
    log(f"[plan] {len(plan)} batches, {pairs} pairs; labels e/n/c/not-e {counts}; settings {settings}")


def pack(run: Run, out: Path) -> None:
    """The plan, held pairs and settings in one file, to train elsewhere (a GPU machine)."""
    data = {"plan": read_pairs(run.plan_file), "held": read_pairs(run.held_file), "settings": run.settings()}
    out.write_bytes(gzip.compress(json.dumps(data, ensure_ascii=False).encode(), 6))
    print(f"packed {run.folder} into {out} ({out.stat().st_size / 2**20:.1f} MiB)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="the all-mpnet-base-v2 folder")
    ap.add_argument("--run", default="teacher12")
    ap.add_argument("--root", type=Path, default=Path.home() / ".cache" / "citelens-train")
    ap.add_argument("--data", type=Path, default=HERE.parent / "shared" / "data")
    ap.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    ap.add_argument("--log", type=Path, help="a copy of the log in the work tree (committed)")
    ap.add_argument("--seed", type=int, default=59)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--max-length", type=int, default=160)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--fp32", action="store_true", help="no bf16 autocast (a CPU without AVX512_BF16 or AMX)")
    ap.add_argument("--save-minutes", type=float, default=20.0)
    ap.add_argument("--eval-every", type=int, default=400)
    ap.add_argument("--log-every", type=int, default=25)
    ap.add_argument("--max-minutes", type=float)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--pack", type=Path, help="write the run's plan into this file and stop")
    ap.add_argument("--from-pack", type=Path, help="prepare the run from a --pack file")
    ap.add_argument("--limit-steps", type=int, help="keep this many steps per epoch (a dry run)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    run = Run(args.root / args.run)
    log = Log(run.folder / "log.txt", *([args.log] if args.log else []))
    prepare(args, run, log)
    if args.pack:
        pack(run, args.pack)
        return
    if not args.fp32 and args.device == "cpu" and not torch.ops.mkldnn._is_mkldnn_bf16_supported():
        sys.exit("this CPU has no bf16 instructions: bf16 autocast runs ~35x slower than fp32; use --fp32")
    train(args, run, log)


if __name__ == "__main__":
    main()
