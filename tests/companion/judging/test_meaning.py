"""The meaning checks (issue 10): a source that mentions a claim without asserting it, or says the
opposite, is caught; one that asserts it plainly, in other words, is not."""

from __future__ import annotations

import dataclasses

import pytest

from companion.judging.claim import claim_of
from companion.judging.meaning import (
    restates_framed,
    says_opposite,
    swapped_number,
    window_findings,
)
from companion.judging.meaning import support_findings as _support_findings
from companion.judging.relation import relate
from companion.judging.rulebook import _ENGLISH_ONLY, FAMILIES, Rule, rule_book
from companion.text.analysis import analyse
from companion.text.language import lexicon
from companion.text.retrieve import reports_unsettled
from companion.text.segment import split_sentences

_EFFECT = {
    "opposite": "contradict",
    "negates": "contradict_with_model",
    "restates_negated": "contradict",
    "framed_refuted": "contradict",
    "another_number": "contradict",
}


def every_family(language):
    """The language's cue words with every family on, whether or not its file keeps the rule:
    these tests are of the predicates; docs/rules.md says which rules ship."""
    families = sorted(f for f in FAMILIES if language == "en" or f not in _ENGLISH_ONLY)
    rules = tuple(Rule(f"{language}.{f}", f, _EFFECT.get(f, "hedge")) for f in families)
    return dataclasses.replace(rule_book(language), rules=rules)


# The finding as these tests name it: each family's broad kind (several families share one).
_KIND = {
    "framed_numbers": "framed",
    "negated_between": "negated",
    "passive_reversed": "reversed",
    "scope_universal": "scope",
    "scope_only": "scope",
    "scope_part_of": "scope",
    "scope_partial": "scope",
}


def relations_for(statement, rules, sentences):
    """The statement as the judge reads it, analysed once (claim.py), related to sentences read
    together and each alone, as the judge relates a window's (relation.relate)."""
    claim = claim_of(statement, rules)
    return relate(claim, rules, lexicon(rules.language), [sentences], sentences, [sentences])


def sentences(text, language="en"):
    """The text as the Document splits it, which is what the rules read."""
    return [analyse(text[a:b], language) for a, b in split_sentences(text, language)]


def support_findings(statement, source, language="en"):
    found = sentences(source, language)
    return _support_findings(relations_for(statement, every_family(language), found), found)


def kinds(statement, source, language="en"):
    found = support_findings(statement, source, language)
    return {_KIND.get(i.split(".", 1)[1], i.split(".", 1)[1]) for i in (*found.hedges, *found.contradictions)}


def Reading(hedged="", opposite=""):  # reads as the record it stood for
    return "opposite" if opposite else hedged


def _fires(family, statement, source, language="en", numbers=frozenset()):
    within = sentences(source, language)
    found = window_findings(relations_for(statement, every_family(language), within), within, numbers)
    return any(r.family == family for r in found)


def negates(statement, source, language="en"):
    return _fires("negates", statement, source, language)


def restates_negated(statement, source, language="en"):
    return _fires("restates_negated", statement, source, language)


def restates_another_number(statement, source, numbers, language="en"):
    return _fires("another_number", statement, source, language, numbers)


@pytest.mark.parametrize(
    ("statement", "source", "expected"),
    [
        (
            "Cracking your knuckles causes arthritis.",
            "Cracking your knuckles is often said to cause arthritis.",
            Reading(hedged="framed"),
        ),
        (
            "The mayor accepted bribes from a builder.",
            "Prosecutors accused the mayor of accepting bribes from a builder.",
            Reading(hedged="framed"),
        ),
        (
            "The charge drove shoppers away.",
            "Opponents warned that the charge would drive shoppers away.",
            Reading(hedged="framed"),
        ),
        ("All 60 patients recovered.", "Of the 60 patients, 31 recovered.", Reading(hedged="scope")),
        (
            "The bridge is made entirely of steel.",
            "Its towers are steel and its deck is concrete.",
            Reading(hedged="scope"),
        ),
        ("Revenue rose 12 percent in 2023.", "Revenue fell 12 percent in 2023.", Reading(opposite="fell")),
        ("Revenue rose in 2023.", "Revenue declined in 2023.", Reading(opposite="declined")),
        (
            "Swallows hibernate in mud.",
            "Folklore held that swallows hibernate in mud.",
            Reading(hedged="framed"),
        ),
        (
            "The tower is made of steel.",
            "Many visitors assume that the tower is made of steel.",
            Reading(hedged="framed"),
        ),
        (
            "The country exported 2.3 million tonnes of wheat.",
            "The country imported 2.3 million tonnes of wheat.",
            Reading(opposite="imported"),
        ),
        (
            "The castle was built by the Romans.",
            "A local legend holds that the castle was built by the Romans.",
            Reading(hedged="framed"),
        ),
        (
            "The rover found ice at the pole.",
            "Engineers hope the rover will find ice at the pole.",
            Reading(hedged="framed"),
        ),
        (
            "The minister took bribes from a builder.",
            "Prosecutors charged the minister with taking bribes from a builder.",
            Reading(hedged="framed"),
        ),
        (
            "Green tea lowers cholesterol.",
            "A 2020 study found that green tea may lower cholesterol.",
            Reading(hedged="framed"),
        ),
        (
            "Owls can see in total darkness.",
            "Owls are often described as seeing in total darkness.",
            Reading(hedged="framed"),
        ),
        # A negation between the statement's words, said in other words than the statement's.
        (
            "The survey found that coffee drinkers slept less.",
            "The survey of 900 adults found no difference in how long coffee drinkers slept.",
            Reading(hedged="negated"),
        ),
        (
            "The seal still breeds on the northern beaches of Ormsby.",
            "The seal once bred on the northern beaches, but it no longer breeds anywhere on Ormsby.",
            Reading(hedged="negated"),
        ),
        (
            "The heron eats only fish.",
            "The heron eats mainly fish, with some frogs and insects.",
            Reading(hedged="scope"),
        ),
        (
            "The school was ranked first in the county.",
            "The school was ranked third in the county.",
            Reading(opposite="third"),
        ),
        ("The team beat Ajax in the final.", "The team lost to Ajax in the final.", Reading(opposite="lost")),
        # The subject on the other side of its verb, a part of a counted whole, a hoped-for number.
        (
            "Ostra Mills acquired the Danish Pellam Group in 2020.",
            "Ostra Mills was acquired by the Danish Pellam Group in 2020.",
            Reading(hedged="reversed"),
        ),
        (
            "Smoking is banned in bars across Dorland.",
            "Smoking is banned in bars in three of Dorland's eight provinces.",
            Reading(hedged="scope"),
        ),
        (
            "The fair drew 30,000 visitors.",
            "The fair ran for a week. Its organisers hoped for 30,000 visitors, but about 12,000 came.",
            Reading(hedged="framed"),
        ),
    ],
)
def test_what_the_source_does_not_assert_is_caught(statement, source, expected):
    assert expected in kinds(statement, source)
    assert not support_findings(statement, source).asserts


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        (
            "Goldfish remember things for months.",
            "A widely repeated claim holds that goldfish forget in three seconds. In fact, goldfish "
            "recalled feeding cues after several months.",
        ),
        ("Revenue rose 12 percent in 2023.", "In 2023 revenue rose by 12 percent, and costs fell."),
        ("All 40 patients recovered.", "Every one of the 40 patients recovered within a week."),
        ("Honeybees make honey from flower nectar.", "Bees turn the nectar of flowers into honey."),
        # An author's own argument is their assertion.
        ("Usage frequency shapes grammar.", "In this article we argue that usage frequency shapes grammar."),
        # A negation outside the statement's words is about something else.
        (
            "The survey found that coffee drinkers slept less.",
            "Not everyone expected it, but the survey found that coffee drinkers slept less.",
        ),
        ("The heron eats fish.", "The heron eats mainly fish."),
        (
            "Doctors prefer ultrasound over X-rays for young children.",
            "For young children doctors prefer ultrasound rather than X-rays.",
        ),
        (
            "Greek thinkers linked beauty with order in the cosmos.",
            "Greek thinkers linked beauty not only with art but with order in the cosmos.",
        ),
        ("Pellam bought Ostra Mills in 2020.", "Ostra Mills was acquired by Pellam in 2020."),
        ("31 of the 40 patients recovered.", "Of the 40 patients, 31 of the 40 recovered within a week."),
        ("The report covers policing in the UK.", "Page 4 of 4. The report covers policing in the UK."),
        ("The fair drew 30,000 visitors.", "The fair ran for a week and drew 30,000 visitors."),
        (
            "She sang the most songs of any singer.",
            "She mainly sang film songs, and sang the most songs of any singer.",
        ),
    ],
)
def test_a_source_that_asserts_the_statement_passes(statement, source):
    assert support_findings(statement, source).asserts


def test_each_other_is_not_a_universal_claim():
    statement = "Honeybees tell each other where to find food with the waggle dance."
    assert support_findings(statement, "The waggle dance tells the other bees where the food is.").asserts


def test_a_negating_sentence_is_told_from_a_plain_one():
    statement = "The Eiffel Tower is made of steel."
    assert negates(statement, "Many assume it is steel. It is not: the Eiffel Tower is not made of steel.")
    assert not negates(statement, "The Eiffel Tower is made of steel girders. It is not small.")
    assert not negates("The tower is not made of steel.", "The tower is not made of steel.")
    assert negates("The plant makes cars.", "The plant ceased to make cars in 2019.")


@pytest.mark.parametrize(
    ("statement", "source", "expected"),
    [
        (
            "Elle est visible depuis la Lune à l'œil nu.",
            "On lit souvent qu'elle est visible depuis la Lune à l'œil nu.",
            Reading(hedged="framed"),
        ),
        (
            "Le maire a accepté des pots-de-vin.",
            "Le maire aurait accepté des pots-de-vin, selon l'opposition.",
            Reading(hedged="framed"),
        ),
        ("Les 40 patients ont tous guéri.", "Sur les 40 patients, 31 ont guéri.", Reading(hedged="scope")),
        (
            "Le chiffre d'affaires a augmenté de 12 % en 2023.",
            "Le chiffre d'affaires a baissé de 12 % en 2023.",
            Reading(opposite="baissé"),
        ),
        (
            "Le pays a exporté 2,3 millions de tonnes de blé.",
            "Le pays a importé 2,3 millions de tonnes de blé.",
            Reading(opposite="importé"),
        ),
    ],
)
def test_french_sources_that_do_not_assert_are_caught(statement, source, expected):
    assert expected in kinds(statement, source, "fr")


def test_the_cue_words_are_those_of_the_language():
    myth = ("Elle est visible depuis la Lune.", "On lit souvent qu'elle est visible depuis la Lune.")
    assert support_findings(*myth, "en").asserts
    assert not negates("La tour est en acier.", "La tour n'est pas en acier.", "en")


@pytest.mark.parametrize(
    ("statement", "source", "swapped"),
    [
        # One short run of characters put in place of another: another fact.
        ("白いシャツを着た男性が駅前に立っています。", "黒いシャツを着た男性が駅前に立っています。", True),
        ("女の子の前にトーストが三枚あります。", "男の子の前にトーストが三枚あります。", True),
        # The same words, kana put for kana (grammar), or words left out: not a swap.
        ("白いシャツを着た男性が駅前に立っています。", "白いシャツを着た男性は駅前に立っています。", False),
        ("白いシャツを着た男性が駅前に立っています。", "白いシャツの男性が立っています。", False),
        ("白いシャツを着た男性が駅前に立っています。", "昨日は雨が降りました。", False),
    ],
)
def test_a_japanese_near_copy_with_one_run_swapped_is_caught(statement, source, swapped):
    assert ("substituted" in kinds(statement, source, "ja")) == swapped
    assert [r.id for r in rule_book("ja").rules] == ["ja.substituted"]


@pytest.mark.parametrize(
    ("source", "refuted"),
    [
        ("On lit souvent que la tour est visible depuis la Lune. C'est faux.", True),
        ("On dit que la tour est visible depuis la Lune. Les astronautes ne la voient pas.", True),
        # The myth is not negated, or the negation comes before it: no refutation of it.
        ("On lit souvent que la tour est visible depuis la Lune. Elle mesure 330 mètres.", False),
        ("Ce n'est pas un secret. On dit que la tour est visible depuis la Lune.", False),
        # The page says it plainly and then negates something else: no frame, no refutation.
        ("La tour est visible depuis la Lune. Elle n'est pas peinte en rouge.", False),
    ],
)
def test_a_myth_quoted_then_negated_is_a_refutation_in_french(source, refuted):
    statement = "La tour est visible depuis la Lune."
    assert _fires("framed_refuted", statement, source, "fr") == refuted
    assert not _fires("framed_refuted", "On dit que la tour est visible depuis la Lune.", source, "fr")


def test_a_language_without_a_rules_file_gets_no_rules():
    german = rule_book("de")
    assert german.rules == ()
    statement, page = (
        "Der Umsatz stieg 2023.",
        "Man sagt oft, der Umsatz sei 2023 gestiegen. Das ist nicht wahr.",
    )
    assert support_findings(statement, page, "de").asserts
    within = sentences(page, "de")
    assert window_findings(relations_for(statement, german, within), within, frozenset()) == ()
    assert not reports_unsettled(page, rule_book("de"))


def test_a_rule_left_out_of_the_book_no_longer_fires():
    statement, source = (
        "Cracking your knuckles causes arthritis.",
        "Cracking your knuckles is often said to cause arthritis.",
    )
    book = rule_book("en")
    read = [analyse(source, "en")]
    assert _support_findings(relations_for(statement, book, read), read).hedges == ("en.framed",)
    assert _support_findings(relations_for(statement, book.without(["en.framed"]), read), read).asserts


def test_every_rule_file_names_known_families_and_effects():
    from companion.judging.rulebook import _parse
    from companion.languages import LanguageFileError, MeaningRule, codes, language

    for code in codes():
        book = _parse(language(code))
        assert len({r.id for r in book.rules}) == len(book.rules)
    assert all(rule_book(code).rules for code in ("en", "fr", "ja"))
    french = language("fr")
    bad = MeaningRule("fr.passive_reversed", "passive_reversed", "hedge", "")
    broken = dataclasses.replace(french, meaning=dataclasses.replace(french.meaning, rules=(bad,)))
    with pytest.raises(LanguageFileError, match=r"fr\.json.*English grammar"):
        _parse(broken)


def test_french_plain_support_passes_and_negation_is_read():
    assert support_findings(
        "Le récif abrite plus de 1 500 espèces de poissons.",
        "Le récif abrite plus de 1 500 espèces de poissons et 400 espèces de coraux.",
        "fr",
    ).asserts
    statement = "La tour Eiffel est en acier."
    assert negates(statement, "La tour Eiffel n'est pas en acier : elle est en fer puddlé.", "fr")
    assert not negates(statement, "La tour Eiffel est en acier. Elle n'est pas petite.", "fr")
    assert not negates("La tour n'est pas en acier.", "La tour n'est pas en acier.", "fr")


def test_a_myth_is_refuted_by_the_sentence_after_it():
    statement = "The reef is visible from the Moon."
    page = "A popular myth holds that the reef is visible from the Moon. Astronauts report it cannot be seen."
    assert negates(statement, page)
    assert negates(
        "Elle est visible depuis la Lune à l'œil nu.",
        "On lit souvent qu'elle est visible depuis la Lune à l'œil nu. C'est faux : on ne la distingue pas.",
        "fr",
    )
    # A plain sentence followed by an unrelated negation is not a refutation.
    assert not negates(statement, "The reef is visible from space. It is not a single reef.")
    assert reports_unsettled("A popular myth holds that the reef is visible from the Moon.", rule_book("en"))
    assert not reports_unsettled(
        "The myth that the reef is visible from the Moon is false and not new.", rule_book("en")
    )


@pytest.mark.parametrize(
    ("statement", "source", "expected"),
    [
        (
            "The Fed will be happy with the revisions.",
            "The Fed will never be happy with the revisions.",
            Reading(hedged="negated"),
        ),
        (
            "The museum holds 40 paintings by Vermeer.",
            "A report that the museum holds 40 paintings by Vermeer was later withdrawn by its publisher.",
            Reading(hedged="negated"),
        ),
        (
            "Run-flat tyres keep their bead on the rim when deflated.",
            "Researchers looked for evidence that run-flat tyres keep their bead on the rim when "
            "deflated, but found none.",
            Reading(hedged="negated"),
        ),
        ("The rings are made up of ice.", "The rings are partly made up of ice.", Reading(hedged="scope")),
        (
            "The boat reached eastern Indonesia on Thursday.",
            "The boat reached western Indonesia on Thursday.",
            Reading(opposite="western"),
        ),
        ("The tower is made of steel.", "The tower is made of puddled iron.", Reading(hedged="substituted")),
        (
            "In 1990 the ferry sailed to Oslo.",
            "In 1990 the ferry sailed to Bergen.",
            Reading(hedged="substituted"),
        ),
        # The text around it holds "exports" too, which keeps the whole-text direction check quiet.
        (
            "Velland exports most of its wheat to neighbouring Ostria.",
            "The country imports about 80 percent of the wheat it consumes, most of it from neighbouring "
            "Ostria. In return, Velland exports timber and paper to Ostria.",
            Reading(hedged="reversed"),
        ),
    ],
)
def test_a_restatement_with_a_cue_on_it_is_caught(statement, source, expected):
    assert expected in kinds(statement, source)


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        # A negation about something else in the sentence, or an idiom, says nothing of the claim.
        (
            "Running increases vagal tone, which slows the heart.",
            "It is not unusual for endurance athletes to have a slow heart: training increases vagal "
            "tone, which slows the heart.",
        ),
        (
            "Clean the screen with a soft damp cloth.",
            "Use nothing but a soft damp cloth to clean the screen.",
        ),
        # A statement that reports a claim is supported by the report, whatever the page adds.
        (
            "Critics claimed that the bridge was unsafe.",
            "Critics claimed that the bridge was unsafe, but this was never confirmed.",
        ),
        # A clause said another way is a paraphrase, not a word put in place of another.
        ("Exercise makes the heart beat more slowly.", "A trained heart beats more slowly."),
        (
            "Training pushes a larger volume of blood with each beat.",
            "Training pushes a greater volume of blood with each beat.",
        ),
        ("The tower is made of iron.", "The tower is made of puddled iron."),
        # A turned-round word in a sentence about something else ("exports timber") is no reversal.
        (
            "Velland imports wheat from Ostria.",
            "Velland imports wheat from Ostria. In return, Velland exports timber to Ostria.",
        ),
        # The statement holds both words of an opposite pair: no direction to compare.
        (
            "Exercise makes the heart beat more slowly and less prone to disease.",
            "A trained heart beats slowly and is less prone to disease.",
        ),
    ],
)
def test_a_cue_that_is_not_on_the_claim_passes(statement, source):
    assert support_findings(statement, source).asserts


def test_a_restatement_with_a_negation_on_it_is_a_refutation():
    statement = "The tower is made of steel."
    assert restates_negated(statement, "Many assume so. It is not: the Eiffel Tower is not made of steel.")
    assert restates_negated("The report was published in May.", "The report was never published in May.")
    # A negation elsewhere, a sentence only loosely about the claim, a negated statement, a myth.
    assert not restates_negated(statement, "The tower is made of steel, not of wood.")
    assert not restates_negated(statement, "No one doubts that towers need steel.")
    assert not restates_negated("The tower is not made of steel.", "The tower is not made of steel.")
    assert not restates_negated(statement, "A myth holds that the tower is not made of steel.")
    # The little words agree, the content words do not: another claim.
    iron = "The tower is made of wrought iron."
    assert not restates_negated(iron, "It is not: the tower is not made of steel.")
    # A negation among the claim's words and words of the sentence's own: about something else.
    # XNLI-en and LingNLI pairs labelled entailment, which the rule once flagged (docs/rules.md).
    assert not restates_negated(
        "The law will save the community and the nation.",
        "The law redeems not the individual but the community or the nation as a whole.",
    )
    assert not restates_negated(
        "Among the heroes, the principled male scientist, the dynamic female animal behaviorist, or the "
        "stowaway children can take care of themselves.",
        "Among the heroes, we don't have to worry about the principled male scientist, the dynamic female "
        "animal behaviorist, or the stowaway children.",
    )
    assert not restates_negated(statement, "The tower is made of steel beams, not rivets.")
    assert not restates_negated(statement, "The tower is not, engineers say, made of steel.")


def test_a_restatement_with_another_number_is_a_refutation():
    statement = "Beekeeping in hives began in ancient Egypt about 2,000 years ago."
    page = "Beekeeping in man-made hives began in ancient Egypt more than 4,500 years ago."
    assert restates_another_number(statement, page, frozenset({"4500"}))
    # The statement's number elsewhere on the page: another time or thing, not a refutation.
    assert not restates_another_number(statement, page, frozenset({"4500", "2000"}))
    # Within 10 %: one approximate figure; a sentence only loosely about the claim; two numbers.
    assert not restates_another_number(statement, page.replace("4,500", "2,100"), frozenset({"2100"}))
    assert not restates_another_number(statement, "About 4,500 bees live in a hive.", frozenset({"4500"}))
    tower, later = "The tower was 300 metres tall in 1889.", "The tower was 330 metres tall in 1957."
    assert not restates_another_number(tower, later, frozenset({"330", "1957"}))


def test_the_rules_read_the_documents_sentences_not_a_resplit():
    # A full stop inside "U.S." ended the sentence for the old regex split, which then read
    # "Senate passed the bill in 2019." without its frame.
    statement = "The U.S. Senate passed the bill in 2019."
    page = "It is often said that the U.S. Senate passed the bill in 2019."
    assert [s.text for s in sentences(page)] == [page]
    assert "framed" in kinds(statement, page)


# --- issue 36 item 4: numbers and dates that disagree ---------------------------------------------

EGYPT = (
    "Beekeeping in man-made hives began in ancient Egypt at least 4,500 years ago, where reliefs in "
    "the sun temple of Nyuserre show workers smoking hives."
)


@pytest.mark.parametrize(
    ("claim", "sentence", "page", "found"),
    [
        (
            "Honeybees were first kept in hives in ancient Egypt about 2,000 years ago.",
            EGYPT,
            {"4500"},
            ("2,000", "4,500"),
        ),
        # a bound that the page's value keeps is no disagreement
        ("Bees were kept in hives in ancient Egypt more than 2,000 years ago.", EGYPT, {"4500"}, None),
        # the claim's own number elsewhere on the page: another time or thing, not a refutation
        (
            "Honeybees were first kept in hives in ancient Egypt about 2,000 years ago.",
            EGYPT,
            {"4500", "2000"},
            None,
        ),
        # within 10 %: one approximate figure
        (
            "The tower was 300 metres tall when it opened in 1889.",
            "When it opened in 1889 the tower was 312 metres tall.",
            {"312", "1889"},
            None,
        ),
        (
            "The tower was 300 metres tall when it opened in 1889.",
            "When it opened in 1889 the tower was 250 metres tall.",
            {"250", "1889"},
            ("300", "250"),
        ),
    ],
)
def test_another_value_for_the_same_quantity_is_found_with_both_values_as_written(
    claim, sentence, page, found
):
    read = [analyse(sentence, "en")]
    assert swapped_number(relations_for(claim, rule_book("en"), read), read, frozenset(page)) == found


@pytest.mark.parametrize(
    ("claim", "sentence", "framed"),
    [
        (
            "The Eiffel Tower is made of steel.",
            "It is often said that the Eiffel Tower is made of steel.",
            True,
        ),
        ("The Eiffel Tower is made of steel.", "The Eiffel Tower is made of steel.", False),
        # refuted, not framed: says_opposite's, not this
        (
            "The Eiffel Tower is made of steel.",
            "It is a myth that the Eiffel Tower is not made of steel.",
            False,
        ),
        # a statement that itself reports is supported by the report
        (
            "Critics claim that the Eiffel Tower is made of steel.",
            "It is often said that the Eiffel Tower is made of steel.",
            False,
        ),
    ],
)
def test_a_sentence_that_restates_the_claim_as_a_belief_is_framed(claim, sentence, framed):
    """Such a sentence is never quoted as the claim's support (judge.py, evidence.py)."""
    read = analyse(sentence, "en")
    assert restates_framed(relations_for(claim, rule_book("en"), [read]), read) is framed


@pytest.mark.parametrize(
    ("language", "claim", "sentence", "opposite"),
    [
        (
            "en",
            "The Eiffel Tower is made of steel.",
            "It is not: the Eiffel Tower is not made of steel.",
            True,
        ),
        (
            "en",
            "The Eiffel Tower is made of steel.",
            "The Eiffel Tower is made of steel, not of wood.",
            False,
        ),
        # A negation between the claim's words about something else is no refutation: on French
        # RTE pages the looser test vetoed true claims like this one.
        (
            "fr",
            "Le chanteur a eu un accident.",
            "Le chanteur, connu pour ses ballades, ne peut plus marcher depuis un accident de voiture.",
            False,
        ),
        ("fr", "Le pont est fermé.", "Le pont n'est pas fermé.", True),
    ],
)
def test_a_sentence_says_the_opposite_only_where_it_restates_the_claim_negated(
    language, claim, sentence, opposite
):
    read = analyse(sentence, language)
    assert says_opposite(relations_for(claim, rule_book(language), [read]), read, frozenset()) is opposite
