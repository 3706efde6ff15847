"""Writes pages into a PageCache until killed, printing each URL once put() has returned True.

    python cache_writer.py DB_PATH FIRST_INDEX [COUNT]

Run as a subprocess by test_cache_durability.py, which kills it with SIGKILL mid-run and then
checks that every printed URL can be read back. `page(i)` is deterministic, so the test can
check the content as well as the presence. Test-only code.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from companion.records import Document, Sentence
from companion.sources.cache import PageCache


def quick_document(url: str, title: str, sentences: list[str]) -> Document:
    """A Document with its sentence spans laid out here: the cache stores spans, not a splitter's view."""
    spans, at = [], 0
    for text in sentences:
        spans.append(Sentence(text, at, at + len(text)))
        at += len(text) + 1
    return Document(url=url, title=title, text=" ".join(sentences), sentences=tuple(spans))


def page(i: int) -> Document:
    rng = random.Random(i)
    words = ["hive", "comb", "nectar", "pollen", "queen", "drone", "forager", "dance", "colony", "brood"]
    # Sizes from 2 KB to about 120 KB: some writes span many database pages, so a kill lands mid-write.
    sentences = [
        " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))).capitalize() + "."
        for _ in range(rng.choice([20, 200, 1500]))
    ]
    return quick_document(f"https://pages.example/{i}", f"Page {i}", sentences)


def main() -> None:
    path, first = Path(sys.argv[1]), int(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10**9
    cache = PageCache(path, ttl_s=10**9, max_bytes=10**12)
    if not cache.enabled:
        print(f"DISABLED {cache.disabled_reason}", flush=True)
        return
    for i in range(first, first + count):
        document = page(i)
        if not cache.put(document):
            print(f"FAILED {cache.disabled_reason}", flush=True)
            return
        print(document.url, flush=True)


if __name__ == "__main__":
    main()
