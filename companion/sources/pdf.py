"""PDF sources: the text of each page, sentences with their page, quotes that open at the page.

PDFium (pypdfium2) reads the PDF in a child process with a memory cap and a deadline, because a
PDF is a program for a C library: a 1 MB file can inflate to gigabytes (a 4 MB one took 5 GB and
28 s in-process), and a crash or a stall there must cost this source, not the companion. The
child stops at the page, character and time limits (config.Limits) and returns the pages read
so far; the parent joins the lines PDF layout broke back into paragraphs, so that sentences
are not cut at every line end.

PDFium over pypdf (measured on PDFs made with fpdf2, 2 shared cores): 30 pages 138 ms vs 655 ms,
300 pages 1.9 s vs 5.6 s, the same words; PDFium also marks words hyphenated at a line end, so
"centi-/metres" comes back whole, and it is Chromium's PDF engine, fuzzed continuously.
"""

from __future__ import annotations

import bisect
import json
import logging
import re
import subprocess
import sys

from ..config import Limits
from ..errors import NotReadable
from ..records import Document, Sentence
from ..text.language import detect_language
from ..text.segment import sentences_of

__all__ = ["is_pdf", "pdf_to_document", "read_pdf_pages"]

log = logging.getLogger(__name__)

# Run as `python -I -c _CHILD max_pages max_chars budget_s memory_bytes`, the PDF on stdin, one
# JSON object out. Only pypdfium2 is imported there, so a broken companion install cannot matter.
_CHILD = r"""
import json, sys, time
max_pages, max_chars, memory = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[4])
budget = float(sys.argv[3])
try:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
except (ImportError, ValueError, OSError):
    pass  # no rlimits on this system: the parent's deadline still holds
data = sys.stdin.buffer.read()
try:
    import pypdfium2 as pdfium
except ImportError:
    print(json.dumps({"error": "missing"}))
    sys.exit(0)
started = time.monotonic()
try:
    doc = pdfium.PdfDocument(data)
except pdfium.PdfiumError as exc:
    print(json.dumps({"error": {4: "password", 5: "password"}.get(exc.err_code, "broken")}))
    sys.exit(0)
title = ""
try:
    title = doc.get_metadata_dict().get("Title", "") or ""
except Exception:
    pass
count = len(doc)
pages, chars, stopped = [], 0, ""
for index in range(min(count, max_pages)):
    if chars >= max_chars:
        stopped = "chars"
        break
    if pages and time.monotonic() - started > budget:
        stopped = "time"
        break
    try:
        page = doc[index]
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        textpage.close()
        page.close()
    except pdfium.PdfiumError:
        text = ""  # one broken page: the others may still be read
    pages.append(text)
    chars += len(text)
else:
    stopped = "pages" if count > max_pages else ""
print(json.dumps({"pages": pages, "count": count, "title": title, "stopped": stopped}))
"""

# PDFium marks a word split at a line end with U+FFFE (0x02 in bounded text); U+00AD is the
# soft hyphen itself. All three vanish, so "centi-/metres" is one word again.
_SOFT_HYPHEN = re.compile("[\x02\ufffe\u00ad]\r?\n?")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\uffff]")
_ENDS_SENTENCE = re.compile(r"[.!?:;…\"”’)\]]$")
# A line shorter than this share of the page's longest line, without a final stop, is a heading,
# a caption or a list item: it stays a line of its own (a sentence), as in HTML.
_SHORT_LINE = 0.6


def is_pdf(content_type: str, body: bytes) -> bool:
    """PDF by its type, or by its signature when the server says only "binary"."""
    return content_type in ("application/pdf", "application/x-pdf") or (
        content_type == "application/octet-stream" and body[:1024].lstrip().startswith(b"%PDF-")
    )


def read_pdf_pages(data: bytes, limits: Limits, *, max_chars: int) -> tuple[str, list[str]]:
    """The title and each page's raw text, read by PDFium in a capped child process.

    Raises NotReadable with the reason a reader sees: not a PDF, encrypted, broken, too large
    once decompressed, too slow, or no text layer at all.
    """
    if b"%PDF-" not in data[:1024]:
        raise NotReadable("not a PDF (the file does not start like one)")
    if len(data) > limits.max_pdf_bytes:
        raise NotReadable(f"PDF too large (over {limits.max_pdf_bytes // 1_000_000} MB)")
    command = [
        sys.executable,
        "-I",  # isolated: no PYTHONPATH, user site or current folder in the child
        "-c",
        _CHILD,
        str(limits.max_pdf_pages),
        str(max_chars),
        str(limits.pdf_read_budget_s),
        str(limits.pdf_memory_bytes),
    ]
    try:
        done = subprocess.run(
            command, input=data, capture_output=True, timeout=limits.pdf_timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        raise NotReadable("PDF took too long to read") from None
    try:
        result = json.loads(done.stdout) if done.returncode == 0 else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        log.info(
            "PDF reader exited with %s: %s", done.returncode, done.stderr[-500:].decode(errors="replace")
        )
        # Killed by the memory cap, crashed inside PDFium, or pypdfium2 missing: the file is at fault
        # far more often than the install, and the log has the child's stderr for the rest.
        raise NotReadable("PDF could not be read (damaged, or too large once decompressed)")
    if result.get("error") == "missing":
        raise NotReadable("PDF reader not installed (pypdfium2): run scripts/setup.sh again")
    if result.get("error") == "password":
        raise NotReadable("PDF is password-protected")
    if "error" in result:
        raise NotReadable("PDF is damaged (it could not be opened)")
    pages = [str(p) for p in result.get("pages", [])]
    if not any(p.strip() for p in pages):
        if result.get("count", 0) == 0:
            raise NotReadable("PDF has no pages")
        raise NotReadable("PDF has no text layer (a scan?): nothing to check")
    return str(result.get("title") or ""), pages


def pdf_to_document(url: str, data: bytes, limits: Limits, *, max_chars: int) -> Document:
    """A PDF as a Document whose sentences carry their 1-based page number."""
    title, pages = read_pdf_pages(data, limits, max_chars=max_chars)
    parts: list[str] = []
    starts: list[int] = []  # offset in the text where each kept page begins
    numbers: list[int] = []
    at = 0
    for number, raw in enumerate(pages, start=1):
        text = reflow(raw)
        if not text:
            continue
        starts.append(at)
        numbers.append(number)
        parts.append(text)
        at += len(text) + 1
    text = "\n".join(parts)[:max_chars]
    language = detect_language(text)
    sentences = tuple(
        Sentence(s.text, s.start, s.end, numbers[bisect.bisect_right(starts, s.start) - 1])
        for s in sentences_of(text, language)
    )
    return Document(url=url, title=" ".join(title.split()), text=text, sentences=sentences, language=language)


def reflow(page: str) -> str:
    """One line per paragraph, heading or list item, from a page's layout lines."""
    page = _CONTROL.sub(" ", _SOFT_HYPHEN.sub("", page))
    lines = [" ".join(line.split()) for line in page.splitlines()]
    longest = max((len(line) for line in lines), default=0)
    out: list[str] = []
    current = previous = ""
    for line in lines:
        if not line:
            if current:
                out.append(current)
            current = ""
        elif not current:
            current = line
        elif _ENDS_SENTENCE.search(previous) or len(previous) < _SHORT_LINE * longest:
            out.append(current)
            current = line
        elif previous.endswith("-") and previous[-2:-1].isalpha():
            current += line  # "state-of-the-" / "art": the hyphen is the word's own
        else:
            current += " " + line
        previous = line
    if current:
        out.append(current)
    return "\n".join(out)
