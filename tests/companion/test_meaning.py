"""The meaning checks (issue 10): a source that mentions a claim without asserting it, or says the
opposite, is caught; one that asserts it plainly, in other words, is not."""

from __future__ import annotations

import pytest

from companion.meaning import Reading, negates, read_meaning


@pytest.mark.parametrize(
    ("statement", "source", "expected"),
    [
        ("Cracking your knuckles causes arthritis.",
         "Cracking your knuckles is often said to cause arthritis.", Reading(hedged="framed")),
        ("The mayor accepted bribes from a builder.",
         "Prosecutors accused the mayor of accepting bribes from a builder.", Reading(hedged="framed")),
        ("The charge drove shoppers away.",
         "Opponents warned that the charge would drive shoppers away.", Reading(hedged="framed")),
        ("All 60 patients recovered.", "Of the 60 patients, 31 recovered.", Reading(hedged="scope")),
        ("The bridge is made entirely of steel.",
         "Its towers are steel and its deck is concrete.", Reading(hedged="scope")),
        ("Revenue rose 12 percent in 2023.", "Revenue fell 12 percent in 2023.", Reading(opposite="fell")),
        ("Revenue rose in 2023.", "Revenue declined in 2023.", Reading(opposite="declined")),
        ("Swallows hibernate in mud.", "Folklore held that swallows hibernate in mud.",
         Reading(hedged="framed")),
        ("The country exported 2.3 million tonnes of wheat.",
         "The country imported 2.3 million tonnes of wheat.", Reading(opposite="imported")),
    ],
)
def test_what_the_source_does_not_assert_is_caught(statement, source, expected):
    assert read_meaning(statement, source) == expected
    assert not expected.asserts


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        ("Goldfish remember things for months.",
         "A widely repeated claim holds that goldfish forget in three seconds. In fact, goldfish "
         "recalled feeding cues after several months."),
        ("Revenue rose 12 percent in 2023.", "In 2023 revenue rose by 12 percent, and costs fell."),
        ("All 40 patients recovered.", "Every one of the 40 patients recovered within a week."),
        ("Honeybees make honey from flower nectar.", "Bees turn the nectar of flowers into honey."),
    ],
)
def test_a_source_that_asserts_the_statement_passes(statement, source):
    assert read_meaning(statement, source).asserts


def test_each_other_is_not_a_universal_claim():
    statement = "Honeybees tell each other where to find food with the waggle dance."
    assert read_meaning(statement, "The waggle dance tells the other bees where the food is.").asserts


def test_a_negating_sentence_is_told_from_a_plain_one():
    statement = "The Eiffel Tower is made of steel."
    assert negates(statement, "Many assume it is steel. It is not: the Eiffel Tower is not made of steel.")
    assert not negates(statement, "The Eiffel Tower is made of steel girders. It is not small.")
    assert not negates("The tower is not made of steel.", "The tower is not made of steel.")
    assert negates("The plant makes cars.", "The plant ceased to make cars in 2019.")
