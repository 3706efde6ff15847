"""The quote shown for a judgment: the source sentences a reader should check.

Supported claims get the fewest sentences that together hold the claim's words (the
verifiability study's and WiCE's annotators mark one sentence per fact); contradicted ones get the
sentence that says otherwise. Each quote is anchored like a W3C TextQuoteSelector and linked with
a text fragment that opens the source at it. Pure: no I/O, no model call.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..config import Judging
from ..records import Document, Evidence, Words
from ..text.urls import pdf_page_fragment, text_fragment
from .reading import SourceReading
from .rulebook import reports_unsettled

__all__ = ["contradicting_quote", "covering_quote", "quote"]


def covering_quote(
    claim: Words,
    readings: Sequence[SourceReading],
    judging: Judging,
    floor: float,
    says_otherwise: frozenset[int] = frozenset(),
) -> tuple[Evidence, ...]:
    """The fewest sentences of one source, among those the model reads as saying the claim or one
    of its facts, that together hold the claim's words the source holds; none of them one that
    says the opposite (`says_otherwise`, policy.SourceFacts). `readings`: the source read for the
    statement, then for each of its atomic claims.

    A sentence is a candidate only inside a window the model reads as entailing at
    `judging.quote_entailment` (the shortest such windows), or, where none does, inside the most
    entailing window if that reaches the model's `floor` (issue 58 item 3: a quote is what the
    model reads as support, never a sentence that merely shares the claim's words: "It was
    designed by the company of Gustave Eiffel" for "The tower is open every day"). Among them,
    greedy set cover of the claim's words, the model's entailment breaking ties, so a claim of
    several facts gets a sentence for each.
    No candidate: no quote, and the card says that no sentence of the source says it.
    """
    source = readings[0]
    entailment: dict[int, float] = {}
    for reading in readings:
        scored = [
            (w, sc)
            for w, sc in zip(reading.windows, reading.window_scores, strict=True)
            if sc.entailment >= floor
        ]
        chosen = [(w, sc) for w, sc in scored if sc.entailment >= judging.quote_entailment]
        if not chosen and scored:
            chosen = [max(scored, key=lambda ws: ws[1].entailment)]
        # The shortest windows read so: a sentence the model reads as support alone is the quote,
        # not its neighbours that only share the claim's words ("Der Rhein ist die verkehrsreichste
        # Binnenwasserstraße" beside "Er ist etwa 1.230 Kilometer lang").
        shortest = min((w.last - w.first for w, _ in chosen), default=0)
        chosen = [(w, sc) for w, sc in chosen if w.last - w.first == shortest]
        for window, score in chosen:
            for i in range(window.first, window.last + 1):
                if i not in says_otherwise:
                    entailment[i] = max(entailment.get(i, 0.0), score.entailment)
    wanted = claim.term_set
    held = {i: wanted & source.sentences[i].term_set for i in entailment}
    picked: list[int] = []
    covered: set[str] = set()
    while len(picked) < judging.evidence_sentences:
        rest = [i for i in held if i not in picked]
        best = max(rest, key=lambda i: (len(held[i] - covered), entailment[i], -i), default=None)
        if best is None or (picked and not held[best] - covered):
            break
        picked.append(best)
        covered |= held[best]
    return tuple(quote(source.document, i, source.url, judging) for i in sorted(picked))


def contradicting_quote(source: SourceReading, judging: Judging) -> tuple[Evidence, ...]:
    """For a contradicted claim the quote to show is the sentence that says otherwise: of a myth
    read with its refutation (reading.py), the refutation."""
    window = source.contradicting_window
    if window is None:
        return ()
    sentences = source.document.sentences
    first = window.first
    while first < window.last and reports_unsettled(sentences[first].text, source.language):
        first += 1
    return tuple(quote(source.document, i, source.url, judging) for i in range(first, window.last + 1))


def quote(document: Document, index: int, url: str, judging: Judging) -> Evidence:
    sentence = document.sentences[index]
    text = document.text
    context = judging.quote_context
    return Evidence(
        text=sentence.text,
        start=sentence.start,
        end=sentence.end,
        prefix=text[max(0, sentence.start - context) : sentence.start],
        suffix=text[sentence.end : sentence.end + context],
        # A PDF viewer ignores text fragments: a PDF quote opens the document at its page.
        fragment_url=pdf_page_fragment(url, sentence.page)
        if sentence.page is not None
        else text_fragment(url, sentence.text),
        sentence_index=index,
        url=url,
        page=sentence.page,
    )
