"""The judge with the shipped model on hand-made pages: the quoted evidence, a page that negates,
and a config whose combiner does not fit this code."""

from __future__ import annotations

import dataclasses

import pytest

from companion.errors import ModelUnavailable
from companion.judging.judge import Judge
from companion.model.folder import default_model_dir
from companion.model.infer import OnnxNLI, load_reader
from companion.records import Citation, SourceResult, Statement, StatementJudgment
from companion.sources.extract import document_from_passages

pytestmark = pytest.mark.slow  # the real model

URL = "https://example.org/bees"
PAGE = [  # the bundled example's colony page
    "A healthy colony in summer contains a single queen, a few hundred drones and tens of thousands of "
    "female workers.",
    "Workers raised in summer live for about five to six weeks, most of which they spend foraging once "
    "they are three weeks old.",
    "The queen is the only fertile female.",
    "She can lay up to 2,000 eggs a day in spring.",
    "Drones are male bees whose only task is to mate with a queen from another colony.",
]


@pytest.fixture(scope="module")
def judge() -> Judge:
    nli = OnnxNLI(default_model_dir())
    return Judge(nli, nli.config, reader=load_reader(nli.config))


def judged(judge: Judge, text: str, page: list[str] = PAGE) -> StatementJudgment:
    document, _ = document_from_passages(URL, "Bees", page)
    citation = Citation(id="c1", marker="1", url=URL, offset=len(text))
    statement = Statement(0, text, (0, len(text)), (citation,))
    return judge.judge(statement, {URL: SourceResult(URL, document, "")})


def quoted(judge: Judge, text: str) -> list[str]:
    return [e.text for cj in judged(judge, text).per_citation for e in cj.evidence]


def test_a_two_fact_statement_quotes_the_sentence_of_each_fact(judge):
    # The smallest set the model called entailing quoted only the eggs: the model is lenient.
    evidence = quoted(
        judge, "Worker bees live about six weeks in summer, and the queen can lay up to 2,000 eggs a day."
    )
    assert PAGE[1] in evidence and PAGE[3] in evidence
    assert PAGE[0] not in evidence and len(evidence) <= 3


def test_a_one_fact_statement_quotes_one_sentence(judge):
    assert quoted(judge, "Summer workers live for five to six weeks.") == [PAGE[1]]


def test_a_page_that_says_not_does_not_support_the_plain_claim(judge):
    # The page negates and the statement does not: every word matches, so only the model can tell.
    result = judged(
        judge, "Honeybees are native to North America.", ["Honeybees are not native to North America."]
    )
    assert result.judgment == "no_support"
    assert result.per_citation[0].contradiction >= judge.thresholds.contradiction


def test_a_combiner_fitted_to_other_features_is_refused_in_words(judge):
    stale = dataclasses.replace(judge.model, combiner_features=("max_entailment_logit", "max_contradiction"))
    with pytest.raises(ModelUnavailable, match=r"rerun scripts/calibrate\.py"):
        Judge(judge.nli, stale, reader=judge.cascade.reader if judge.cascade else None)


HISTORY = [  # the extension's Eiffel Tower history fixture, abridged
    "Construction began on 28 January 1887 and the tower was completed in March 1889.",
    "The tower was designed and built by the engineering company of Gustave Eiffel.",
    "When it opened, the tower was 300 metres tall.",
    "It remained the tallest man-made structure in the world until the Chrysler Building in New York "
    "was finished in 1930.",
]


def test_a_date_the_page_gives_in_another_sentence_is_not_a_contradiction(judge):
    # Read alone, the window about the height lacks "1889" and the model calls it a contradiction
    # (0.99); with the sentence that gives the date, it does not.
    text = "When it opened in 1889 it was 300 metres tall, and it remained the tallest structure until 1930."
    result = judged(judge, text, HISTORY)
    assert not result.contradicted and result.judgment != "no_support"
    # A date the page contradicts still is one.
    wrong = judged(judge, "The tower was 330 metres tall when it opened in 1889.", HISTORY)
    assert wrong.judgment == "no_support" and wrong.contradicted


def test_words_of_frequency_do_not_make_a_page_about_the_claim(judge):
    # "rare" and "seldom" were half the claim's words found on a page about snow, whose reading
    # as a contradiction (0.97) then flagged the claim as refuted.
    page = [
        "Paris has an oceanic climate with mild winters and warm summers.",
        "Snow is rare and seldom stays on the ground for more than a day.",
    ]
    result = judged(judge, "Paris is rarely windy, so the tower seldom sways.", page)
    assert not result.contradicted and result.judgment != "complete_support"


BRIDGE = [
    "The old bridge crosses the river at the town centre.",
    "The bridge is 300 metres long.",
    "It opened in 1902.",
]


def test_a_quantity_said_in_other_words_is_read_as_the_same_value(judge):
    """The model reads spellings: "three hundred metres" against "300 metres" was 0.97
    contradiction, and the statement was shown contradicted (docs/rules.md)."""
    words = judged(judge, "The bridge is three hundred metres long.", BRIDGE)
    assert (words.judgment, words.contradicted) == ("complete_support", False)
    # Another value is still read as one: 0.98 contradiction, a score of 0.15 against the complete
    # bar of 0.31 (which side of the partial bar, 0.15, is not pinned: it sits on it).
    other = judged(judge, "The bridge is four hundred metres long.", BRIDGE)
    assert other.judgment != "complete_support"
