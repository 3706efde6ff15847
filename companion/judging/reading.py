"""What the NLI model reads of each cited source for one claim, and what it says.

Retrieval ranks a source's windows for the claim (analysed once, claim.py); the best few, and
the joined top sentences, are scored as (premise = source text, hypothesis = claim) pairs in one
call to the backend for the statement, its atomic claims and all their sources, so the backend
batches and caches across them. What the later stages read of a source is worked out here once
and kept in the SourceWindows as fields. No I/O: documents arrive read (their sentences analysed
with them, text/analysis.py), the model behind the NLIBackend protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from .. import languages
from ..config import Judging, Retrieval
from ..records import Document, Entailment, PageIndex, Window, Words
from ..text.analysis import sentence_words
from ..text.language import lexicon
from ..text.retrieve import Candidates, candidates, rank_windows, read_on
from ..typedefs import NLIBackend
from .claim import ClaimLanguage, StatementClaims, claim_language
from .combiner import overlap

__all__ = [
    "CascadeReader",
    "Opposed",
    "SourceWindows",
    "StatementWindows",
    "best_window_entailment",
    "given_elsewhere",
    "read_jointly",
    "read_sources",
    "read_statement",
]

_NO_SCORE = Entailment(0.0, 1.0, 0.0)


@dataclass(frozen=True, slots=True)
class SourceWindows:
    """The windows the model read in one source for one claim, its scores for each, and what the
    later stages read of them, worked out once here (fields, not methods: no stage asks again)."""

    url: str
    document: Document
    windows: tuple[Window, ...]
    window_scores: tuple[Entailment, ...]
    joined_text: str
    joined_score: Entailment
    on_topic: tuple[bool, ...]  # per window: does it hold enough of the claim's words to contradict it?
    language: ClaimLanguage  # the claim's, whose words were looked for
    joined_indices: tuple[int, ...]  # the Document's sentences `joined_text` joins
    joined_words: Words  # their words, in the claim's language
    sentences: tuple[Words, ...]  # the Document's sentences' words in the claim's language, kept with it
    page: PageIndex  # the whole page's, for the lexical features
    # Per window: the model's contradiction once the page's sentences giving the claim's missing
    # names and numbers are read with it (given_elsewhere), where an on-topic window reached the
    # bar it was read for; else its own contradiction.
    confirmed: tuple[float, ...]
    # The model's reading of the text it found most entailing (a window or the joined top
    # sentences), with that text's neutral and contradiction beside it.
    best_reading: Entailment
    best_entailment: float  # best_reading's
    # Contradiction by a window that is about the claim: an unrelated page reads as
    # "contradiction" to an SNLI-trained model, but it only fails to support.
    contradiction: float
    # The model's 3-way reading of the best-ranked window, before any gating or combining.
    first_reading: Entailment
    best_window: Window | None  # the window the model found most entailing (first ranked on ties)
    # The shortest on-topic window among those that contradict the claim the most.
    contradicting_window: Window | None
    # The sentences (a window's, or the joined top ones) the model found most entailing, as the
    # Document split them: the rules read these, never a re-split of the joined text.
    most_entailing: tuple[int, ...]
    # Per window: the cascade's fast model read it and the reader did not (all False without a
    # cascade), so its readings are on the fast model's scale (policy.WindowFacts.fast).
    fast: tuple[bool, ...] = ()
    # The cascade's reader's readings of the windows it re-read only because the fast model reads
    # them as contradicting (CascadeReader.against): beside the fast model's, never in place of them.
    opposed: tuple[Opposed, ...] = ()
    # Per window, for a claim that holds a negation: the reader's contradiction, with the page's
    # context, where the fast model reads the window at its contradiction bar; else None (_denials).
    denied: tuple[float | None, ...] = ()


@dataclass(frozen=True, slots=True)
class Opposed:
    """The reader's reading of an on-topic window the fast model reads as contradicting."""

    window: int  # its index in SourceWindows.windows
    score: Entailment
    confirmed: float  # its contradiction, rechecked with the page's context (_rechecked)


@dataclass(frozen=True, slots=True)
class StatementWindows:
    """What the model read for a statement: each cited source for its claim, the sources'
    joined top sentences read together (ALCE, with several sources), and each atomic claim's
    sources (FActScore)."""

    sources: Mapping[str, SourceWindows]
    joint: Entailment | None
    atoms: tuple[Mapping[str, SourceWindows], ...]


@dataclass(frozen=True, slots=True)
class CascadeReader:
    """The cascade (issue 37, model.folder.Cascade): the stronger `reader` re-reads each cited
    source's `windows` texts the fast model reads as most entailing and its `against` on-topic
    windows it reads as most contradicting, at `contradiction` or above, unless it reads every
    text of the source as entailing under `gate`. On the most entailing texts the reader's
    readings replace the fast model's, and only they give the source's best reading; on the
    contradicting ones they are added beside the fast model's (_reread)."""

    reader: NLIBackend
    windows: int
    contradiction: float
    against: int = 1
    gate: float = 0.0
    # Where a window the reader did not re-read is read again with the page's context: the fast
    # model's own bar (policy.recheck_bar); None, the reader's.
    fast_recheck_at: float | None = None
    # The fast model's contradiction bar: where it reads a denial's window so, the reader reads
    # the window too (_denials); None, never.
    fast_contradiction: float | None = None


@dataclass(frozen=True, slots=True)
class _Plan:
    url: str
    document: Document
    claim: Words
    found: Candidates
    # With a cascade: per window, and for the joined text, whether the reader re-read it
    # (CascadeReader).
    decided: tuple[bool, ...] | None = None
    joined_decided: bool = True
    # With a cascade: the windows the reader re-read for the opposite alone, with its readings.
    opposed: tuple[tuple[int, Entailment], ...] = ()

    @property
    def windows(self) -> tuple[Window, ...]:
        return self.found.windows

    @property
    def joined(self) -> str:
        return self.found.joined


def read_statement(
    nli: NLIBackend,
    claims: StatementClaims,
    documents: Sequence[tuple[str, Document, str]],
    retrieval: Retrieval,
    judging: Judging,
    recheck_at: float,
    reread: CascadeReader | None = None,
) -> StatementWindows:
    """The statement's claim and each of its atomic claims, read in each (url, document, hint),
    the model reading every pair in one backend call (and the rechecks of windows that contradict
    at `recheck_at` in a second). With `reread`, the reader re-reads what decides the claim's
    readings, and the sources' joined top sentences read together, in one call of its own; the
    atomic claims stay the fast model's."""
    language = claims.language
    own = [
        _plan(url, d, claims.claim.read, retrieval.candidates, retrieval, hint, language)
        for url, d, hint in documents
    ]
    atoms = [
        [_plan(url, d, atom.read, judging.atom_windows, retrieval, "", language) for url, d, _ in documents]
        for atom in claims.atoms
    ]
    joint = (" ".join(p.joined for p in own), claims.claim.read.text) if len(own) > 1 else None
    # Group by group (the statement's, then each atom's), as _readings takes them back.
    pairs = [pair for plans in (own, *atoms) for pair in _pairs(plans)]
    scores = iter(nli.score(pairs + ([joint] if joint and reread is None else [])))
    if reread is None:
        sources = _readings(nli, own, scores, judging, language, recheck_at)
        read_atoms = tuple(_readings(nli, plans, scores, judging, language, None) for plans in atoms)
        return StatementWindows(sources, next(scores) if joint else None, read_atoms)
    decided, merged, joint_score = _reread(reread, own, scores, judging, language, joint)
    sources = _readings(
        nli, decided, merged, judging, language, recheck_at, reread, denial=claims.claim.negates
    )
    read_atoms = tuple(_readings(nli, plans, scores, judging, language, None) for plans in atoms)
    return StatementWindows(sources, joint_score, read_atoms)


def read_sources(
    nli: NLIBackend,
    claim: Words,
    documents: Sequence[tuple[str, Document, str]],
    retrieval: Retrieval,
    judging: Judging,
    *,
    language: ClaimLanguage | None = None,
    recheck_at: float | None = None,
    reread: CascadeReader | None = None,
) -> dict[str, SourceWindows]:
    """Each (url, document, hint) read for `claim`, with one backend call for all of them (and
    one for the rechecks of windows that contradict at `recheck_at`, where given); with `reread`,
    what decides re-read by the reader as in read_statement. `language`: the claim's, English
    where not given."""
    language = language or claim_language("en")
    plans = [
        _plan(url, d, claim, retrieval.candidates, retrieval, hint, language) for url, d, hint in documents
    ]
    scores = iter(nli.score(_pairs(plans)))
    if reread is None:
        return _readings(nli, plans, scores, judging, language, recheck_at)
    decided, merged, _ = _reread(reread, plans, scores, judging, language, None)
    return _readings(nli, decided, merged, judging, language, recheck_at, reread)


def best_window_entailment(
    nli: NLIBackend,
    claim: Words,
    documents: Sequence[tuple[str, Document, str]],
    retrieval: Retrieval,
    judging: Judging,
    language: ClaimLanguage,
) -> dict[str, float]:
    """The model's entailment on the best window of the documents whose best window holds at least
    `judging.elsewhere_on_topic` of the claim's words (the others are not about it, and cost no
    model call), at most `judging.elsewhere_pages` of them, those whose window holds the most of
    the claim's words first (then the most relevant, then by URL: never by the order pages came
    in): one backend call. Found elsewhere reads a whole page only where this reads as support."""
    ranked: list[tuple[float, float, str, Window]] = []
    for url, document, hint in documents:
        best = rank_windows(
            document,
            claim,
            limit=1,
            max_sentences=retrieval.max_window_sentences,
            min_chars=retrieval.min_sentence_chars,
            hint=hint,
        )
        if not best:
            continue
        words = _window_words(sentence_words(document, language.lexicon), best[0])
        coverage = overlap(claim, words.term_set, frozenset(), ()).coverage
        if coverage >= judging.elsewhere_on_topic:
            ranked.append((-coverage, -best[0].relevance, url, read_on(document, best, language.cues)[0]))
    read = [(url, window) for _, _, url, window in sorted(ranked)[: judging.elsewhere_pages]]
    scores = nli.score([(window.text, claim.text) for _, window in read]) if read else []
    return {url: score.entailment for (url, _), score in zip(read, scores, strict=True)}


def read_jointly(nli: NLIBackend, claim: Words, readings: Sequence[SourceWindows]) -> Entailment:
    """The model's reading of these sources' joined top sentences read side by side."""
    return nli.score([(" ".join(r.joined_text for r in readings), claim.text)])[0]


def _plan(
    url: str,
    document: Document,
    claim: Words,
    limit: int,
    retrieval: Retrieval,
    hint: str,
    language: ClaimLanguage,
) -> _Plan:
    found = candidates(document, claim, language.lexicon, language.cues, retrieval, limit=limit, hint=hint)
    return _Plan(url, document, claim, found)


def _joined_about_claim(plan: _Plan, on_topic: float, language: ClaimLanguage) -> bool:
    """Whether every window the plan's joined text was taken from holds `on_topic` of the claim's
    words: only then does the cascade's reader re-read it (a sentence of the page's chrome that
    shares a word with the claim changed the reader's verdict once joined, issue 37)."""
    return all(
        _claim_share(plan.claim, _window_words(plan.found.sentences, w), language) >= on_topic
        for w in plan.found.joined_from
    )


def _pairs(plans: Sequence[_Plan]) -> list[tuple[str, str]]:
    """Plan by plan, windows first, then the joined texts: _scores takes them back in that order."""
    pairs = [(w.text, plan.claim.text) for plan in plans for w in plan.windows]
    return pairs + [(plan.joined, plan.claim.text) for plan in plans if plan.joined]


def _scores(
    plans: Sequence[_Plan], scores: Iterator[Entailment]
) -> tuple[list[tuple[Entailment, ...]], list[Entailment]]:
    """The plans' window scores and joined texts' scores, taken back in _pairs' order."""
    windows = [tuple(_next_scores(scores, len(plan.windows))) for plan in plans]
    together = [next(scores) if plan.joined else _NO_SCORE for plan in plans]
    return windows, together


def _reread(
    reread: CascadeReader,
    plans: Sequence[_Plan],
    scores: Iterator[Entailment],
    judging: Judging,
    language: ClaimLanguage,
    joint: tuple[str, str] | None,
) -> tuple[list[_Plan], Iterator[Entailment], Entailment | None]:
    """The cascade: the plans marked with what decides, the reader's readings of it merged into the
    fast model's (in _pairs' order, as _readings takes them), and the reader's reading of `joint`.

    What decides, per plan: the `reread.windows` texts the fast model reads as most entailing (a
    window or the joined top sentences; the first ranked on ties); nothing where every text reads
    as entailing under `reread.gate`. The other windows keep the fast model's reading, a
    contradiction included, so a reading of the opposite counts whoever read it: the quote and the
    rules still look at every window, but only decided texts give the best reading (and with none
    decided, the fast model's). The `reread.against` other on-topic windows the fast model reads
    as most contradicting, at `reread.contradiction` or above, are re-read too, and the reader's
    readings of them kept beside the fast model's (`_Plan.opposed`): the reader may find a
    contradiction the fast model reads under its bar, and may not clear one it reads (a re-read
    in place of the fast model's reading turned four refuted sentences of the frozen set green)."""
    windows, together = _scores(plans, scores)
    marked: list[_Plan] = []
    opposed: list[list[int]] = []
    for plan, own, joined_score in zip(plans, windows, together, strict=True):
        texts = [*own, joined_score] if plan.joined else list(own)
        if all(t.entailment < reread.gate for t in texts):
            marked.append(dataclasses.replace(plan, decided=(False,) * len(own), joined_decided=False))
            opposed.append([])
            continue
        joined_rereadable = _joined_about_claim(plan, judging.on_topic, language)
        rereadable = range(len(texts) if joined_rereadable else len(own))
        best = set(sorted(rereadable, key=lambda i: (-texts[i].entailment, i))[: reread.windows])
        contradicting = [
            i
            for i, (window, score) in enumerate(zip(plan.windows, own, strict=True))
            if score.contradiction >= reread.contradiction
            and _claim_share(plan.claim, _window_words(plan.found.sentences, window), language)
            >= judging.on_topic
        ]
        against = sorted(contradicting, key=lambda i: (-own[i].contradiction, i))[: reread.against]
        decided = tuple(i in best for i in range(len(own)))
        marked.append(dataclasses.replace(plan, decided=decided, joined_decided=len(own) in best))
        opposed.append(sorted(set(against) - best))
    pairs = [(w.text, p.claim.text) for p in marked for w, d in zip(p.windows, p.decided or ()) if d]
    pairs += [(p.joined, p.claim.text) for p in marked if p.joined and p.joined_decided]
    pairs += [(p.windows[i].text, p.claim.text) for p, some in zip(marked, opposed) for i in some]
    again = iter(reread.reader.score(pairs + ([joint] if joint else [])))
    merged = [
        next(again) if d else s for p, own in zip(marked, windows) for s, d in zip(own, p.decided or ())
    ]
    merged += [next(again) if p.joined_decided else j for p, j in zip(marked, together) if p.joined]
    marked = [
        dataclasses.replace(p, opposed=tuple((i, next(again)) for i in some)) if some else p
        for p, some in zip(marked, opposed)
    ]
    return marked, iter(merged), next(again) if joint else None


def _readings(
    nli: NLIBackend,
    plans: Sequence[_Plan],
    scores: Iterator[Entailment],
    judging: Judging,
    language: ClaimLanguage,
    recheck_at: float | None,
    reread: CascadeReader | None = None,
    *,
    denial: bool = False,
) -> dict[str, SourceWindows]:
    """The plans' SourceWindows from their scores in _pairs' order; a window is rechecked
    (_rechecked) by the cascade's reader where the reader read it, by `nli` elsewhere; a
    `denial`'s windows the fast model reads as contradicting it are read by the reader too
    (_denials)."""
    own, joined_scores = _scores(plans, scores)
    on_topic = [
        tuple(
            _claim_share(plan.claim, _window_words(plan.found.sentences, w), language) >= judging.on_topic
            for w in plan.windows
        )
        for plan in plans
    ]
    confirmed = _rechecked(nli, reread, plans, own, on_topic, language, recheck_at)
    opposed = _opposed(reread, plans, language, recheck_at)
    denied = _denials(reread, plans, own, on_topic, language) if denial else [() for _ in plans]
    readings: dict[str, SourceWindows] = {}
    for plan, window_scores, joined_score, topical, checked, theirs, denials in zip(
        plans, own, joined_scores, on_topic, confirmed, opposed, denied, strict=True
    ):
        sentences = plan.found.sentences
        decided = plan.decided or (True,) * len(plan.windows)
        texts = [s for s, d in zip(window_scores, decided) if d] + (
            [joined_score] if plan.joined_decided else []
        )
        best = max(texts or [*window_scores, joined_score], key=lambda s: s.entailment)
        readings[plan.url] = SourceWindows(
            plan.url,
            plan.document,
            plan.windows,
            window_scores,
            plan.joined,
            joined_score,
            topical,
            language,
            plan.found.top,
            _words_of(sentences, plan.found.top),
            sentences,
            plan.found.page,
            checked,
            best,
            best.entailment,
            max([s.contradiction for s, t in zip(window_scores, topical) if t], default=0.0),
            next((s for s, d in zip(window_scores, decided) if d), joined_score),
            _best_window(plan.windows, window_scores, decided),
            _contradicting_window(plan.windows, window_scores, topical),
            _most_entailing(
                plan.windows, window_scores, plan.found.top, joined_score, decided, plan.joined_decided
            ),
            tuple(not d for d in decided) if plan.decided is not None else (False,) * len(plan.windows),
            theirs,
            denials,
        )
    return readings


def _opposed(
    reread: CascadeReader | None, plans: Sequence[_Plan], language: ClaimLanguage, bar: float | None
) -> list[tuple[Opposed, ...]]:
    """The reader's readings of the windows it re-read for the opposite (_Plan.opposed), each
    contradiction at `bar` read again with the page's context by the reader, as _rechecked does."""
    again = [
        (p, k, (f"{context} {plan.windows[w].text}", plan.claim.text))
        for p, plan in enumerate(plans)
        for k, (w, score) in enumerate(plan.opposed)
        if bar is not None and score.contradiction >= bar
        for context in [given_elsewhere(plan.found.sentences, plan.windows[w], plan.claim)]
        if context
    ]
    confirmed = [[score.contradiction for _, score in plan.opposed] for plan in plans]
    if again and reread is not None:
        for (p, k, _), score in zip(again, reread.reader.score([pair for _, _, pair in again])):
            confirmed[p][k] = score.contradiction
    return [
        tuple(Opposed(w, score, c) for (w, score), c in zip(plan.opposed, checked, strict=True))
        for plan, checked in zip(plans, confirmed, strict=True)
    ]


def _denials(
    reread: CascadeReader | None,
    plans: Sequence[_Plan],
    scores: Sequence[tuple[Entailment, ...]],
    on_topic: Sequence[tuple[bool, ...]],
    language: ClaimLanguage,
) -> list[tuple[float | None, ...]]:
    """For a claim that holds a negation: per source, the reader's contradiction, with the page's
    context as every recheck, on the on-topic window the fast model (not the reader) reads as most
    contradicting at the fast model's contradiction bar, given to each of the source's windows the
    fast model reads so; None for the other windows. The fast model reads a "not" in the claim as
    the opposite of nearly any text about it (NLI training sets' negated hypotheses are mostly
    contradictions); the policy lets its readings make the claim contradicted only where the
    reader reads its strongest one so too (docs/rules.md, "A denial's red needs the reader")."""
    found: list[tuple[float | None, ...]] = [(None,) * len(plan.windows) for plan in plans]
    if reread is None or reread.fast_contradiction is None:
        return found
    bar = reread.fast_contradiction
    strongest: list[tuple[int, list[int]]] = []
    for p, (plan, own, topical) in enumerate(zip(plans, scores, on_topic)):
        decided = plan.decided or (False,) * len(plan.windows)
        over = [
            w
            for w, (score, about, by_reader) in enumerate(zip(own, topical, decided))
            if about and not by_reader and score.contradiction >= bar
        ]
        if over:
            strongest.append((p, sorted(over, key=lambda w: (-own[w].contradiction, w))))
    pairs = [
        (
            f"{given_elsewhere(plans[p].found.sentences, plans[p].windows[w[0]], plans[p].claim)} "
            f"{plans[p].windows[w[0]].text}".strip(),
            plans[p].claim.text,
        )
        for p, w in strongest
    ]
    for (p, over), score in zip(strongest, reread.reader.score(pairs) if pairs else []):
        found[p] = tuple(score.contradiction if w in over else None for w in range(len(plans[p].windows)))
    return found


def _rechecked(
    nli: NLIBackend,
    reread: CascadeReader | None,
    plans: Sequence[_Plan],
    scores: Sequence[tuple[Entailment, ...]],
    on_topic: Sequence[tuple[bool, ...]],
    language: ClaimLanguage,
    bar: float | None,
) -> list[tuple[float, ...]]:
    """Each window's contradiction, read again with the page's sentences that give the claim's
    dates and names it lacks where it is on topic and reaches `bar`: a window refutes what the
    page says, not what the page says elsewhere. Read again by the model that read the window
    (the cascade's reader for the windows it re-read), and at that model's bar: one scale per
    window."""
    confirmed = [[s.contradiction for s in own] for own in scores]
    again: dict[bool, list[tuple[int, int, tuple[str, str]]]] = {False: [], True: []}
    fast_bar = bar if reread is None or reread.fast_recheck_at is None else reread.fast_recheck_at
    for p, (plan, own, topical) in enumerate(zip(plans, scores, on_topic)):
        decided = plan.decided or (False,) * len(plan.windows)
        for w, (window, score, about) in enumerate(zip(plan.windows, own, topical)):
            by_reader = reread is not None and decided[w]
            at = bar if by_reader or bar is None else fast_bar
            if at is not None and about and score.contradiction >= at:
                context = given_elsewhere(plan.found.sentences, window, plan.claim)
                if context:
                    again[by_reader].append((p, w, (f"{context} {window.text}", plan.claim.text)))
    for by_reader, todo in again.items():
        backend = reread.reader if by_reader and reread is not None else nli
        for (p, w, _), score in zip(todo, backend.score([pair for _, _, pair in todo]) if todo else []):
            confirmed[p][w] = score.contradiction
    return [tuple(c) for c in confirmed]


def _best_window(
    windows: Sequence[Window], scores: Sequence[Entailment], decided: Sequence[bool]
) -> Window | None:
    if not windows:
        return None
    return windows[max(range(len(windows)), key=lambda i: (decided[i], scores[i].entailment, -i))]


def _contradicting_window(
    windows: Sequence[Window], scores: Sequence[Entailment], on_topic: Sequence[bool]
) -> Window | None:
    relevant = [(w, s) for w, s, t in zip(windows, scores, on_topic) if t]
    if not relevant:
        return None
    top = max(s.contradiction for _, s in relevant)
    return min((w for w, s in relevant if s.contradiction >= top - 0.05), key=lambda w: w.last - w.first)


def _most_entailing(
    windows: Sequence[Window],
    scores: Sequence[Entailment],
    top: tuple[int, ...],
    joined_score: Entailment,
    decided: Sequence[bool],
    joined_decided: bool,
) -> tuple[int, ...]:
    if not windows:
        return top
    texts = [
        (d, s.entailment, -i, tuple(range(w.first, w.last + 1)))
        for i, (w, s, d) in enumerate(zip(windows, scores, decided))
    ]
    texts.append((joined_decided, joined_score.entailment, 1, top))
    return max(texts)[3]


def _joined(parts: Sequence[Words]) -> Words:
    """Sentences read as one text (a window, the joined top sentences), from their own analyses:
    a sentence's words end where it ends."""
    terms = tuple(t for p in parts for t in p.terms)
    return Words(
        " ".join(p.text for p in parts),
        parts[0].language if parts else "en",
        terms,
        frozenset(terms),
        frozenset().union(*(p.numbers for p in parts)),
        frozenset().union(*(p.names for p in parts)),
        " ".join(p.lowered for p in parts),
    )


def _words_of(sentences: Sequence[Words], indices: Iterable[int]) -> Words:
    """These sentences of a page read as one text, from their words in the claim's language."""
    return _joined([sentences[i] for i in indices])


def _window_words(sentences: Sequence[Words], window: Window) -> Words:
    return _words_of(sentences, range(window.first, window.last + 1))


def given_elsewhere(sentences: Sequence[Words], window: Window, claim: Words, limit: int = 2) -> str:
    """The page's sentences outside `window` that give the claim's numbers and names the window
    lacks (at most `limit`, in page order); "" when the window lacks none or the page has none.
    `sentences`: the page's sentences' words in the claim's language (retrieve.Candidates).

    An SNLI-trained model reads a date missing from the premise as a conflicting one: "When it
    opened, the tower was 300 metres tall" contradicts "When it opened in 1889 it was 300 metres
    tall" at 0.99 for it, and at 0.12 once "The tower was completed in March 1889" comes first."""
    inside = _window_words(sentences, window)
    numbers = claim.numbers - inside.numbers
    names = {n for n in claim.names if n not in window.text.lower()}
    given: dict[int, set[str]] = {}
    for i, sentence in enumerate(sentences):
        if not window.first <= i <= window.last:
            found = set(numbers & sentence.numbers) | {n for n in names if n in sentence.lowered}
            if found:
                given[i] = found
    chosen: list[int] = []
    while given and len(chosen) < limit:
        best = max(given, key=lambda i: (len(given[i]), -i))
        chosen.append(best)
        covered = given.pop(best)
        given = {i: rest for i, found in given.items() if (rest := found - covered)}
    return " ".join(sentences[i].text for i in sorted(chosen))


# How often a thing happens says nothing of what it is about: "Snow is rare and seldom stays on
# the ground" is not about "Paris is rarely windy, so the tower seldom sways", and an SNLI-trained
# model reads the pair as a contradiction (0.97). The words are `meaning.how_often` of each
# language's file.
@cache
def _how_often_terms(language: str) -> frozenset[str]:
    words = lexicon(language)
    record = languages.language(words.language)
    return frozenset(words.terms(" ".join(record.meaning.how_often) if record else ""))


def _claim_share(claim: Words, text: Words, language: ClaimLanguage) -> float:
    """Share of the claim's content words, words of frequency aside, that `text` holds."""
    terms = claim.term_set - _how_often_terms(language.code)
    return len(terms & text.term_set) / len(terms) if terms else 1.0


def _next_scores(scores: Iterator[Entailment], count: int) -> Iterator[Entailment]:
    for _ in range(count):
        yield next(scores)
