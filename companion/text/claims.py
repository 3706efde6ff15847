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

from .analysis import content_terms

__all__ = ["atomic_claims", "hypothesis", "in_context"]

_PRONOUN_START = re.compile(
    r"^(it|its|this|that|these|those|they|their|them|he|his|she|her)\b", re.IGNORECASE
)
_AUX = frozenset(
    """is are was were be been being has have had will would can could may might shall should must does
    do did remains remained became becomes become""".split()
)
# ", and" is left to _split_predicates: it also ends lists, which must stay whole until split.
# Irregular past tenses, which the "-ed" test misses: "killed 30 percent … and cost the industry a
# billion dollars" is two claims. Forms that are mostly nouns or adjectives ("left", "set", "lost")
# are left out.
_IRREGULAR_PAST = frozenset(
    """began became brought built bought caught chose came cost drove drew fell felt fought found
    flew forgot froze gave got grew held hid kept knew laid led lent made meant met paid ran rose
    said sank saw sold sent shook shot shut sang sat slept spent spoke spread stood stole struck
    swam swept took taught tore told thought threw understood woke wore won wrote""".split()
)
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|,\s+(?:but|while|whereas|although|though|so|yet)\s+|\s+(?:but|whereas)\s+"
)
_LIST_VERBS = frozenset("""include includes included including contain contains containing as like""".split())
_FUNCTION_WORDS = frozenset(
    """of in on at to for from by with about as into over under than and or but the a an its their
    his her this that these those such also very more most less many much some all any no not only
    who which whose whom where when while""".split()
)
_DETERMINERS = frozenset("""the a an many some most all these those several few both each every""".split())
_LIST = re.compile(
    r"(?P<items>(?:[^,;:]{1,60},\s+){1,8}[^,;:]{1,60}?,?\s+(?:and|or)\s+[^,;:.]{1,60}?)"
    r"(?P<end>[.;:]?$|,|\s+(?:in|on|at|for|to|by|with|from)\b)"
)
_APPOSITION = re.compile(
    r"^(?P<head>[A-Z][^,]{1,60}?),\s+(?P<app>(?:a|an|the|who|which)\s[^,]{3,120}?),\s+(?P<rest>.+)$"
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
    in English only: the rules read English pronouns and word order."""
    text = statement.strip()
    if language == "en":
        text = _resolve(text, _subject(previous) if previous else "")
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
    terms = content_terms(text, language)
    if len(terms) < 2 or len(terms) > _BARE_TERMS:
        return len(terms) < 2
    if language != "en":
        return False
    words = text.split()
    return not any(_verb_like(w, words[i - 1]) for i, w in enumerate(words) if i > 0)


def _resolve(text: str, subject: str, *, possessive: bool = True) -> str:
    """Puts the subject in place of a leading pronoun: "It was built" → "The tower was built"."""
    match = _PRONOUN_START.match(text)
    if not match or not subject:
        return text
    if match.group(1).lower() in {"its", "their", "his", "her"}:
        if not possessive:
            return text
        subject += "'" if subject.endswith("s") else "'s"
    return subject + text[match.end() :]


def _subject(sentence: str) -> str:
    """Words before the first verb-like word: a crude but useful coreference, no parser needed."""
    # The subject ends before the first comma: "X, and they…" must not make "X, and they" a subject.
    words = _PAREN.sub("", sentence).split(",")[0].split()
    for i, word in enumerate(words[:12]):
        if i > 0 and _verb_like(word, words[i - 1]):
            subject = " ".join(words[:i]).strip(",;: ")
            return "" if _PRONOUN_START.match(subject) else subject
    return ""


def _verb_like(word: str, before: str) -> bool:
    bare = word.lower().strip(",.;:")
    if bare in _AUX or bare in _IRREGULAR_PAST or (bare.endswith("ed") and len(bare) > 3):
        return True
    prior = before.lower().strip(",.;:")
    if not word[0].islower() or bare in _FUNCTION_WORDS:
        return False
    # "exercise improves", not "many doctors"; and a plural subject's verb: "honeybees make".
    singular_verb = bare.endswith("s") and not bare.endswith("ss") and len(bare) > 3
    if singular_verb and not prior.endswith("s") and prior not in _DETERMINERS:
        return True
    return (
        prior.endswith("s")
        and not prior.endswith("ss")
        and len(prior) > 3
        and prior not in _FUNCTION_WORDS
        and not bare.endswith(("ing", "ly"))  # "doctors recommend walking and swimming"
    )


def atomic_claims(statement: str, language: str = "en") -> list[str]:
    """The statement's atomic claims; a statement with one piece of information gives [itself].
    English only: the splitter reads English clauses, verbs and lists, and another language's
    statement is checked whole (FActScore's split is a refinement, not a condition of judging)."""
    if language != "en":
        return [statement.strip()]
    text = " ".join(statement.split()).rstrip(".!?")
    main, claims = _peel(text)
    subject = _subject(main)
    for clause in _CLAUSE_BREAK.split(main):
        for part in _split_list(clause):
            claims.extend(_split_predicates(part, subject))
    cleaned: list[str] = []
    for claim in claims:
        # Inside one sentence "its" often points past the subject ("the angle of the run … its
        # duration"), so only subject pronouns are resolved there.
        claim = _resolve(claim.strip(" ,;:"), subject, possessive=False)
        if len(content_terms(claim)) >= _MIN_TERMS and claim not in cleaned:
            cleaned.append(claim[0].upper() + claim[1:])
    if len(cleaned) <= 1 or len(cleaned) > _MAX_CLAIMS or not all(_made_of(c, text) for c in cleaned):
        return [statement.strip()]
    return [c if c.endswith((".", "!", "?")) else c + "." for c in cleaned]


def _made_of(atom: str, statement: str) -> bool:
    """Whether an atom is made of the statement's words (an apposition adds "is") and holds each
    quoted span whole or not at all. The splitter's patterns can cut a word ("However, studies
    have shown …" gave "Ies have shown …") or a song's title in two; such an atom is its error,
    not a claim, and the statement is then checked whole, as every shape it does not know."""
    words = set(_WORD.findall(statement.lower())) | {"is"}
    if not set(_WORD.findall(atom.lower())) <= words:
        return False
    return all(q in atom or (q[1:9] not in atom and q[-9:-1] not in atom) for q in _QUOTED.findall(statement))


def _peel(text: str) -> tuple[str, list[str]]:
    """Takes appositions and parentheticals out as claims of their own."""
    extra: list[str] = []
    apposition = _APPOSITION.match(text)
    if apposition:
        head, app, rest = apposition.group("head", "app", "rest")
        if app.split()[0].lower() in {"who", "which"}:
            extra.append(f"{head} {app.split(' ', 1)[1]}")
        else:
            extra.append(f"{head} is {app}")
        text = f"{head} {rest}"
    subject = _subject(text)
    for paren in _PAREN.finditer(text):
        inner = paren.group("inner")
        if subject and content_terms(inner):
            extra.append(f"{subject} ({inner})")
    return _PAREN.sub("", text), extra


def _split_predicates(clause: str, subject: str) -> list[str]:
    """ "X was born in 1950 and died in 2000" → "X was born in 1950", "X died in 2000"."""
    parts = re.split(r",?\s+and\s+", clause)
    if len(parts) != 2:
        return [clause]
    head, tail = parts
    words = tail.split()
    if not words:
        return [clause]
    first = words[0].lower()
    if subject and (first in _AUX or first in _IRREGULAR_PAST or first.endswith("ed")):
        return [head, f"{subject} {tail}"]  # "… and made cars there": the subject's own verb
    if _PRONOUN_START.match(tail) or any(_verb_like(w, b) for b, w in zip(words, words[1:4])):
        return [head, tail]  # a clause of its own, with its own subject
    if subject and _verb_like(words[0], subject.split()[-1]):
        return [head, f"{subject} {tail}"]
    return [clause]


def _split_list(clause: str) -> list[str]:
    """ "It sells apples, pears and plums." → one claim per item, frame kept."""
    match = _LIST.search(clause)
    if not match:
        return [clause]
    items = re.split(r",\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+", match.group("items"))
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
            if i > 0 and (w.lower() in _LIST_VERBS or _verb_like(w, lead_words[i - 1]))
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
