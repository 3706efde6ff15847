"""Averages two checkpoints of one network in weight space (WiSE-FT, Wortsman et al. 2022).

A model fine-tuned on new data loses some of what its start did well; the weights half-way
between the start and the fine-tuned model often keep most of both. Both folders must hold the
same architecture (Hugging Face `save_pretrained` layout, model.safetensors); the output takes
the fine-tuned folder's config and tokenizer.

    python scripts/wise_ft.py --start runs/minilm-0.3.0-fp32 --tuned runs/nli-06/final \\
        --alpha 0.5 --out runs/nli-07/final

`alpha` is the fine-tuned model's share: 0 gives the start, 1 the fine-tuned model.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from safetensors.torch import load_file, save_file


def average(start: Path, tuned: Path, alpha: float, out: Path) -> int:
    """Writes the averaged weights and the tuned folder's other files to `out`; returns how many
    tensors were averaged."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], not {alpha}")
    a = load_file(str(start / "model.safetensors"))
    b = load_file(str(tuned / "model.safetensors"))
    if a.keys() != b.keys() or any(a[k].shape != b[k].shape for k in a):
        raise ValueError(f"{start} and {tuned} are not the same network")
    merged = {
        k: ((1 - alpha) * a[k].float() + alpha * b[k].float()).to(b[k].dtype)
        if b[k].is_floating_point()
        else b[k]
        for k in b
    }
    out.mkdir(parents=True, exist_ok=True)
    for f in tuned.iterdir():
        if f.is_file() and f.name != "model.safetensors":
            shutil.copy2(f, out / f.name)
    save_file(
        {k: v.contiguous() for k, v in merged.items()},
        str(out / "model.safetensors"),
        metadata={"format": "pt"},
    )
    return sum(1 for k in b if b[k].is_floating_point())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--start", type=Path, required=True)
    parser.add_argument("--tuned", type=Path, required=True)
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    n = average(args.start, args.tuned, args.alpha, args.out)
    print(
        f"wrote {args.out}: {n} tensors at {args.alpha:g} of {args.tuned}, {1 - args.alpha:g} of {args.start}"
    )


if __name__ == "__main__":
    main()
