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
import textwrap
import threading
from concurrent.futures import Executor
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from .. import __version__
from ..batch.run import BatchOptions, run_batch
from ..batch.words import (
    NO_PASSAGE,
    counted,
    counts_in_words,
    is_likely,
    language_names,
    quote_label,
    reasons_in_words,
    shown_state,
)
from ..config import DEFAULT_PORT, Settings, config_dir
from ..errors import CiteLensError, RequestInvalid
from ..judging.judges import model_dirs
from ..model.cpu import compute_facts
from ..model.folder import LanguageFigure, ModelConfig, load_config
from ..model.infer import model_pool
from ..records import Citation, SourceResult
from ..runtime import Runtime, build_judge
from ..sources.extract import document_from_text
from ..text.segment import statements
from ..wire.capture import parse_request
from ..wire.export import audit_export, collect, companion_provenance, figures_basis
from . import autostart as service
from .pairing import PairingRefused, load_or_create_token, pair_command, read_token, spaced
from .server import PAIRINGS, make_app

__all__ = ["main"]

# The overlay's icons (extension/overlay/labels.js), each with one meaning: "?" is a sentence
# that cites nothing, in the terminal as on the page (issue 60).
_MARKS = {
    "complete_support": "✓ complete support",
    "likely_support": "≈ likely supported: check the quote",
    "partial_support": "◐ partial support",
    "no_support": "✗ no support",
    "inaccessible": "⊘ inaccessible",
    "not_checked": "– not checked",
    "no_citation": "? no citation",
}
# Verdicts a model reached by reading a source: only these have a score worth printing.
_SCORED = frozenset({"complete_support", "partial_support", "no_support"})
# Lines of `citelens doctor` and the like are wrapped here, continued under their first word.
_WIDTH = 100


# A pair each model must read as entailment, in a language it was trained on.
_PROBES = {
    "en": ("The cat sat on the mat.", "A cat is sitting."),
    "fr": ("Le chat est assis sur le tapis.", "Un chat est assis."),
}


def _port(*, any_free: bool) -> Any:
    """An argparse type for --port: a TCP port, said in one line when it is not one (a traceback
    from deep in asyncio before). `any_free`: 0 asks the system for a free port."""
    low = 0 if any_free else 1

    def port(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = -1
        if not low <= number <= 65535:
            anyone = " (or 0 for any free port)" if any_free else ""
            raise argparse.ArgumentTypeError(
                f"{value!r} is not a port: give a number from 1 to 65535{anyone}"
            )
        return number

    return port


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


def _listen(settings: Settings) -> socket.socket:
    """The listening socket, bound before the models load: a taken port is said at once, and
    `--port 0` learns the port it got, which the Host check, the pairing hint and the address
    printed all need."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        raise SystemExit(
            f"cannot listen on {settings.host}:{settings.port} ({exc.strerror}): is another companion "
            f"running? Stop it, or start this one with --port and set that address in the extension."
        ) from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _serve(settings: Settings) -> None:
    token = load_or_create_token(settings.token_path)
    sock = _listen(settings)
    settings = dataclasses.replace(settings, port=int(sock.getsockname()[1]))
    async with Runtime(settings) as runtime:
        app = make_app(runtime, token, announce=lambda line: print(line, flush=True))
        runner = web.AppRunner(app, access_log=None, handle_signals=True)
        await runner.setup()
        await web.SockSite(runner, sock).start()
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
            f"code here with `{pair_command(settings.port)} CODE` (or paste the token; `citelens token` "
            "shows it again)",
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
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise SystemExit(f"cannot read {source}: {exc.strerror}") from None
    text, encoding = _decode(raw)
    if encoding == "latin-1":
        # Said, not hidden: text that was in neither UTF-8 nor UTF-16 may be read wrongly.
        print(
            f"citelens: {source} is not UTF-8 or UTF-16; read as Latin-1 (save it as UTF-8 if its "
            "accents look wrong below)",
            file=sys.stderr,
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SystemExit(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


# Byte-order marks, longest first (UTF-32's LE mark begins with UTF-16's).
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _decode(raw: bytes) -> tuple[str, str]:
    """A request file's text and the encoding it was read in: by its byte-order mark (Windows
    tools write UTF-8 and UTF-16 with one), else UTF-8, else UTF-16 without a mark (JSON starts
    with an ASCII character, so one of its first two bytes is 0), else Latin-1, which reads any
    bytes: a file saved by an editor in Latin-1 or Windows-1252 is read, not refused."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding), encoding
            except UnicodeDecodeError:
                break
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    head = raw[:2]
    if len(head) == 2 and (head[0] == 0) != (head[1] == 0):
        try:
            return raw.decode("utf-16-be" if head[0] == 0 else "utf-16-le"), "utf-16"
        except UnicodeDecodeError:
            pass
    try:
        return raw.decode("cp1252"), "latin-1"  # what Windows editors write as "Latin-1"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "latin-1"


async def _verify(settings: Settings, body: Any) -> tuple[dict[str, Any], dict[str, Any], frozenset[str]]:
    """The result, its audit card, and the languages this companion's models judge."""
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
        return result, card, runtime.judges.languages


# The verdicts a model reached by reading a source; `inaccessible`, `not_checked` and
# `no_citation` carry a model's name too, but no model read anything for them.
_READ = frozenset({"complete_support", "partial_support", "no_support"})


def _read_by_model(statement: dict[str, Any]) -> bool:
    return bool(statement.get("model")) and (
        statement["judgment"] in _READ or bool(statement.get("found_elsewhere"))
    )


def _judged_by(statements: list[dict[str, Any]]) -> str:
    """The models that read a source for some statement, in answer order (issue 36: a French
    answer is judged by the multilingual model, not the English default)."""
    names = [s["model"] for s in statements if _read_by_model(s)]
    if not names:
        return "no statement judged by a model"
    return "judged by " + " and ".join(dict.fromkeys(names))


def _judged_in(statement: dict[str, Any]) -> str:
    """The language a statement was judged in and the model, with its version, that judged it
    (issue 39 item 5): "judged in French by citelens-e5-multilingual-nli 0.1.4". A statement no
    model read names its language alone, never the default model that its line names."""
    language = statement.get("language")
    if not language:
        return ""
    name = language_names([language])
    if not _read_by_model(statement):
        return f"in {name}, not judged by a model"
    model = " ".join(filter(None, (statement["model"], statement.get("model_version"))))
    return f"judged in {name} by {model}"


def _not_checked(statements: list[dict[str, Any]], languages: frozenset[str]) -> str:
    """Why these `not_checked` statements were not judged: their own language, or their pages'."""
    unread = [s["language"] for s in statements if s.get("language") not in languages]
    if unread:
        names = language_names(unread)
        verb = "is" if len(set(unread)) == 1 else "are"
        return f"not checked: {names} {verb} not a language CiteLens judges yet"
    return "not checked: the pages cited are in a language CiteLens does not judge yet"


def report(result: dict[str, Any], languages: frozenset[str]) -> str:
    """The verify result as a person reads it: one block per statement. `languages` are those the
    companion judges, to say why a statement was not checked."""
    lines = []
    summary = result.get("summary", {})
    lines.append(
        f"CiteLens — {counted(len(result['statements']), 'statement')}, "
        f"{counted(len(result['sources']), 'source')} ({_judged_by(result['statements'])})"
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
        # A score only where a model read a source: not checked, inaccessible and uncited
        # statements were not judged, and "(0.00)" would read as a verdict.
        score = f" ({s['score']:.2f})" if s["judgment"] in _SCORED else ""
        lines.append(f"[{s['index'] + 1}] {_MARKS[shown_state(s)]}{score}{flag}")
        lines.append(f"    {s['text']}")
        if s.get("cited_by") == "block":
            lines.append("    cited by the paragraph's link (no marker of its own)")
        if judged_in := _judged_in(s):
            lines.append(f"    {judged_in}")
        if s["judgment"] == "not_checked":
            lines.append(f"    {_not_checked([s], languages)}")
        elif s["judgment"] != "complete_support" and (
            why := reasons_in_words(s.get("reasons", []), s.get("reason_details"))
        ):
            lines.append(f"    why this verdict: {why}")
        for pc in s["per_citation"]:
            note = " (irrelevant citation)" if pc["irrelevant"] else ""
            likely = " (likely: check the quote)" if is_likely(pc) else ""
            score = f" {pc['score']:.2f}" if pc["judgment"] in _SCORED else ""
            lines.append(
                f"    [{pc['marker'] or pc['citation']}] {pc['judgment']}{likely}{score}{note} {pc['url']}"
            )
            if pc.get("reason"):
                lines.append(f"        why: {pc['reason']}")
            label = quote_label(pc["judgment"], bool(s["contradicted"]))
            for e in pc["evidence"]:
                lines.append(f"        {label}: “{e['text']}”")
            for e in pc.get("says_otherwise", []):
                lines.append(f"        says otherwise: “{e['text']}”")
            if pc["judgment"] == "no_support" and not pc["evidence"] and not pc.get("says_otherwise"):
                lines.append(f"        {NO_PASSAGE}")
        for claim in s["unsupported_assertions"]:
            lines.append(f"    unsupported: {claim}")
        for found in s.get("found_elsewhere", []):
            label = f"[{found['marker']}] " if found.get("marker") else ""
            where = f"{label}{found['judgment']} {found['score']:.2f} {found['url']}"
            lines.append(f"    found elsewhere: {where}")
            for e in found["evidence"]:
                lines.append(f"        evidence: “{e['text']}”")
    lines.append("")
    lines.append(counts_in_words(result["statements"]))
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
    basis = _figures_basis(result, languages)
    if basis:
        lines.append(f"  {basis}")
    return "\n".join(lines)


def _figures_basis(result: dict[str, Any], languages: frozenset[str]) -> str:
    """figures_basis, unless no figure was computed because statements were not checked: then
    that is the reason, not that no source could be read (the sources may all have been read)."""
    summary = result.get("summary", {})
    unchecked = [s for s in result["statements"] if s["judgment"] == "not_checked"]
    if unchecked and not (summary.get("computed_over") or {}).get("statements"):
        return f"no recall or precision: {_not_checked(unchecked, languages)}"
    return figures_basis(summary)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


# --- audit-batch -------------------------------------------------------------------------------


def audit_batch(settings: Settings, args: argparse.Namespace) -> int:
    """Runs companion.batch.run (or companion.batch.on_ray with --ray) and says where the outputs
    are. The exit status: 0 every line has its card, 1 answers failed (run again: they are tried
    again), 2 lines are malformed (fix them in INPUT: they never will have a card)."""
    if args.out.exists() and not args.out.is_dir():
        print(
            f"citelens: --out {args.out} is a file, not a folder: give a folder for the cards and the "
            "report (it is made when missing)",
            file=sys.stderr,
        )
        return 2
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
        f"{counted(stats.total, 'line')}: {counted(stats.judged, 'answer')} judged in this run, "
        f"{stats.recorded_before} already in the journal, {stats.malformed} malformed, {stats.failed} failed "
        "(tried again next run)"
    )
    for name, path in stats.outputs.items():
        print(f"  {name:12} {path}")
    if stats.malformed_in_journal:
        # The last line, for scripts: malformed lines of this run and of the runs it resumed.
        were = "was" if stats.malformed_in_journal == 1 else "were"
        print(
            f"{stats.malformed_in_journal} of {counted(stats.total, 'input line')} {were} malformed "
            f"(see {stats.outputs['errors.csv']})"
        )
    if stats.failed:
        return 1
    return 2 if stats.malformed_in_journal else 0


# --- doctor ------------------------------------------------------------------------------------


def _check_model(model_dir: Path, settings: Settings, pool: Executor) -> str:
    """Loads a model as the companion does, its calibrated combiner too, and judges a probe with it:
    a model that fails here would otherwise fail first in the middle of a reader's check. Its
    figures per language follow on lines of their own."""
    config = load_config(model_dir)
    judge = build_judge(config, settings.retrieval, pool)
    language = "fr" if "fr" in config.languages else "en"
    page, claim = _PROBES[language]
    url = "https://probe.invalid/"
    source = SourceResult(url, document_from_text(url, "probe", page, declared_language=language))
    [statement] = statements(claim, [Citation("c1", "1", url, len(claim))])
    verdict = judge.judge(dataclasses.replace(statement, language=language), {url: source})
    reader = f" with the reader {config.cascade.reader.name}" if config.cascade else ""
    return "\n".join(
        [
            f"model {config.name} {config.version}{reader} for {', '.join(config.languages)} "
            f"loads from {model_dir} and judges a probe "
            f"({verdict.judgment.replace('_', ' ')}, score {verdict.score:.2f})",
            *_figures(config),
        ]
    )


def _figures(config: ModelConfig) -> list[str]:
    """Each language the model was measured on and its figure, those judged apart from those
    under their floor, one group a line (wrapped by `_wrapped`): one line of 1,500 characters
    before (issue 60)."""
    if not config.measured:
        return []

    def read(code: str, figure: LanguageFigure) -> bool:
        # A pair is read only between two languages the model checks (judges.py).
        return figure.checked and set(code.split("-")) <= set(config.languages)

    def group(pairs: bool, checked: bool) -> str:
        return ", ".join(
            # No break inside a code and its figure ("de 0.740 with a 95 % lower bound of 0.713").
            f"{code} {f.shown}".replace(" ", "\u00a0")
            for code, f in config.measured
            if ("-" in code) == pairs and read(code, f) == checked
        )

    floors = sorted({f"{f.floor:.2f}" for _, f in config.measured})
    out = [f"measured on held pairs (each language's floor: {' or '.join(floors)}):"]
    for pairs, what in ((False, "per language"), (True, "across languages (page-sentence)")):
        if pairs and not config.measures_across:
            continue
        under = (
            "not read (under the floor, or a language not checked)"
            if pairs
            else ("under the floor, not checked")
        )
        for checked, verdict in ((True, "judged"), (False, under)):
            if figures := group(pairs, checked):
                out.append(f"  {what}, {verdict}: {figures}")
    return out


def _wrapped(text: str, first: str, rest: str) -> str:
    """`text` after `first`; its further lines under `rest`, each wrapped at _WIDTH. The first
    line is left whole: it names a path that scripts read off it (tests/packaging)."""
    head, *more = text.split("\n")
    lines = [first + head]
    for line in more:
        indent = rest + line[: len(line) - len(line.lstrip())]
        lines.append(
            textwrap.fill(
                line.strip(),
                _WIDTH,
                initial_indent=indent,
                subsequent_indent=indent + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(lines)


def _companion_version(host: str, port: int) -> str | None:
    """The version of the CiteLens companion answering on the port, or None for anything else.
    A companion is known by its GET /v1/health body (docs/api.md), which needs no token."""
    connection = http.client.HTTPConnection(host, port, timeout=3)
    try:
        connection.request("GET", "/v1/health")
        response = connection.getresponse()
        body = json.loads(response.read())
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    if (
        response.status == 200
        and isinstance(body, dict)
        and body.get("status") == "ok"
        and isinstance(body.get("version"), str)
        and isinstance(body.get("model"), dict)
        and isinstance(body.get("models"), list)
    ):
        return str(body["version"])
    return None


def doctor(settings: Settings) -> int:
    problems = 0

    def check(ok: bool, what: str, fix: str = "") -> None:
        nonlocal problems
        print(
            _wrapped(what, "ok   " if ok else "FAIL ", "     ")
            + ("" if ok or not fix else f"\n     fix: {fix}")
        )
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
    # AVX2 and later were shown to compute alike (research/evaluation/cpu_agreement.py); SSE-only and ARM
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
            # After `citelens service install` our own companion holds the port: the normal state.
            version = _companion_version(settings.host, settings.port)
            check(
                version is not None,
                f"the companion is already running on {settings.host}:{settings.port} (CiteLens {version})"
                if version is not None
                else f"port {settings.port} on {settings.host} is taken by another program",
                "stop that program, or run the companion on another port: `citelens serve --port N` "
                "(and `citelens doctor --port N`)",
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
    print("all good" if not problems else f"{counted(problems, 'problem')} found")
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
    serve.add_argument(
        "--port",
        type=_port(any_free=True),
        default=DEFAULT_PORT,
        help="listen on this port of 127.0.0.1 (default %(default)s; 0: any free port, printed)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="also accept this Origin, e.g. another build's chrome-extension://ID",
    )
    serve.add_argument("-v", "--verbose", action="store_true", help="log more (INFO, not only warnings)")
    token = sub.add_parser("token", help="print the pairing token")
    token.add_argument("--rotate", action="store_true", help="make a new token (re-pair the extension)")
    pair_cmd = sub.add_parser("pair", help="confirm the extension's pairing request")
    pair_cmd.add_argument("code", nargs="?", help="the code the extension shows (asked for when left out)")
    pair_cmd.add_argument(
        "--port",
        type=_port(any_free=False),
        default=DEFAULT_PORT,
        help="the port `citelens serve` listens on (default %(default)s)",
    )
    verify = sub.add_parser("verify", parents=[common], help="check one answer from a request file")
    verify.add_argument("request", nargs="?", help="a /v1/verify request (JSON), or - for standard input")
    verify.add_argument("--example", action="store_true", help="check the bundled example answer (offline)")
    verify.add_argument("--json", action="store_true", help="print the machine-readable result")
    verify.add_argument("--audit", type=Path, metavar="OUT.json", help="also write the audit export here")
    batch = sub.add_parser(
        "audit-batch",
        parents=[common],
        help="audit many answers: a card each, summary.csv, report.html",
        epilog="exit status: 0 every line has its card; 1 some answers failed (run the same command "
        "again: they are tried again); 2 some lines are malformed (listed in DIR/errors.csv: fix them "
        "in INPUT), or --out is not a folder",
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
    doc.add_argument(
        "--port",
        type=_port(any_free=False),
        default=DEFAULT_PORT,
        help="the port the companion uses (default %(default)s)",
    )
    svc = sub.add_parser("service", help="start the companion at login (systemd user unit, LaunchAgent)")
    svc_action = svc.add_subparsers(dest="action", required=True)
    svc_install = svc_action.add_parser("install", help="install and start `citelens serve` at login")
    svc_install.add_argument(
        "--port",
        type=_port(any_free=False),
        default=DEFAULT_PORT,
        help="passed on to `citelens serve` (default %(default)s)",
    )
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
        if args.audit is not None and (problem := _unwritable(args.audit)):
            print(f"citelens: cannot write the audit export to {args.audit}: {problem}", file=sys.stderr)
            return 2
        body = _read_request(args.request, args.example)
        result, audit, languages = asyncio.run(_verify(settings, body))
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
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(result, languages))
    if args.audit:
        try:
            args.audit.write_text(json.dumps(audit, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:  # checked above, but the folder may have gone meanwhile
            print(
                f"citelens: cannot write the audit export to {args.audit} ({exc.strerror}); the report "
                "above stands: run again with --audit in a writable folder",
                file=sys.stderr,
            )
            return 1
        print(f"audit export written to {args.audit}", file=sys.stderr)
    return 0


def _unwritable(path: Path) -> str:
    """Why an output file cannot be written there, said before minutes of checking are spent on
    what could then not be saved; '' when nothing is in the way."""
    if path.is_dir():
        return "it is a folder; give a file name, e.g. audit.json"
    if not path.parent.is_dir():
        return (
            f"the folder {path.parent} does not exist; create it, or give --audit a path in an "
            "existing folder"
        )
    return ""


if __name__ == "__main__":
    sys.exit(main())
