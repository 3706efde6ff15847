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

from ..records import Statement, Words
from ..text.analysis import analyse
from ..text.claims import in_context
from ..text.values import Quantity, quantities
from .rulebook import RuleBook

__all__ = ["Claim", "StatementClaims", "analyse_statement", "claim_of"]


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
    is its own atom), with the rules of its language."""

    claim: Claim
    atoms: tuple[Claim, ...]
    rules: RuleBook
    language: str


def analyse_statement(statement: Statement, rules: RuleBook) -> StatementClaims:
    """The statement's claims, analysed once for every stage that reads them."""
    language = statement.language
    read, atoms = in_context(statement.text, statement.previous, statement.question, language)
    return StatementClaims(
        _claim(statement.text, read, rules, language),
        tuple(_claim(text, atom_read, rules, language) for text, atom_read in atoms),
        rules,
        language,
    )


def claim_of(text: str, rules: RuleBook) -> Claim:
    """A text read as a claim on its own, with no context (the rules' tests, scripts)."""
    return _claim(text, text, rules, rules.language)


def _claim(text: str, in_context: str, rules: RuleBook, language: str) -> Claim:
    written = analyse(text, language)
    read = written if in_context == text else analyse(in_context, language)
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
