"""Which code made a verdict: the release number, and fingerprints of the code behind it.

`companion.__version__` is the release, bumped by `scripts/release.py` with every change of what
the companion outputs (docs/releasing.md). A bump is easy to forget (the version stayed 0.1.0
through dozens of judge changes), so each release also records `companion.JUDGE_CODE`, the
fingerprint of the code that turns a request into verdicts, and a test compares the record with
the code as it is: a change of judging without a release fails the suite. The audit card carries
both, computed from the installed code, so a card made by a modified install says so.

The page cache keys its entries by the fingerprint of the extraction code alone: a release that
changes only judging keeps the pages already read.

A fingerprint covers code, not wording: comments and docstrings are blanked out first, so that a
clarified comment needs no release. It hashes source text, not `ast.dump`, whose output differs
between Python versions.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import json
import tokenize
from importlib import resources

__all__ = ["EXTRACTION_MODULES", "JUDGE_MODULES", "OPERATIONS_MODULES", "code_fingerprint"]

# What the companion knows of each language is data (companion/languages/): detection, lexicons,
# walls and chrome read it while a page is read, so every language file is extraction (and so
# judging) as much as code is. A file added is covered without being named here.
_LANGUAGE_FILES = tuple(
    sorted(
        f"languages/{entry.name}"
        for entry in resources.files("companion").joinpath("languages").iterdir()
        if entry.name.endswith(".json")
    )
)

# Reading a page into sentences: what a cached page was made by.
EXTRACTION_MODULES = (
    "languages/__init__",
    *_LANGUAGE_FILES,
    "sources/chrome",
    "sources/extract",
    "sources/pdf",
    "sources/walls",
    "text/language",
    "text/segment",
)

# Everything between the request body and the verdicts, scores, quotes and figures returned.
JUDGE_MODULES = (
    *EXTRACTION_MODULES,
    "config",
    "judging/alce",
    "judging/claim",
    "judging/combiner",
    "judging/evidence",
    "judging/judge",
    "judging/judges",
    "judging/meaning",
    "judging/policy",
    "judging/reading",
    "judging/relation",
    "judging/rulebook",
    # The rules of meaning are data too: `meaning` of each language file (rulebook.py).
    "model/folder",
    "model/infer",
    "pipeline",
    "records",
    "text/analysis",
    "text/claims",
    "text/quantities",
    "text/values",
    "text/retrieve",
    "text/urls",
    "text/weburl",
    "wire/capture",
    "wire/export",
    "text/utf16",
)

# How a verdict travels and what runs it, not what it is. Every module of the package is in one
# of the two lists (a test checks), so that a new judging module cannot slip past the fingerprint.
OPERATIONS_MODULES = (
    "__init__",
    "batch/__init__",
    "batch/journal",
    "batch/on_ray",
    "batch/report",
    "batch/run",
    "batch/words",
    "errors",
    "examples/__init__",
    "judging/__init__",
    "model/__init__",
    "model/cpu",
    "model/pool",
    "runtime",
    "service/__init__",
    "service/autostart",
    "service/cli",
    "service/pairing",
    "service/server",
    "sources/__init__",
    "sources/addresses",
    "sources/cache",
    "sources/fetch",
    "text/__init__",
    "typedefs",
    "versions",
    "wire/__init__",
    "wire/results",
)


@functools.cache  # the installed code does not change under a running process
def code_fingerprint(modules: tuple[str, ...]) -> str:
    """16 hex digits of SHA-256 over the named companion modules, comments and docstrings blanked,
    and data files (named with their suffix), read as JSON so that layout does not count."""
    digest = hashlib.sha256()
    package = resources.files("companion")
    for name in sorted(modules):
        if name.endswith(".json"):
            data = json.loads(package.joinpath(*name.split("/")).read_text(encoding="utf-8"))
            digest.update(f"{name}\0{json.dumps(data, sort_keys=True)}\0".encode())
            continue
        source = package.joinpath(*f"{name}.py".split("/")).read_text(encoding="utf-8")
        digest.update(f"{name}\0{_code_only(source)}\0".encode())
    return digest.hexdigest()[:16]


def _code_only(source: str) -> str:
    lines = source.splitlines()
    blank: list[tuple[int, int, int, int]] = []  # (first line, column, last line, end column), 1-based lines
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            blank.append((*token.start, *token.end))
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                end_line = first.end_lineno or first.lineno
                blank.append(
                    (
                        first.lineno,
                        _column(lines[first.lineno - 1], first.col_offset),
                        end_line,
                        _column(lines[end_line - 1], first.end_col_offset or 0),
                    )
                )
    # Right to left, so that earlier ranges keep their columns.
    for start_line, start_col, end_line, end_col in sorted(blank, reverse=True):
        head, tail = lines[start_line - 1][:start_col], lines[end_line - 1][end_col:]
        lines[start_line - 1 : end_line] = [head + tail]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _column(line: str, utf8_offset: int) -> int:
    """ast counts columns in UTF-8 bytes, tokenize and str in characters."""
    return len(line.encode("utf-8")[:utf8_offset].decode("utf-8"))
