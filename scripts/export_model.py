"""Turns a sequence-classification checkpoint into a CiteLens model folder (models/<name>/).

Works on any Hugging Face NLI / fact-checking checkpoint, a local folder (such as the output of
research/training/train_nli.py) or a Hub id (needs internet): optimum exports it to ONNX and fuses its
transformer ops where it knows the architecture, then onnxruntime quantizes it to dynamic int8
that computes the same on every x86-64 CPU (scripts/portable_int8.py):

    pip install -e ".[export]"
    python -m scripts.export_model MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli --name deberta-nli
    python -m scripts.export_model runs/nli/final --name citelens-minilm-nli --per-channel \
        --fp32-copy runs/fp32

The label order is read from the checkpoint's own config (id2label) and written, normalised, into
config.json; two-label fact-checkers (supported / unsupported) map to entailment / neutral.
Then run research/evaluation/calibrate.py to fit the thresholds on held-out citation data.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
from scripts.portable_int8 import DETAIL as PORTABLE_DETAIL  # noqa: E402
from scripts.portable_int8 import make_portable  # noqa: E402

ALIASES = {
    "entailment": "entailment",
    "entail": "entailment",
    "entailed": "entailment",
    "supported": "entailment",
    "support": "entailment",
    "supports": "entailment",
    "attributable": "entailment",
    "consistent": "entailment",
    "neutral": "neutral",
    "not_entailment": "neutral",
    "unsupported": "neutral",
    "not_supported": "neutral",
    "not attributable": "neutral",
    "inconsistent": "neutral",
    "not_enough_info": "neutral",
    "contradiction": "contradiction",
    "contradict": "contradiction",
    "contradicted": "contradiction",
    "refutes": "contradiction",
    "refuted": "contradiction",
}


def normalise_labels(id2label: dict[int, str], override: list[str] | None) -> list[str]:
    names = override or [str(id2label[i]) for i in sorted(id2label)]
    labels = []
    for name in names:
        key = name.strip().lower()
        if key not in ALIASES:
            raise SystemExit(
                f"label {name!r} has no known meaning; name the labels in order with --labels, "
                "e.g. --labels entailment neutral contradiction"
            )
        labels.append(ALIASES[key])
    if "entailment" not in labels or len(set(labels)) != len(labels):
        raise SystemExit(f"labels {labels} must hold entailment once, and each label once")
    return labels


def fuse(model: Any, staging: Path) -> Path:
    """The transformer graph with attention, GELU and layer norms fused, where optimum knows the
    architecture; the plain export otherwise.

    Fused int8 MiniLM ran 1.8x faster than unfused int8 on 2 cores with the same held-out
    accuracy (model card); fp32 scores are unchanged by the fusion.
    """
    from optimum.onnxruntime import ORTOptimizer
    from optimum.onnxruntime.configuration import OptimizationConfig

    try:
        ORTOptimizer.from_pretrained(model).optimize(
            save_dir=staging / "fused",
            optimization_config=OptimizationConfig(optimization_level=2, optimize_for_gpu=False),
        )
    except (NotImplementedError, KeyError, ValueError) as exc:  # an architecture optimum cannot fuse
        print(f"graph fusion skipped ({exc}); exporting the unfused graph")
        return staging / "model.onnx"
    return staging / "fused" / "model_optimized.onnx"


def export(
    checkpoint: str,
    out: Path,
    *,
    name: str,
    quantize: bool,
    max_length: int,
    labels: list[str] | None,
    fp32_copy: Path | None,
    per_channel: bool,
    languages: list[str],
) -> Path:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from optimum.onnxruntime import ORTModelForSequenceClassification
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp)
        model = ORTModelForSequenceClassification.from_pretrained(checkpoint, export=True)
        tokenizer = AutoTokenizer.from_pretrained(checkpoint)
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        if not (staging / "tokenizer.json").exists():
            raise SystemExit("the checkpoint has no fast tokenizer (tokenizer.json); CiteLens needs one")
        order = normalise_labels(model.config.id2label, labels)
        onnx_file = fuse(model, staging)
        if fp32_copy:
            fp32_copy.mkdir(parents=True, exist_ok=True)
            shutil.copy(onnx_file, fp32_copy / "model.onnx")
            shutil.copy(staging / "tokenizer.json", fp32_copy / "tokenizer.json")
        if quantize:
            # Dynamic int8, symmetric 7-bit weights (reduce_range), uint8 activations, then the
            # attention in plain ops: the same numbers on every x86-64 CPU (scripts/portable_int8.py).
            # Called directly because the fused graph's contrib ops defeat shape inference, and
            # only onnxruntime's own entry point takes the default tensor type that works around it.
            # Compare with fp32 before shipping: research/evaluation/evaluate.py on both folders.
            quantized = staging / "model_int8.onnx"
            quantize_dynamic(
                onnx_file,
                quantized,
                per_channel=per_channel,
                reduce_range=True,
                weight_type=QuantType.QInt8,
                extra_options={"WeightSymmetric": True, "DefaultTensorType": onnx.TensorProto.FLOAT},
            )
            graph = onnx.load(str(quantized))
            make_portable(graph)
            onnx.save(graph, str(quantized))
            onnx_file = quantized
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(onnx_file, out / "model.onnx")
        shutil.copy(staging / "tokenizer.json", out / "tokenizer.json")
        config_path = out / "config.json"
        previous = json.loads(config_path.read_text()) if config_path.exists() else {}
        previous.update(
            {
                "name": name,
                "source": checkpoint,
                "labels": order,
                "max_length": max_length,
                "quantization": "int8" if quantize else "none",
                "quantization_detail": PORTABLE_DETAIL if quantize else "fp32",
                "languages": languages,
            }
        )
        config_path.write_text(json.dumps(previous, indent=2) + "\n")
        if fp32_copy:
            (fp32_copy / "config.json").write_text(
                json.dumps({**previous, "quantization": "none"}, indent=2) + "\n"
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("checkpoint", help="a local folder or a Hugging Face Hub id")
    parser.add_argument("--name", required=True, help="folder name under --models")
    parser.add_argument("--models", type=Path, default=HERE / "models")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--no-quantize", dest="quantize", action="store_false")
    parser.add_argument("--per-channel", action="store_true", help="per-channel int8 weights")
    parser.add_argument("--labels", nargs="+", help="label names in the checkpoint's output order")
    parser.add_argument(
        "--languages", nargs="+", default=["en"], help="trained and measured on (routes statements)"
    )
    parser.add_argument("--fp32-copy", type=Path, help="also write the fp32 model here, for comparison")
    args = parser.parse_args()
    out = export(
        args.checkpoint,
        args.models / args.name,
        name=args.name,
        quantize=args.quantize,
        max_length=args.max_length,
        labels=args.labels,
        fp32_copy=args.fp32_copy,
        per_channel=args.per_channel,
        languages=args.languages,
    )
    size = (out / "model.onnx").stat().st_size / 1e6
    print(
        f"wrote {out} (model.onnx {size:.1f} MB); next: "
        f"python -m research.evaluation.calibrate --model {out}"
    )


if __name__ == "__main__":
    main()
