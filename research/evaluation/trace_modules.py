"""Follows one statement through Judge.judge and counts how often it comes back to a module it
had already left (issues 38 and 61).

    python -m research.evaluation.trace_modules [--tree DIR] [--statement N] [--model DIR] [--verbose]
        [--calls FROM TO]

The statement is the N-th of the bundled example answer (companion/examples/answer.json), its
pages read inline as the companion reads them (extraction, then the page's analysis), judged with
the real model. A profile hook sees every call from one companion module into another.

Two measures, each a list of the modules the statement stays in, consecutive stays in one module
merged; its `returns` are the stays in a module the path had already left (stays − modules):
- `as_written` (issue 61's "call by call as the code is written"): each distinct call site,
  caller function → callee function across modules, in the order first taken, adds its caller's
  module and then its callee's. A loop that takes the same call again adds nothing, so the figure
  describes the code's shape, not the page's length. It gives 0.15.6 the issue's 75 stays
  (statements 1 and 3; 58 returns in 17 modules, the issue counted 60 in 15).
- `data_path`, stricter: a call into another module and the return out of it are each a step,
  so a stage that hands the data back to the judge is a return of the judge each time; a call
  site taken before is not followed again.
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
) -> tuple[list[tuple[str, str, str, str]], list[str], list[str], Counter[tuple[str, str]]]:
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

    sites: dict[tuple[str, str, str, str], None] = {}
    followed: set[tuple[str, str, str, str]] = set()
    written = ["judging.judge"]
    stays = ["judging.judge"]
    skipping: list[FrameType] = []
    calls: Counter[tuple[str, str]] = Counter()

    def stay(path: list[str], module: str) -> None:
        if path[-1] != module:
            path.append(module)

    def hook(frame: FrameType, event: str, _: Any) -> None:
        if event not in ("call", "return") or frame.f_back is None:
            return
        callee, caller = _module(frame, package), _module(frame.f_back, package)
        if callee is None or caller is None or callee == caller:
            return
        site = (caller, frame.f_back.f_code.co_name, callee, frame.f_code.co_name)
        if event == "call":
            calls[caller, callee] += 1
            if site not in sites:
                sites[site] = None
                stay(written, caller)
                stay(written, callee)
        # The data's path: a call site taken before is not followed again, so a loop adds nothing.
        if skipping:
            if event == "return" and frame is skipping[0]:
                skipping.clear()
        elif event == "return":
            stay(stays, caller)
        elif site not in followed:
            followed.add(site)
            stay(stays, callee)
        else:
            skipping.append(frame)

    sys.setprofile(hook)
    try:
        judge.judge(statement, sources)
    finally:
        sys.setprofile(None)
    return list(sites), written, stays, calls


def _returns(path: list[str]) -> dict[str, object]:
    modules = Counter(path)
    again = {m: n - 1 for m, n in modules.items() if n > 1}
    return {"modules": len(modules), "stays": len(path), "returns": len(path) - len(modules), "again": again}


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
    sites, written, stays, calls = trace(args.statement, args.model)
    if args.verbose:
        for caller, caller_function, callee, function in sites:
            print(f"{caller}.{caller_function} → {callee}.{function}")
    for name, path in (("as_written", written), ("data_path", stays)):
        if args.verbose:
            print(f"{name}: " + " → ".join(path))
        print(json.dumps({name: _returns(path)}))
    for caller, callee in args.calls:
        print(
            json.dumps({"calls": f"{caller} → {callee}", "count": calls[caller, callee]}, ensure_ascii=False)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
