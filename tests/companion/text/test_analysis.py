"""Each claim and each page is read once (issue 38): the claim's words when the statement is made,
a page's sentences once per Document and language; found elsewhere reads few pages whole."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from companion.config import Judging
from companion.judging.claim import analyse_statement
from companion.judging.judge import Judge
from companion.judging.rulebook import rule_book
from companion.model.folder import default_model_dir, load_config
from companion.records import Citation, Entailment, SourceResult, Statement
from companion.sources.extract import document_from_text
from companion.text import language
from companion.text.analysis import sentence_words
from companion.text.retrieve import index_page

from ..fakes import WordNLI

PAGE = (
    "The Eiffel Tower was completed in March 1889.\n"
    "It is 330 metres tall and made of wrought iron.\n"
    "Gustave Eiffel's company designed and built it.\n"
    "The tower is repainted every seven years."
)
CLAIM = "Gustave Eiffel's company built the tower in 1889."
BRIDGES = "Gustave Eiffel's company built bridges in 1889."


class ReadsBuilt:
    """A model that reads support wherever the premise says the company built it, and asks the
    lexicon nothing (WordNLI would ask it about every hypothesis)."""

    def score(self, pairs):  # type: ignore[no-untyped-def]
        return [
            Entailment(0.97, 0.02, 0.01) if "designed and built" in p else Entailment(0.05, 0.9, 0.05)
            for p, _ in pairs
        ]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """The texts the lexicon is asked about (terms, numbers, names), counted."""
    texts: Counter[str] = Counter()
    for name in ("terms", "numbers", "names"):
        original = getattr(language.Lexicon, name)

        def counted(self, text, _original=original):  # type: ignore[no-untyped-def]
            texts[text] += 1
            return _original(self, text)

        monkeypatch.setattr(language.Lexicon, name, counted)
    yield texts


def test_a_pages_sentences_are_analysed_once_and_kept_with_the_document(asked):
    document = index_page(document_from_text("https://example.org/tower", "", PAGE))
    first = asked[document.sentences[0].text]
    assert first == 3  # terms, numbers and names, once, when the page was read
    assert sentence_words(document, "en") is sentence_words(document, "en")
    assert asked[document.sentences[0].text] == first
    # A claim in another language reads the page in its own words, once too.
    assert sentence_words(document, "fr") is sentence_words(document, "fr")
    assert asked[document.sentences[0].text] == 2 * first


def test_no_stage_after_the_claims_analysis_asks_about_the_claim_again(asked):
    document = index_page(document_from_text("https://example.org/tower", "", PAGE))
    url = document.url
    statement = Statement(0, CLAIM, (0, len(CLAIM)), (Citation("c1", "1", url, len(CLAIM)),))
    analyse_statement(statement, rule_book("en"))
    made = asked[CLAIM]
    assert made > 0
    asked.clear()
    model = load_config(default_model_dir())
    # A cascade's reader (issue 37) reads as the fake does: the count is of the claim's analysis.
    judge = Judge(ReadsBuilt(), model, reader=ReadsBuilt() if model.cascade else None)
    result = judge.judge(statement, {url: SourceResult(url, document)})
    assert result.judgment == "complete_support"
    # Judging made the claim once more (its own analysis), and no stage after it asked again;
    # the page's sentences were analysed when the page was read.
    assert asked[CLAIM] == made
    assert all(asked[s.text] == 0 for s in document.sentences)


def test_found_elsewhere_reads_few_pages_and_never_depends_on_their_order():
    model = load_config(default_model_dir())
    judge = Judge(
        WordNLI(), model, judging=Judging(elsewhere_pages=2), reader=WordNLI() if model.cascade else None
    )
    own = index_page(document_from_text("https://own.example/", "", "The tower is repainted often."))
    others = {
        f"https://other{i}.example/": index_page(
            document_from_text(f"https://other{i}.example/", "", PAGE if i == 3 else BRIDGES)
        )
        for i in range(5)
    }
    statement = Statement(0, CLAIM, (0, len(CLAIM)), (Citation("c1", "1", own.url, len(CLAIM)),))
    found = []
    for order in (list(others), list(reversed(others))):
        sources = {own.url: SourceResult(own.url, own)} | {u: SourceResult(u, others[u]) for u in order}
        judge.nli = WordNLI()
        result = judge.elsewhere(judge.judge(statement, sources), sources, {})
        # Four pages are about the claim; two are read, the one that supports it first: the
        # others cost their best window only.
        assert [p for p, _ in judge.nli.pairs if "bridges" in p] == [BRIDGES]
        found.append([(f.url, f.judgment) for f in result.found_elsewhere])
    assert found[0] == found[1] == [("https://other3.example/", "complete_support")]
