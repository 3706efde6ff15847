"""The NLI model: a models/<name>/ folder loaded into onnxruntime, scoring pairs in batches.

The only module that imports onnxruntime. A model folder holds `model.onnx`, `tokenizer.json` and
`config.json` (companion.model.folder), so switching models is one setting.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from ..config import Model
from ..errors import ModelUnavailable
from ..records import Entailment
from ..text.quantities import respell_quantities
from .folder import ModelConfig, default_model_dir, load_config
from .pool import ModelPool

__all__ = ["OnnxNLI", "load_reader", "model_pool"]


def model_pool(threads: int = 0) -> ModelPool:
    """The threads that run model calls, one core each: `threads`, or one per usable core.

    The runtime makes one and hands it to every model, so that two models at work (an English and a
    French statement at once) never use more cores than the machine has."""
    return ModelPool(threads or _usable_cores())


class OnnxNLI:
    """NLIBackend over onnxruntime. Thread-safe; loaded once per process and shared.

    `threads` model calls run side by side, each on one core. The calls are small (one pair each
    for int8), and small calls scale badly over cores: on 2 cores the benchmark answer took 1.37 s
    this way against 1.54 s with one call at a time on both cores, and batched fp32 calls ran as
    fast either way (docs/benchmarks.md). The pool (`model_pool`, shared by every model of the
    runtime) also caps the models' cores for the whole process, however many verifications run at
    once; a model loaded on its own, without `pool`, makes its own of `threads`.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int = 0,
        cache_pairs: int | None = None,
        max_batch: int | None = None,
        tuning: Model | None = None,
        pool: Executor | None = None,
    ):
        model_dir = model_dir or default_model_dir()
        self.config = load_config(model_dir)
        onnx_file = model_dir / "model.onnx"
        if not onnx_file.exists():
            raise ModelUnavailable(f"no model.onnx in {model_dir}")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
            self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except Exception as exc:  # onnxruntime and tokenizers raise their own untyped errors
            raise ModelUnavailable(f"cannot load the model in {model_dir}: {exc}") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.config.max_length, strategy="only_first")
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._entail = self.config.labels.index("entailment")
        labels = self.config.labels
        self._contra = labels.index("contradiction") if "contradiction" in labels else None
        self._cache: OrderedDict[tuple[str, str], Entailment] = OrderedDict()
        tuning = tuning or Model()
        self._cache_size = tuning.cache_pairs if cache_pairs is None else cache_pairs
        self._batch_tokens = tuning.batch_tokens
        # Dynamic int8 quantizes activations with one scale per call, taken over the whole batch:
        # a pair's score then depends on its batch mates (measured: 0.68 alone, 0.15 in a batch).
        # One pair per call makes every score a property of the pair alone. fp32 models batch safely.
        self.max_batch = max_batch or (1 if self.config.quantization == "int8" else tuning.max_batch)
        self._lock = threading.Lock()
        self._pool = pool or model_pool(threads)
        self.pairs_scored = 0  # model calls actually made, for the benchmark

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[Entailment]:
        results: list[Entailment | None] = []
        todo: dict[tuple[str, str], list[int]] = {}
        with self._lock:
            for i, pair in enumerate(pairs):
                hit = self._cache.get(pair)
                if hit is not None:
                    self._cache.move_to_end(pair)
                results.append(hit)
                if hit is None:
                    todo.setdefault(pair, []).append(i)
        if todo:
            fresh = self.score_uncached(list(todo))
            with self._lock:
                for pair, entailment in zip(todo, fresh, strict=True):
                    for i in todo[pair]:
                        results[i] = entailment
                    self._cache[pair] = entailment
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return [r for r in results if r is not None]

    def score_uncached(self, pairs: Sequence[tuple[str, str]], *, by_length: bool = True) -> list[Entailment]:
        """Model calls with no cache; `by_length=False` is the naive baseline of the benchmark.
        Each claim is read with the premise's spelling of the quantities both give (text.quantities)."""
        if not pairs:
            return []
        encodings = self._tokenizer.encode_batch([(p, respell_quantities(p, h)) for p, h in pairs])
        order = (
            sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
            if by_length
            else list(range(len(pairs)))
        )
        batches = list(self._batches(order, [len(e.ids) for e in encodings]))
        outputs = self._pool.map(self._run, [[encodings[i] for i in batch] for batch in batches])
        out: list[Entailment | None] = [None] * len(pairs)
        for batch, probabilities in zip(batches, outputs, strict=True):
            for i, probs in zip(batch, probabilities, strict=True):
                e = float(probs[self._entail])
                c = float(probs[self._contra]) if self._contra is not None else 0.0
                out[i] = Entailment(e, max(0.0, 1.0 - e - c), c)
        self.pairs_scored += len(pairs)
        return [o for o in out if o is not None]

    def _batches(self, order: list[int], lengths: list[int]) -> Iterator[list[int]]:
        """Consecutive runs of `order` that fit max_batch pairs and the batch's padded tokens."""
        start = 0
        while start < len(order):
            end = start + 1
            longest = lengths[order[start]]
            while end < len(order) and end - start < self.max_batch:
                longest = max(longest, lengths[order[end]])
                if longest * (end - start + 1) > self._batch_tokens:
                    break
                end += 1
            yield order[start:end]
            start = end

    def _run(self, encodings: list) -> np.ndarray:  # type: ignore[type-arg]
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def load_reader(config: ModelConfig, **options: Any) -> OnnxNLI | None:
    """The cascade's reader that `config` names (issue 37), loaded with `options`; None without one."""
    return OnnxNLI(config.cascade.reader.path, **options) if config.cascade else None


def _usable_cores() -> int:
    """The cores this process may run on (a container's share, not the host's count)."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, count)
