"""Two processes that start at once (`citelens serve` and `citelens token`) agree on one token."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from companion.service.pairing import load_or_create_token, read_token


def _take(args: tuple[str, object]) -> str:
    path, barrier = args
    barrier.wait()  # type: ignore[attr-defined]
    return load_or_create_token(Path(path))


def test_processes_starting_at_once_agree_on_one_token(tmp_path):
    context = multiprocessing.get_context("fork")
    for attempt in range(15):
        path = tmp_path / f"config-{attempt}" / "token"
        with context.Manager() as manager:
            barrier = manager.Barrier(6)
            with context.Pool(6) as pool:
                tokens = pool.map(_take, [(str(path), barrier)] * 6)
        assert len(set(tokens)) == 1, f"attempt {attempt}: {len(set(tokens))} tokens"
        assert read_token(path) == tokens[0]
        assert [p.name for p in path.parent.iterdir()] == ["token"]  # no temporary file left
