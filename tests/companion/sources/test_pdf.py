"""PDF sources: page text in order, sentences with their page, and every broken PDF inaccessible.

The PDFs are written here by hand (make_pdf), byte by byte, so that each test says exactly what
its file holds: text pages, an image-only scan, an /Encrypt dictionary, a page tree that lies
about its size, a content stream that inflates to a gigabyte.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Sequence

import pytest

from companion.config import Limits
from companion.errors import NotReadable
from companion.records import Fetched
from companion.sources.extract import extract
from companion.sources.pdf import is_pdf, pdf_to_document, reflow
from companion.text.urls import pdf_page_fragment

LIMITS = Limits()


def _escape(line: str) -> bytes:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def page_stream(lines: Sequence[str]) -> bytes:
    """A content stream writing `lines` top-down in Helvetica, as a word processor would."""
    body = b"".join(b"(" + _escape(line) + b") Tj T* " for line in lines)
    return b"BT /F1 11 Tf 14 TL 72 760 Td " + body + b"ET"


def make_pdf(
    pages: Sequence[Sequence[str] | bytes],
    *,
    title: str = "",
    count: int | None = None,
    compress: bool = False,
    encrypt: bool = False,
    image_only: bool = False,
) -> bytes:
    """A minimal PDF 1.4: one page per item (its lines, or a raw content stream), Helvetica.

    `count` lets the page tree claim another number of pages than it has; `encrypt` adds a
    standard security handler whose user password is not empty; `image_only` gives every page
    a 1x1 image and no text, as a scan without OCR.
    """
    objects: list[bytes] = [b"", b""]  # catalog and page tree, filled in below
    kids = []
    font = 3 + 2 * len(pages)
    image = font + 1
    for item in pages:
        content = item if isinstance(item, bytes) else page_stream(item)
        if image_only:
            content = b"q 200 0 0 200 72 500 cm /Im1 Do Q"
        data = zlib.compress(content, 9) if compress else content
        flate = b" /Filter /FlateDecode" if compress else b""
        kids.append(len(objects) + 1)
        resources = b"/Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >>" % (font, image)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << %s >> >>"
            % (len(objects) + 2, resources)
        )
        objects.append(b"<< /Length %d%s >>\nstream\n" % (len(data), flate) + data + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(
        b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream"
    )
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(pages) if count is None else count,
    )
    trailer = b""
    if title:
        objects.append(b"<< /Title (" + _escape(title) + b") >>")
        trailer += b" /Info %d 0 R" % len(objects)
    if encrypt:
        objects.append(
            b"<< /Filter /Standard /V 1 /R 2 /P -44 /O <" + b"ab" * 32 + b"> /U <" + b"cd" * 32 + b"> >>"
        )
        trailer += (
            b" /Encrypt %d 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]"
            % len(objects)
        )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        trailer,
        xref,
    )
    return bytes(out)


REPORT = [
    [
        "Annual water report",
        "The river rose by forty centimetres during the night of 3 March, the highest level",
        "recorded at the northern gauge since the station opened in 1998.",
        "Engineers closed the lower sluice before dawn.",
    ],
    [
        "Costs",
        "Repairs to the embankment cost the county 2.4 million euros, paid from the flood",
        "reserve and a state grant that covers half of the amount.",
    ],
]


def test_pages_become_sentences_with_their_page_number() -> None:
    doc = pdf_to_document(
        "https://example.org/report.pdf", make_pdf(REPORT, title="Water report"), LIMITS, max_chars=100_000
    )
    assert doc.title == "Water report"
    by_text = {s.text: s.page for s in doc.sentences}
    # The line the layout broke is one sentence again, on the page where it is printed.
    assert (
        by_text[
            "The river rose by forty centimetres during the night of 3 March, the highest level "
            "recorded at the northern gauge since the station opened in 1998."
        ]
        == 1
    )
    assert by_text["Engineers closed the lower sluice before dawn."] == 1
    assert by_text["Costs"] == 2  # a heading stays a sentence of its own
    assert (
        by_text[
            "Repairs to the embankment cost the county 2.4 million euros, paid from the flood reserve "
            "and a state grant that covers half of the amount."
        ]
        == 2
    )
    for sentence in doc.sentences:
        assert doc.text[sentence.start : sentence.end] == sentence.text


def test_extract_sends_pdfs_to_the_pdf_reader_and_html_elsewhere() -> None:
    body = make_pdf(REPORT, compress=True)
    doc = extract(
        Fetched("https://example.org/r.pdf", "https://example.org/r.pdf", 200, "application/pdf", body),
        max_chars=100_000,
    )
    assert {s.page for s in doc.sentences} == {1, 2}
    html = extract(
        Fetched("u", "u", 200, "text/html", b"<p>Plain page text for once, long enough.</p>"), max_chars=1000
    )
    assert all(s.page is None for s in html.sentences)


def test_page_fragment_opens_the_pdf_at_the_page() -> None:
    assert pdf_page_fragment("https://example.org/r.pdf", 7) == "https://example.org/r.pdf#page=7"
    assert pdf_page_fragment("https://example.org/r.pdf#page=2", 3) == "https://example.org/r.pdf#page=3"


def test_pdf_is_known_by_type_or_by_signature() -> None:
    assert is_pdf("application/pdf", b"")
    assert is_pdf("application/octet-stream", b"%PDF-1.7\n...")
    assert not is_pdf("application/octet-stream", b"\x89PNG")
    assert not is_pdf("text/html", b"%PDF-1.7")


def test_reflow_joins_layout_lines_and_keeps_headings_and_hyphenated_words() -> None:
    page = (
        "Results\r\n"
        "The gauge recorded a rise of forty centi\ufffemetres over a single night and a state-of-the-\r\n"
        "art sensor confirmed the reading within the hour of the first measurement.\r\n"
    )
    assert reflow(page) == (
        "Results\nThe gauge recorded a rise of forty centimetres over a single night and a "
        "state-of-the-art sensor confirmed the reading within the hour of the first measurement."
    )


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (make_pdf(REPORT, image_only=True), r"no text layer"),
        (make_pdf(REPORT, encrypt=True), r"password-protected"),
        (make_pdf(REPORT)[:200], r"damaged"),  # cut short
        (b"%PDF-1.4\n" + bytes(range(256)) * 40, r"damaged"),
        (b"<html>not a pdf</html>", r"not a PDF"),
        (make_pdf([]), r"damaged|no pages"),  # PDFium refuses an empty page tree
    ],
    ids=["scan", "encrypted", "truncated", "garbage", "not-pdf", "no-pages"],
)
def test_unreadable_pdfs_say_why(body: bytes, reason: str) -> None:
    with pytest.raises(NotReadable, match=reason) as caught:
        pdf_to_document("https://example.org/x.pdf", body, LIMITS, max_chars=100_000)
    assert "\n" not in caught.value.reason and "Error" not in caught.value.reason


def test_a_page_tree_that_claims_100000_pages_reads_what_is_there_quickly() -> None:
    started = time.perf_counter()
    doc = pdf_to_document("u", make_pdf(REPORT, count=100_000), LIMITS, max_chars=100_000)
    assert time.perf_counter() - started < 5
    assert "Engineers closed the lower sluice before dawn." in doc.text


def test_many_pages_stop_at_the_page_and_character_limits() -> None:
    pages = [[f"Page {k} says that gauge {k} read {k} centimetres at noon."] for k in range(60)]
    body = make_pdf(pages, compress=True)
    doc = pdf_to_document("u", body, Limits(max_pdf_pages=10), max_chars=100_000)
    assert max(s.page or 0 for s in doc.sentences) == 10
    short = pdf_to_document("u", body, LIMITS, max_chars=300)
    assert len(short.text) <= 300 and max(s.page or 0 for s in short.sentences) < 10


def bomb_pdf(gib: int = 1) -> bytes:
    """A page whose content stream is one line of text and then `gib` GiB of spaces, in ~1 MB.

    Each 1 MiB block is deflated after a full flush, so the blocks are identical bytes and the
    bomb costs nothing to build (its checksum is wrong; inflaters read everything first).
    """
    squeeze = zlib.compressobj(9)
    head = squeeze.compress(page_stream(["Hello from the bomb."]) + b"\n") + squeeze.flush(zlib.Z_FULL_FLUSH)
    block = squeeze.compress(b" " * (1 << 20)) + squeeze.flush(zlib.Z_FULL_FLUSH)
    stream = head + block * (1024 * gib) + squeeze.flush()
    return make_pdf([b""]).replace(
        b"<< /Length 0 >>\nstream\n\nendstream",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    )


def test_a_decompression_bomb_costs_the_source_not_the_companion() -> None:
    # In-process, PDFium took 2 GB and 5 s on this 1 MB file; the child hits its memory cap.
    body = bomb_pdf()
    assert len(body) < 2_000_000
    started = time.perf_counter()
    with pytest.raises(NotReadable, match="too large once decompressed"):
        pdf_to_document("u", body, LIMITS, max_chars=100_000)
    assert time.perf_counter() - started < LIMITS.pdf_timeout_s


def test_reading_stops_at_the_time_budget_and_the_child_is_killed_at_the_deadline() -> None:
    pages = [[f"Page {k} says that gauge {k} read {k} centimetres at noon."] for k in range(60)]
    body = make_pdf(pages)
    doc = pdf_to_document("u", body, Limits(pdf_read_budget_s=0.0), max_chars=100_000)
    assert {s.page for s in doc.sentences} == {1}  # the first page, then the budget was spent
    with pytest.raises(NotReadable, match="took too long"):
        pdf_to_document("u", body, Limits(pdf_timeout_s=0.01), max_chars=100_000)


def test_mutated_pdfs_are_read_or_refused_never_crash() -> None:
    # Flipped bytes across the file (xref, dictionaries, compressed streams): a fixed seed keeps
    # the cases the same from run to run.
    rng = random.Random(11)
    good = make_pdf(REPORT, compress=True)
    for _ in range(12):
        body = bytearray(good)
        for _ in range(rng.randint(1, 40)):
            body[rng.randrange(16, len(body))] = rng.randrange(256)
        try:
            doc = pdf_to_document("u", bytes(body), LIMITS, max_chars=100_000)
        except NotReadable as exc:
            assert exc.reason and "\n" not in exc.reason
        else:
            assert all(doc.text[s.start : s.end] == s.text for s in doc.sentences)
