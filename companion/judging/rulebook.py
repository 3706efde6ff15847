"""A language's rules of meaning as data: companion/judging/rules/<language>.json holds each
rule (its id, the family of predicate that reads it, its effect on the verdict) and the cue
lexicons they read. A language with no file gets no rules: its cue words would be another
language's, and match little but noise. Pure: the files are read once, as constants."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["EFFECTS", "FAMILIES", "RULES_DIR", "Rule", "RuleBook", "rule_book"]


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
    """One language's rules and the cue words they read (companion/judging/rules/<language>.json)."""

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

    @property
    def unspaced(self) -> bool:
        """Written without spaces: a word of the rules is one character."""
        return self.language in _UNSPACED

    def rule(self, family: str) -> Rule | None:
        return next((r for r in self.rules if r.family == family), None)

    def without(self, ids: Iterable[str]) -> RuleBook:
        """This book less the named rules: how a rule's worth is measured (research/evaluation/evaluate.py
        --drop-rule)."""
        dropped = set(ids)
        return dataclasses.replace(self, rules=tuple(r for r in self.rules if r.id not in dropped))


RULES_DIR = Path(__file__).resolve().parent / "rules"
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
    path = RULES_DIR / f"{language}.json"
    if not path.is_file():
        return _empty(language)
    return _parse(json.loads(path.read_text(encoding="utf-8")), path)


def _parse(data: Mapping[str, Any], path: Path) -> RuleBook:
    language = data["language"]
    rules = tuple(Rule(r["id"], r["family"], r["effect"]) for r in data["rules"])
    for r in rules:
        if r.family not in FAMILIES or r.effect not in EFFECTS or not r.id.startswith(f"{language}."):
            raise ValueError(f"{path}: rule {r.id!r} names an unknown family or effect, or another language")
        if r.family in _ENGLISH_ONLY and language != "en":
            raise ValueError(f"{path}: rule {r.id!r} reads English grammar")
    # A lexicon no kept rule reads may be left out of the file.
    empty: dict[str, list[str]] = {
        k: []
        for k in ("frame", "negation", "contrast", "universal", "partial", "only", "mostly", "opposites")
    }
    lex = {**empty, **data["lexicons"]}
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
        _word(language),
    )


# Written without spaces: a "word" of the rules is one character (the claim is aligned with a
# sentence character by character).
_UNSPACED = frozenset({"ja", "zh"})


def _word(language: str) -> re.Pattern[str]:
    if language == "en":
        return re.compile(r"[a-z]+")
    return re.compile(r"[^\W\d_]" if language in _UNSPACED else r"[^\W\d_]+")


def _empty(language: str) -> RuleBook:
    never = re.compile(r"(?!)")
    empty: frozenset[str] = frozenset()
    return RuleBook(language, (), never, never, empty, empty, empty, never, empty, empty, {}, _word(language))


def _cues(alternatives: Sequence[str]) -> re.Pattern[str]:
    if not alternatives:
        return re.compile(r"(?!)")  # matches nothing
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)
