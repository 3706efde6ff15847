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
_PREPOSITIONS = frozenset("""of in on at to for from by with about into over under between among""".split())
_LIST_VERBS = frozenset("""include includes included including contain contains containing as like""".split())
_FUNCTION_WORDS = frozenset(
    """of in on at to for from by with about as into over under than and or but the a an its their
    around across through between among within without during after before since until against along
    behind beyond near per via upon toward towards throughout
    his her this that these those such also very more most less many much some all any no not only
    who which whose whom where when while""".split()
)
_DETERMINERS = frozenset(
    """the a an many some most all these those several few both each every
    their its his her our my your""".split()
)
# How a claim taken from inside a sentence may begin: with a subject's first word, not a verb's
# ("… and form elongated needles" is no claim: "Form elongated needles.").
_SUBJECT_START = _DETERMINERS | frozenset(
    """this it they he she we i you there others one two three four five six seven eight nine
    ten no none neither either such""".split()
)
# A list starts at a word: a match that starts inside one cuts that word into the frame ("Ies have …").
_LIST = re.compile(
    r"(?<![^\s(])(?P<items>(?:(?!(?:and|or)\s)[^,;:]{1,60},\s+){1,8}[^,;:]{1,60}?,?\s+(?:and|or)\s+[^,;:.]{1,60}?)"
    r"(?P<end>[.;:]?$|,)"
)
_APPOSITION = re.compile(
    r"^(?P<head>[A-Z][^,]{1,60}?),\s+(?P<app>(?:a|an|the|who|which)\s[^,]{3,120}?),\s+(?P<rest>.+)$"
)
_PAREN = re.compile(r"\s*\((?P<inner>[^()]{3,120})\)")
# Quoted titles and sayings, and dates with their comma, are read as one word: "sings 'Gone Gone
# Gone' and 'She's been gone so long'" names two songs; splitting inside one makes an atom of half
# a title. A single quote opens after a space and closes before one, so apostrophes ("She's",
# "fallin'") stay inside.
_QUOTED = re.compile(
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r" \d{1,2}, \d{4}|\"[^\"]{1,120}\"|“[^”]{1,120}”|‘[^’]{1,120}’|(?<![\w'])'\w(?:[^']|'\w){0,118}'(?!\w)"
)
_HELD = re.compile(r"\x00(\d+)\x00")
_EXAMPLES = re.compile(r"^(?:such as|including|like)\s+", re.IGNORECASE)
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
    if question and len(content_terms(text, language)) < 4:
        # A bare answer says nothing without its question (e.g. "The Proclaimers").
        text = f"{question.strip().rstrip('?')}? {text}"
    return text


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
        if i > 0 and _verb_like(word, words[i - 1], " ".join(words[i + 1 : i + 2])):
            subject = " ".join(words[:i]).strip(",;: ")
            return "" if _PRONOUN_START.match(subject) else subject
    return ""


def _verb_like(word: str, before: str, after: str = "") -> bool:
    bare = word.lower().strip(",.;:")
    if bare in _AUX or bare in _IRREGULAR_PAST or (bare.endswith("ed") and len(bare) > 3):
        return True
    if after.lower() in _AUX:
        return False  # "plastics have been met": the word before the verb is its subject's noun
    prior = before.lower().strip(",.;:")
    if not word[0].islower() or bare in _FUNCTION_WORDS:
        return False
    # "exercise improves", not "many doctors"; and a plural subject's verb: "honeybees make".
    singular_verb = bare.endswith("s") and not bare.endswith("ss") and len(bare) > 3
    # After a participle the "-s" word is its noun: "targeted strategies", "shared costs".
    modified = prior.endswith("ed") and len(prior) > 3
    if singular_verb and not prior.endswith("s") and prior not in _DETERMINERS and not modified:
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
    quoted: list[str] = []

    def hold(match: re.Match[str]) -> str:
        quoted.append(match.group())
        return f"\x00{len(quoted) - 1}\x00"

    main, claims = _peel(_QUOTED.sub(hold, text))
    subject = _subject(main)
    for clause in _CLAUSE_BREAK.split(main):
        for part in _split_list(clause):
            claims.extend(_split_predicates(part, subject))
    cleaned: list[str] = []
    for claim in claims:
        # Inside one sentence "its" often points past the subject ("the angle of the run … its
        # duration"), so only subject pronouns are resolved there.
        claim = _resolve(claim.strip(" ,;:"), subject, possessive=False)
        claim = _HELD.sub(lambda m: quoted[int(m.group(1))], claim)
        if len(content_terms(claim)) >= _MIN_TERMS and claim not in cleaned:
            cleaned.append(claim[0].upper() + claim[1:])
    if len(cleaned) <= 1 or len(cleaned) > _MAX_CLAIMS or not all(_made_of(c, text) for c in cleaned):
        return [statement.strip()]
    return [c if c.endswith((".", "!", "?")) else c + "." for c in cleaned]


def _made_of(atom: str, statement: str) -> bool:
    """An atom says only what the statement says, in its words: each of its words is one of the
    statement's (an apposition adds "is"), it begins as a claim begins, and it holds a quoted span
    whole or not at all. An atom that is not is the splitter's error, and the statement is checked
    whole instead."""
    words = set(_WORD.findall(statement.lower())) | {"is"}
    if not set(_WORD.findall(atom.lower())) <= words:
        return False
    first = atom.split()[0].strip("\"'“‘([")
    if first and first not in statement and first.lower() not in _SUBJECT_START:
        return False  # it begins with a word the statement has only in lower case, not a subject's
    return all(q in atom or (q[1:9] not in atom and q[-9:-1] not in atom) for q in _QUOTED.findall(statement))


def _peel(text: str) -> tuple[str, list[str]]:
    """Takes appositions and parentheticals out as claims of their own."""
    extra: list[str] = []
    apposition = _APPOSITION.match(text)
    head_words = apposition.group("head").split() if apposition else []
    # The head is a name or a noun phrase: one with a verb is a clause ("People with autism may
    # lack social flexibility, which …"), and its "which" clause says something of its last words.
    if apposition and not any(_verb_like(w, b) for b, w in zip(head_words, head_words[1:])):
        head, app, rest = apposition.group("head", "app", "rest")
        if app.split()[0].lower() in {"who", "which"}:
            extra.append(f"{head} {app.split(' ', 1)[1]}")
        else:
            extra.append(f"{head} is {app}")
        text = f"{head} {rest}"
    subject = _subject(text)
    for paren in _PAREN.finditer(text):
        inner = paren.group("inner")
        # Only a parenthesis on the subject says something of it: "Vijayawada (the largest city on
        # the river)" inside a list is about Vijayawada, not the sentence's subject.
        if subject and text[: paren.start()].strip() == subject and len(content_terms(inner)) >= _MIN_TERMS:
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
    # A clause of its own has its own subject and a verb with something after it: "… and other
    # economic factors" is a noun phrase whose last word only looks like a verb.
    if _PRONOUN_START.match(tail) or any(
        _verb_like(w, b) for b, w in zip(words, words[1:4][: len(words) - 2])
    ):
        return [head, tail]
    if subject and _verb_like(words[0], subject.split()[-1]):
        return [head, f"{subject} {tail}"]
    return [clause]


def _split_list(clause: str) -> list[str]:
    """ "It sells apples, pears and plums." → one claim per item, frame kept."""
    match = _LIST.search(clause)
    if not match:
        return [clause]
    # Commas part the items and "and" / "or" only the last two: an earlier item may hold its own
    # "or" ("at a universal or local level").
    *items, last = re.split(r",\s+", match.group("items"))
    items = [
        i.strip()
        for i in [*items, *re.split(r"^(?:and|or)\s+|\s+(?:and|or)\s+", last, maxsplit=1)]
        if i.strip()
    ]
    if len(items) < 3 or _clause_like(items[1:]):
        return [clause]
    examples = _EXAMPLES.match(items[1])
    if examples:
        # "concern about issues, such as A, B and C": the examples are the list, the rest the frame.
        frame, items = f"{items[0]}, {examples.group().strip()}", [items[1][examples.end() :], *items[2:]]
        listed = items
    else:
        frame, first = _frame(items)
        listed = [first, *items[1:]]
    if not frame or any(len(i.split()) > 6 for i in items[1:]):
        return [clause]
    # The frame is the clause from its start: the list's match may begin after a few words of it.
    prefix = clause[: match.start("items")] + frame
    suffix = clause[match.end("items") :]
    return [f"{prefix} {item}{suffix}".strip() for item in listed]


def _clause_like(items: list[str]) -> bool:
    """A participle among nouns ("…, resulting in more effective and lasting mastery") starts a
    clause of its own, not an item of the list; so does an auxiliary ("8 minutes and 20 seconds"
    after "light will take")."""
    starts = [any(w.isalpha() and w.lower().endswith("ing") for w in i.split()[:2]) for i in items]
    return (any(starts) and not all(starts)) or any(w.lower() in _AUX for i in items for w in i.split())


def _frame(items: list[str]) -> tuple[str, str]:
    """The first "item" carries the frame: "A colony holds | one queen". Cut after the verb when
    there is one, else assume the first item is about as long as the others."""
    lead_words = items[0].split()
    # "depends on factors such as | the child's age": the word that opens a list wins over a verb.
    opener = [i for i, w in enumerate(lead_words) if i > 0 and w.lower() in _LIST_VERBS]
    verb = (
        opener[-1]
        if opener
        else next((i for i, w in enumerate(lead_words) if i > 0 and _verb_like(w, lead_words[i - 1])), None)
    )
    if verb is None or verb == len(lead_words) - 1:
        width = max(1, round(sum(len(i.split()) for i in items[1:]) / (len(items) - 1)))
        verb = len(lead_words) - width - 1
    elif not opener:
        # "It was executive produced by | Coppola, Glazer …": the list hangs on the verb's first
        # preposition, where there is one.
        verb = next(
            (i for i in range(verb + 1, len(lead_words) - 1) if lead_words[i].lower() in _PREPOSITIONS), verb
        )
    return " ".join(lead_words[: verb + 1]), " ".join(lead_words[verb + 1 :])
