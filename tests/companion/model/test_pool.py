"""The model's pool (issue 38): the earliest statement's calls first, in arrival order within one."""

from __future__ import annotations

import threading

import pytest

from companion.model.pool import ModelPool, reading_for


def test_an_idle_thread_takes_the_earliest_statements_call_first():
    pool = ModelPool(1)
    release = threading.Event()
    order: list[str] = []
    started = threading.Event()
    busy = pool.submit(lambda: started.set() or release.wait())  # holds the one thread meanwhile
    assert started.wait(timeout=10)
    futures = []
    for position, name in ((3, "third a"), (1, "first a"), (None, "outside"), (3, "third b"), (1, "first b")):
        if position is None:
            futures.append(pool.submit(order.append, name))
            continue
        with reading_for(position):
            futures.append(pool.submit(order.append, name))
    release.set()
    for future in (busy, *futures):
        future.result(timeout=10)
    assert order == ["first a", "first b", "third a", "third b", "outside"]
    pool.shutdown()


def test_a_calls_error_reaches_its_caller_and_a_shut_pool_refuses_work():
    pool = ModelPool(2)
    assert list(pool.map(lambda x: x * 2, [1, 2, 3])) == [2, 4, 6]
    with pytest.raises(ZeroDivisionError):
        pool.submit(lambda: 1 / 0).result(timeout=10)
    pool.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(print)


def test_shutting_down_cancels_the_calls_still_queued():
    pool = ModelPool(1)
    started, release = threading.Event(), threading.Event()
    busy = pool.submit(lambda: started.set() or release.wait())
    assert started.wait(timeout=10)
    queued = pool.submit(lambda: "never")
    pool.shutdown(wait=False, cancel_futures=True)
    release.set()
    assert busy.result(timeout=10) is True
    assert queued.cancelled()
