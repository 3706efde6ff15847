"""The quote shown for a judgment: the source sentences a reader should check.

Supported claims get the fewest sentences that together hold the claim's words (the
verifiability study's and WiCE's annotators mark one sentence per fact); contradicted ones get the
sentence that says otherwise. Each quote is anchored like a W3C TextQuoteSelector and linked with
a text fragment that opens the source at it. No I/O: where no text the model read says a fact,
the deciding model reads the likeliest sentences alone, behind the NLIBackend protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..config import Judging
from ..records import Document, Evidence, Words
from ..text.retrieve import reports_unsettled
from ..text.urls import pdf_page_fragment, text_fragment
from ..typedefs import NLIBackend
from .reading import SourceWindows

__all__ = ["contradicting_quote", "covering_quote", "quote"]


def covering_quote(
    facts: Sequence[tuple[Words, Sequence[SourceWindows]]],
    judging: Judging,
    floor: float,
    says_otherwise: frozenset[int] = frozenset(),
    reader: NLIBackend | None = None,
) -> tuple[Evidence, ...]:
    """The sentences of one source that say the claim: for each of its facts (the statement
    itself for a statement of one fact, else each atomic claim with the source as read for it),
    the fewest sentences the model reads as saying that fact that together hold its words; none of
    them one that says the opposite (`says_otherwise`, policy.SourceFacts). A fact is read in the
    source as read for it and as read for the whole statement: the fast model may read an atom
    short of its floor where the reader read the statement, and so each of its facts, as said.

    A sentence is a candidate only inside a window the model reads as entailing the fact at
    `judging.quote_entailment` (the shortest such windows), or, where none does, inside the most
    entailing window if that reaches the model's `floor` (issue 58 item 3: a quote is what the
    model reads as support, never a sentence that merely shares the claim's words: "It was
    designed by the company of Gustave Eiffel" for "The tower is open every day"). Among them,
    greedy set cover of the fact's words, the model's entailment breaking ties; a sentence beside
    the first is added only for two words of the fact the first lacks ("The Panama Canal is …"
    beside "The United States completed the canal in 1914"), not for one word it shares ("Drones
    are male bees …" for "Worker bees live about six weeks"). No candidate: no quote, and the card
    says that no sentence of the source says it.

    `reader`: the deciding model. Where no text the model read reaches the quote bar for a fact,
    it reads the sentences _to_read_alone names alone, all facts' in one backend call, and a
    sentence it reads as saying the fact is the quote ("It is made of puddled iron …" for "The
    tower is made of puddled iron, not steel", which the fast model read in its window as the
    opposite). None: no sentence is read alone.
    """
    source = facts[0][1][0]
    alone = _read_alone(facts, judging, says_otherwise, reader) if reader else {}
    picked: list[int] = []
    for claim, readings in facts:
        extra = {i: e for (text, i), e in alone.items() if text == claim.text}
        for i in _covering(claim, readings, judging, floor, says_otherwise, extra):
            if i not in picked and len(picked) < judging.evidence_sentences:
                picked.append(i)
    return tuple(quote(source.document, i, source.url, judging) for i in sorted(picked))


def _covering(
    claim: Words,
    readings: Sequence[SourceWindows],
    judging: Judging,
    floor: float,
    says_otherwise: frozenset[int],
    alone: Mapping[int, float],
) -> list[int]:
    entailment: dict[int, float] = {}
    for n, reading in enumerate(readings):
        texts = _texts(reading) + ([((i,), e) for i, e in alone.items()] if n == 0 else [])
        scored = [(ids, e) for ids, e in texts if e >= floor]
        chosen = [(ids, e) for ids, e in scored if e >= judging.quote_entailment]
        if not chosen and scored:
            chosen = [max(scored, key=lambda t: t[1])]
        # The shortest texts read so: a sentence the model reads as support alone is the quote,
        # not its neighbours that only share the claim's words.
        shortest = min((len(ids) for ids, _ in chosen), default=0)
        for ids, e in chosen:
            if len(ids) == shortest:
                for i in ids:
                    if i not in says_otherwise:
                        entailment[i] = max(entailment.get(i, 0.0), e)
    words = readings[0].sentences
    held = {i: claim.term_set & words[i].term_set for i in entailment}
    picked: list[int] = []
    covered: set[str] = set()
    while True:
        rest = [i for i in held if i not in picked]
        best = max(rest, key=lambda i: (len(held[i] - covered), entailment[i], -i), default=None)
        if best is None or len(held[best] - covered) < (2 if picked else 0):
            return picked
        picked.append(best)
        covered |= held[best]


def _texts(reading: SourceWindows) -> list[tuple[tuple[int, ...], float]]:
    """Each text the model read, as sentence indices with its entailment: a window's sentences,
    and the top sentences read joined (where the cascade's reader may have read what the fast
    model missed in each window alone)."""
    texts = [
        (tuple(range(w.first, w.last + 1)), sc.entailment)
        for w, sc in zip(reading.windows, reading.window_scores, strict=True)
    ]
    if reading.joined_indices:
        texts.append((reading.joined_indices, reading.joined_score.entailment))
    return texts


def _read_alone(
    facts: Sequence[tuple[Words, Sequence[SourceWindows]]],
    judging: Judging,
    says_otherwise: frozenset[int],
    reader: NLIBackend,
) -> dict[tuple[str, int], float]:
    """(fact, sentence) -> the reader's entailment of the sentence read alone, for each fact's
    sentences _to_read_alone names; one backend call, none where none is named."""
    pairs = [
        (claim.text, i)
        for claim, readings in facts
        for i in _to_read_alone(claim, readings, judging, says_otherwise)
    ]
    if not pairs:
        return {}
    document = facts[0][1][0].document
    scores = reader.score([(document.sentences[i].text, text) for text, i in pairs])
    return {pair: score.entailment for pair, score in zip(pairs, scores, strict=True)}


def _to_read_alone(
    claim: Words, readings: Sequence[SourceWindows], judging: Judging, says_otherwise: frozenset[int]
) -> tuple[int, ...]:
    """Where no text the model read reaches the quote bar for this fact: the sentences of those
    texts that hold most of its words (at most `judging.quote_candidates`), for the deciding model
    to read alone; else none."""
    if any(e >= judging.quote_entailment for r in readings for _, e in _texts(r)):
        return ()
    words = readings[0].sentences
    seen = {i for r in readings for ids, _ in _texts(r) for i in ids if i not in says_otherwise}
    held = {i: len(claim.term_set & words[i].term_set) for i in seen}
    ranked = sorted((i for i in held if held[i]), key=lambda i: (-held[i], i))
    return tuple(ranked[: judging.quote_candidates])


def contradicting_quote(source: SourceWindows, judging: Judging) -> tuple[Evidence, ...]:
    """For a contradicted claim the quote to show is the sentence that says otherwise: of a myth
    read with its refutation (reading.py), the refutation."""
    window = source.contradicting_window
    if window is None:
        return ()
    sentences = source.document.sentences
    first = window.first
    while first < window.last and reports_unsettled(sentences[first].text, source.language.cues):
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
