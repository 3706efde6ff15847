"""scripts/portable_int8.py on a tiny checkpoint this test builds: the rewrite keeps the function.

The cross-CPU proof itself is tests/companion/model/test_cpu_agreement.py (the shipped models, natively and
under an emulated AVX2 CPU); this test shows that the plain-op attention computes what onnxruntime's
QAttention computes, and that the weights end in the range that cannot saturate.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("optimum.onnxruntime", reason="the `export` extra is not installed")

import onnx
import onnxruntime as ort
from onnx import numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

from scripts.portable_int8 import WEIGHT_MAX, portable_attention, portable_softmax, requantize_weights
from tests.scripts.test_export_model import export, tiny_checkpoint

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def qattention_model(tmp_path_factory) -> onnx.ModelProto:
    """The tiny BERT fused and quantized as export_model.py did before issue 24 (QAttention, 8-bit)."""
    tmp = tmp_path_factory.mktemp("portable")
    checkpoint = tiny_checkpoint(tmp / "ckpt", {0: "entailment", 1: "neutral", 2: "contradiction"})
    run = export(checkpoint, tmp / "models", "fp32", "--no-quantize")
    assert run.returncode == 0, run.stderr[-2000:]
    quantized = tmp / "int8.onnx"
    quantize_dynamic(
        tmp / "models" / "fp32" / "model.onnx",
        quantized,
        per_channel=True,
        weight_type=QuantType.QInt8,
        extra_options={"WeightSymmetric": True, "DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    model = onnx.load(str(quantized))
    assert any(n.op_type == "QAttention" for n in model.graph.node), "the fused graph has no QAttention"
    return model


def logits(model: onnx.ModelProto, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    names = {i.name for i in session.get_inputs()}
    return session.run(None, {k: v for k, v in feed.items() if k in names})[0]


def test_plain_op_attention_computes_what_qattention_computes(qattention_model):
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(qattention_model)
    attentions = sum(n.op_type == "QAttention" for n in qattention_model.graph.node)
    assert portable_attention(rewritten) == attentions
    onnx.checker.check_model(rewritten)
    assert not any(n.op_type == "QAttention" for n in rewritten.graph.node)
    rng = np.random.default_rng(7)
    ids = rng.integers(5, 18, size=(3, 12)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 8:] = 0  # a padded row: the masked keys must get no attention in both
    before, after = logits(qattention_model, ids, mask), logits(rewritten, ids, mask)
    # Float rounding differs (another order of operations), through two layers of dynamic
    # quantization; a misplaced transpose or a lost mask moves logits by whole units.
    assert np.abs(before - after).max() < 0.05, (before, after)


def test_weights_end_where_int16_sums_cannot_saturate(qattention_model):
    model = onnx.ModelProto()
    model.CopyFrom(qattention_model)
    portable_attention(model)
    assert requantize_weights(model) > 0
    assert requantize_weights(model) == 0  # a second run changes nothing
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    matmuls = [n for n in model.graph.node if n.op_type == "MatMulInteger"]
    weights = [init[n.input[1]] for n in matmuls if n.input[1] in init]
    assert weights and all(np.abs(w.astype(np.int32)).max() <= WEIGHT_MAX for w in weights)


def test_a_plain_softmax_becomes_plain_ops_with_the_same_values():
    """An attention the optimizer leaves unfused (all-mpnet's, with its position bias) keeps ONNX
    Softmax nodes, whose MLAS kernel differs by CPU: each becomes ReduceMax/Sub/Exp/ReduceSum/Div
    over its axis, with the same values."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3, 5])
    graph = helper.make_graph(
        [
            helper.make_node("Softmax", ["x"], ["y"], axis=-1),
            helper.make_node("Softmax", ["x"], ["z"], axis=1),
        ],
        "softmax",
        [x],
        [y, z],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    inputs = {"x": np.random.default_rng(3).normal(0, 4, (2, 3, 5)).astype(np.float32)}
    before = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, inputs
    )
    assert portable_softmax(model) == 2
    onnx.checker.check_model(model)
    assert not any(n.op_type == "Softmax" for n in model.graph.node)
    after = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, inputs
    )
    for a, b in zip(before, after, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)
