"""Results held for their audit cards: bounded in number and in time."""

from __future__ import annotations

from companion.records import PageInfo
from companion.wire.results import Results


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_results_expire_after_their_time():
    clock = Clock()
    results = Results(keep=10, ttl_s=60, clock=clock)
    results.put("r_a", PageInfo(url="https://a.example/"), {"statements": []})
    clock.now = 59.0
    held = results.get("r_a")
    assert held is not None and held.page.url == "https://a.example/"
    clock.now = 60.0
    assert results.get("r_a") is None


def test_the_oldest_results_go_first_past_the_bound():
    results = Results(keep=2, ttl_s=60, clock=Clock())
    for name in ("r_1", "r_2", "r_3"):
        results.put(name, PageInfo(), {"statements": [], "name": name})
    assert results.get("r_1") is None
    assert [results.get(n).result["name"] for n in ("r_2", "r_3")] == ["r_2", "r_3"]  # type: ignore[union-attr]


def test_ids_are_unguessable_and_distinct():
    ids = {Results.new_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(i.startswith("r_") and len(i) == 18 for i in ids)
