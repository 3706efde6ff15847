"""The relation record (relation.py): what the rules read of one claim against one sentence."""

from __future__ import annotations

import dataclasses

from companion.judging.claim import claim_of
from companion.judging.relation import may_restate, relate, relation
from companion.judging.rulebook import Rule, rule_book
from companion.text.analysis import analyse
from companion.text.language import lexicon


def related(claim, sentence, language="en"):
    rules = rule_book(language)
    return relation(claim_of(claim, rules), rules, analyse(sentence, language))


def test_a_negation_between_the_claims_words_is_placed_inside_and_near():
    r = related("The tower is made of steel.", "The tower is not made of steel.")
    assert r.restated and r.coverage == 1
    (cue,) = [c for c in r.cues if c.kind == "negation"]
    assert (cue.word, cue.place, cue.near, cue.not_only) == ("not", "inside", True, False)
    assert r.sentence[cue.start : cue.start + 3] == "not"


def test_cues_before_and_after_the_claims_words_are_placed_so():
    before = related("The tower is made of steel.", "Not far from the river, the tower is made of steel.")
    after = related("The tower is made of steel.", "The tower is made of steel, not of wood.")
    assert [c.place for c in before.cues if c.kind == "negation"] == ["before"]
    assert [c.place for c in after.cues if c.kind == "negation"] == ["after"]


def test_a_sentence_about_something_else_does_not_restate_the_claim():
    r = related("The tower is made of steel.", "It is not unusual for visitors to queue for an hour.")
    assert not r.restated
    assert r.coverage == 0 and r.term_starts == ()


def test_terms_are_aligned_in_order_with_the_swapped_word_as_a_replace():
    r = related("The Eiffel Tower is made of steel.", "The Eiffel Tower is made of puddled iron.")
    assert r.term_ops == (("equal", 0, 3, 0, 3), ("replace", 3, 4, 3, 5))
    assert r.terms[3:] == ("puddl", "iron") and r.terms_matched == 3


def test_not_only_is_marked_and_frames_found_and_numbers_read():
    r = related(
        "Bees see ultraviolet light.",
        "Bees see not only ultraviolet light but blue, it is often said, in 1,500 species.",
    )
    assert [c.not_only for c in r.cues if c.kind == "negation"] == [True]
    assert "frame" in r.cue_kinds
    assert r.numbers == frozenset({"1500"})


def test_each_sentence_is_related_once_and_the_closest_holds_most_words():
    rules = rule_book("en")
    claim = claim_of("The tower is made of steel.", rules)
    sentences = [
        analyse(s, "en") for s in ("Paris is large.", "The tower is made of iron.", "The tower is tall.")
    ]
    table = relate(claim, rules, lexicon("en"), [sentences], windows=[sentences[1:]])
    assert table.closest[tuple(s.text for s in sentences)] == 1
    assert table.closest[tuple(s.text for s in sentences[1:])] == 0
    # The shipped English book has no rule that reads the sentence after a window's closest.
    assert set(table.relations) == {sentences[1].text}
    negates = dataclasses.replace(rules, rules=(*rules.rules, Rule("en.negates", "negates", "contradict")))
    table = relate(claim, negates, lexicon("en"), [], windows=[sentences])
    assert set(table.relations) == {sentences[1].text, sentences[2].text}
    assert table.relations[sentences[1].text] == relation(claim, rules, sentences[1])


def test_a_sentence_may_restate_the_claim_wherever_it_does_on_the_written_pages():
    """`may_restate` spares the rules relating most sentences; it must never turn away one that
    restates the claim. Every written claim against the sentences of its own page and another's."""
    import json
    from pathlib import Path

    from companion.text.segment import split_sentences

    rules = rule_book("en")
    folder = Path(__file__).resolve().parents[2] / "fixtures" / "meaning"
    rows = [json.loads(line) for f in sorted(folder.glob("*.jsonl")) for line in f.read_text().splitlines()]
    restating = turned_away = others = 0
    for i, row in enumerate(rows):
        claim = claim_of(row["claim"], rules)
        for page in (row["page"], rows[(i + 7) % len(rows)]["page"]):
            for a, b in split_sentences(page, "en"):
                words = analyse(page[a:b], "en")
                if relation(claim, rules, words).restated:
                    restating += 1
                    assert may_restate(claim, words), (row["claim"], words.text)
                else:
                    others += 1
                    turned_away += not may_restate(claim, words)
    # The check means something: many restate, and most of the rest are turned away unrelated.
    assert restating > 100 and turned_away > 0.8 * others, (restating, turned_away, others)
