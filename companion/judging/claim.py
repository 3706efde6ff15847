"""The first stage of judging: a statement's claim, analysed once (issue 38).

What every later stage reads of the claim is worked out here, when the statement is made, and
handed on: retrieval and the model read the claim in context (claims.hypothesis: "It was built
in 1889" as "The tower was built in 1889"); the rules and the lexical features read it as
written, since the context's words are not the statement's to be supported. For each: its terms
in order, numbers and names (text.analysis), and for the rules its words, and whether it itself
reports ("Critics said that…") or negates. A statement of several facts gets the same record for
each atomic claim (FActScore). No later stage asks the lexicon about the claim again. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..records import Statement, Words
from ..text.claims import in_context
from ..text.language import Lexicon, lexicon
from ..text.values import Quantity, quantities
from .rulebook import RuleBook, rule_book

__all__ = ["Claim", "ClaimLanguage", "StatementClaims", "analyse_statement", "claim_language", "claim_of"]


@dataclass(frozen=True, slots=True)
class ClaimLanguage:
    """The claim's language, resolved once when the statement is made (issue 61): its code (which
    scale, which side of the language line), the lexicon its words and its sources' sentences are
    read with, and its language file's cue words, which retrieval and the quote read
    (text.retrieve.reports_unsettled) whichever rules the judge runs."""

    code: str
    lexicon: Lexicon
    cues: RuleBook


@cache
def claim_language(code: str) -> ClaimLanguage:
    return ClaimLanguage(code, lexicon(code), rule_book(code))


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim, read both ways: `written` as the statement says it (the rules, the lexical
    features) and `read` in context (retrieval, the model, the on-topic test, the quote)."""

    text: str  # as written
    written: Words
    read: Words
    words: tuple[str, ...]  # the rules' words of the text as written, in order
    word_set: frozenset[str]
    terms: tuple[str, ...]  # written.terms
    numbers: frozenset[str]  # written.numbers
    reports: bool  # the claim itself reports ("Critics said that…"): a frame cue
    negates: bool  # the claim itself holds a negation cue
    quantities: tuple[Quantity, ...] = ()  # its numbers and what they count (text.values)


@dataclass(frozen=True, slots=True)
class StatementClaims:
    """A statement's claim, and its atomic claims when it makes several (else none: the statement
    is its own atom), with the rules of its language and the language itself, resolved."""

    claim: Claim
    atoms: tuple[Claim, ...]
    rules: RuleBook
    language: ClaimLanguage


def analyse_statement(statement: Statement, rules: RuleBook) -> StatementClaims:
    """The statement's claims, analysed once for every stage that reads them."""
    language = claim_language(statement.language)
    read, atoms = in_context(statement.text, statement.previous, statement.question, language.code)
    return StatementClaims(
        _claim(statement.text, read, rules, language.lexicon),
        tuple(_claim(text, atom_read, rules, language.lexicon) for text, atom_read in atoms),
        rules,
        language,
    )


def claim_of(text: str, rules: RuleBook) -> Claim:
    """A text read as a claim on its own, with no context (the rules' tests, scripts)."""
    return _claim(text, text, rules, lexicon(rules.language))


def _claim(text: str, in_context: str, rules: RuleBook, language: Lexicon) -> Claim:
    written = language.words(text)
    read = written if in_context == text else language.words(in_context)
    words = tuple(rules.word.findall(text.lower()))
    return Claim(
        text,
        written,
        read,
        words,
        frozenset(words),
        written.terms,
        written.numbers,
        bool(rules.frame.search(text)),
        bool(rules.negation.search(text)),
        quantities(text, written.language),
    )
