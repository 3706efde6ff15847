"""The judge (judge.py): its rules without the model (the features version, found elsewhere, with
the deterministic backend of fakes.py), then with the shipped model on hand-made pages."""

from __future__ import annotations

import dataclasses

import pytest

from companion.config import Judging, Retrieval
from companion.errors import ModelUnavailable
from companion.judging.combiner import Combiner, features_version
from companion.judging.judge import Judge
from companion.judging.rulebook import Rule, rule_book
from companion.model.folder import Thresholds, default_model_dir
from companion.model.infer import OnnxNLI, load_reader
from companion.records import (
    Citation,
    Document,
    Entailment,
    Sentence,
    SourceResult,
    Statement,
    StatementJudgment,
)
from companion.sources.extract import document_from_passages

from ..fakes import BEES, SUN, ScriptedNLI, WordNLI, fake_model
from ..fakes import WORD_PAGES as PAGES

T = Thresholds(complete=0.5, partial=0.25, claim=0.5, contradiction=0.9)


def test_a_combiner_fitted_to_another_features_version_is_refused_in_words():
    version = features_version(Retrieval(), Judging())
    fitted = dataclasses.replace(
        fake_model(),
        combiner_weights=(1.0, 1.0, 1.0, 1.0),
        combiner_features=("max_entailment_logit", "coverage", "missing_numbers", "missing_names"),
        features_version=version,
    )
    Combiner(fitted, Retrieval(), Judging())  # the settings it was fitted with: accepted
    assert features_version(Retrieval(joined_sentences=2), Judging()) != version
    with pytest.raises(ModelUnavailable, match=r"features version .*rerun scripts/calibrate\.py"):
        Combiner(fitted, Retrieval(joined_sentences=2), Judging())
    with pytest.raises(ModelUnavailable, match=r"features version"):
        Combiner(fitted, Retrieval(), Judging(on_topic=0.5))


# --- the judge with the word backend --------------------------------------------------------------



def sources() -> dict[str, SourceResult]:
    return {u: SourceResult(u, document_from_passages(u, "t", p)[0]) for u, p in PAGES.items()}


def statement(text: str, *urls: str, index: int = 0) -> Statement:
    cites = tuple(Citation(f"c{i}", str(i + 1), u, len(text)) for i, u in enumerate(urls))
    return Statement(index, text, (0, len(text)), cites)


def cited_by() -> dict[str, Citation]:
    return {u: Citation(f"a{i}", str(i + 1), u, 0) for i, u in enumerate(PAGES)}


@pytest.fixture
def judge() -> Judge:
    return Judge(WordNLI(), fake_model())


def test_a_fact_the_source_lacks_is_named_and_the_claims_agree_with_the_verdict(judge):
    result = judge.judge(statement("A colony has a single queen, and drones make honey.", BEES), sources())
    assert result.judgment == "partial_support"
    assert result.unsupported_assertions == ("Drones make honey.",)
    assert [c.supported for c in result.claims] == [True, False]
    assert result.per_citation[0].unsupported == ("Drones make honey.",)


def test_a_statement_cited_to_the_wrong_source_is_found_in_the_right_one(judge):
    all_sources = sources()
    result = judge.judge(statement("Tomatoes need six hours of direct sun a day.", BEES), all_sources)
    assert result.judgment != "complete_support"
    found = judge.elsewhere(result, all_sources, cited_by()).found_elsewhere
    assert [(f.url, f.judgment, f.citation.id if f.citation else None) for f in found] == [
        (SUN, "complete_support", "a1")
    ]
    assert found[0].evidence[0].text == PAGES[SUN][0]


def test_an_uncited_source_is_offered_only_where_the_model_reads_support(judge):
    all_sources = sources()
    result = judge.judge(statement("Tomatoes need six hours of direct sun a day.", BEES), all_sources)
    assert judge.elsewhere(result, all_sources, cited_by()).found_elsewhere
    # The same page, with a bar the model's reading cannot reach: words alone find nothing.
    model = fake_model()
    bar = dataclasses.replace(model.thresholds, elsewhere_entailment=1.01)
    model = dataclasses.replace(model, thresholds=bar)
    strict = Judge(WordNLI(), model)
    assert strict.elsewhere(result, all_sources, cited_by()).found_elsewhere == ()


def test_a_statement_citing_nothing_is_found_where_a_source_supports_it(judge):
    result = judge.judge(statement("The queen lays up to 2,000 eggs a day."), sources())
    assert result.judgment == "no_citation"
    assert [f.url for f in judge.elsewhere(result, sources(), cited_by()).found_elsewhere] == [BEES]


def test_nothing_is_found_for_a_claim_a_source_refutes_or_no_source_makes(judge):
    for text in ("Bees are deaf to sound.", "Bees dance to show where water is."):
        result = judge.judge(statement(text, SUN), sources())
        assert judge.elsewhere(result, sources(), cited_by()).found_elsewhere == (), text


def test_sources_off_topic_cost_no_model_call(judge):
    result = judge.judge(statement("Penguins live in Antarctica.", SUN), sources())
    nli = judge.nli
    assert isinstance(nli, WordNLI)
    before = len(nli.pairs)
    assert judge.elsewhere(result, sources(), cited_by()).found_elsewhere == ()
    assert len(nli.pairs) == before


def test_a_fully_supported_statement_is_not_looked_for_elsewhere(judge):
    result = judge.judge(statement("A colony has a single queen.", BEES), sources())
    assert result.judgment == "complete_support"
    assert judge.elsewhere(result, sources(), cited_by()) is result


def test_a_quote_from_a_pdf_opens_the_document_at_its_page(judge):
    text = "Annual report 2024. Revenue rose 12 percent to 4.1 billion euros."
    sentences = (Sentence("Annual report 2024.", 0, 19, 1), Sentence(text[20:], 20, len(text), 3))
    url = "https://reports.example/annual.pdf"
    pdf = {url: SourceResult(url, Document(url, "Annual report", text, sentences))}
    result = judge.judge(statement("Revenue rose 12 percent to 4.1 billion euros.", url), pdf)
    assert result.judgment == "complete_support"
    (quote,) = result.per_citation[0].evidence
    assert (quote.page, quote.fragment_url) == (3, f"{url}#page=3")


def test_an_experiment_may_vary_the_settings_on_purpose():
    fitted = dataclasses.replace(
        fake_model(),
        combiner_weights=(1.0, 1.0, 1.0, 1.0),
        combiner_features=("max_entailment_logit", "coverage", "missing_numbers", "missing_names"),
        features_version=features_version(Retrieval(), Judging()),
    )
    Judge(WordNLI(), fitted, Retrieval(candidates=3), strict=False)  # evaluate.py --candidates 3
    with pytest.raises(ModelUnavailable):
        Judge(WordNLI(), fitted, Retrieval(candidates=3))


def test_the_negation_rule_refutes_where_the_model_reads_a_contradiction():
    # The extension's Eiffel Tower fixture. The real models read both claims against the negating
    # window at 0.71-0.75 contradiction, on the 0.7 bar of the negation rule (issue 24): a verdict
    # there depends on the model's last digits, so the readings are set here, well clear of the
    # bar on each side (0.85 above it for steel, 0.40 below it for wrought iron; the model's own
    # bar, 0.9, is out of reach of both, so the negation rule alone decides). Only the rule is on
    # here: the other rules of the English file would hedge the plain claim.
    page = [
        "Many visitors assume that such a tall tower must be made of steel.",
        "It is not: the Eiffel Tower is not made of steel.",
        "The tower was built entirely of puddled iron, a kind of wrought iron, because steel was "
        "still expensive and less proven in 1887.",
    ]
    steel, iron = "The Eiffel Tower is made of steel.", "The tower is made of wrought iron."
    nli = ScriptedNLI(
        [
            ("is not made of steel", steel, Entailment(0.05, 0.10, 0.85)),
            ("puddled iron", iron, Entailment(0.95, 0.04, 0.01)),
            ("is not made of steel", iron, Entailment(0.10, 0.50, 0.40)),
        ]
    )
    negation = Rule("en.negates", "negates", "contradict_with_model")
    with_rule = dataclasses.replace(rule_book("en"), rules=(negation,))
    judge = Judge(nli, fake_model(), rules=lambda language: with_rule)
    document, _ = document_from_passages("https://example.org/eiffel", "Eiffel", page)

    def judged(text: str, judge: Judge = judge) -> StatementJudgment:
        citation = Citation(id="c1", marker="1", url=document.url, offset=len(text))
        statement = Statement(0, text, (0, len(text)), (citation,))
        return judge.judge(statement, {document.url: SourceResult(document.url, document, "")})

    refuted = judged(steel)
    assert refuted.judgment == "no_support" and refuted.contradicted
    assert "rule:en.negates" in refuted.reasons
    assert [e.text for e in refuted.per_citation[0].evidence] == [page[1]]
    # Without it, and without en.restates_negated, the model's 0.85 stays under its bar; the
    # sentence still holds every word of the claim with "not" on them, which refutes it in any
    # language, whichever rules its file ships (issue 58 item 2).
    without = rule_book("en").without(["en.negates", "en.restates_negated"])
    unruled = judged(steel, Judge(nli, fake_model(), rules=lambda language: without))
    assert unruled.contradicted and "rule:en.negates" not in unruled.reasons
    assert "wording.says_otherwise" in unruled.reasons
    # The shipped book refutes it in its own words, whatever the model reads.
    shipped = judged(steel, Judge(nli, fake_model(), rules=lambda language: rule_book("en")))
    assert shipped.contradicted and shipped.reasons[0] == "rule:en.restates_negated", shipped.reasons
    # Below the bar the negation rule does not fire. (meaning.py still hedges this true claim to
    # partial support, for the negation in the sentence beside it: the judging core's issue 26.)
    supported = judged(iron)
    assert supported.judgment != "no_support" and not supported.contradicted, supported


# --- issue 36: the myth page never green, its quote never the sentence that says otherwise ---------

MYTH_PAGE = [
    "Many visitors assume that such a tall tower must be made of steel.",
    "It is not: the Eiffel Tower is not made of steel.",
    "The tower was built entirely of puddled iron, a kind of wrought iron, because steel was "
    "still expensive and less proven in 1887.",
]
STEEL = "The Eiffel Tower is made of steel."


def _judge_myth(nli: ScriptedNLI, thresholds: Thresholds) -> StatementJudgment:
    no_rules = dataclasses.replace(rule_book("en"), rules=())
    judge = Judge(nli, dataclasses.replace(fake_model(), thresholds=thresholds), rules=lambda _: no_rules)
    document, _ = document_from_passages("https://example.org/eiffel", "Eiffel", MYTH_PAGE)
    citation = Citation(id="c1", marker="1", url=document.url, offset=len(STEEL))
    statement = Statement(0, STEEL, (0, len(STEEL)), (citation,))
    return judge.judge(statement, {document.url: SourceResult(document.url, document, "")})


def test_a_window_read_as_the_opposite_keeps_the_myth_page_from_green_and_is_shown_as_such():
    # The real model's readings, set well clear of the bars: it reads the puddled-iron sentence as
    # entailing "made of steel" (0.96) and the refutation as a contradiction at 0.71-0.75, under
    # the 0.9 contradiction bar: that was a green badge quoting the refutation.
    nli = ScriptedNLI(
        [
            ("puddled iron", STEEL, Entailment(0.96, 0.03, 0.01)),
            ("is not made of steel", STEEL, Entailment(0.20, 0.05, 0.75)),
        ]
    )
    # The refutation holds every word of the claim with "not" on them: it contradicts the claim
    # (issue 58 item 2), and is the quote of what says otherwise, never of support.
    for conflict in (0.6, 1.01):
        result = _judge_myth(nli, dataclasses.replace(T, conflict=conflict))
        assert result.judgment == "no_support" and result.contradicted
        assert result.reasons[0] == "wording.says_otherwise"
        assert [e.text for e in result.per_citation[0].evidence] == [MYTH_PAGE[1]]
        assert result.evidence == ()


def test_a_sentence_that_restates_the_claim_negated_is_never_its_quote_whatever_the_model_reads():
    # The model reads the refutation as support here; the sentence's own words say otherwise.
    nli = ScriptedNLI([("is not made of steel", STEEL, Entailment(0.90, 0.05, 0.05))])
    result = _judge_myth(nli, T)
    assert result.judgment == "no_support" and result.contradicted
    assert "wording.says_otherwise" in result.reasons
    # Shown as what says otherwise, never as support.
    assert result.evidence == ()
    assert [e.text for e in result.per_citation[0].evidence] == [MYTH_PAGE[1]]


def test_the_sentence_shown_as_saying_otherwise_is_never_also_shown_as_support():
    # The model reads the two-sentence window as the opposite and the puddled-iron sentence alone
    # as support: the says-otherwise quote is the refutation, never the supporting sentence.
    nli = ScriptedNLI(
        [
            ("less proven in 1887", STEEL, Entailment(0.96, 0.03, 0.01)),
            ("not made of steel. The tower was built", STEEL, Entailment(0.05, 0.05, 0.90)),
            ("is not made of steel", STEEL, Entailment(0.10, 0.10, 0.80)),
        ]
    )
    result = _judge_myth(nli, dataclasses.replace(T, conflict=0.6))
    for cited in result.per_citation:
        shown = {e.text for e in cited.evidence}
        assert shown.isdisjoint(e.text for e in cited.says_otherwise), cited


# The judge with the shipped model on hand-made pages: the quoted evidence, a page that negates,
# and a config whose combiner does not fit this code.


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
def real_judge() -> Judge:
    nli = OnnxNLI(default_model_dir())
    return Judge(nli, nli.config, reader=load_reader(nli.config))


def judged(real_judge: Judge, text: str, page: list[str] = PAGE) -> StatementJudgment:
    document, _ = document_from_passages(URL, "Bees", page)
    citation = Citation(id="c1", marker="1", url=URL, offset=len(text))
    statement = Statement(0, text, (0, len(text)), (citation,))
    return real_judge.judge(statement, {URL: SourceResult(URL, document, "")})


def quoted(real_judge: Judge, text: str) -> list[str]:
    return [e.text for cj in judged(real_judge, text).per_citation for e in cj.evidence]


@pytest.mark.slow
def test_a_two_fact_statement_quotes_the_sentence_of_each_fact(real_judge):
    # The smallest set the model called entailing quoted only the eggs: the model is lenient.
    evidence = quoted(
        real_judge,
        "Worker bees live about six weeks in summer, and the queen can lay up to 2,000 eggs a day.",
    )
    assert PAGE[1] in evidence and PAGE[3] in evidence
    assert PAGE[0] not in evidence and len(evidence) <= 3


@pytest.mark.slow
def test_a_one_fact_statement_quotes_one_sentence(real_judge):
    assert quoted(real_judge, "Summer workers live for five to six weeks.") == [PAGE[1]]


@pytest.mark.slow
def test_a_page_that_says_not_does_not_support_the_plain_claim(real_judge):
    # The page negates and the statement does not: every word matches, so only the model can tell.
    result = judged(
        real_judge, "Honeybees are native to North America.", ["Honeybees are not native to North America."]
    )
    assert result.judgment == "no_support"
    assert result.per_citation[0].contradiction >= real_judge.thresholds.contradiction


@pytest.mark.slow
def test_a_combiner_fitted_to_other_features_is_refused_in_words(real_judge):
    stale = dataclasses.replace(
        real_judge.model, combiner_features=("max_entailment_logit", "max_contradiction")
    )
    with pytest.raises(ModelUnavailable, match=r"rerun scripts/calibrate\.py"):
        Judge(real_judge.nli, stale, reader=real_judge.cascade.reader if real_judge.cascade else None)


HISTORY = [  # the extension's Eiffel Tower history fixture, abridged
    "Construction began on 28 January 1887 and the tower was completed in March 1889.",
    "The tower was designed and built by the engineering company of Gustave Eiffel.",
    "When it opened, the tower was 300 metres tall.",
    "It remained the tallest man-made structure in the world until the Chrysler Building in New York "
    "was finished in 1930.",
]


@pytest.mark.slow
def test_a_date_the_page_gives_in_another_sentence_is_not_a_contradiction(real_judge):
    # Read alone, the window about the height lacks "1889" and the model calls it a contradiction
    # (0.99); with the sentence that gives the date, it does not.
    text = "When it opened in 1889 it was 300 metres tall, and it remained the tallest structure until 1930."
    result = judged(real_judge, text, HISTORY)
    assert not result.contradicted and result.judgment != "no_support"
    # A date the page contradicts still is one.
    wrong = judged(real_judge, "The tower was 330 metres tall when it opened in 1889.", HISTORY)
    assert wrong.judgment == "no_support" and wrong.contradicted


@pytest.mark.slow
def test_words_of_frequency_do_not_make_a_page_about_the_claim(real_judge):
    # "rare" and "seldom" were half the claim's words found on a page about snow, whose reading
    # as a contradiction (0.97) then flagged the claim as refuted.
    page = [
        "Paris has an oceanic climate with mild winters and warm summers.",
        "Snow is rare and seldom stays on the ground for more than a day.",
    ]
    result = judged(real_judge, "Paris is rarely windy, so the tower seldom sways.", page)
    assert not result.contradicted and result.judgment != "complete_support"


BRIDGE = [
    "The old bridge crosses the river at the town centre.",
    "The bridge is 300 metres long.",
    "It opened in 1902.",
]


@pytest.mark.slow
def test_a_quantity_said_in_other_words_is_read_as_the_same_value(real_judge):
    """The model reads spellings: "three hundred metres" against "300 metres" was 0.97
    contradiction, and the statement was shown contradicted (docs/rules.md)."""
    words = judged(real_judge, "The bridge is three hundred metres long.", BRIDGE)
    assert (words.judgment, words.contradicted) == ("complete_support", False)
    # Another value is still read as one: 0.98 contradiction, a score of 0.15 against the complete
    # bar of 0.31 (which side of the partial bar, 0.15, is not pinned: it sits on it).
    other = judged(real_judge, "The bridge is four hundred metres long.", BRIDGE)
    assert other.judgment != "complete_support"
