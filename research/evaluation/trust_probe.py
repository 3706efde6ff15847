"""The trust probe (issue 36): NLI pairs nobody here trained on, cited as one-sentence answers.

Each pair becomes an answer sentence (the hypothesis) citing one page that holds the premise,
judged twice: the article alone, and the same article inside a site's chrome (header and menu,
cookie banner, newsletter box, related links, share bar, footer, an unrelated paragraph before
and after it; research/lib/chrome_pages.py). It reports how often green is given to a claim the page
contradicts and to one it entails, and how many verdicts the chrome changes.

The pages are read in-process (extraction, segmentation, the judge), not fetched through
`citelens serve`: the same code but for the fetch, an approximation named as one. --companion
runs another build's code (a `git worktree` of an older commit; research/lib/builds.py) on the same
pairs and pages.

    python -m research.evaluation.trust_probe [--data FILE:N ...] [--model DIR] [--companion DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from html import escape
from pathlib import Path

from research.lib.builds import judges_here, run_in

HERE = Path(__file__).resolve().parents[2]
DATA = HERE.parent / "shared" / "data"
# Held sets no model here trains on: LingNLI val (MNLI's genres), XNLI-en dev (MNLI-style pairs),
# and LingNLI val again with each premise among four others of the set ("+long": a multi-paragraph
# page whose other paragraphs are about something else, as a cited article's are).
DEFAULT_SETS = (
    f"{DATA}/nli_more/lingnli_val.jsonl.gz:150",
    f"{DATA}/multilingual/xnli_en_dev.jsonl.gz:150",
    f"{DATA}/nli_more/lingnli_val.jsonl.gz:150+long",
)
LABELS = ("entailment", "neutral", "contradiction")
URL = "https://probe.example.org/article"


def sample(spec: str, seed: int) -> list[dict]:
    """FILE:N[+long]: N rows, balanced over the three labels, seeded; +long puts each premise
    third among five paragraphs, the other four premises of other rows."""
    from research.lib.datasets import read_rows

    path, _, count = spec.rpartition(":")
    count, _, long = count.partition("+")
    rows = [r for r in read_rows(Path(path)) if r["label"] in LABELS]
    rng = random.Random(seed)
    rng.shuffle(rows)
    per = int(count) // len(LABELS)
    chosen = [r for label in LABELS for r in [x for x in rows if x["label"] == label][:per]]
    if long:
        others = [r["premise"] for r in rows[-500:]]
        chosen = [
            {**r, "premise": "\n".join([*rng.sample(others, 2), r["premise"], *rng.sample(others, 2)])}
            for r in chosen
        ]
    return chosen


def page(premise: str) -> str:
    paragraphs = "".join(f"<p>{escape(p.strip())}</p>" for p in premise.split("\n") if p.strip())
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Notes</title></head>'
        f"<body><article><h1>Notes</h1>{paragraphs}</article></body></html>"
    )


def _absolute(spec: str) -> str:
    """FILE:N[+long] with FILE made absolute, for a run in another folder."""
    path, _, count = spec.rpartition(":")
    return f"{Path(path).resolve()}:{count}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", action="append", default=[], metavar="FILE:N")
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--companion", type=Path, default=HERE, help="the build whose code judges")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=None, help="each verdict, as JSON lines")
    args = parser.parse_args()
    build = args.companion.resolve()
    if not judges_here(build):
        argv = ["--companion", str(build), "--seed", str(args.seed)]
        for spec in args.data:
            argv += ["--data", _absolute(spec)]
        argv += ["--model", str(args.model.resolve())] if args.model else []
        argv += ["--out", str(args.out.resolve())] if args.out else []
        sys.exit(run_in(build, "research.evaluation.trust_probe", argv))
    from companion.judging.judge import Judge
    from companion.model.folder import default_model_dir
    from companion.model.infer import OnnxNLI, load_reader
    from companion.records import Citation, SourceResult, Statement
    from companion.sources.extract import html_to_document
    from research.lib.chrome_pages import PLACEMENTS, wrap

    nli = OnnxNLI(args.model or default_model_dir())
    judge = Judge(nli, nli.config, reader=load_reader(nli.config))

    def verdict(claim: str, html: str) -> str:
        document = html_to_document(URL, html, max_chars=200_000)
        statement = Statement(0, claim, (0, len(claim)), (Citation("c1", "1", URL, len(claim)),))
        result = judge.judge(statement, {URL: SourceResult(URL, document)})
        return result.judgment + (" contradicted" if result.contradicted else "")

    rng = random.Random(args.seed)
    report: dict[str, dict] = {}
    lines = []
    for spec in args.data or DEFAULT_SETS:
        name = Path(spec.rpartition(":")[0]).name.split(".")[0] + ("_long" if spec.endswith("+long") else "")
        complete: Counter[tuple[str, str]] = Counter()
        changed = flips = 0
        for row in sample(spec, args.seed):
            bare_html = page(row["premise"])
            bare = verdict(row["hypothesis"], bare_html)
            wrapped = verdict(row["hypothesis"], wrap(bare_html, rng.choice(PLACEMENTS)))
            for kind, v in (("bare", bare), ("wrapped", wrapped)):
                complete[(kind, row["label"])] += v == "complete_support"
            changed += bare != wrapped
            flips += {bare.split()[0], wrapped.split()[0]} == {"complete_support", "no_support"} and (
                "contradicted" in bare + wrapped
            )
            lines.append({"set": name, **row, "bare": bare, "wrapped": wrapped})
        per = len(lines) and sum(1 for x in lines if x["set"] == name) // len(LABELS)
        report[name] = {
            "pairs": per * len(LABELS),
            "complete_given_contradiction": {k: complete[(k, "contradiction")] for k in ("bare", "wrapped")},
            "complete_given_entailment": {k: complete[(k, "entailment")] for k in ("bare", "wrapped")},
            "complete_given_neutral": {k: complete[(k, "neutral")] for k in ("bare", "wrapped")},
            "per_label": per,
            "verdicts_changed_by_chrome": changed,
            "complete_contradicted_flips": flips,
        }
    if args.out:
        args.out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    print(json.dumps({"model": nli.config.name, "version": nli.config.version, "sets": report}, indent=1))


if __name__ == "__main__":
    main()
