"""Splits text into sentences with character spans, and an answer into cited statements.

The same splitter serves the answer and the cited pages, so that training, evaluation and the
running companion see identical units. Pure text processing: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import pysbd

from .. import languages
from ..records import Citation, Sentence, Statement
from .language import detect_language, own_script

__all__ = [
    "MARKER_RUN",
    "attach_citations",
    "cite_blocks",
    "content_end",
    "sentences_of",
    "split_sentences",
    "statements",
    "strip_markers",
]

# Citation markers left in the text: [1], [1][2], [1, 2], [1-3], [1–3], superscripts ¹²³, 【1】.
_MARKER = r"(?:\[\s*\d+(?:\s*[-–,]\s*\d+)*\s*\]|【\d+(?:[-–,]\d+)*】|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
MARKER_RUN = re.compile(rf"(?:\s*{_MARKER})+")
_TRAILING_NOISE = re.compile(rf"(?:\s|{_MARKER})*\Z")
# Bullets and numbering at the start of a list line are layout, not claims.
_BULLET = re.compile(r"^\s*(?:[-*•·▪–]|\d{1,3}[.)])\s+")
_SPACES = re.compile(r"\s+")


def _segmenter(language: str) -> pysbd.Segmenter:
    """A new segmenter per call: pysbd keeps the text being split on the instance, so one shared
    between the answer (event loop) and pages (extraction threads) mixed their sentences up and
    gave the same page other sentences from run to run (issue 16). Construction costs ~1.5 µs."""
    return pysbd.Segmenter(
        language=language if language in pysbd.languages.LANGUAGE_CODES else "en",
        clean=False,
        char_span=False,
    )


def split_sentences(text: str, language: str = "en") -> list[tuple[int, int]]:
    """[start, end) spans of the sentences of `text`, trimmed of surrounding white space.

    Lines are split first: headings, list items and table cells carry no final full stop but
    are statements of their own (the verifiability study judges them too).
    """
    spans: list[tuple[int, int]] = []
    line_start = 0
    for original in text.splitlines(keepends=True):
        # pysbd reads "1798.[3] Most" as one sentence; markers as spaces keep every offset.
        line = MARKER_RUN.sub(lambda m: " " * len(m.group()), original)
        if line.strip():
            cursor = 0
            for piece in _pieces(line, language):
                at = line.find(piece, cursor) if piece else -1
                if at < 0:  # pysbd normalised something; fall back to the rest of the line
                    at, piece = cursor, line[cursor:]
                cursor = at + len(piece)
                _add_trimmed(spans, text, line_start + at, line_start + cursor)
            if cursor < len(line):
                _add_trimmed(spans, text, line_start + cursor, line_start + len(line))
        line_start += len(line)
    return _merge_marker_only(spans, text)


_CHUNK = 2_000
_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“‘(])")


# Where pysbd does not serve (issue 39): Japanese and Chinese end sentences with 。！？ and put no
# space after them (pysbd's Chinese rules split inside quotes, and its long-line fallback, which
# cuts at spaces, cut a CJK paragraph every 2,000 characters mid-sentence); pysbd's Arabic rules
# end a sentence at the Arabic comma. These end a sentence at a stop outside brackets and quotes,
# with the stops and closing marks that follow it; a Latin full stop only before white space, so
# "3.5" stays whole. A quote that ends with a stop keeps the words after it ("他说：“是的。”然后离开了。"
# is one sentence): better two sentences as one than one cut in two. The stops are `segment.stops`
# of the language's file.
_SPACED_STOPS = frozenset(".")  # a stop only where white space or the line's end follows
_OPENERS = frozenset("「『（(“‘《〈【〔［[")
_CLOSERS = frozenset("」』）)”’》〉】〕］]")
_QUOTE_MAX = 120  # a quote left open this long was never closed: stops count again


def _stop_pieces(line: str, stops: frozenset[str]) -> list[str]:
    """The sentences of `line` in a language whose stops are `stops`, as consecutive substrings."""
    pieces: list[str] = []
    start = depth = opened = 0
    i = 0
    while i < len(line):
        char = line[i]
        if char in _OPENERS:
            depth, opened = depth + 1, i
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        elif _ends(line, i, stops) and (depth == 0 or i - opened > _QUOTE_MAX):
            end = i + 1
            while end < len(line) and (
                line[end] in stops or line[end] in _SPACED_STOPS or line[end] in _CLOSERS
            ):
                end += 1
            while end < len(line) and line[end].isspace():  # markers, masked as spaces, go before
                end += 1
            pieces.append(line[start:end])
            start, depth, i = end, 0, end
            continue
        i += 1
    if start < len(line):
        pieces.append(line[start:])
    return pieces


def _ends(line: str, i: int, stops: frozenset[str]) -> bool:
    if line[i] in stops:
        return True
    return line[i] in _SPACED_STOPS and (i + 1 == len(line) or line[i + 1].isspace())


def _pieces(line: str, language: str) -> list[str]:
    """pysbd's sentences of `line`, splitting long lines first: pysbd is quadratic in line length."""
    record = languages.language(language)
    if record is not None and record.segment.stops:
        return _stop_pieces(line, record.segment.stops)
    segmenter = _segmenter(language)
    if len(line) <= _CHUNK:
        return list(segmenter.segment(line))
    out: list[str] = []
    start = 0
    while start < len(line):
        end = min(len(line), start + _CHUNK)
        if end < len(line):
            cut = None
            for m in _BREAK.finditer(line, start + _CHUNK // 2, end):
                cut = m.end()
            if cut is None:  # no sentence end in the window: break at a space
                space = line.rfind(" ", start + 1, end)
                cut = space + 1 if space > start else end
            end = cut
        out.extend(segmenter.segment(line[start:end]))
        start = end
    return out


def _add_trimmed(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def _merge_marker_only(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """A "sentence" that is only markers ("[2]" after a full stop) belongs to the one before."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and not strip_markers(text[start:end]).strip():
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def strip_markers(text: str) -> str:
    """The text without citation markers and list bullets, white space folded."""
    return _SPACES.sub(" ", MARKER_RUN.sub("", _BULLET.sub("", text))).strip()


def content_end(text: str, start: int, end: int) -> int:
    """End of a span once trailing markers and white space are cut off."""
    match = _TRAILING_NOISE.search(text, start, end)
    return match.start() if match and match.start() > start else end


def attach_citations(
    text: str, spans: Sequence[tuple[int, int]], citations: Sequence[Citation]
) -> list[list[Citation]]:
    """Each sentence's citations: a marker belongs to the sentence ending at or just before it.

    The offset is walked back over white space and other markers, so "…end. [1][2]", "…end.[1]"
    and a marker removed from the text at a sentence boundary all land on the same sentence.
    """
    attached: list[list[Citation]] = [[] for _ in spans]
    if not spans:
        return attached
    for citation in citations:
        offset = max(0, min(citation.offset, len(text)))
        # Runs of markers are short; looking back a bounded stretch keeps this linear.
        match = _TRAILING_NOISE.search(text, max(0, offset - 256), offset)
        anchor = match.start() if match else offset
        chosen = 0
        for i, (start, _end) in enumerate(spans):
            if start < anchor:
                chosen = i
            else:
                break
        attached[chosen].append(citation)
    return attached


def cite_blocks(
    spans: Sequence[tuple[int, int]], attached: Sequence[Sequence[Citation]]
) -> tuple[list[list[Citation]], list[bool]]:
    """Each sentence's citations once a chip that cites its whole block (`block_start`, api.md)
    is given to the block's sentences before it; and which sentences it was given to.

    Only a block that holds no other marker: an engine that marks sentences one by one inside
    the block says what each link is for, so its last link cites its own sentence only.
    """
    cited = [list(own) for own in attached]
    widened = [False] * len(spans)
    for last, own in enumerate(attached):
        for citation in own:
            if citation.block_start is None:
                continue
            first = last
            while first > 0 and spans[first - 1][0] >= citation.block_start:
                first -= 1
            before = range(first, last)
            if any(attached[i] for i in before):
                continue
            for i in before:
                cited[i].append(citation)
                widened[i] = True
    return cited, widened


# Headings and list labels (issue 15). The answer arrives as plain text with each heading on a line
# of its own; "Height and materials" or "Key points:" claims nothing, so it gets no badge and no
# count. Without a parser this is decided from the shape of the line alone (`_is_heading`).
_FINAL_STOP = re.compile(r"[.!?。！？…‼⁇।][\"'”’»)\]）」』]*\Z")
_LABEL_END = re.compile(r"[:：]\Z")
# A comma or an inner colon makes a clause or "Label: content", which usually claims something.
_CLAUSE_MARK = re.compile(r"[,;:，、；：]")
_HEADING_MAX_WORDS = 8
_LABEL_MAX_WORDS = 12
_HEADING_MAX_CHARS = 60
_LABEL_MAX_CHARS = 80


@dataclass(frozen=True, slots=True)
class _HeadingWords:
    """Words that tell a heading from a sentence, in every language with a file (`segment`): a
    heading is told before its sentence's language is."""

    question: frozenset[str]  # "what", "why"
    subject_pronouns: frozenset[str]
    # Copulas, auxiliaries and modals: the verbs a short claim without a full stop is made of
    # ("The tower is 330 m tall"); a few Romance and German ones for the answers in those languages.
    verbs: frozenset[str]


@cache
def _heading_words() -> _HeadingWords:
    found = [record.segment for record in map(languages.language, languages.codes()) if record is not None]
    return _HeadingWords(
        frozenset().union(*(s.question_words for s in found)),
        frozenset().union(*(s.subject_pronouns for s in found)),
        frozenset().union(*(s.verb_words for s in found)),
    )


def _own_line(text: str, start: int, end: int) -> bool:
    """The sentence is all of its line (a bullet before it and markers after it aside)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before = _BULLET.sub("", text[line_start:start] + "x", count=1)[:-1]
    return not before.strip() and not strip_markers(text[end:line_end])


def _is_heading(clean: str) -> bool:
    """A heading or label by its shape: short, no final punctuation, no verb.

    A line that ends with a colon introduces what follows ("Key points:", "Sources:"). Any other
    line needs all of: no full stop, question or exclamation mark at its end, at most
    _HEADING_MAX_WORDS words, no comma or inner colon, and either title case, a question word first
    ("Why they matter"), or no subject pronoun first and no copula, auxiliary or modal and no
    lower-case "-ed" word after the first ("It opened in 1889" is a claim). Present-tense verbs
    cannot be told from plural nouns without a tagger ("Key facts" / "Bees see colour"), so an
    uncited verb-only claim of that shape is read as a heading: the price of never badging one.
    """
    words = clean.split()
    if _LABEL_END.search(clean):
        return len(words) <= _LABEL_MAX_WORDS and len(clean) <= _LABEL_MAX_CHARS
    if _FINAL_STOP.search(clean) or len(words) > _HEADING_MAX_WORDS or len(clean) > _HEADING_MAX_CHARS:
        return False
    if _CLAUSE_MARK.search(clean):
        return False
    lowered = [w.lower().strip("\"'“”‘’()[]") for w in words]
    told = _heading_words()
    if lowered[0] in told.question:
        return True
    long_words = [w for w in words if sum(c.isalpha() for c in w) >= 4]
    if len(long_words) >= 2 and all(w[0].isupper() for w in long_words):
        return True  # Title Case
    if lowered[0] in told.subject_pronouns or any(w in told.verbs for w in lowered):
        return False
    return not any(w.endswith("ed") and len(w) > 3 and w[0].islower() for w in words[1:])


def statements(text: str, citations: Sequence[Citation], question: str = "") -> list[Statement]:
    """The answer's statements in order, with their citations and their reading context.

    Headings and labels are left out (`_is_heading`) unless they cite something: a cited line is
    a statement whatever its shape. An answer of one sentence is always a statement ("The
    Proclaimers" answers its question).
    """
    # With its question: a short answer alone is too few words to tell its language ("La Torre
    # Eiffel mide unos 330 metros de altura." alone was undetermined, and not checked, inside its
    # Spanish answer judged; issue 58 item 5), and engines answer in the language asked.
    language = detect_language(f"{question}\n{text}" if question else text)
    spans = split_sentences(text, language)
    attached = attach_citations(text, spans, citations)
    cited, widened = cite_blocks(spans, attached)
    result: list[Statement] = []
    previous = ""
    for (start, end), own, given, by_block in zip(spans, attached, cited, widened, strict=True):
        clean = strip_markers(text[start:end])
        if not clean:
            continue
        # A heading stays one when a block's link is given to it: it claims nothing either way.
        if not own and len(spans) > 1 and _own_line(text, start, end) and _is_heading(clean):
            # Still the context of the sentence under it, as the reader reads it.
            previous = clean
            continue
        result.append(
            Statement(
                index=len(result),
                text=clean,
                span=(start, content_end(text, start, end)),
                citations=tuple(given),
                previous=previous,
                question=question,
                language=detect_language(clean) if own_script(clean, text) else language,
                block_cited=by_block,
            )
        )
        previous = clean
    return result


def sentences_of(text: str, language: str = "en") -> tuple[Sentence, ...]:
    """Source-side sentences, with their offsets into `text` (for quotes and text fragments)."""
    return tuple(Sentence(text[s:e], s, e) for s, e in split_sentences(text, language))
