"""Follows one statement through Judge.judge and counts how often it comes back to a module it
had already left (issue 38).

    python -m research.evaluation.trace_modules [--tree DIR] [--statement N] [--model DIR] [--verbose]
        [--calls FROM TO]

The statement is the N-th of the bundled example answer (companion/examples/answer.json), its
pages read inline as the companion reads them (extraction, then the page's analysis), judged with
the real model. A profile hook sees every call from one companion module into another. The path
of the statement is the list of distinct call sites, caller function → callee function, across
modules, in the order first taken; a loop that takes the same call again adds nothing, so the
figure describes the code's shape, not the page's length. Consecutive call sites into the same
module are one visit; a visit to a module the path had visited before, with another module in
between, is a return: a module's first visit is the way the data flows, each later one a stage
asking an earlier one again.
The data's path (`data_path`, the measure of issue 61): the modules the statement stays in, in
order, where a call into another module and the return out of it are each a step (the judge
that hands the data to the claim stage and takes it back is visited again); a call site taken
before is not followed again. Its `returns` are the stays in a module the path had already left.
`judging_path` is the same path through the judging package's modules alone.
`--calls FROM TO` also counts every call from one module into another, each time it is made.
`--tree` judges with another checkout's companion (a worktree of an older build; research/lib/builds.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from research.lib.builds import judges_here, run_in

HERE = Path(__file__).resolve().parents[2]


def _module(frame: FrameType, package: str) -> str | None:
    """The dotted companion module a frame runs in ("judging.judge"); None outside companion."""
    path = frame.f_code.co_filename
    if not path.startswith(package) or not path.endswith(".py"):
        return None
    return ".".join(Path(path[len(package) :]).with_suffix("").parts)


def trace(
    index: int, model: Path | None
) -> tuple[list[tuple[str, str, str, str]], list[str], Counter[tuple[str, str]]]:
    import companion
    from companion.config import Limits
    from companion.judging.judge import Judge
    from companion.model.folder import default_model_dir
    from companion.model.infer import OnnxNLI, load_reader
    from companion.records import SourceResult
    from companion.sources.extract import html_to_document
    from companion.text import retrieve
    from companion.text.segment import statements
    from companion.wire.capture import parse_request

    package = str(Path(companion.__file__).parent) + "/"
    print(f"judging with {package}", file=sys.stderr)
    body = json.loads((Path(package) / "examples" / "answer.json").read_text(encoding="utf-8"))
    limits = Limits()
    request = parse_request(body, limits)
    # The pages as the pipeline's loader makes them: extracted, then analysed once.
    prepare = getattr(retrieve, "index_page", None) or (lambda d: d)
    sources = {
        url: SourceResult(url, prepare(html_to_document(url, s.html, max_chars=limits.max_extracted_chars)))
        for url, s in request.sources.items()
    }
    statement = statements(request.answer_text, request.citations, request.page.query)[index]
    print(f"statement {index}: {statement.text!r}, {len(statement.citations)} citations", file=sys.stderr)
    nli = OnnxNLI(model or default_model_dir())
    judge = Judge(nli, nli.config, reader=load_reader(nli.config))
    judge.judge(statement, sources)  # imports and first calls out of the way; then a cold pair cache
    judge.nli = OnnxNLI(model or default_model_dir())

    edges: dict[tuple[str, str, str, str], None] = {}
    # The data's path (the issue 61 measure): the modules the statement stays in, a call into
    # another module and the return out of it each a step; a call site taken before is not
    # followed again, so a loop adds nothing.
    stays = ["judging.judge"]
    skipping: list[FrameType] = []
    # Every call from one module into another, however often the same call site is taken.
    calls: Counter[tuple[str, str]] = Counter()

    def stay(module: str) -> None:
        if stays[-1] != module:
            stays.append(module)

    def hook(frame: FrameType, event: str, _: Any) -> None:
        if event not in ("call", "return") or frame.f_back is None:
            return
        if event == "call":
            into, out_of = _module(frame, package), _module(frame.f_back, package)
            if into and out_of and into != out_of:
                calls[out_of, into] += 1
        if skipping:
            if event == "return" and frame is skipping[0]:
                skipping.clear()
            return
        callee = _module(frame, package)
        caller = _module(frame.f_back, package)
        if callee is None or caller is None or callee == caller:
            return
        if event == "return":
            stay(caller)
            return
        site = (caller, frame.f_back.f_code.co_name, callee, frame.f_code.co_name)
        if site in edges:
            skipping.append(frame)
            return
        edges[site] = None
        stay(callee)

    sys.setprofile(hook)
    try:
        judge.judge(statement, sources)
    finally:
        sys.setprofile(None)
    return list(edges), stays, calls


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, default=HERE)
    parser.add_argument("--statement", type=int, default=3)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true", help="print the path, call site by call site")
    parser.add_argument(
        "--calls",
        nargs=2,
        action="append",
        default=[],
        metavar=("FROM", "TO"),
        help="also count every call from one module into another (judging.meaning judging.relation)",
    )
    args = parser.parse_args()
    tree = args.tree.resolve()
    if not judges_here(tree):
        argv = ["--tree", str(tree), "--statement", str(args.statement)]
        argv += ["--model", str(args.model.resolve())] if args.model else []
        argv += ["--verbose"] if args.verbose else []
        argv += [a for pair in args.calls for a in ("--calls", *pair)]
        return run_in(tree, "research.evaluation.trace_modules", argv)
    path, stays, calls = trace(args.statement, args.model)
    visits: Counter[str] = Counter()
    last = ""
    for caller, caller_function, callee, function in path:
        if callee != last:
            visits[callee] += 1
        last = callee
        if args.verbose:
            mark = "returns to" if visits[callee] > 1 else "enters"
            print(f"{caller}.{caller_function} {mark} {callee}.{function}")
    returns = sum(n - 1 for n in visits.values())
    print(json.dumps({"modules": len(visits), "call_sites": len(path), "returns": returns, "visits": visits}))
    if args.verbose:
        print(" → ".join(stays))
    flow = Counter(stays)
    data_path = {"modules": len(flow), "stays": len(stays), "returns": len(stays) - len(flow)}
    print(json.dumps({"data_path": data_path}))
    # The same path through the judging stages alone, the text and model modules they use left out.
    judging = [m for m in stays if m.startswith("judging.")]
    judging = [m for i, m in enumerate(judging) if i == 0 or judging[i - 1] != m]
    if args.verbose:
        print(" → ".join(judging))
    stages = {
        "modules": len(set(judging)),
        "stays": len(judging),
        "returns": len(judging) - len(set(judging)),
    }
    print(json.dumps({"judging_path": stages}))
    for caller, callee in args.calls:
        print(
            json.dumps({"calls": f"{caller} → {callee}", "count": calls[caller, callee]}, ensure_ascii=False)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
