"""Per language, an answer or a page in a language no model reads is "not checked", with its
reason naming the language in words (issue 39 item 6): never judged blind by the English model.
XNLI dev sentences as realistic text (../shared/data beside the clone in CI; a missing file fails);
the models are the shipped pair's languages (English; French and English) over a word double."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from companion.judging.judge import Judge
from companion.judging.judges import Judges
from companion.model.folder import LanguageFigure, ModelConfig
from companion.records import Citation, SourceResult
from companion.sources.extract import html_to_document
from companion.text.language import NAMES
from companion.text.segment import statements

from ..fakes import WordNLI, fake_model

MULTILINGUAL = Path(__file__).resolve().parents[4] / "shared" / "data" / "multilingual"
UNREAD = ("ar", "bg", "de", "el", "es", "hi", "ko", "ru", "sw", "th", "tr", "ur", "vi", "zh")
READS = "CiteLens reads English and French"
URL = "https://page.example/"


def _config(name: str, languages: tuple[str, ...]) -> ModelConfig:
    return dataclasses.replace(fake_model(), name=name, languages=languages)


def _judges() -> Judges:
    return Judges(
        [_config("english", ("en",)), _config("multilingual", ("fr", "en"))], lambda c: Judge(WordNLI(), c)
    )


def _row(language: str, index: int = 0) -> dict[str, str]:
    path = MULTILINGUAL / f"xnli_{language}_dev.jsonl.gz"
    assert path.exists(), f"{path} is missing: CI runs with ../shared beside the clone"
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for _, line in zip(range(index + 1), lines, strict=False)][index]


def _cited(answer: str) -> Citation:
    return Citation("c1", "1", URL, len(answer))


@pytest.mark.parametrize("language", UNREAD)
def test_an_answer_in_an_unread_language_is_not_checked_and_says_which(language):
    # Row 3: "He didn't say a word." in English; short, as a one-sentence answer is.
    answer = _row(language, 3)["hypothesis"]
    *_, statement = statements(answer, [_cited(answer)])
    assert statement.language == language
    judged = _judges().judge(statement, {})
    assert judged.judgment == "not_checked"
    [citation] = judged.per_citation
    assert citation.reason == f"the answer is in {NAMES[language]}; {READS}"


@pytest.mark.parametrize("language", UNREAD)
def test_an_english_claim_citing_only_a_page_in_an_unread_language_is_not_checked(language):
    page = html_to_document(
        URL, f"<html><body><p>{_row(language)['premise']}</p></body></html>", max_chars=10_000
    )
    assert page.language == language
    answer = _row("en")["premise"]
    [statement] = statements(answer, [_cited(answer)])
    assert statement.language == "en"
    judged = _judges().judge(statement, {URL: SourceResult(URL, page)})
    assert judged.judgment == "not_checked"
    assert judged.per_citation[0].reason == f"the page is in {NAMES[language]}; {READS}"


def test_an_answer_whose_latin_script_language_cannot_be_told_is_not_checked():
    answer = "Siipendi kampuni akonayo."  # Swahili ("I don't like his company"), too short to be sure
    [statement] = statements(answer, [_cited(answer)])
    assert statement.language == "und"
    judged = _judges().judge(statement, {})
    assert judged.judgment == "not_checked"
    assert judged.per_citation[0].reason == f"the answer is in an unidentified language; {READS}"


@pytest.mark.parametrize("language", ["en", "fr"])
def test_english_and_french_answers_are_still_judged(language):
    answer = _row(language, 3)["hypothesis"]
    [statement] = statements(answer, [_cited(answer)])
    assert statement.language == language
    assert _judges().judge(statement, {}).judgment != "not_checked"


def test_a_pair_read_well_across_is_not_read_where_the_page_language_is_not_checked():
    # Passed before it was written: kept, since the doctor once listed such pairs as judged.
    """Issue 59 item 4: a pair's figure reaching the floor (German pages with English claims,
    0.767 with a lower bound of 0.740) reads nothing where the model does not check the page's own
    language (German: a lower bound of 0.713): the page is not checked, and says so."""
    floor = 0.72
    measured = (
        ("en", LanguageFigure(0.76, floor, lower=0.73)),
        ("fr", LanguageFigure(0.75, floor, lower=0.725)),
        ("de", LanguageFigure(0.74, floor, lower=0.713)),
        ("de-en", LanguageFigure(0.767, floor, lower=0.740)),
        ("fr-en", LanguageFigure(0.763, floor, lower=0.736)),
    )
    multilingual = dataclasses.replace(_config("multilingual", ("fr", "en")), measured=measured)
    judges = Judges([_config("english", ("en",)), multilingual], lambda c: Judge(WordNLI(), c))
    answer = _row("en")["premise"]
    [statement] = statements(answer, [_cited(answer)])
    for language, read in (("de", False), ("fr", True)):
        page = html_to_document(
            URL, f"<html><body><p>{_row(language)['premise']}</p></body></html>", max_chars=10_000
        )
        judged = judges.judge(statement, {URL: SourceResult(URL, page)})
        assert (judged.judgment != "not_checked") == read, (language, judged.per_citation[0].reason)
    german = html_to_document(
        URL, f"<html><body><p>{_row('de')['premise']}</p></body></html>", max_chars=9_999
    )
    [citation] = judges.judge(statement, {URL: SourceResult(URL, german)}).per_citation
    assert citation.reason.startswith(f"the page is in German; {READS} (judged at 0.740 with a 95 % lower")
