"""What a small NLI model misses and a reader does not: a source that mentions a claim without
asserting it, or asserts its opposite (issue 10: word overlap must never outvote meaning).

The shipped model, trained on SNLI, reads "Opponents warned that the charge would drive shoppers
away" as entailing "The charge drove shoppers away", "imported 2.3 million tonnes" as entailing
"exported 2.3 million tonnes", and "some of the 214 paintings are on display" as entailing "all
of them are". These checks read the window the model found most entailing:
- framed: the source reports the claim as a myth, a saying, an allegation, a warning, a rumour,
  a hope or a charge, or says it "may" hold, and the statement states it as fact; or it gives the
  statement's numbers only in such sentences ("hoped to attract 50,000");
- scope: the statement says all / every / most / the whole, and the source does not; or the
  source restates it "partly"; or the statement says "only" / "entirely" and the source
  "mainly"; or the source counts a part of a whole ("four of Norland's nine regions");
- direction: the statement says rose / exported / won / first where the source says fell /
  imported / lost / third (and neither the statement's word nor the opposite is in the other
  text);
- negated: the source's sentence restates the statement with "not", "never", "no longer", "was
  withdrawn", "found none"… on it (`_qualifies`: most of the statement's words in order, the
  cue next to them), and the statement does not negate; real pages are full of negations about
  something else ("It is not unusual for…"), which this leaves alone; or, in other words, a
  denial between the statement's words in its closest sentence ("found no link between taking
  velotran and the number of migraine attacks");
- substituted: the source's sentence is a near copy of the statement with its last word put in
  place of another ("made of puddled iron" for "made of steel");
- reversed: the source's sentence closest to the statement restates most of its other words with
  a direction word turned round, where the text around it also holds the statement's word; or
  it puts the statement's subject on the other side of its verb ("was acquired by");
- negation, for contradiction: a sentence of any on-topic window restates the statement with a
  negation inside it (`restates_negated`), or the sentence about the claim negates it and the
  model reads that window as a contradiction (`negates`, its bar `negated_contradiction` in the
  model's config.json).

The cue words and which of these families run, with what effect, are data: one file per
language in companion/judging/rules/ (English, French), each rule with an id (`en.framed`) that the
verdict names among its reasons (policy.py). A language with no file gets no rules. A rule stays
only where it pays (docs/rules.md has the measurements): English ships framed, negated,
negated_between, reversed and opposite, French substituted and negates; the other
families stay here, measured and off, for a file that finds them paying. Pure: the files are read
once, as constants.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any

from ..text.language import lexicon
from ..text.retrieve import content_terms

__all__ = ["Reading", "Rule", "RuleBook", "read_meaning", "reports_unsettled", "rule_book", "window_findings"]


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
    only: frozenset[str]
    mostly: frozenset[str]
    opposite: Mapping[str, frozenset[str]]
    word: re.Pattern[str]

    def rule(self, family: str) -> Rule | None:
        return next((r for r in self.rules if r.family == family), None)

    def without(self, ids: Iterable[str]) -> RuleBook:
        """This book less the named rules: how a rule's worth is measured (scripts/evaluate.py
        --drop-rule)."""
        dropped = set(ids)
        return dataclasses.replace(self, rules=tuple(r for r in self.rules if r.id not in dropped))

    @property
    def partial_cue(self) -> re.Pattern[str]:
        return _cues(sorted(self.partial))


RULES_DIR = Path(__file__).resolve().parent / "rules"
EFFECTS = ("hedge", "contradict", "contradict_with_model")
FAMILIES = frozenset(
    """framed framed_numbers negated negated_between substituted reversed passive_reversed
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
        frozenset(lex["only"]),
        frozenset(lex["mostly"]),
        opposite,
        re.compile(r"[a-z]+") if language == "en" else re.compile(r"[^\W\d_]+"),
    )


def _empty(language: str) -> RuleBook:
    never = re.compile(r"(?!)")
    empty: frozenset[str] = frozenset()
    return RuleBook(
        language, (), never, never, empty, empty, empty, empty, empty, {}, re.compile(r"[^\W\d_]+")
    )


def _cues(alternatives: Sequence[str]) -> re.Pattern[str]:
    if not alternatives:
        return re.compile(r"(?!)")  # matches nothing
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


_NOT_ONLY = re.compile(r"(not|non) (only|seulement)\b", re.IGNORECASE)

# A sentence restates the statement when it holds this share of its words in order, and a cue
# bears on it within this many words of a run of them.
_RESTATED = 0.6
_NEAR = 3


@dataclass(frozen=True, slots=True)
class Reading:
    """What the rules found in the source text the model found most entailing: the ids of the
    rules that found it not asserting the statement, and of those that found it saying the
    opposite."""

    hedges: tuple[str, ...] = ()
    contradictions: tuple[str, ...] = ()

    @property
    def asserts(self) -> bool:
        return not self.hedges and not self.contradictions


def read_meaning(statement: str, sentences: Sequence[str], rules: RuleBook) -> Reading:
    """Checks the source text the model found most entailing against the statement as written.

    Direction reads the whole text; the other checks read its sentence that holds most of the
    statement's words, since a window that quotes a myth and then refutes it supports the
    refutation, not the myth, and a "not" or an "always" two sentences away says nothing of it.
    A source that says the opposite direction is read no further."""
    if not sentences:
        return Reading()
    said = _words(statement, rules)
    found = _words(" ".join(sentences), rules)
    if (opposite := rules.rule("opposite")) and _turned(said, found, rules):
        return Reading(contradictions=(opposite.id,))
    closest = sentences[_closest_index(statement, sentences, rules)]
    # A statement that itself reports a claim ("Critics said that X") is supported by the report,
    # whatever the source adds about X ("…, but this was never confirmed").
    reports = bool(rules.frame.search(statement))
    negating = bool(rules.negation.search(statement))
    closest_words = _words(closest, rules)
    checks: dict[str, Callable[[], bool]] = {
        "framed": lambda: not reports and bool(rules.frame.search(closest)),
        "framed_numbers": lambda: not reports and _numbers_framed(statement, sentences, rules),
        "negated": lambda: (
            not reports and not negating and _qualifies(statement, closest, rules.negation, rules)
        ),
        "negated_between": lambda: (
            not reports and not negating and _negated_between(statement, closest, rules)
        ),
        "substituted": lambda: _substitutes(statement, closest, rules.language),
        "reversed": lambda: _reverses(statement, said, closest, rules),
        "passive_reversed": lambda: _passive_turned(statement, closest),
        "scope_universal": lambda: bool(said & rules.universal) and not found & rules.universal,
        "scope_only": lambda: bool(said & rules.only) and bool(closest_words & rules.mostly),
        "scope_part_of": lambda: _narrows_to_part(statement, closest),
        "scope_partial": lambda: (
            not said & rules.partial and _qualifies(statement, closest, rules.partial_cue, rules)
        ),
    }
    hedges = tuple(r.id for r in rules.rules if r.effect == "hedge" and checks[r.family]())
    return Reading(hedges=hedges)


def _turned(said: frozenset[str], found: frozenset[str], rules: RuleBook) -> tuple[str, str] | None:
    """The statement's first direction word that `found` turns round, and the word it uses
    instead; None when the words hold both or neither of a pair."""
    for word in sorted(said):
        opposite = rules.opposite.get(word, frozenset()) & found
        if opposite and word not in found and not opposite & said:
            return word, min(opposite)
    return None


def _reverses(statement: str, said: frozenset[str], sentence: str, rules: RuleBook) -> bool:
    """Whether the sentence closest to the statement restates it with a direction word turned
    round ("imports … most of it from Ostria" for "exports most of its wheat to Ostria"), while
    the text around it also holds the statement's own word ("In return, Velland exports timber"),
    which keeps the whole-text check quiet. Only a hedge: a sentence can turn the words round and
    keep the fact ("Beats was sold to Apple" for "Apple bought Beats")."""
    turned = _turned(said, _words(sentence, rules), rules)
    if turned is None:
        return False
    language = rules.language
    rest = set(content_terms(statement, language)) - set(content_terms(turned[0], language))
    return bool(rest) and len(rest & set(content_terms(sentence, language))) >= _RESTATED * len(rest)


_COUNT_EN = (
    r"(\d[\d,.]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundred)"
)
# "four of Norland's nine regions", "only two of the seven": a part of a counted whole. "one of
# the two founders" is left out, it names a member rather than narrowing a claim.
_PART_OF_EN = re.compile(rf"\b{_COUNT_EN} of (the |its |their |\w+'s )?{_COUNT_EN}\b", re.IGNORECASE)


def _numbers_framed(statement: str, sentences: Sequence[str], rules: RuleBook) -> bool:
    """Whether every sentence that gives the statement's numbers reports them as hoped, claimed or
    predicted ("Organisers had hoped to attract 50,000 visitors" against "attracted 50,000
    visitors"): the number is the fact, wherever the sentence closest in words sits."""
    read = lexicon(rules.language)
    numbers = set(read.numbers(statement))
    if not numbers:
        return False
    giving = [s for s in sentences if numbers <= set(read.numbers(s))]
    return bool(giving) and all(rules.frame.search(s) for s in giving)


def _passive_turned(statement: str, sentence: str) -> bool:
    """Whether the sentence puts the statement's subject on the other side of its verb: "Norvik
    … was acquired by the British Tallis Group" against "Norvik Software acquired the British
    Tallis Group". English only: other languages' passives are not read."""
    subject = re.match(r"\W*(?:(?:the|a|an) )?(\w+)", statement, re.IGNORECASE)
    if subject is None:
        return False
    for verb in re.findall(r"\b(\w+ed)\b", statement):
        passive = re.search(rf"\b(was|were|is|are|been|being) {verb} by\b", sentence)
        if passive and not re.search(rf"\b(was|were|is|are|been|being) {verb}\b", statement):
            return sentence.find(subject.group(1)) in range(0, passive.start())
    return False


def _narrows_to_part(statement: str, sentence: str) -> bool:
    """Whether the sentence counts a part of a whole ("in four of Norland's nine regions") whose
    part the statement does not give: it states the claim for the whole ("across Norland")."""
    english = lexicon("en")
    said = {w.lower() for w in english.word.findall(statement)} | set(english.numbers(statement))
    counts = (
        (english.to_number(m.group(1).lower()), english.to_number(m.group(3).lower()))
        for m in _PART_OF_EN.finditer(sentence)
    )
    # "4 of 4" (a page footer, "all four") is the whole.
    return any(part not in said and part != whole for part, whole in counts)


def _negated_between(statement: str, sentence: str, rules: RuleBook) -> bool:
    """Whether the sentence holds half the statement's content words or more and a negation sits
    between the first and the last of them: "The trial … found no link between taking velotran
    and the number of migraine attacks" against "The trial found that velotran reduced the number
    of migraine attacks", said in other words than `_qualifies` needs. A negation before or after
    them is about something else ("Not far from the lake, …")."""
    terms = set(content_terms(statement, rules.language))
    held = terms & set(content_terms(sentence, rules.language))
    if len(held) < 0.5 * len(terms):
        return False
    at = [
        m.start()
        for m in rules.word.finditer(sentence.lower())
        if terms & set(content_terms(m.group(), rules.language))
    ]
    return len(at) >= 2 and any(
        at[0] < m.start() < at[-1]
        and m.group().lower() not in rules.contrast
        and not _NOT_ONLY.match(sentence, m.start())
        for m in rules.negation.finditer(sentence)
    )


def _substitutes(statement: str, sentence: str, language: str) -> bool:
    """Whether `sentence` restates the statement with its last word put in place of another:
    "The tower is made of puddled iron" for "…made of steel", "sailed to Bergen" for "sailed to
    Oslo". A small NLI model reads such a near copy as entailment (0.96 for the tower); a reader
    sees a different fact."""
    said, words = content_terms(statement, language), content_terms(sentence, language)
    matcher = _aligned(said, words, _RESTATED * len(said))
    if len(said) < 3 or matcher is None:
        return False
    # The statement's last word (where English puts the new information: what it is made of,
    # where it went, how many) for at most two, and a word the sentence holds nowhere, not even
    # inside another ("elle" in "qu'elle"). Inside a sentence a swapped word is mostly a synonym
    # ("larger" / "greater"): on the AttributionBench held part that reading cost 8 true
    # supports for 3 false ones caught.
    # A number against a word is another part of the sentence ("Lady Marina Windsor" / "Lady
    # Marina, 25"), not another value for the same one.
    last = len(said) - 1
    return any(
        op == "replace"
        and i1 == last
        and i2 - i1 == 1
        and j2 - j1 <= 2
        and not any(said[i1] in w for w in words)
        and all(w[0].isdigit() == said[i1][0].isdigit() for w in words[j1:j2])
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
    )


def _qualifies(
    statement: str, sentence: str, cue: re.Pattern[str], rules: RuleBook, *, inside: bool = False
) -> bool:
    """Whether `sentence` restates the statement with a cue ("not", "partly", "was withdrawn")
    on it: most of the statement's words, in order, with the cue within a few words of a run of
    them. Real pages are full of cues about something else ("It is not unusual for…", "nothing
    but"); those sit away from the statement's words, or in a sentence that is only loosely
    about it. `inside`: the cue must sit between the statement's words, not after them ("made
    of steel, not of wood" says nothing against steel)."""
    said = rules.word.findall(statement.lower())
    spans = [(m.start(), m.group()) for m in rules.word.finditer(sentence.lower())]
    if not said or not spans:
        return False
    matcher = _aligned(said, [w for _, w in spans], _RESTATED * len(said))
    if matcher is None:
        return False
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= 2]
    # …and most of its content words: "It is not made of steel" restates "It is made of steel",
    # not "It is made of wrought iron", for all the little words they share.
    terms, held = content_terms(statement, rules.language), set(content_terms(sentence, rules.language))
    if sum(t in held for t in terms) < _RESTATED * len(terms):
        return False
    starts = [at for at, _ in spans]
    for m in cue.finditer(sentence):
        if _NOT_ONLY.match(sentence, m.start()):
            continue
        at = max(0, sum(1 for s in starts if s <= m.start()) - 1)
        if inside and blocks and not blocks[0].b < at < blocks[-1].b + blocks[-1].size:
            continue
        if any(b.b - _NEAR <= at < b.b + b.size + _NEAR for b in blocks):
            return True
    return False


def window_findings(
    statement: str, sentences: Sequence[str], page_numbers: frozenset[str], rules: RuleBook
) -> tuple[Rule, ...]:
    """The contradiction rules that fire on one window of a source (the judge reads only on-topic
    windows): `negates`, whose finding counts only with the model's contradiction on the same
    window (policy.py), `restates_negated` and `another_number`."""
    checks: dict[str, Callable[[], bool]] = {
        "negates": lambda: _negates(statement, sentences, rules),
        "restates_negated": lambda: _restates_negated(statement, sentences, rules),
        "another_number": lambda: _restates_another_number(statement, sentences, page_numbers, rules),
    }
    return tuple(r for r in rules.rules if r.family in checks and checks[r.family]())


def _negates(statement: str, sentences: Sequence[str], rules: RuleBook) -> bool:
    """The sentence that holds most of the statement's words negates it, or
    reports it as a myth or an allegation that the next sentence negates ("It is often said that
    X. It is not."), and the statement does not negate: with the model's contradiction on that
    text, a refutation."""
    if rules.negation.search(statement) or not sentences:
        return False
    at = _closest_index(statement, sentences, rules)
    if rules.negation.search(sentences[at]):
        return True
    return bool(rules.frame.search(sentences[at])) and any(
        rules.negation.search(s) for s in sentences[at + 1 : at + 2]
    )


def _restates_negated(statement: str, sentences: Sequence[str], rules: RuleBook) -> bool:
    """Whether a sentence restates the statement with a negation on it ("It is
    not: the Eiffel Tower is not made of steel" for "The tower is made of steel"), and does not
    itself report that as a myth or an allegation. Said in the statement's own words, that is a
    refutation whatever the model reads: against "The tower is made of steel." model 0.2.0 read
    that sentence as 0.49 entailment and 0.49 contradiction, 0.3.0 as 0.32 and 0.66."""
    if rules.negation.search(statement) or rules.frame.search(statement):
        return False
    return any(
        not rules.frame.search(sentence)
        and _qualifies(statement, sentence, rules.negation, rules, inside=True)
        for sentence in sentences
    )


def _restates_another_number(
    statement: str, sentences: Sequence[str], page_numbers: frozenset[str], rules: RuleBook
) -> bool:
    """Whether a sentence restates the statement with another number in place of
    its one ("began in Egypt more than 4,500 years ago" for "…about 2,000 years ago"), and the
    statement's number is nowhere on the page (`page_numbers`, as the page index keeps them): a
    page that also says the statement's number ("now 330 metres" beside "300 metres when it
    opened") is about another time or thing, not a refutation. Numbers within 10 % of each other
    are one approximate figure."""
    said = content_terms(statement, rules.language)
    for sentence in sentences:
        words = content_terms(sentence, rules.language)
        # The statement's number is the one word allowed to differ.
        matcher = _aligned(said, words, _RESTATED * (len(said) - 1))
        if matcher is None:
            continue
        swaps = [
            (said[i1], words[j1])
            for op, i1, i2, j1, j2 in matcher.get_opcodes()
            if op == "replace" and i2 - i1 == 1 and j2 - j1 == 1 and _number(said[i1]) and _number(words[j1])
        ]
        if len(swaps) != 1 or swaps[0][0] in page_numbers:
            continue
        mine, theirs = (_number(n) for n in swaps[0])
        assert mine is not None and theirs is not None
        if abs(mine - theirs) > 0.1 * max(abs(mine), abs(theirs)):
            return True
    return False


def _aligned(said: list[str], words: list[str], needed: float) -> SequenceMatcher[str] | None:
    """The alignment of the statement's words with a sentence's, if at least `needed` of them
    match in order: the sentence restates the statement."""
    matcher = SequenceMatcher(None, said, words, autojunk=False)
    return matcher if sum(b.size for b in matcher.get_matching_blocks()) >= needed else None


def _number(term: str) -> float | None:
    try:
        return float(term)
    except ValueError:
        return None


def reports_unsettled(sentence: str, language: str) -> bool:
    """Whether the sentence reports something as a myth, a saying, an allegation or a rumour
    without saying itself whether it holds (no negation in it): the next sentence usually does."""
    rules = rule_book(language)
    return bool(rules.frame.search(sentence)) and not rules.negation.search(sentence)


def _closest_index(statement: str, sentences: Sequence[str], rules: RuleBook) -> int:
    said = _words(statement, rules)
    return max(
        range(len(sentences)), key=lambda i: (len(_words(sentences[i], rules) & said), -len(sentences[i]), -i)
    )


def _words(text: str, rules: RuleBook) -> frozenset[str]:
    return frozenset(rules.word.findall(text.lower()))
