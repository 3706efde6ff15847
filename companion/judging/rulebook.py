"""A language's rules of meaning as data: the `meaning` of companion/languages/<language>.json
holds each rule (its id, the family of predicate that reads it, its effect on the verdict) and the
cue lexicons they read. A language with no rules gets none: its cue words would be another
language's, and match little but noise. Pure: the files are read once, as constants."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from .. import languages

__all__ = ["EFFECTS", "FAMILIES", "Rule", "RuleBook", "rule_book"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of a language's file: `family` names the predicate below that reads it, `effect`
    what a finding does to the verdict (policy.py): `hedge` rules out complete support,
    `contradict` makes the source contradict the claim, `contradict_with_model` does so only
    where the model's contradiction on the same window reaches its bar."""

    id: str
    family: str
    effect: str


@dataclass(frozen=True, slots=True)
class RuleBook:
    """One language's rules and the cue words they read (`meaning` of companion/languages/<language>.json)."""

    language: str
    rules: tuple[Rule, ...]
    frame: re.Pattern[str]
    negation: re.Pattern[str]
    contrast: frozenset[str]
    universal: frozenset[str]
    partial: frozenset[str]
    partial_cue: re.Pattern[str]  # the partial words as a cue, read where they sit
    only: frozenset[str]
    mostly: frozenset[str]
    opposite: Mapping[str, frozenset[str]]
    word: re.Pattern[str]
    unspaced: bool = False  # written without spaces: a word of the rules is one character

    def rule(self, family: str) -> Rule | None:
        return next((r for r in self.rules if r.family == family), None)

    def without(self, ids: Iterable[str]) -> RuleBook:
        """This book less the named rules: how a rule's worth is measured (research/evaluation/evaluate.py
        --drop-rule)."""
        dropped = set(ids)
        return dataclasses.replace(self, rules=tuple(r for r in self.rules if r.id not in dropped))


EFFECTS = ("hedge", "contradict", "contradict_with_model")
FAMILIES = frozenset(
    """framed framed_numbers framed_refuted negated negated_between substituted reversed passive_reversed
    scope_universal scope_only scope_part_of scope_partial opposite negates restates_negated
    another_number""".split()
)
# Families that read English grammar (its passive, its counting words): refused in another file.
_ENGLISH_ONLY = frozenset({"passive_reversed", "scope_part_of"})


@cache
def rule_book(language: str) -> RuleBook:
    """The rules for `language`. A language with no file gets none: its cue words would be
    another language's, and match little but noise."""
    record = languages.language(language)
    return _empty(language) if record is None else _parse(record)


def _parse(record: languages.Language) -> RuleBook:
    language, meaning = record.code, record.meaning
    rules = tuple(Rule(r.id, r.family, r.effect) for r in meaning.rules)
    for r in rules:
        if r.family not in FAMILIES or r.effect not in EFFECTS or not r.id.startswith(f"{language}."):
            raise _error(language, f"rule {r.id!r} names an unknown family or effect, or another language")
        if r.family in _ENGLISH_ONLY and language != "en":
            raise _error(language, f"rule {r.id!r} reads English grammar")
    # A lexicon no kept rule reads may be left out of the file.
    empty: dict[str, tuple[str, ...]] = {
        k: ()
        for k in ("frame", "negation", "contrast", "universal", "partial", "only", "mostly", "opposites")
    }
    lex = {**empty, **meaning.lexicons}
    opposite: dict[str, frozenset[str]] = {}
    for a, b in (pair.split("/") for pair in lex["opposites"]):
        opposite[a] = opposite.get(a, frozenset()) | {b}
        opposite[b] = opposite.get(b, frozenset()) | {a}
    return RuleBook(
        language,
        rules,
        _cues(lex["frame"]),
        _cues(lex["negation"]),
        frozenset(lex["contrast"]),
        frozenset(lex["universal"]),
        frozenset(lex["partial"]),
        _cues(sorted(lex["partial"])),
        frozenset(lex["only"]),
        frozenset(lex["mostly"]),
        opposite,
        re.compile(meaning.word),
        meaning.unspaced,
    )


def _error(language: str, problem: str) -> languages.LanguageFileError:
    return languages.LanguageFileError(languages.FOLDER / f"{language}.json", "meaning.rules", problem)


def _empty(language: str) -> RuleBook:
    """The book of a language with no file: no rules, and words as most languages write them."""
    never = re.compile(r"(?!)")
    empty: frozenset[str] = frozenset()
    word = re.compile(r"[^\W\d_]+")
    return RuleBook(language, (), never, never, empty, empty, empty, never, empty, empty, {}, word)


def _cues(alternatives: Sequence[str]) -> re.Pattern[str]:
    if not alternatives:
        return re.compile(r"(?!)")  # matches nothing
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)
