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
  place of another ("made of puddled iron" for "made of steel"); in Japanese, written without
  spaces, with one short run of characters put in place of another anywhere ("黒い" for "白い");
- reversed: the source's sentence closest to the statement restates most of its other words with
  a direction word turned round, where the text around it also holds the statement's word; or
  it puts the statement's subject on the other side of its verb ("was acquired by");
- negation, for contradiction: a sentence of any on-topic window is the statement word for word
  with a negation put in (`restates_negated`), or restates it as a myth and the next sentence negates
  (`framed_refuted`), or the sentence about the claim negates it and the
  model reads that window as a contradiction (`negates`, its bar `negated_contradiction` in the
  model's config.json).

The cue words and which of these families run, with what effect, are data: the `meaning` of each
language's file in companion/languages/ (rules for English, French, Japanese; rulebook.py reads
them), each rule with an id (`en.framed`) that the verdict names among its reasons (policy.py). A
language with no rules in its file gets none. Each family is a small predicate over the claim's
relation to a sentence (relation.py), computed for every sentence a rule reads before any rule
runs. A rule stays only where it pays (docs/rules.md has the measurements): English ships
framed, negated, negated_between, reversed, opposite, another_number and restates_negated, French
substituted, negates and framed_refuted, Japanese substituted; the other families stay here,
measured and off, for a file that finds them paying. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..records import Words
from ..text.language import Lexicon, lexicon
from ..text.values import another_value
from .reading import SourceWindows
from .relation import RESTATED, Relation, Relations
from .rulebook import Rule, RuleBook

__all__ = [
    "SourceFindings",
    "SupportFindings",
    "qualified_near",
    "refutes",
    "restates_framed",
    "says_opposite",
    "source_findings",
    "support_findings",
    "swapped_number",
    "window_findings",
]


@dataclass(frozen=True, slots=True)
class SupportFindings:
    """What the rules found in the source text the model found most entailing: the ids of the
    rules that found it not asserting the statement, and of those that found it saying the
    opposite."""

    hedges: tuple[str, ...] = ()
    contradictions: tuple[str, ...] = ()

    @property
    def asserts(self) -> bool:
        return not self.hedges and not self.contradictions


@dataclass(frozen=True, slots=True)
class SourceFindings:
    """What the rules find in one source for a claim: in the text the model found most entailing
    (`support`), in each on-topic window (the contradiction rules that fire on it, and the two
    numbers where a sentence gives another), the sentences that restate the claim negated or
    with another number (`worded_opposite`), and those that restate it as a myth or a belief
    (`framed`)."""

    support: SupportFindings
    windows: tuple[tuple[tuple[Rule, ...], tuple[str, str] | None], ...]
    worded_opposite: frozenset[int]
    framed: frozenset[int] = frozenset()
    # Those of `worded_opposite` that refute the claim (refutes): it contradicts the claim there.
    refuting: frozenset[int] = frozenset()
    # The text read as support, or a sentence beside it, qualifies what it says (qualified_near).
    qualified: bool = False


def source_findings(relations: Relations, source: SourceWindows) -> SourceFindings:
    """Every rule run on one source as the model read it, each sentence related once. The
    wording's opposites are looked for in the on-topic windows and the joined top sentences."""
    sentences, numbers = source.sentences, source.page.numbers
    support = support_findings(relations, [sentences[i] for i in source.most_entailing])
    windows = []
    candidates = set(source.joined_indices)
    for window, on_topic in zip(source.windows, source.on_topic):
        if not on_topic:
            continue
        candidates.update(range(window.first, window.last + 1))
        within = sentences[window.first : window.last + 1]
        rules = window_findings(relations, within, numbers)
        swapped = (
            swapped_number(relations, within, numbers)
            if any(r.family == "another_number" for r in rules)
            else None
        )
        windows.append((rules, swapped))
    said = frozenset(i for i in candidates if says_opposite(relations, sentences[i], numbers))
    framed = frozenset(i for i in candidates if restates_framed(relations, sentences[i]))
    refuting = frozenset(i for i in said if refutes(relations, sentences[i], numbers))
    qualified = qualified_near(relations, sentences, source.most_entailing)
    return SourceFindings(support, tuple(windows), said, framed - said, refuting, qualified)


def qualified_near(relations: Relations, sentences: Sequence[Words], around: Sequence[int]) -> bool:
    """Whether the sentences from the one before the first the model read as support to the one
    after the last, every sentence between them included (the wider reading keeps more readings
    from green, the safer side), hold a word that turns what a sentence says: a negation, a frame
    ("often said", "myth"), a hedge of scope ("partly", "mainly", "rather than"). A small model
    reads such a page as agreeing where it does not ("Bats are often described as blind … In
    reality, every known bat species has working eyes"), so a reading there is never green
    (policy.conflicting), whatever the model's entailment. Cue words the claim itself holds do not
    count; a language without a rules file has no cue words, and nothing is found."""
    if not around:
        return False
    rules, claim = relations.rules, relations.claim
    first, last = max(min(around) - 1, 0), min(max(around) + 1, len(sentences) - 1)
    hedges = rules.contrast | rules.mostly
    for sentence in sentences[first : last + 1]:
        text = sentence.lowered
        negated = not claim.negates and rules.negation.search(text)
        if negated or (not claim.reports and rules.frame.search(text)):
            return True
        if rules.partial_cue.search(text) or (set(rules.word.findall(text)) & hedges) - claim.word_set:
            return True
    return False


def support_findings(relations: Relations, sentences: Sequence[Words]) -> SupportFindings:
    """Checks the source text the model found most entailing against the statement as written.

    Direction reads the whole text; the other checks read its sentence that holds most of the
    statement's words, since a window that quotes a myth and then refutes it supports the
    refutation, not the myth, and a "not" or an "always" two sentences away says nothing of it.
    A source that says the opposite direction is read no further."""
    if not sentences:
        return SupportFindings()
    rules, claim = relations.rules, relations.claim
    said = claim.word_set
    found = frozenset().union(*(relations.words[s.text] for s in sentences))
    if (opposite := _rule(rules, "opposite")) and _turned(said, found, rules):
        return SupportFindings(contradictions=(opposite.id,))
    closest = sentences[relations.closest[_texts(sentences)]]
    near = relations.relations[closest.text]
    # A statement that itself reports a claim ("Critics said that X") is supported by the report,
    # whatever the source adds about X ("…, but this was never confirmed").
    asserting = not claim.reports
    checks: dict[str, Callable[[], bool]] = {
        "framed": lambda: asserting and "frame" in near.cue_kinds,
        "framed_numbers": lambda: asserting and _numbers_framed(relations, sentences),
        "negated": lambda: asserting and not claim.negates and _qualified(near, "negation"),
        "negated_between": lambda: asserting and not claim.negates and _negated_between(relations, near),
        "substituted": lambda: (_substitutes_characters if rules.unspaced else _substitutes)(relations, near),
        "reversed": lambda: _reverses(relations, near),
        "passive_reversed": lambda: _passive_turned(claim.text, closest.text),
        "scope_universal": lambda: bool(said & rules.universal) and not found & rules.universal,
        "scope_only": lambda: bool(said & rules.only) and bool(near.words & rules.mostly),
        "scope_part_of": lambda: _narrows_to_part(claim.text, closest.text),
        "scope_partial": lambda: not said & rules.partial and _qualified(near, "partial"),
    }
    hedges = tuple(r.id for r in rules.rules if r.effect == "hedge" and checks[r.family]())
    return SupportFindings(hedges=hedges)


def window_findings(
    relations: Relations, sentences: Sequence[Words], page_numbers: frozenset[str]
) -> tuple[Rule, ...]:
    """The contradiction rules that fire on one window of a source (the judge reads only on-topic
    windows): `negates`, whose finding counts only with the model's contradiction on the same
    window (policy.py), `framed_refuted`, `restates_negated` and `another_number`."""
    checks: dict[str, Callable[[], bool]] = {
        "negates": lambda: _negates(relations, sentences),
        "framed_refuted": lambda: (
            not relations.claim.negates
            and not relations.claim.reports
            and _framed_then_negated(relations, sentences)
        ),
        "restates_negated": lambda: _restates_negated(relations, sentences),
        "another_number": lambda: _restates_another_number(relations, sentences, page_numbers),
    }
    return tuple(r for r in relations.rules.rules if r.family in checks and checks[r.family]())


def says_opposite(relations: Relations, sentence: Words, page_numbers: frozenset[str]) -> bool:
    """Whether the sentence, read alone, says the opposite of the statement in its own words: it
    restates it with a negation on it, or with another number. Such a
    sentence is never quoted as the statement's support (evidence.py), whichever rules the
    language's file ships: the quote is what a reader checks, and a quote that negates the claim
    under "supports it" is the worst thing the overlay can show."""
    claim = relations.claim
    if claim.negates or claim.reports:
        return False
    if sentence.text not in relations.restating:
        return swapped_number(relations, (sentence,), page_numbers) is not None
    relation = relations.relations[sentence.text]
    # The claim restated with a negation on its words, before the last of them ("is not made of
    # steel", "n'est pas fermé"; not "made of steel, not of wood"): not merely a negation somewhere
    # between them (`negated_between`, a rule of the English book), which on French RTE pages
    # vetoed true claims ("…est paralysé et ne peut plus…" against "Christopher Reeve a eu un
    # accident").
    if "frame" not in relation.cue_kinds and _negated_before_last(relation):
        return True
    return swapped_number(relations, (sentence,), page_numbers) is not None


def refutes(relations: Relations, sentence: Words, page_numbers: frozenset[str]) -> bool:
    """Whether a sentence that says the opposite (says_opposite) refutes the claim outright: it
    gives the claim's quantity another value, or it holds every word of the claim with a negation
    on them ("the Eiffel Tower is not made of steel"). A negation near part of the claim's words
    ("…is not made of steel" for "The tower is made of wrought iron") says otherwise about
    something near it, and only keeps a reading from green (policy.conflicting)."""
    if swapped_number(relations, (sentence,), page_numbers) is not None:
        return True
    return all(t in sentence.term_set for t in relations.claim.terms)


def restates_framed(relations: Relations, sentence: Words) -> bool:
    """Whether the sentence restates the statement as a myth, a belief, an allegation or a hope
    ("Many visitors assume that such a tall tower must be made of steel"), and the statement does
    not itself report: the source mentions the claim there, it does not assert it."""
    if relations.claim.reports or sentence.text not in relations.restating:
        return False
    relation = relations.relations[sentence.text]
    return relation.restated and "frame" in relation.cue_kinds and "negation" not in relation.cue_kinds


def _rule(rules: RuleBook, family: str) -> Rule | None:
    return next((r for r in rules.rules if r.family == family), None)


def _texts(sentences: Sequence[Words]) -> tuple[str, ...]:
    """A group of sentences as Relations.closest keys it."""
    return tuple(s.text for s in sentences)


def _negated_before_last(relation: Relation) -> bool:
    return (
        relation.restated
        and bool(relation.term_starts)
        and any(
            c.kind == "negation" and not c.not_only and c.near and c.start < relation.term_starts[-1]
            for c in relation.cues
        )
    )


def _qualified(relation: Relation, kind: str, *, inside: bool = False) -> bool:
    """Whether the sentence restates the statement with a cue ("not", "partly", "was withdrawn")
    on it: the cue within a few words of a run of the statement's words. Real pages are full of
    cues about something else ("It is not unusual for…", "nothing but"); those sit away from the
    statement's words, or in a sentence that is only loosely about it. `inside`: the cue must sit
    between the statement's words, not after them ("made of steel, not of wood" says nothing
    against steel)."""
    return relation.restated and any(
        c.kind == kind and not c.not_only and c.near and (c.place == "inside" or not inside)
        for c in relation.cues
    )


def _turned(said: frozenset[str], found: frozenset[str], rules: RuleBook) -> tuple[str, str] | None:
    """The statement's first direction word that `found` turns round, and the word it uses
    instead; None when the words hold both or neither of a pair."""
    for word in sorted(said):
        opposite = rules.opposite.get(word, frozenset()) & found
        if opposite and word not in found and not opposite & said:
            return word, min(opposite)
    return None


def _reverses(relations: Relations, relation: Relation) -> bool:
    """Whether the sentence closest to the statement restates it with a direction word turned
    round ("imports … most of it from Ostria" for "exports most of its wheat to Ostria"), while
    the text around it also holds the statement's own word ("In return, Velland exports timber"),
    which keeps the whole-text check quiet. Only a hedge: a sentence can turn the words round and
    keep the fact ("Beats was sold to Apple" for "Apple bought Beats")."""
    turned = _turned(relations.claim.word_set, relation.words, relations.rules)
    if turned is None:
        return False
    rest = set(relations.claim.terms) - set(relations.language.terms(turned[0]))
    return bool(rest) and len(rest & set(relation.terms)) >= RESTATED * len(rest)


_COUNT_EN = (
    r"(\d[\d,.]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundred)"
)
# "four of Norland's nine regions", "only two of the seven": a part of a counted whole. "one of
# the two founders" is left out, it names a member rather than narrowing a claim.
_PART_OF_EN = re.compile(rf"\b{_COUNT_EN} of (the |its |their |\w+'s )?{_COUNT_EN}\b", re.IGNORECASE)


def _numbers_framed(relations: Relations, sentences: Sequence[Words]) -> bool:
    """Whether every sentence that gives the statement's numbers reports them as hoped, claimed or
    predicted ("Organisers had hoped to attract 50,000 visitors" against "attracted 50,000
    visitors"): the number is the fact, wherever the sentence closest in words sits."""
    numbers = relations.claim.numbers
    if not numbers:
        return False
    giving = [relations.relations[s.text] for s in sentences if numbers <= s.numbers]
    return bool(giving) and all("frame" in r.cue_kinds for r in giving)


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


def _negated_between(relations: Relations, relation: Relation) -> bool:
    """Whether the sentence holds half the statement's content words or more and a negation sits
    between the first and the last of them: "The trial … found no link between taking velotran
    and the number of migraine attacks" against "The trial found that velotran reduced the number
    of migraine attacks", said in other words than `_qualified` needs. A negation before or after
    them is about something else ("Not far from the lake, …")."""
    if relation.coverage < 0.5:
        return False
    at = relation.term_starts
    return len(at) >= 2 and any(
        c.kind == "negation"
        and at[0] < c.start < at[-1]
        and c.word.lower() not in relations.rules.contrast
        and not c.not_only
        for c in relation.cues
    )


_KANA_ONLY = re.compile(r"[\u3040-\u309fー]+")


def _substitutes_characters(relations: Relations, relation: Relation) -> bool:
    """Written without spaces: whether the sentence is a near copy of the statement, character by
    character, with one short run of it put in place of another ("黒いTシャツ" for "白いTシャツ",
    "男の子" for "女の子"). A run of kana alone on both sides is grammar (が for は), not a fact."""
    said = relations.claim.words
    found = relations.rules.word.findall(relation.sentence.lower())
    if len(said) < 6:
        return False
    ops = SequenceMatcher(None, said, found, autojunk=False).get_opcodes()
    kept = sum(i2 - i1 for op, i1, i2, _, _ in ops if op == "equal")
    swaps = [("".join(said[i1:i2]), "".join(found[j1:j2])) for op, i1, i2, j1, j2 in ops if op == "replace"]
    return (
        kept >= 0.75 * len(said)
        and len(swaps) == 1
        and all(1 <= len(run) <= 3 for run in swaps[0])
        and not all(_KANA_ONLY.fullmatch(run) for run in swaps[0])
    )


def _substitutes(relations: Relations, relation: Relation) -> bool:
    """Whether the sentence restates the statement with its last word put in place of another:
    "The tower is made of puddled iron" for "…made of steel", "sailed to Bergen" for "sailed to
    Oslo". A small NLI model reads such a near copy as entailment (0.96 for the tower); a reader
    sees a different fact."""
    said, words = relations.claim.terms, relation.terms
    if len(said) < 3 or relation.terms_matched < RESTATED * len(said):
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
        for op, i1, i2, j1, j2 in relation.term_ops
    )


def _negates(relations: Relations, sentences: Sequence[Words]) -> bool:
    """The sentence that holds most of the statement's words negates it, or reports it as a myth
    or an allegation that the next sentence negates ("It is often said that X. It is not."), and
    the statement does not negate: with the model's contradiction on that text, a refutation."""
    if relations.claim.negates or not sentences:
        return False
    at = relations.closest[_texts(sentences)]
    closest = relations.relations[sentences[at].text]
    if "negation" in closest.cue_kinds:
        return True
    after = sentences[at + 1 : at + 2]
    return "frame" in closest.cue_kinds and any(
        "negation" in relations.relations[s.text].cue_kinds for s in after
    )


def _framed_then_negated(relations: Relations, sentences: Sequence[Words]) -> bool:
    """The sentence that restates the statement reports it as a myth or a saying, and the next
    one negates ("On lit souvent qu'elle est visible depuis la Lune. C'est faux."): the source
    refutes what it quotes, whether or not the model reads a contradiction."""
    at = relations.closest[_texts(sentences)]
    quoted = relations.relations[sentences[at].text]
    return (
        quoted.restated
        and "frame" in quoted.cue_kinds
        and any("negation" in relations.relations[s.text].cue_kinds for s in sentences[at + 1 : at + 2])
    )


def _restates_negated(relations: Relations, sentences: Sequence[Words]) -> bool:
    """Whether a sentence is the statement word for word with a negation put in ("It is not: the
    Eiffel Tower is not made of steel" for "The Eiffel Tower is made of steel"), and does not
    itself report that as a myth or an allegation. Said in the statement's own words, that is a
    refutation whatever the model reads: against the statement, model 0.2.0 read that sentence as
    0.49 entailment and 0.49 contradiction, 0.4.0's fast model as 0.71 contradiction. Word for
    word (_word_for_word), because a negation among the statement's words and words of the
    sentence's own is often about something else: "The law redeems not the individual but the
    community" entails "The law will save the community" (docs/rules.md)."""
    if relations.claim.negates or relations.claim.reports:
        return False
    restating = [relations.relations[s.text] for s in sentences if s.text in relations.restating]
    language = relations.language
    return any(
        "frame" not in r.cue_kinds
        and _qualified(r, "negation", inside=True)
        and _word_for_word(r, len(relations.claim.terms), language)
        for r in restating
    )


def _word_for_word(relation: Relation, said: int, language: Lexicon) -> bool:
    """Whether the sentence holds all `said` content terms of the statement, in its order, with
    no content term of its own between the first and the last of them but its negation cues'."""
    negation = {t for c in relation.cues if c.kind == "negation" for t in language.terms(c.word)}
    ops = list(relation.term_ops)
    while ops and ops[0][0] != "equal":
        ops.pop(0)
    while ops and ops[-1][0] != "equal":
        ops.pop()
    return relation.terms_matched == said and all(
        op == "equal" or (op == "insert" and set(relation.terms[j1:j2]) <= negation)
        for op, _, _, j1, j2 in ops
    )


def _restates_another_number(
    relations: Relations, sentences: Sequence[Words], page_numbers: frozenset[str]
) -> bool:
    return swapped_number(relations, sentences, page_numbers) is not None


def swapped_number(
    relations: Relations, sentences: Sequence[Words], page_numbers: frozenset[str]
) -> tuple[str, str] | None:
    """The statement's quantity and the one a sentence gives it instead ("1901" / "1889",
    "sechs Monate" / "sechs Wochen"), both as written; None where no sentence does
    (text.values.another_value: in every language with a file in companion/languages/)."""
    claim = relations.claim
    for sentence in sentences:
        found = another_value(claim.written, claim.quantities, sentence, page_numbers)
        if found is not None:
            return found
    return None
