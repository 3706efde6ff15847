"""`citelens audit-batch --ray ADDRESS`: the batch audit on a Ray cluster (Ray Data), the only
module that imports ray (an optional extra: `pip install 'citelens[ray]'`).

The driver does what must happen in one place and in order, as batch.py does: it numbers INPUT's
lines, looks each up in the journal, and stages the pending ones (with their number and hash) in
OUT/ray-pending.jsonl. Ray Data reads that file as a dataset (`local://`: on the driver's node,
the only one that sees OUT) and maps it through a pool of actors, each holding one Runtime: the
models load once per actor, and every answer goes through batch.audit_line, the very function of
the single-process run. Ray schedules the actors and streams the results back; the driver writes
each to the journal as it comes, then writes the outputs from the journal (batch.finish), so the
cards are byte-identical to a single-process run's (RUN_FIELDS aside) and in INPUT order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import warnings
from pathlib import Path
from typing import Any, Final

import numpy as np

from ..config import Settings
from ..errors import CiteLensError
from ..runtime import Runtime
from .journal import Entry, Journal
from .run import (
    BatchOptions,
    BatchStats,
    InputLine,
    audit_line,
    close_run,
    input_files,
    pending_lines,
    record,
    start_run,
)

__all__ = ["run_on_ray"]

log = logging.getLogger(__name__)

# One CPU per actor, running the model on one thread: onnxruntime gains little from a second
# thread on these small batches (docs/benchmarks.md), and one actor per core keeps every core
# busy with work that needs no coordination.
ACTOR_CPUS: Final = 1


class _Auditor:
    """A Ray Data actor: one Runtime (models, HTTP client, page cache) for all its answers."""

    def __init__(self, settings: Settings):
        self._loop = asyncio.new_event_loop()
        self._runtime = Runtime(settings)
        self._loop.run_until_complete(self._runtime.__aenter__())

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        lines = [InputLine(**json.loads(text)) for text in batch["text"]]
        entries = self._loop.run_until_complete(self._audit(lines))
        return {"entry": np.array([json.dumps(dataclasses.asdict(e)) for e in entries], dtype=object)}

    async def _audit(self, lines: list[InputLine]) -> list[Entry]:
        return list(await asyncio.gather(*(audit_line(self._runtime, line) for line in lines)))


def run_on_ray(
    settings: Settings,
    inputs: Path,
    out: Path,
    address: str,
    options: BatchOptions,
    *,
    actors: int | None = None,
) -> BatchStats:
    files = input_files(inputs)
    journal = Journal(out / "journal.sqlite3")
    staged = out / "ray-pending.jsonl"
    try:
        stats, progress = start_run(journal, settings, files, options)
        pending = 0
        with staged.open("w", encoding="utf-8") as stage:
            for line in pending_lines(files, journal, options, stats):
                # ASCII JSON: a line separator inside an answer must not split the staged line.
                stage.write(json.dumps(dataclasses.asdict(line)) + "\n")
                pending += 1
        if pending:
            _run(settings, staged, address, options, actors, lambda e: record(journal, e, stats, progress))
        staged.unlink(missing_ok=True)
        close_run(journal, out, inputs, stats, progress)
        return stats
    finally:
        journal.close()


def _run(
    settings: Settings, staged: Path, address: str, options: BatchOptions, actors: int | None, done: Any
) -> None:
    # Ray Data logs each dataset's plan at INFO; the batch's own progress line says what matters.
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    if address.split(":")[0] in ("127.0.0.1", "localhost"):
        # A cluster on this machine's loopback only (a test, a laptop): Ray would otherwise swap
        # 127.0.0.1 for the machine's outward address, which such a cluster does not listen on.
        # Read when ray is imported, hence the import below.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray  # here, not at the top: after the setting above

    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise CiteLensError(
            f"cannot join the Ray cluster at {address} ({exc}): start it with `ray start --head` "
            "(docs/batch.md), or give its address as HOST:PORT"
        ) from None
    try:
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False  # the batch's own bar says it with answers, not blocks
        cpus = float(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        count = actors or max(1, int(cpus // ACTOR_CPUS))
        with warnings.catch_warnings():
            # Ray 2.60 deprecates local:// for "after January 2027" (docs/batch.md says what then).
            warnings.filterwarnings("ignore", message=".*local://", category=DeprecationWarning)
            # Reading costs nothing next to judging: no CPU reserved, so it never waits for an actor's.
            dataset = ray.data.read_text(f"local://{staged.resolve()}", num_cpus=0)
        results = dataset.map_batches(
            _Auditor,
            fn_constructor_kwargs={"settings": dataclasses.replace(settings, onnx_threads=ACTOR_CPUS)},
            # An actor's batch is checked concurrently (its pages fetched while another is judged).
            batch_size=options.in_flight,
            compute=ray.data.ActorPoolStrategy(size=count),
            num_cpus=ACTOR_CPUS,
        )
        for row in results.iter_rows():
            done(Entry(**json.loads(row["entry"])))
    finally:
        ray.shutdown()
