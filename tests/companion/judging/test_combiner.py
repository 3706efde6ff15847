"""A claim read against a page in another language (issue 39): scored on the model's crossed scale,
its entailment alone, with no rule of meaning reading the page; a statement with pages on both
sides of the language line is decided on each side alone; a statement whose pages share its
language is judged exactly as before."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from companion.errors import ModelUnavailable
from companion.judging.combiner import FEATURES, crossed_combiner, overlap
from companion.judging.judge import Judge
from companion.judging.rulebook import Rule, rule_book
from companion.model.folder import Crossed, ModelConfig, default_model_dir, load_config
from companion.model.infer import OnnxNLI
from companion.records import Citation, Entailment, SourceResult, StatementJudgment
from companion.sources.extract import document_from_text
from companion.text.analysis import analyse
from companion.text.segment import statements
from research.data import multilingual_splits
from research.evaluation.language_figures import fit_crossed, write_crossed

from ..fakes import ScriptedNLI, fake_model

MULTILINGUAL = default_model_dir().parent / "citelens-e5-multilingual-nli"
EN, ES = "https://en.example/tower", "https://es.example/torre"
PAGES = {
    EN: ("en", "The Eiffel Tower was finished in 1889 in Paris."),
    ES: ("es", "La torre Eiffel se terminó en 1889 en París."),
}
CLAIM = "La torre Eiffel se terminó en 1889."
ENTAILS = Entailment(0.9, 0.08, 0.02)


def model(*, crossed: bool) -> ModelConfig:
    """A combiner that, like the shipped one, sinks a page holding few of the claim's words; and
    where `crossed`, a crossed scale that is the model's entailment itself (weight 1, bias 0)."""
    base = dataclasses.replace(
        fake_model(),
        languages=("es", "en"),
        combiner_weights=(1.0, 4.0, -3.0, -1.0),
        combiner_bias=-5.0,
        combiner_features=FEATURES,
    )
    if not crossed:
        return base
    bars = dataclasses.replace(base.thresholds, complete=0.6, partial=0.3, claim=0.6)
    return dataclasses.replace(base, crossed=Crossed(1.0, 0.0, bars))


def judged(config: ModelConfig, nli: ScriptedNLI, urls: list[str], claim: str = CLAIM, language: str = "es"):
    cited = [Citation(f"c{i}", str(i), url, len(claim)) for i, url in enumerate(urls, 1)]
    [statement] = statements(claim, cited)
    sources = {
        url: SourceResult(url, document_from_text(url, "", PAGES[url][1], declared_language=PAGES[url][0]))
        for url in urls
    }
    return Judge(nli, config, strict=False).judge(dataclasses.replace(statement, language=language), sources)


def by_url(result: StatementJudgment) -> dict:
    return {cj.citation.url: cj for cj in result.per_citation}


def test_a_page_in_another_language_is_scored_on_the_crossed_scale():
    nli = ScriptedNLI([("finished in 1889", CLAIM, ENTAILS)])
    crossed = judged(model(crossed=True), nli, [EN])
    # The crossed combiner reads the entailment alone: 0.9, over its 0.6.
    assert crossed.judgment == "complete_support" and crossed.probability == pytest.approx(0.9, abs=1e-3)
    assert by_url(crossed)[EN].probability == pytest.approx(0.9, abs=1e-3)
    # The same reading on the claim's own scale: the page holds few of the Spanish words, and the
    # lexical weights sink it, as they sank every crossed pair before issue 39.
    plain = judged(model(crossed=False), nli, [EN])
    assert plain.judgment != "complete_support" and plain.probability < 0.5


def test_a_statement_citing_pages_on_both_sides_is_decided_on_each_side_alone():
    # The Spanish page is about the claim and does not read as support; the English one does.
    nli = ScriptedNLI(
        [("finished in 1889", CLAIM, ENTAILS), ("se terminó", CLAIM, Entailment(0.1, 0.85, 0.05))]
    )
    result = judged(model(crossed=True), nli, [ES, EN])
    cited = by_url(result)
    assert cited[EN].judgment == "complete_support" and cited[EN].probability == pytest.approx(0.9, abs=1e-3)
    assert cited[ES].judgment != "complete_support"
    # The statement takes the English side's verdict, on its scale: its score is that side's, not
    # a combination of the English entailment with the Spanish page's words.
    assert result.judgment == "complete_support" and result.probability == pytest.approx(0.9, abs=1e-3)

    # A contradiction on one side counts on the other: the Spanish page says the opposite.
    contradicts = Entailment(0.01, 0.01, 0.98)
    nli = ScriptedNLI([("finished in 1889", CLAIM, ENTAILS), ("se terminó", CLAIM, contradicts)])
    result = judged(model(crossed=True), nli, [ES, EN])
    assert result.judgment == "no_support" and result.contradicted
    assert "model.contradiction" in result.reasons


def test_no_rule_reads_a_page_in_another_language():
    # A rule that hedges a claim saying "all" against a page that does not: across languages the
    # page never holds the English word, so it would hedge every crossed page.
    english = rule_book("en")
    universal = dataclasses.replace(
        english, rules=(*english.rules, Rule("en.scope", "scope_universal", "hedge"))
    )
    claim = "All of the tower was finished in 1889."
    PAGES["https://fr.example/tour"] = ("fr", "Toute la tour a été achevée en 1889.")
    PAGES["https://en.example/part"] = ("en", "The tower was finished in 1889.")
    try:
        nli = ScriptedNLI([("achevée", claim, ENTAILS), ("The tower was finished", claim, ENTAILS)])
        config = dataclasses.replace(model(crossed=True), languages=("en", "fr"))

        def judge(url: str) -> StatementJudgment:
            cited = [Citation("c1", "1", url, len(claim))]
            [statement] = statements(claim, cited)
            document = document_from_text(url, "", PAGES[url][1], declared_language=PAGES[url][0])
            judge = Judge(nli, config, strict=False, rules=lambda language: universal)
            return judge.judge(
                dataclasses.replace(statement, language="en"), {url: SourceResult(url, document)}
            )

        # In the claim's language the rule reads the page, and hedges;
        assert "rule:en.scope" in judge("https://en.example/part").reasons
        # across languages it does not, and the model's reading decides.
        crossed = judge("https://fr.example/tour")
        assert "rule:en.scope" not in crossed.reasons and crossed.judgment == "complete_support"
    finally:
        del PAGES["https://fr.example/tour"], PAGES["https://en.example/part"]


def test_a_statement_whose_pages_share_its_language_is_judged_as_before():
    nli = ScriptedNLI([("se terminó", CLAIM, ENTAILS)])
    assert judged(model(crossed=True), nli, [ES]) == judged(model(crossed=False), nli, [ES])


def test_the_shipped_model_scores_a_page_in_another_language_on_its_crossed_scale():
    nli = OnnxNLI(MULTILINGUAL)
    judge = Judge(nli, nli.config)
    crossed = crossed_combiner(nli.config, judge.retrieval, judge.judging)
    assert crossed is not None
    url = "https://en.example/tower"
    page = (
        "The Eiffel Tower was built between 1887 and 1889 as the entrance to the 1889 World's Fair in "
        "Paris. It is 330 metres tall and made of puddled iron."
    )
    claim = "La Torre Eiffel se construyó entre 1887 y 1889 para la Exposición Universal."
    [statement] = statements(claim, [Citation("c1", "1", url, len(claim))])
    document = document_from_text(url, "", page, declared_language="en")
    result = judge.judge(dataclasses.replace(statement, language="es"), {url: SourceResult(url, document)})
    # The statement's probability is the crossed combiner's reading of its features, not the one
    # the lexical weights give them.
    assert result.probability == pytest.approx(crossed.score(result.features), abs=1e-3)
    assert abs(result.probability - judge.combiner.score(result.features)) > 0.05
    assert result.judgment == "complete_support"


def _with_crossed(tmp_path: Path, crossed: object) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(MULTILINGUAL, folder)
    config = json.loads((folder / "config.json").read_text())
    config["crossed"] = crossed
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_the_crossed_block_loads_and_a_malformed_one_is_refused_in_words(tmp_path: Path):
    block = {
        "combiner": {"features": ["max_entailment_logit"], "weights": [1.5], "bias": 1.0},
        "thresholds": {"complete": 0.3, "partial": 0.17, "claim": 0.23, "contradiction": 0.1},
    }
    loaded = load_config(_with_crossed(tmp_path, block))
    assert loaded.crossed is not None and loaded.crossed.weight == 1.5 and loaded.crossed.bias == 1.0
    assert loaded.crossed.thresholds.complete == 0.3 and loaded.crossed.thresholds.claim == 0.23
    # Only the bars on the combined score move: the contradiction bar stays the model's.
    assert loaded.crossed.thresholds.contradiction == loaded.thresholds.contradiction
    shutil.rmtree(tmp_path / "model")
    block["combiner"] = {"features": ["max_entailment_logit", "coverage"], "weights": [1.5, 2.0], "bias": 1.0}
    with pytest.raises(ModelUnavailable, match="crossed needs a combiner over max_entailment_logit alone"):
        load_config(_with_crossed(tmp_path, block))


def test_the_crossed_reading_is_fitted_on_the_crossed_calibration_parts(tmp_path: Path):
    splits = tmp_path / "splits"
    multilingual_splits.main(["--out", str(splits)])
    folder = _with_crossed(tmp_path, None)
    fitted = fit_crossed(folder, ["en-es", "es-en"], 40, splits)
    assert set(fitted["calib_figures"]) == {"en-es", "es-en"}
    assert "calib" in fitted["data"] and "held" not in fitted["data"]
    write_crossed(folder, fitted)
    crossed = load_config(folder).crossed
    assert crossed is not None and crossed.weight > 0  # more entailment, more support
    assert crossed.thresholds.complete == fitted["thresholds"]["complete"]
    # Far better than chance (a bar above every score would judge nothing complete: 0.5).
    assert sum(fitted["calib_figures"].values()) / 2 > 0.6


def test_overlap_flags_missing_numbers_and_names():
    page = analyse("Karl von Frisch decoded the dance. He received the Nobel Prize in 1973.", "en")
    claim = analyse("Karl von Frisch won the Nobel Prize in 1975 with Konrad Lorenz.", "en")
    o = overlap(claim, page.term_set, page.numbers, [page.lowered])
    assert o.missing_numbers == 1.0
    assert 0 < o.missing_names < 1  # Karl, Frisch and Nobel found; Konrad and Lorenz not
    assert o.coverage < 1.0  # "won" and "Konrad" are not on the page
