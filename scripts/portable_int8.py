"""Makes a dynamic-int8 model folder give the same numbers on every x86-64 CPU (issue 24).

Measured with research/evaluation/cpu_agreement.py (this CPU, AVX-512 VNNI, against qemu's Haswell-v4, AVX2
only; 100 pairs), two causes, each fixed here:

1. **Saturating int16 sums.** onnxruntime's u8×s8 kernels for AVX2 and AVX-512 without VNNI add
   two u8·s8 products into a saturating int16 (VPMADDUBSW); the VNNI and AMX kernels accumulate
   in int32. With weights in [-64, 64] a pair sum is at most 2·255·64 = 32,640 and cannot
   saturate, so every kernel computes the same integers. (The shipped 8-bit models: 0.389 and
   0.605 largest probability difference; with 7-bit weights alone: 0.005 and 0.156.)
2. **The attention softmax.** QAttention's softmax runs MLAS's sum-of-exponentials kernel, which
   adds 16 lanes at a time on AVX-512 and 8 on AVX2: the probabilities differ in the last bit.
   Alone that is harmless, but the next layer's dynamic quantization rounds activations to 1/255
   of their range, so a last-bit difference that crosses a rounding boundary becomes a whole
   step, and twelve layers compound it. Every other fp32 kernel in these graphs (MatMul, Exp,
   SkipLayerNormalization, BiasGelu, Tanh) gave bit-identical results on both CPUs. So each
   QAttention becomes the same attention in plain ops: the QKV product stays an integer
   MatMulInteger, and the softmax is ReduceMax, Exp, ReduceSum and Div, whose onnxruntime
   kernels are compiled once for every x86-64 CPU. A Softmax node the optimizer leaves outside
   QAttention (the cascade's reader's eight) becomes the same plain ops (portable_softmax).

Approximation, named: the 7-bit weights are rounded from the shipped 8-bit ones when the fp32
weights are lost (a shipped model), so they carry up to a quarter step more rounding error than a
fresh reduce_range export; and the plain-op attention is the same function as QAttention but not
the same float rounding. Both change the model's numbers slightly: recalibrate after this.

    python scripts/portable_int8.py models/citelens-minilm-nli              # in place
    python scripts/portable_int8.py models/citelens-e5-multilingual-nli --out runs/e5-portable

scripts/export_model.py applies the same to every new export. Needs onnx (`train` or `export`).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

WEIGHT_MAX = 64  # |w| <= 64: 2 * 255 * 64 = 32,640 fits int16 (onnxruntime's reduced int8 range)
MASKED = -1e30  # added to the scores of padding keys: exp() of it is 0
DETAIL = (
    "transformer ops fused (optimum ORTOptimizer, level 2), then dynamic int8 with uint8 "
    "activations and per-channel symmetric 7-bit weights in [-64, 64]; attention in plain ops "
    "with the softmax as ReduceMax/Exp/ReduceSum/Div (scripts/portable_int8.py): the same "
    "numbers on every x86-64 CPU (AVX2, AVX-512, VNNI, AMX)"
)


def make_portable(model: onnx.ModelProto) -> tuple[int, int]:
    """Every rewrite, in place; returns (weights requantized, attentions and softmaxes rewritten)."""
    attentions = portable_attention(model)  # first: its QKV weights become MatMulInteger weights
    return requantize_weights(model), attentions + portable_softmax(model)


def portable_softmax(model: onnx.ModelProto) -> int:
    """Replaces each Softmax node left in the graph with ReduceMax, Exp, ReduceSum and Div over
    its axis; returns how many. An attention the optimizer does not fuse into QAttention keeps a
    plain Softmax, and onnxruntime runs it with MLAS's per-instruction-set kernel: all-mpnet's
    relative position bias leaves the cascade's reader with eight, and its probabilities differed
    by up to 0.118 between an AVX-512 VNNI CPU and Haswell-v4
    (tests/companion/model/test_cpu_agreement.py)."""
    graph = model.graph
    nodes: list[onnx.NodeProto] = []
    count = 0
    for node in graph.node:
        if node.op_type != "Softmax" or node.domain not in ("", "ai.onnx"):
            nodes.append(node)
            continue
        axis = next((a.i for a in node.attribute if a.name == "axis"), -1)
        p = f"PortableSoftmax_{count}"
        _constant(graph, f"{p}_axis", np.array([axis], np.int64))
        make = helper.make_node
        nodes += [
            make("ReduceMax", [node.input[0], f"{p}_axis"], [f"{p}_max"], keepdims=1),
            make("Sub", [node.input[0], f"{p}_max"], [f"{p}_shifted"]),
            make("Exp", [f"{p}_shifted"], [f"{p}_exp"]),
            make("ReduceSum", [f"{p}_exp", f"{p}_axis"], [f"{p}_sum"], keepdims=1),
            make("Div", [f"{p}_exp", f"{p}_sum"], [node.output[0]]),
        ]
        count += 1
    del graph.node[:]
    graph.node.extend(nodes)
    return count


def requantize_weights(model: onnx.ModelProto) -> int:
    """Rewrites every MatMulInteger weight to [-WEIGHT_MAX, WEIGHT_MAX]; returns how many changed."""
    init = {t.name: t for t in model.graph.initializer}
    done = 0
    for weight_name, scale_name in _weight_scales(model, init).items():
        if init[weight_name].data_type != onnx.TensorProto.INT8:
            raise SystemExit(f"{weight_name}: expected int8 weights")
        q = numpy_helper.to_array(init[weight_name]).astype(np.int32)
        scale = numpy_helper.to_array(init[scale_name]).astype(np.float32)
        # Per-channel scales run along the output axis (the last); a scalar scale covers all.
        peak = np.abs(q).max(axis=0) if scale.ndim == 1 else np.abs(q).max()
        peak = np.maximum(peak, 1)
        if np.all(peak <= WEIGHT_MAX):
            continue  # already in range: a second run changes nothing
        ratio = np.maximum(peak / WEIGHT_MAX, 1.0)  # new step in old steps
        q7 = np.clip(np.round(q / ratio), -WEIGHT_MAX, WEIGHT_MAX).astype(np.int8)
        init[weight_name].CopyFrom(numpy_helper.from_array(q7, weight_name))
        new_scale = (scale * ratio).astype(np.float32).reshape(scale.shape)
        init[scale_name].CopyFrom(numpy_helper.from_array(new_scale, scale_name))
        done += 1
    return done


def portable_attention(model: onnx.ModelProto) -> int:
    """Replaces each QAttention node with MatMulInteger and plain-op attention; returns how many."""
    graph = model.graph
    if "attention_mask" not in {i.name for i in graph.input}:
        raise SystemExit("the graph has no attention_mask input to build the attention mask from")
    init = {t.name: t for t in graph.initializer}
    nodes: list[onnx.NodeProto] = []
    count = 0
    mask = _additive_mask(graph, nodes)
    for node in graph.node:
        if node.op_type != "QAttention":
            nodes.append(node)
            continue
        heads = next(a.i for a in node.attribute if a.name == "num_heads")
        hidden = numpy_helper.to_array(init[node.input[1]]).shape[1] // 3
        nodes += _attention(f"PortableAttention_{count}", node, heads, hidden, mask, graph)
        count += 1
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for n in graph.node for name in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return count


def _additive_mask(graph: onnx.GraphProto, nodes: list[onnx.NodeProto]) -> str:
    """(batch, 1, 1, keys): 0 for a real token, MASKED for padding, from the attention_mask input."""
    _constant(graph, "portable_one", np.array(1.0, np.float32))
    _constant(graph, "portable_masked", np.array(MASKED, np.float32))
    _constant(graph, "portable_axes_1_2", np.array([1, 2], np.int64))
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["portable_mask_f"], to=onnx.TensorProto.FLOAT),
        helper.make_node("Sub", ["portable_one", "portable_mask_f"], ["portable_pad"]),
        helper.make_node("Mul", ["portable_pad", "portable_masked"], ["portable_mask_add"]),
        helper.make_node("Unsqueeze", ["portable_mask_add", "portable_axes_1_2"], ["portable_mask"]),
    ]
    return "portable_mask"


def _attention(
    p: str, node: onnx.NodeProto, heads: int, hidden: int, mask: str, graph: onnx.GraphProto
) -> list[onnx.NodeProto]:
    x, weight, bias, x_scale, w_scale, _, x_zero, w_zero = node.input[:8]
    size = hidden // heads
    _constant(graph, f"{p}_split", np.array([hidden] * 3, np.int64))
    _constant(graph, f"{p}_heads", np.array([0, 0, heads, size], np.int64))
    _constant(graph, f"{p}_merged", np.array([0, 0, hidden], np.int64))
    _constant(graph, f"{p}_scale", np.array(1.0 / np.sqrt(size), np.float32))
    _constant(graph, f"{p}_last", np.array([-1], np.int64))
    make = helper.make_node
    return [
        make("MatMulInteger", [x, weight, x_zero, w_zero], [f"{p}_qkv_int"]),
        make("Cast", [f"{p}_qkv_int"], [f"{p}_qkv_f"], to=onnx.TensorProto.FLOAT),
        make("Mul", [x_scale, w_scale], [f"{p}_qkv_scale"]),
        make("Mul", [f"{p}_qkv_f", f"{p}_qkv_scale"], [f"{p}_qkv_scaled"]),
        make("Add", [f"{p}_qkv_scaled", bias], [f"{p}_qkv"]),
        make("Split", [f"{p}_qkv", f"{p}_split"], [f"{p}_q", f"{p}_k", f"{p}_v"], axis=2),
        *(make("Reshape", [f"{p}_{t}", f"{p}_heads"], [f"{p}_{t}_heads"]) for t in "qkv"),
        make("Transpose", [f"{p}_q_heads"], [f"{p}_q_t"], perm=[0, 2, 1, 3]),
        make("Transpose", [f"{p}_k_heads"], [f"{p}_k_t"], perm=[0, 2, 3, 1]),
        make("Transpose", [f"{p}_v_heads"], [f"{p}_v_t"], perm=[0, 2, 1, 3]),
        make("MatMul", [f"{p}_q_t", f"{p}_k_t"], [f"{p}_dot"]),
        make("Mul", [f"{p}_dot", f"{p}_scale"], [f"{p}_scaled"]),
        make("Add", [f"{p}_scaled", mask], [f"{p}_scores"]),
        make("ReduceMax", [f"{p}_scores", f"{p}_last"], [f"{p}_max"], keepdims=1),
        make("Sub", [f"{p}_scores", f"{p}_max"], [f"{p}_shifted"]),
        make("Exp", [f"{p}_shifted"], [f"{p}_exp"]),
        make("ReduceSum", [f"{p}_exp", f"{p}_last"], [f"{p}_sum"], keepdims=1),
        make("Div", [f"{p}_exp", f"{p}_sum"], [f"{p}_probs"]),
        make("MatMul", [f"{p}_probs", f"{p}_v_t"], [f"{p}_context"]),
        make("Transpose", [f"{p}_context"], [f"{p}_context_t"], perm=[0, 2, 1, 3]),
        make("Reshape", [f"{p}_context_t", f"{p}_merged"], [node.output[0]]),
    ]


def _constant(graph: onnx.GraphProto, name: str, value: np.ndarray) -> None:
    graph.initializer.append(numpy_helper.from_array(value, name))


def _weight_scales(model: onnx.ModelProto, init: dict[str, onnx.TensorProto]) -> dict[str, str]:
    """Each MatMulInteger weight and the float initializer that scales it.

    MatMulInteger's output is cast to float and multiplied by (activation scale × weight scale):
    the weight scale is the initializer input of the Mul that computes that product.
    """
    readers: dict[str, list[onnx.NodeProto]] = {}
    writer: dict[str, onnx.NodeProto] = {}
    for node in model.graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
        for name in node.output:
            writer[name] = node
    found: dict[str, str] = {}
    for node in model.graph.node:
        if node.op_type != "MatMulInteger":
            continue
        zero = node.input[3] if len(node.input) > 3 else ""
        if zero in init and np.any(numpy_helper.to_array(init[zero]) != 0):
            raise SystemExit(f"{node.name}: asymmetric weights (zero point not 0) are not handled")
        rescale = readers[readers[node.output[0]][0].output[0]][0]  # MatMulInteger -> Cast -> Mul
        product = next(n for n in rescale.input if n != readers[node.output[0]][0].output[0])
        scales = [n for n in writer[product].input if n in init]
        if len(scales) != 1:
            raise SystemExit(f"{node.name}: cannot find the weight scale behind {product}")
        found[node.input[1]] = scales[0]
    if not found:
        raise SystemExit("no MatMulInteger weights: not a dynamic-int8 model")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("model", type=Path, help="a models/<name>/ folder with an int8 model.onnx")
    parser.add_argument("--out", type=Path, help="write the rewritten folder here (default: in place)")
    args = parser.parse_args()
    out = args.out or args.model
    if out != args.model:
        shutil.copytree(args.model, out, dirs_exist_ok=True)
    model = onnx.load(str(args.model / "model.onnx"))
    weights, attentions = make_portable(model)
    onnx.checker.check_model(model)
    onnx.save(model, str(out / "model.onnx"))
    config_path = out / "config.json"
    config = json.loads(config_path.read_text())
    config["quantization_detail"] = DETAIL
    config_path.write_text(json.dumps(config, indent=2) + "\n")
    print(
        f"{out}: {attentions} attentions in plain ops, {weights} weight matrices to [-{WEIGHT_MAX}, "
        f"{WEIGHT_MAX}]"
    )


if __name__ == "__main__":
    main()
