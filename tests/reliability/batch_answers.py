"""A generated batch for the audit-batch tests (test-only code): seeded answers of four engines,
in English and French, citing the fixture pages on a local site, and the site itself.

The site serves tests/fixtures/pages under /articles/NAME, a 404 for any other name, and under
/busy/NAME a 429 with `Retry-After: 1` to the first request for each name, then the page: a
polite fetcher waits and gets it. French answers send their pages inline, as the extension does
when it already has them. A few lines of the input are broken on purpose (MALFORMED).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp import web

__all__ = ["BEE_ANSWER", "ENGINES", "MALFORMED", "make_answers", "site_app", "write_input"]

_PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
ENGINES = ("perplexity", "google", "chatgpt", "copilot")

# Sentence → the pages it cites ("" for a dead link); () cites nothing. BEE_ANSWER is also the
# answer of tests/reliability/test_repeatable.py; _ENGLISH adds sentences citing a dead link.
BEE_ANSWER: list[tuple[str, tuple[str, ...]]] = [
    ("Honeybees tell each other where to find food with the waggle dance.", ("dance",)),
    (
        "The angle of the waggle run shows the direction of the food relative to the sun, "
        "and its duration shows the distance.",
        ("dance",),
    ),
    (
        "A summer colony holds one queen, a few hundred drones and tens of thousands of workers.",
        ("colony",),
    ),
    ("Worker bees live about six weeks in summer.", ("colony", "honey")),
    ("The queen can lay up to 2,000 eggs a day.", ("colony",)),
    ("Honeybees make honey from flower nectar.", ("honey",)),
    ("House bees fan the nectar with their wings until most of the water evaporates.", ("honey", "dance")),
    ("Beekeeping in man-made hives began in ancient Egypt about 2,000 years ago.", ("history",)),
    ("Modern movable-frame hives were introduced by Lorenzo Langstroth.", ("history",)),
    ("Tomatoes need at least six hours of direct sun a day.", ("colony",)),  # the wrong source
    ("Bees are also important pollinators of many crops.", ()),
    ("Choose a pot of at least twenty litres for a cherry tomato.", ("tomatoes",)),
]

_ENGLISH = [
    *BEE_ANSWER,
    ("Karl von Frisch won the Nobel Prize for decoding the dance.", ("dance", "")),
    ("Drones die after mating with the queen.", ("",)),
]

_FR_PAGE = """<html lang="fr"><head><title>La Grande Barrière de corail</title></head><body><article>
<h1>La Grande Barrière de corail</h1>
<p>La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres le long de la côte du
Queensland, en Australie. C'est le plus grand ensemble de récifs coralliens du monde.</p>
<p>On lit souvent qu'elle est visible depuis la Lune à l'œil nu. C'est faux : les astronautes
rapportent qu'on ne la distingue pas depuis la Lune, et à peine depuis l'orbite terrestre.</p>
<p>Le récif abrite plus de 1 500 espèces de poissons et environ 400 espèces de coraux durs.</p>
<p>Le récif est inscrit au patrimoine mondial de l'UNESCO depuis 1981.</p>
</article></body></html>"""
_FR_URL = "https://nature.example/grande-barriere"
_FRENCH = [
    "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres le long de l'Australie.",
    "Elle est visible depuis la Lune à l'œil nu.",
    "Le récif abrite plus de 1 500 espèces de poissons.",
    "Il est inscrit au patrimoine mondial de l'UNESCO depuis 1981.",
]

# (position in the input, 1-based, the broken line, what the error names)
MALFORMED = [
    (3, '{"page": {"engine": "perplexity"}, "answer": {"text": "cut off', "not valid JSON"),
    (9, json.dumps({"page": {"engine": "google"}, "answer": {}}), "answer.text"),
    (
        17,
        json.dumps(
            {
                "answer": {"text": "Short."},
                "citations": [{"id": "c1", "url": "https://a.example/", "offset": 99}],
            }
        ),
        "citations[0].offset",
    ),
]


def make_answers(base: str, count: int, seed: int = 28) -> list[dict[str, Any]]:
    """`count` /v1/verify bodies; every tenth (from the eighth) in French with its page inline."""
    rng = random.Random(seed)
    bodies = []
    for i in range(count):
        engine = ENGINES[i % len(ENGINES)]
        if i % 10 == 7:
            sentences = rng.sample(_FRENCH, rng.randint(2, 4))
            text = " ".join(sentences)
            citations, at = [], 0
            for k, sentence in enumerate(sentences):
                at = text.index(sentence) + len(sentence)
                citations.append({"id": f"c{k + 1}", "marker": "1", "url": _FR_URL, "offset": at})
            body = {
                "page": {
                    "url": f"https://{engine}.example/search/{i}",
                    "engine": engine,
                    "query": "que sait-on de la Grande Barrière de corail",
                    "captured_at": "2026-12-01T10:00:00Z",
                },
                "answer": {"text": text},
                "citations": citations,
                "sources": {_FR_URL: {"html": _FR_PAGE}},
            }
        else:
            picked = rng.sample(_ENGLISH, rng.randint(3, 6))
            text, citations = "", []
            busy = i % 6 == 1  # this answer's first page answers 429 with Retry-After first
            for sentence, cited in picked:
                text += ("" if not text else " ") + sentence
                for name in cited:
                    if not name:
                        url = f"{base}/articles/missing-{i}"
                    elif busy and not citations:
                        url = f"{base}/busy/{name}"
                    else:
                        url = f"{base}/articles/{name}"
                    citations.append(
                        {
                            "id": f"c{len(citations) + 1}",
                            "marker": str(len(citations) + 1),
                            "url": url,
                            "offset": len(text),
                        }
                    )
            body = {
                "page": {
                    "url": f"https://{engine}.example/search/{i}",
                    "engine": engine,
                    "query": "how do honeybees live",
                    "title": f"answer {i}",
                    "captured_at": "2026-12-01T10:00:00Z",
                },
                "answer": {"text": text},
                "citations": citations,
            }
        bodies.append(body)
    return bodies


def write_input(path: Path, bodies: list[dict[str, Any]], *, malformed: bool = True) -> list[int]:
    """The JSON Lines INPUT, broken lines at their MALFORMED positions; returns the positions
    (1-based, blank lines not counted) of the good bodies, in order."""
    broken = {at: line for at, line, _ in MALFORMED} if malformed else {}
    positions, lines, queue = [], [], list(bodies)
    while queue:
        at = len(lines) + 1
        if at in broken:
            lines.append(broken[at])
            continue
        lines.append(json.dumps(queue.pop(0), ensure_ascii=False))
        positions.append(at)
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")  # a trailing blank line is no answer
    return positions


def site_app(hits: Counter[str] | None = None) -> web.Application:
    counted: Counter[str] = Counter() if hits is None else hits

    async def page(request: web.Request) -> web.Response:
        counted[request.path] += 1
        path = _PAGES / f"{request.match_info['name']}.html"
        if not path.exists():
            raise web.HTTPNotFound(
                text="<html><body><h1>404 Not Found</h1></body></html>", content_type="text/html"
            )
        return web.Response(text=path.read_text(encoding="utf-8"), content_type="text/html")

    async def busy(request: web.Request) -> web.Response:
        if counted[request.path] == 0:
            counted[request.path] += 1
            return web.Response(status=429, text="slow down", headers={"Retry-After": "1"})
        return await page(request)

    app = web.Application()
    app.router.add_get("/articles/{name}", page)
    app.router.add_get("/busy/{name}", busy)
    return app
