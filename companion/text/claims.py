"""Reads a statement in context and splits it into atomic claims.

Context (verifiability study, Liu et al. 2023): annotators read each statement with the question
and the answer so far, so "It was built in 1889" is checked as "The Eiffel Tower was built in 1889",
and a bare answer ("The Proclaimers") is checked together with the question it answers.

Atomic claims (FActScore, Min et al. 2023): a sentence that carries several pieces of information
is checked piece by piece, so that the unsupported part can be named. The splitter is rule-based
(clauses, coordinated predicates, lists, appositions, parentheticals): no parser ships offline,
and these rules cover the shapes AI answers use most. Pure text processing: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .. import languages
from ..languages import ClaimWords
from .language import lexicon

__all__ = ["atomic_claims", "hypothesis", "in_context"]


@dataclass(frozen=True, slots=True)
class _Grammar:
    """The splitter's patterns, made of a language's `claims` words (companion/languages/)."""

    words: ClaimWords
    pronoun_start: re.Pattern[str]
    # ", and" is left to _split_predicates: it also ends lists, which must stay whole until split.
    clause_break: re.Pattern[str]
    list: re.Pattern[str]
    list_items: re.Pattern[str]  # what separates a list's items
    apposition: re.Pattern[str]
    predicates: re.Pattern[str]  # what joins two predicates


@cache
def _grammar(language: str) -> _Grammar | None:
    """The splitter's grammar of `language`; None where its file has no claim words (its
    statements are checked whole). Irregular past tenses are listed, as the "-ed" test misses
    them ("killed 30 percent … and cost the industry a billion dollars" is two claims); forms that
    are mostly nouns or adjectives ("left", "set", "lost") are left out."""
    record = languages.language(language)
    if record is None or not record.claims.splits:
        return None
    w = record.claims
    joiners = "|".join(w.list_joiners)
    spaced = "|".join(rf"{j}\s+" for j in w.list_joiners)
    return _Grammar(
        w,
        re.compile(rf"^({'|'.join(w.pronouns)})\b", re.IGNORECASE),
        re.compile(rf"\s*;\s*|,\s+(?:{'|'.join(w.clause_breaks)})\s+|\s+(?:{'|'.join(w.contrasts)})\s+"),
        re.compile(
            rf"(?P<items>(?:[^,;:]{{1,60}},\s+){{1,8}}[^,;:]{{1,60}}?,?\s+(?:{joiners})\s+[^,;:.]{{1,60}}?)"
            rf"(?P<end>[.;:]?$|,|\s+(?:{'|'.join(w.list_ends)})\b)"
        ),
        re.compile(rf",\s+(?:{spaced})?|\s+(?:{joiners})\s+"),
        re.compile(
            rf"^(?P<head>[A-Z][^,]{{1,60}}?),\s+(?P<app>(?:{'|'.join(w.apposition_openers)})\s[^,]{{3,120}}?),"
            rf"\s+(?P<rest>.+)$"
        ),
        re.compile(rf",?\s+{w.predicate_joiner}\s+"),
    )


_PAREN = re.compile(r"\s*\((?P<inner>[^()]{3,120})\)")
# A quoted title or saying. A single quote opens after a space and closes before one, so that
# apostrophes ("She's", "fallin'") stay inside.
_QUOTED = re.compile(r"\"[^\"]{1,120}\"|“[^”]{1,120}”|‘[^’]{1,120}’|(?<![\w'])'\w(?:[^']|'\w){0,118}'(?!\w)")
_WORD = re.compile(r"\w+")
_MAX_CLAIMS = 6
_MIN_TERMS = 2


def in_context(
    statement: str, previous: str, question: str, language: str
) -> tuple[str, list[tuple[str, str]]]:
    """The statement as read on its own, and its atomic claims, each as written and as read on its
    own; no atoms for a statement of one fact."""
    atoms = atomic_claims(statement, language)
    return hypothesis(statement, previous, question, language), (
        [(atom, hypothesis(atom, previous, language=language)) for atom in atoms] if len(atoms) > 1 else []
    )


def hypothesis(statement: str, previous: str = "", question: str = "", language: str = "en") -> str:
    """The statement as it should be read on its own (the NLI hypothesis). Pronouns are resolved
    only in a language with claim words (English): the rules read its pronouns and word order."""
    text = statement.strip()
    g = _grammar(language)
    if g is not None:
        text = _resolve(text, _subject(previous, g) if previous else "", g)
    if question and _bare(text, language):
        # A bare answer says nothing without its question (e.g. "The Proclaimers").
        text = f"{question.strip().rstrip('?')}? {text}"
    return text


# At most this many content words and no verb: a bare answer ("The Proclaimers", "In 1889.").
# A sentence with a verb says what it says whatever was asked: with "Can you visit the Eiffel
# Tower?" before it, "The tower is not open to the public." (three content words, under the
# four this once was) read otherwise than alone, and its verdict changed with its neighbours
# (issue 58 item 5).
_BARE_TERMS = 3


def _bare(text: str, language: str) -> bool:
    terms = lexicon(language).terms(text)
    if len(terms) < 2 or len(terms) > _BARE_TERMS:
        return len(terms) < 2
    g = _grammar(language)
    if g is None:
        return False
    words = text.split()
    return not any(_verb_like(w, words[i - 1], g) for i, w in enumerate(words) if i > 0)


def _resolve(text: str, subject: str, g: _Grammar, *, possessive: bool = True) -> str:
    """Puts the subject in place of a leading pronoun: "It was built" → "The tower was built"."""
    match = g.pronoun_start.match(text)
    if not match or not subject:
        return text
    if match.group(1).lower() in g.words.possessives:
        if not possessive:
            return text
        subject += "'" if subject.endswith("s") else "'s"
    return subject + text[match.end() :]


def _subject(sentence: str, g: _Grammar) -> str:
    """Words before the first verb-like word: a crude but useful coreference, no parser needed."""
    # The subject ends before the first comma: "X, and they…" must not make "X, and they" a subject.
    words = _PAREN.sub("", sentence).split(",")[0].split()
    for i, word in enumerate(words[:12]):
        if i > 0 and _verb_like(word, words[i - 1], g):
            subject = " ".join(words[:i]).strip(",;: ")
            return "" if g.pronoun_start.match(subject) else subject
    return ""


def _verb_like(word: str, before: str, g: _Grammar) -> bool:
    w = g.words
    bare = word.lower().strip(",.;:")
    if bare in w.auxiliaries or bare in w.irregular_past or (bare.endswith("ed") and len(bare) > 3):
        return True
    prior = before.lower().strip(",.;:")
    if not word[0].islower() or bare in w.function_words:
        return False
    # "exercise improves", not "many doctors"; and a plural subject's verb: "honeybees make".
    singular_verb = bare.endswith("s") and not bare.endswith("ss") and len(bare) > 3
    if singular_verb and not prior.endswith("s") and prior not in w.determiners:
        return True
    return (
        prior.endswith("s")
        and not prior.endswith("ss")
        and len(prior) > 3
        and prior not in w.function_words
        and not bare.endswith(("ing", "ly"))  # "doctors recommend walking and swimming"
    )


def atomic_claims(statement: str, language: str = "en") -> list[str]:
    """The statement's atomic claims; a statement with one piece of information gives [itself].
    In a language with claim words only (English): the splitter reads its clauses, verbs and lists,
    and another language's statement is checked whole (FActScore's split is a refinement, not a
    condition of judging)."""
    g = _grammar(language)
    if g is None:
        return [statement.strip()]
    text = " ".join(statement.split()).rstrip(".!?")
    main, claims = _peel(text, g)
    subject = _subject(main, g)
    for clause in g.clause_break.split(main):
        for part in _split_list(clause, g):
            claims.extend(_split_predicates(part, subject, g))
    cleaned: list[str] = []
    for claim in claims:
        # Inside one sentence "its" often points past the subject ("the angle of the run … its
        # duration"), so only subject pronouns are resolved there.
        claim = _resolve(claim.strip(" ,;:"), subject, g, possessive=False)
        if len(lexicon(language).terms(claim)) >= _MIN_TERMS and claim not in cleaned:
            cleaned.append(claim[0].upper() + claim[1:])
    if len(cleaned) <= 1 or len(cleaned) > _MAX_CLAIMS or not all(_made_of(c, text, g) for c in cleaned):
        return [statement.strip()]
    return [c if c.endswith((".", "!", "?")) else c + "." for c in cleaned]


def _made_of(atom: str, statement: str, g: _Grammar) -> bool:
    """Whether an atom is made of the statement's words (an apposition adds "is") and holds each
    quoted span whole or not at all. The splitter's patterns can cut a word ("However, studies
    have shown …" gave "Ies have shown …") or a song's title in two; such an atom is its error,
    not a claim, and the statement is then checked whole, as every shape it does not know."""
    words = set(_WORD.findall(statement.lower())) | {g.words.copula}
    if not set(_WORD.findall(atom.lower())) <= words:
        return False
    return all(q in atom or (q[1:9] not in atom and q[-9:-1] not in atom) for q in _QUOTED.findall(statement))


def _peel(text: str, g: _Grammar) -> tuple[str, list[str]]:
    """Takes appositions and parentheticals out as claims of their own."""
    extra: list[str] = []
    apposition = g.apposition.match(text)
    if apposition:
        head, app, rest = apposition.group("head", "app", "rest")
        if app.split()[0].lower() in g.words.relatives:
            extra.append(f"{head} {app.split(' ', 1)[1]}")
        else:
            extra.append(f"{head} {g.words.copula} {app}")
        text = f"{head} {rest}"
    subject = _subject(text, g)
    for paren in _PAREN.finditer(text):
        inner = paren.group("inner")
        if subject and lexicon("en").terms(inner):
            extra.append(f"{subject} ({inner})")
    return _PAREN.sub("", text), extra


def _split_predicates(clause: str, subject: str, g: _Grammar) -> list[str]:
    """ "X was born in 1950 and died in 2000" → "X was born in 1950", "X died in 2000"."""
    w = g.words
    parts = g.predicates.split(clause)
    if len(parts) != 2:
        return [clause]
    head, tail = parts
    words = tail.split()
    if not words:
        return [clause]
    first = words[0].lower()
    if subject and (first in w.auxiliaries or first in w.irregular_past or first.endswith("ed")):
        return [head, f"{subject} {tail}"]  # "… and made cars there": the subject's own verb
    if g.pronoun_start.match(tail) or any(_verb_like(a, b, g) for b, a in zip(words, words[1:4])):
        return [head, tail]  # a clause of its own, with its own subject
    if subject and _verb_like(words[0], subject.split()[-1], g):
        return [head, f"{subject} {tail}"]
    return [clause]


def _split_list(clause: str, g: _Grammar) -> list[str]:
    """ "It sells apples, pears and plums." → one claim per item, frame kept."""
    match = g.list.search(clause)
    if not match:
        return [clause]
    items = g.list_items.split(match.group("items"))
    items = [i.strip() for i in items if i.strip()]
    if len(items) < 3 or any(len(i.split()) > 6 for i in items[1:]):
        return [clause]
    # The first "item" carries the frame: "A colony holds | one queen". Cut after the verb when
    # there is one, else assume the first item is about as long as the others.
    lead_words = items[0].split()
    verb = next(
        (
            i
            for i, w in enumerate(lead_words)
            if i > 0 and (w.lower() in g.words.list_verbs or _verb_like(w, lead_words[i - 1], g))
        ),
        None,
    )
    if verb is not None and verb < len(lead_words) - 1:
        frame_words, first_item = lead_words[: verb + 1], lead_words[verb + 1 :]
    else:
        width = max(1, round(sum(len(i.split()) for i in items[1:]) / (len(items) - 1)))
        frame_words, first_item = lead_words[:-width], lead_words[-width:]
    if not frame_words:
        return [clause]
    prefix = " ".join(frame_words)
    suffix = clause[match.end("items") :]
    return [f"{prefix} {item}{suffix}".strip() for item in [" ".join(first_item), *items[1:]]]
