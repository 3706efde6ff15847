"""Issue 58's four kinds of sentence (tests/fixtures/badges/answers.json) through the whole
companion, each inside its answer and alone: what each badge says, and whether it is right.

    python -m research.evaluation.badge_probe [--json OUT]

Pages go in inline (the request's `sources`), so nothing is fetched. Prints one line a sentence
and the counts the issue's "done when" reads: right verdicts, verdicts changed by neighbours.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from companion.config import Settings
from companion.runtime import Runtime
from companion.wire.capture import parse_request
from companion.wire.export import collect

ENGINE_PAGE = "https://www.perplexity.ai/search/x"
HERE = Path(__file__).resolve().parents[2]
FIXTURES = HERE / "tests" / "fixtures"
EXPECTED = {
    "supported": ("complete_support", False),
    "negated": ("no_support", True),
    "number": ("no_support", True),
    "topic": ("no_support", False),
}


def request(answer: dict, sentences: list[str]) -> dict:
    url = f"https://pages.example/{answer['page']}"
    html = (FIXTURES / "pages" / f"{answer['page']}.html").read_text(encoding="utf-8")
    text, citations = "", []
    for sentence in sentences:
        text += sentence
        citations.append({"id": f"c{len(citations) + 1}", "marker": "1", "url": url, "offset": len(text)})
        text += " "
    return {
        "page": {"url": ENGINE_PAGE, "engine": "perplexity", "query": answer["query"]},
        "answer": {"text": text.strip()},
        "citations": citations,
        "sources": {url: {"html": html}},
        "options": {"stream": False},
    }


def verdict(statement: dict) -> tuple[str, bool]:
    return statement["judgment"], bool(statement.get("contradicted"))


async def probe(settings: Settings) -> list[dict]:
    answers = json.loads((FIXTURES / "badges" / "answers.json").read_text(encoding="utf-8"))["answers"]
    rows = []
    async with Runtime(settings, fetch=False) as runtime:

        async def judged(body: dict) -> list[dict]:
            parsed = parse_request(body, settings.limits)
            result = await collect(runtime.verifier.run(parsed), runtime.model, "probe", units=parsed.units)
            return result["statements"]

        for answer in answers:
            sentences = [s for _, s in answer["sentences"]]
            together = await judged(request(answer, sentences))
            for (kind, sentence), inside in zip(answer["sentences"], together, strict=True):
                alone = (await judged(request(answer, [sentence])))[0]
                rows.append(
                    {
                        "page": answer["page"],
                        "language": answer["language"],
                        "kind": kind,
                        "sentence": sentence,
                        "inside": inside,
                        "alone": alone,
                        "right": verdict(inside) == EXPECTED[kind],
                        "same_alone": verdict(inside) == verdict(alone)
                        and inside.get("confidence") == alone.get("confidence"),
                    }
                )
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, help="write every statement's result here")
    args = ap.parse_args(argv)
    settings = Settings(use_cache=False)
    rows = asyncio.run(probe(settings))
    for r in rows:
        s = r["inside"]
        quotes = [e["text"][:50] for c in s.get("per_citation", []) for e in c.get("evidence", [])]
        print(
            f"{'ok ' if r['right'] else 'BAD'} {'   ' if r['same_alone'] else 'NBR'} {r['language']} "
            f"{r['kind']:9} {s['judgment']:16} {s.get('confidence') or '':4} "
            f"contra={bool(s.get('contradicted'))!s:5} "
            f"{s.get('score', 0):.2f} {r['sentence'][:60]!r} reasons={s.get('reasons')} quotes={quotes}"
        )
    print(f"right {sum(r['right'] for r in rows)} of {len(rows)}; "
          f"changed by neighbours {sum(not r['same_alone'] for r in rows)}")
    for kind in EXPECTED:
        kept = [r for r in rows if r["kind"] == kind]
        print(f"  {kind}: {sum(r['right'] for r in kept)}/{len(kept)}")
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
