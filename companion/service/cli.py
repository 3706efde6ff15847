"""The `citelens` command: serve, token, pair, verify, doctor, service.

citelens serve [--port 8765] [--allow-private HOST:PORT] [--model DIR]
citelens token [--rotate]
citelens pair [CODE] [--port 8765]
citelens verify request.json | - | --example  [--json] [--audit out.json]
citelens audit-batch INPUT --out DIR [--ray ADDRESS]   (many answers: cards, summary.csv, report.html)
citelens doctor
citelens service install [--port 8765] [--allow-origin ORIGIN] | uninstall   (start at login)
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import http.client
import json
import logging
import socket
import stat
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from .. import __version__
from ..batch.run import BatchOptions, run_batch
from ..config import DEFAULT_PORT, Settings, config_dir
from ..errors import CiteLensError, RequestInvalid
from ..judging.judges import model_dirs
from ..model.cpu import compute_facts
from ..model.folder import load_config
from ..model.infer import model_pool
from ..records import Citation, SourceResult
from ..sources.extract import document_from_text
from ..text.segment import statements
from ..wire.capture import parse_request
from ..wire.export import audit_export, collect, companion_provenance, figures_basis
from . import autostart as service
from .pairing import PairingRefused, load_or_create_token, read_token, spaced
from .runtime import Runtime, build_judge
from .server import PAIRINGS, make_app

__all__ = ["main"]

# The reason ids of docs/api.md in words, as the overlay card says them (extension/_locales).
_REASON_WORDS = {
    "model.no_entailment": "the model does not read the source as saying it",
    "model.contradiction": "the model reads the source as saying the opposite",
    "score.below_complete": "too little of it (its words, numbers or names) is in the source",
    "score.below_partial": "too little of it (its words, numbers or names) is in the source",
    "claims.unsupported": "part of it is not in the source",
}
_RULE_WORDS = {
    "framed": "a wording rule found it reported as a claim, myth or hope, not stated",
    "framed_numbers": "a wording rule found it reported as a claim, myth or hope, not stated",
    "negated": "a wording rule found the source saying it is not so",
    "negated_between": "a wording rule found the source saying it is not so",
    "negates": "a wording rule found the source saying it is not so",
    "restates_negated": "a wording rule found the source saying it is not so",
    "substituted": "a wording rule found another value in the source",
    "another_number": "a wording rule found another value in the source",
    "opposite": "a wording rule found the source saying the opposite direction",
    "reversed": "a wording rule found the source saying the opposite direction",
    "passive_reversed": "a wording rule found the source saying the opposite direction",
    **{
        f"scope_{k}": "a wording rule found the source saying less (some, not all)"
        for k in ("universal", "only", "part_of", "partial")
    },
}


def _reasons_in_words(reasons: list[str]) -> str:
    """The reasons a verdict names, each said once, strongest first; unknown ids are left out."""
    words = [
        _RULE_WORDS.get(r.split(".", 1)[-1], "") if r.startswith("rule:") else _REASON_WORDS.get(r, "")
        for r in reasons
    ]
    return "; ".join(dict.fromkeys(w for w in words if w))


_MARKS = {
    "complete_support": "✓ complete support",
    "partial_support": "◐ partial support",
    "no_support": "✗ no support",
    "inaccessible": "? inaccessible",
    "not_checked": "– not checked",
    "no_citation": "· no citation",
}


# A pair each model must read as entailment, in a language it was trained on.
_PROBES = {
    "en": ("The cat sat on the mat.", "A cat is sitting."),
    "fr": ("Le chat est assis sur le tapis.", "Un chat est assis."),
}


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(
        port=getattr(args, "port", DEFAULT_PORT),
        state_dir=config_dir(),
        model_dir=args.model,
        allow_private=frozenset(getattr(args, "allow_private", None) or ()),
        extra_origins=frozenset(getattr(args, "allow_origin", None) or ()),
        use_cache=not getattr(args, "no_cache", False),
    )


# --- serve -------------------------------------------------------------------------------------


async def _serve(settings: Settings) -> None:
    token = load_or_create_token(settings.token_path)
    async with Runtime(settings) as runtime:
        app = make_app(runtime, token, announce=lambda line: print(line, flush=True))
        runner = web.AppRunner(app, access_log=None, handle_signals=True)
        await runner.setup()
        site = web.TCPSite(runner, settings.host, settings.port, reuse_address=False)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise SystemExit(
                f"cannot listen on {settings.host}:{settings.port} ({exc.strerror}): is another companion "
                f"running? Stop it, or start this one with --port and set that address in the extension."
            ) from None
        print(f"CiteLens {__version__} companion on http://{settings.host}:{settings.port}", flush=True)
        for config in runtime.judges.configs:
            print(
                f"model: {config.name} ({config.quantization}, {', '.join(config.languages)}) "
                f"from {config.path}",
                flush=True,
            )
        print(f"pairing token: {token}", flush=True)
        print(
            "pair the extension: press Pair with the companion in its options page, then confirm the "
            "code here with `citelens pair CODE` (or paste the token; `citelens token` shows it again)",
            flush=True,
        )
        if sys.stdin is not None and sys.stdin.isatty():
            _read_codes_from_terminal(app)
            print("a pairing code can also be typed here (then Enter)", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()


def _read_codes_from_terminal(app: web.Application) -> None:
    """Lines typed where `citelens serve` runs confirm pairing codes, as `citelens pair CODE` does.

    Only on a terminal: that is the reader at the keyboard. Piped input (a service manager, a
    test harness) is never read, so nothing but a person confirms this way.
    """
    loop = asyncio.get_running_loop()
    pairings = app[PAIRINGS]

    def confirm(line: str) -> None:
        if not any(ch.isdigit() for ch in line):
            return
        try:
            pairings.confirm(line)
        except PairingRefused as exc:
            print(f"not paired: {exc.message}", flush=True)

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(confirm, line)

    # A daemon thread: a blocking read of the terminal must not hold the process at exit.
    threading.Thread(target=read, name="citelens-terminal", daemon=True).start()


# --- pair --------------------------------------------------------------------------------------


def _call(port: int, token: str, method: str, path: str, body: object = None) -> tuple[int, Any]:
    """One call to the running companion, as the reader's terminal: the token, and no Origin."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"X-CiteLens-Token": token}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        data = response.read()
    except OSError:
        raise SystemExit(
            f"no companion answers on 127.0.0.1:{port}: start `citelens serve` (or give its --port)"
        ) from None
    finally:
        connection.close()
    try:
        return response.status, json.loads(data)
    except ValueError:
        return response.status, {}


def pair(port: int, code: str | None) -> int:
    """Confirms the extension's pairing request once the reader has compared the codes."""
    try:
        token = read_token(config_dir() / "token")
    except OSError:
        print("no token yet: start `citelens serve` first", file=sys.stderr)
        return 1
    status, body = _call(port, token, "GET", "/v1/pair")
    if status != 200:
        print(f"the companion refused: {body.get('error', {}).get('message', status)}", file=sys.stderr)
        return 1
    pending = body.get("pending")
    if not pending:
        print(
            "No pairing request is waiting. Press Pair with the companion in the CiteLens options "
            "page first.",
            file=sys.stderr,
        )
        return 1
    print(
        f"Pairing request from {pending['origin']}: code {spaced(pending['code'])} "
        f"(expires in {pending['expires_in']} s)."
    )
    if code is None:
        if not sys.stdin.isatty():
            print("Run `citelens pair CODE` with the code your browser shows.", file=sys.stderr)
            return 1
        # Typing the browser's code, not just "y", makes the reader compare the two.
        code = input("Type the code your browser shows (Enter to refuse): ").strip()
        if not code:
            print("Not paired.")
            return 1
    status, body = _call(port, token, "POST", "/v1/pair/confirm", {"code": code})
    if status != 200:
        print(f"Not paired: {body.get('error', {}).get('message', status)}", file=sys.stderr)
        return 1
    print(f"Paired: the extension ({body['origin']}) receives the token now.")
    return 0


# --- verify ------------------------------------------------------------------------------------


def _read_request(source: str | None, example: bool) -> Any:
    if example:
        return json.loads((resources.files("companion.examples") / "answer.json").read_text(encoding="utf-8"))
    if source is None:
        raise SystemExit("give a request file, `-` for standard input, or --example")
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        return json.loads(text)
    except OSError as exc:
        raise SystemExit(f"cannot read {source}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise SystemExit(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


async def _verify(settings: Settings, body: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    request = parse_request(body, settings.limits)
    async with Runtime(settings) as runtime:
        result_id = runtime.results.new_id()
        result = await collect(runtime.verifier.run(request), runtime.model, result_id, units=request.units)
        held = runtime.results.put(result_id, request.page, result)
        card = audit_export(
            request.page,
            result,
            runtime.model,
            runtime.judges.configs,
            provenance=companion_provenance(held.id, held.judged_at),
        )
        return result, card


def report(result: dict[str, Any]) -> str:
    """The verify result as a person reads it: one block per statement."""
    lines = []
    summary = result.get("summary", {})
    lines.append(
        f"CiteLens — {len(result['statements'])} statements, {len(result['sources'])} sources "
        f"(model {summary.get('model', {}).get('name', '?')})"
    )
    lines.append("")
    for source in result["sources"]:
        if source["status"] == "ok":
            lines.append(f"  source ok    {source['url']}  {source.get('title', '')!r}")
        else:
            lines.append(f"  inaccessible {source['url']}: {source.get('reason', '')}")
    for s in result["statements"]:
        flag = "  ⚠ contradicted by a source" if s["contradicted"] else ""
        lines.append("")
        lines.append(f"[{s['index'] + 1}] {_MARKS[s['judgment']]} ({s['score']:.2f}){flag}")
        lines.append(f"    {s['text']}")
        if s.get("cited_by") == "block":
            lines.append("    cited by the paragraph's link (no marker of its own)")
        if s["judgment"] != "complete_support" and (why := _reasons_in_words(s.get("reasons", []))):
            lines.append(f"    why this verdict: {why}")
        for pc in s["per_citation"]:
            note = " (irrelevant citation)" if pc["irrelevant"] else ""
            lines.append(
                f"    [{pc['marker'] or pc['citation']}] {pc['judgment']} {pc['score']:.2f}{note} {pc['url']}"
            )
            if pc.get("reason"):
                lines.append(f"        why: {pc['reason']}")
            supports = pc["judgment"] in ("complete_support", "partial_support")
            for e in pc["evidence"] if supports or s["contradicted"] else []:
                lines.append(f"        {'evidence' if supports else 'says otherwise'}: “{e['text']}”")
        for claim in s["unsupported_assertions"]:
            lines.append(f"    unsupported: {claim}")
        for found in s.get("found_elsewhere", []):
            label = f"[{found['marker']}] " if found.get("marker") else ""
            where = f"{label}{found['judgment']} {found['score']:.2f} {found['url']}"
            lines.append(f"    found elsewhere: {where}")
            for e in found["evidence"]:
                lines.append(f"        evidence: “{e['text']}”")
    counts = summary.get("counts", {})
    lines.append("")
    lines.append(
        f"{counts.get('complete_support', 0)} fully supported · {counts.get('partial_support', 0)} partly · "
        f"{counts.get('no_support', 0)} not supported · {counts.get('inaccessible', 0)} inaccessible · "
        + (f"{counts['not_checked']} not checked (language) · " if counts.get("not_checked") else "")
        + f"{counts.get('no_citation', 0)} without citation"
    )
    if summary.get("misplaced_citations") or summary.get("uncited_but_supported"):
        lines.append(
            f"found in another source of the answer: {summary.get('misplaced_citations', 0)} with a "
            f"misplaced citation · {summary.get('uncited_but_supported', 0)} without citation"
        )
    recall, precision = summary.get("citation_recall"), summary.get("citation_precision")
    lines.append(
        f"ALCE citation recall {_pct(recall)} · precision {_pct(precision)} · "
        f"{summary.get('elapsed_ms', 0) / 1000:.1f} s"
    )
    basis = figures_basis(summary)
    if basis:
        lines.append(f"  {basis}")
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


# --- audit-batch -------------------------------------------------------------------------------


def audit_batch(settings: Settings, args: argparse.Namespace) -> int:
    """Runs companion.batch.run (or companion.batch.on_ray with --ray) and says where the outputs are."""
    options = BatchOptions(in_flight=max(1, args.in_flight))
    try:
        if args.ray:
            from ..batch.on_ray import run_on_ray  # ray is an optional extra: imported only when asked for

            stats = run_on_ray(settings, args.input, args.out, args.ray, options, actors=args.actors)
        else:
            stats = asyncio.run(run_batch(settings, args.input, args.out, options))
    except KeyboardInterrupt:
        print(
            f"\nstopped: {args.out / 'journal.sqlite3'} keeps every answer judged so far; run the same "
            "command again to go on",
            file=sys.stderr,
        )
        return 130
    except ModuleNotFoundError as exc:
        if exc.name != "ray":
            raise
        print("citelens: --ray needs Ray: pip install 'citelens[ray]'", file=sys.stderr)
        return 1
    print(
        f"{stats.total} lines: {stats.judged} answers judged in this run, {stats.recorded_before} already "
        f"in the journal, {stats.malformed} malformed, {stats.failed} failed (tried again next run)"
    )
    for name, path in stats.outputs.items():
        print(f"  {name:12} {path}")
    return 1 if stats.failed else 0


# --- doctor ------------------------------------------------------------------------------------


def _check_model(model_dir: Path, settings: Settings, pool: ThreadPoolExecutor) -> str:
    """Loads a model as the companion does, its calibrated combiner too, and judges a probe with it:
    a model that fails here would otherwise fail first in the middle of a reader's check."""
    config = load_config(model_dir)
    judge = build_judge(config, settings.retrieval, pool)
    language = "fr" if "fr" in config.languages else "en"
    page, claim = _PROBES[language]
    url = "https://probe.invalid/"
    source = SourceResult(url, document_from_text(url, "probe", page, declared_language=language))
    [statement] = statements(claim, [Citation("c1", "1", url, len(claim))])
    verdict = judge.judge(dataclasses.replace(statement, language=language), {url: source})
    return (
        f"model {config.name} {config.version} for {', '.join(config.languages)} loads from {model_dir} "
        f"and judges a probe ({verdict.judgment.replace('_', ' ')}, score {verdict.score:.2f})"
    )


def doctor(settings: Settings) -> int:
    problems = 0

    def check(ok: bool, what: str, fix: str = "") -> None:
        nonlocal problems
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok or not fix else f"\n     fix: {fix}"))
        problems += not ok

    pool = model_pool(settings.onnx_threads)
    for model_dir in model_dirs(settings.model_dir):
        try:
            check(True, _check_model(model_dir, settings, pool))
        except Exception as exc:  # whatever breaks a model here would break it mid-stream
            check(
                False,
                f"model in {model_dir}: {exc}",
                "reinstall CiteLens (`pip install .`) or pass --model DIR of models/<name>/",
            )
    pool.shutdown()
    facts = compute_facts()
    # AVX2 and later were shown to compute alike (scripts/cpu_agreement.py); SSE-only and ARM
    # CPUs run other float kernels, never compared.
    alike = facts["int8_kernel"] in ("amx", "avx512-vnni", "avx512", "avx-vnni", "avx2")
    print(
        f"info onnxruntime {facts['onnxruntime']}, int8 kernel family {facts['int8_kernel']} "
        f"({facts['machine']}, from CPUID): "
        + (
            "the same numbers as on any other AVX2-or-later x86-64 CPU"
            if alike
            else "a CPU the models' numbers were never compared on: verdicts may differ (model cards)"
        )
    )
    with socket.socket() as probe_socket:
        try:
            probe_socket.bind((settings.host, settings.port))
            check(True, f"port {settings.port} on {settings.host} is free")
        except OSError:
            check(
                False,
                f"port {settings.port} on {settings.host} is taken",
                "stop the other program (or companion), or use `citelens serve --port N`",
            )
    try:
        read_token(settings.token_path)
        mode = stat.S_IMODE(settings.token_path.stat().st_mode)
        check(
            mode & 0o077 == 0,
            f"token file {settings.token_path} is private (mode {oct(mode)})",
            f"chmod 600 {settings.token_path}",
        )
    except FileNotFoundError:
        check(True, f"no token yet at {settings.token_path}: `citelens serve` will make one")
    except OSError as exc:
        check(
            False, f"token file unreadable: {exc}", f"delete {settings.token_path} and run `citelens serve`"
        )
    state = settings.state_dir
    try:
        state.mkdir(parents=True, exist_ok=True)
        probe_file = state / ".doctor"
        probe_file.write_text("ok")
        probe_file.unlink()
        check(True, f"config folder {state} is writable")
    except OSError as exc:
        check(
            False,
            f"config folder {state} is not writable ({exc.strerror})",
            "fix its permissions, or set XDG_CONFIG_HOME to a writable folder",
        )
    print("all good" if not problems else f"{problems} problem(s) found")
    return 1 if problems else 0


# --- entry point -------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citelens", description="Check AI search answers against their sources."
    )
    parser.add_argument("--version", action="version", version=f"citelens {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--model", type=Path, help="a models/<name>/ folder (default: the shipped model)")
    common.add_argument(
        "--allow-private",
        action="append",
        metavar="HOST:PORT",
        help="let the fetcher reach this private address (tests only; repeatable)",
    )
    common.add_argument("--no-cache", action="store_true", help="do not read or write the page cache")
    serve = sub.add_parser("serve", parents=[common], help="run the companion for the extension")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="also accept this Origin, e.g. another build's chrome-extension://ID",
    )
    serve.add_argument("-v", "--verbose", action="store_true")
    token = sub.add_parser("token", help="print the pairing token")
    token.add_argument("--rotate", action="store_true", help="make a new token (re-pair the extension)")
    pair_cmd = sub.add_parser("pair", help="confirm the extension's pairing request")
    pair_cmd.add_argument("code", nargs="?", help="the code the extension shows (asked for when left out)")
    pair_cmd.add_argument("--port", type=int, default=DEFAULT_PORT)
    verify = sub.add_parser("verify", parents=[common], help="check one answer from a request file")
    verify.add_argument("request", nargs="?", help="a /v1/verify request (JSON), or - for standard input")
    verify.add_argument("--example", action="store_true", help="check the bundled example answer (offline)")
    verify.add_argument("--json", action="store_true", help="print the machine-readable result")
    verify.add_argument("--audit", type=Path, metavar="OUT.json", help="also write the audit export here")
    batch = sub.add_parser(
        "audit-batch", parents=[common], help="audit many answers: a card each, summary.csv, report.html"
    )
    batch.add_argument("input", type=Path, help="a JSON Lines file of /v1/verify bodies, or a folder of them")
    batch.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the cards and report go")
    batch.add_argument(
        "--in-flight",
        type=int,
        default=BatchOptions().in_flight,
        metavar="N",
        help="answers checked at once in one process (default %(default)s)",
    )
    batch.add_argument("--ray", metavar="ADDRESS", help="run on this Ray cluster (HOST:PORT or auto)")
    batch.add_argument("--actors", type=int, metavar="N", help="Ray actors (default: one per cluster CPU)")
    doc = sub.add_parser("doctor", parents=[common], help="say what is wrong and how to fix it")
    doc.add_argument("--port", type=int, default=DEFAULT_PORT)
    svc = sub.add_parser("service", help="start the companion at login (systemd user unit, LaunchAgent)")
    svc_action = svc.add_subparsers(dest="action", required=True)
    svc_install = svc_action.add_parser("install", help="install and start `citelens serve` at login")
    svc_install.add_argument("--port", type=int, default=DEFAULT_PORT)
    svc_install.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN", help="passed on to `citelens serve`"
    )
    svc_action.add_parser("uninstall", help="stop and remove the login service")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.command == "token":
        path = config_dir() / "token"
        print(f"CiteLens pairing token: {load_or_create_token(path, rotate=args.rotate)}")
        return 0
    if args.command == "pair":
        return pair(args.port, args.code)
    if args.command == "service":
        try:
            if args.action == "install":
                service.install(args.port, args.allow_origin)
            else:
                service.uninstall()
        except CiteLensError as exc:
            print(f"citelens: {exc}", file=sys.stderr)
            return 1
        return 0
    settings = _settings(args)
    try:
        if args.command == "serve":
            try:
                asyncio.run(_serve(settings))
            except web.GracefulExit:  # SIGTERM: how a service manager stops it, a normal end
                pass
            return 0
        if args.command == "doctor":
            return doctor(settings)
        if args.command == "audit-batch":
            return audit_batch(settings, args)
        body = _read_request(args.request, args.example)
        result, audit = asyncio.run(_verify(settings, body))
    except RequestInvalid as exc:
        print(
            f"invalid request: {exc.message}" + (f" (field {exc.field})" if exc.field else ""),
            file=sys.stderr,
        )
        return 2
    except CiteLensError as exc:
        print(f"citelens: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(result))
    if args.audit:
        args.audit.write_text(json.dumps(audit, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"audit export written to {args.audit}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
