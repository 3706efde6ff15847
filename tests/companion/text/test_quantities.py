"""Quantities said in other words (text/quantities.py): the claim is read with the premise's
spelling of a value both give, and a value the premise gives otherwise is left as written."""

from __future__ import annotations

import pytest

from companion.text.quantities import respell_quantities


@pytest.mark.parametrize(
    ("premise", "claim", "read"),
    [
        (
            "The bridge is 300 metres long.",
            "The bridge is three hundred metres long.",
            "The bridge is 300 metres long.",
        ),
        ("It owns a dozen paintings.", "It owns 12 paintings.", "It owns a dozen paintings."),
        ("It has one school.", "It has a single school.", "It has one school."),
        (
            "The city has 1,200,000 people.",
            "The city has 1.2 million people.",
            "The city has 1,200,000 people.",
        ),
        (
            "It has three hundred and fifty seats.",
            "It has 350 seats.",
            "It has three hundred and fifty seats.",
        ),
        # A claim that opens with the quantity keeps its capital, and the premise's goes.
        ("Twenty-five thousand fans came.", "25,000 fans came.", "Twenty-five thousand fans came."),
        ("The hall seats 300 people.", "Three hundred people fit.", "300 people fit."),
        ("A dozen boats sank.", "The storm sank 12 boats.", "The storm sank a dozen boats."),
        # Two quantities, each respelled.
        (
            "Two bridges and 40 towers stand.",
            "2 bridges and forty towers stand.",
            "Two bridges and 40 towers stand.",
        ),
    ],
)
def test_a_value_both_give_is_read_as_the_premise_spells_it(premise, claim, read):
    assert respell_quantities(premise, claim) == read


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        # Another value: the swapped number is what the model must see.
        ("The bridge is 300 metres long.", "The bridge is four hundred metres long."),
        ("It owns a dozen paintings.", "It owns 13 paintings."),
        # The same value before another word: not known to be the same quantity.
        ("The bridge is 300 metres long.", "The bridge is three hundred feet long."),
        ("It was built by 300 workers.", "It is three hundred metres long."),
        # Spelled the same already, or no quantity at all.
        ("The tower is 324 metres tall.", "The tower is 324 metres tall."),
        ("The tower is tall.", "The tower is very tall."),
        # Words that are not quantities.
        ("One of the founders left in 1990.", "Someone left the company."),
        ("Tens of thousands of workers.", "Thousands of workers."),
    ],
)
def test_a_value_the_premise_does_not_give_alike_is_left_as_written(premise, claim):
    assert respell_quantities(premise, claim) == claim
