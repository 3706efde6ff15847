"""What the model reads of each source (reading.py). The cascade (issue 37): the fast model reads
every window, a stronger reader re-reads only those that decide, and the verdict is the reader's
wherever it has read."""

from __future__ import annotations

import dataclasses
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from companion.config import Judging, Retrieval
from companion.errors import ModelUnavailable
from companion.judging.claim import claim_language
from companion.judging.judge import Judge
from companion.judging.judges import model_dirs
from companion.judging.reading import CascadeReader, Opposed, SourceWindows, given_elsewhere, read_sources
from companion.model.folder import Cascade, default_model_dir, load_config
from companion.records import Citation, Entailment, SourceResult, Window
from companion.runtime import build_judge
from companion.sources.extract import document_from_text
from companion.text.analysis import analyse, sentence_words
from companion.text.segment import statements

from ..fakes import ScriptedNLI, WordNLI, fake_model

PAGE = (
    "The Eiffel Tower stands on the Champ de Mars in Paris.\n"
    "Gustave Eiffel's company designed and built the tower for the 1889 World's Fair.\n"
    "The tower is made of wrought iron, not of steel.\n"
    "Its wrought iron is repainted every seven years to protect it from rust.\n"
    "Visitors climb the tower by stairs or by lift.\n"
    "The tower is made of puddled iron from Pompey in Lorraine."
)
CLAIM = "The tower is made of steel."


def read(reread: CascadeReader | None, fast: WordNLI) -> dict:
    document = document_from_text("https://example.org/eiffel", "", PAGE)
    return read_sources(
        fast,
        analyse(CLAIM, "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
        reread=reread,
    )


def test_the_reader_reads_only_what_decides_and_adds_its_reading_of_the_opposite():
    fast = ScriptedNLI([("wrought iron, not of steel", CLAIM, Entailment(0.02, 0.28, 0.7))])
    alone = read(None, WordNLI())["https://example.org/eiffel"]
    reader = ScriptedNLI([("wrought iron, not of steel", CLAIM, Entailment(0.01, 0.01, 0.98))])
    reading = read(CascadeReader(reader, windows=1, contradiction=0.5), fast)["https://example.org/eiffel"]

    # The reader read the text the fast model found most entailing and the window it reads as the
    # opposite: two of the pairs the fast model read (every window and the joined top sentences).
    assert len(fast.pairs) == len(alone.windows) + 1
    assert len(reader.pairs) == 2
    assert {p for p, _ in reader.pairs} <= {p for p, _ in fast.pairs}
    # Every window stays for the quote and the rules, with the fast model's reading but for the
    # most entailing text, which is the reader's alone. The reader's reading of the window the fast
    # model reads as the opposite is added beside the fast model's 0.7, not in its place: the reader
    # may find a contradiction, never clear one.
    assert reading.windows == alone.windows
    negated = next(i for i, w in enumerate(reading.windows) if "not of steel" in w.text)
    assert reading.window_scores[negated] == Entailment(0.02, 0.28, 0.7)
    assert reading.opposed == (Opposed(negated, Entailment(0.01, 0.01, 0.98), 0.98),)
    read_by_reader = {p for p, _ in reader.pairs}
    best = [w.text for w in reading.windows if w.text in read_by_reader and "not of steel" not in w.text]
    for window, score in zip(reading.windows, reading.window_scores, strict=True):
        if window.text not in best:
            assert score == fast.score([(window.text, CLAIM)])[0]
    # The best reading is the reader's, never a window only the fast model read.
    assert reading.best_reading in reader.score(list(reader.pairs))


def test_the_readers_opposite_turns_a_verdict_red_and_cannot_turn_one_green():
    """Both models' readings of the opposite count, each at its own bars: the fast model's at
    0.94 (fast_contradiction), the reader's at 0.67, as 0.4.0's config sets them."""
    url = "https://example.org/eiffel"
    document = document_from_text(url, "Eiffel Tower", PAGE, declared_language="en")
    [statement] = statements(CLAIM, [Citation("c1", "1", url, len(CLAIM))])
    model = fake_model()
    bars = dataclasses.replace(
        model.thresholds, contradiction=0.67, conflict=0.5, fast_contradiction=0.94, fast_conflict=0.5
    )
    config = dataclasses.replace(
        model, thresholds=bars, cascade=Cascade(model, windows=1, contradiction=0.5, against=1)
    )
    negated = ("wrought iron, not of steel", CLAIM)

    def verdict(fast_reads: float, reader_reads: float) -> tuple[str, bool]:
        fast = ScriptedNLI([(*negated, Entailment(0.02, 0.98 - fast_reads, fast_reads))])
        reader = ScriptedNLI([(*negated, Entailment(0.01, 0.99 - reader_reads, reader_reads))])
        judged = Judge(fast, config, reader=reader).judge(statement, {url: SourceResult(url, document)})
        assert any("not of steel" in p for p, _ in reader.pairs)
        return judged.judgment, judged.contradicted

    # Under the fast model's own bar, over the reader's: the reader's reading makes it red.
    assert verdict(0.7, 0.98) == ("no_support", True)
    # Over the fast model's bar, and the reader reads no contradiction: it stays red.
    assert verdict(0.97, 0.02) == ("no_support", True)
    # Neither reads it at its contradiction bar, the fast model at its conflict bar: never green.
    assert verdict(0.7, 0.02)[0] != "complete_support"


VOTES = "Only five lawmakers switched their votes from no to yes after the debate."
COUNCIL = "The city council will vote next Tuesday on a plan to extend the night bus network."
VOTE_CLAIM = "Five lawmakers switched their vote from no to yes."


def reread_texts(page: str, fast: ScriptedNLI) -> set[str]:
    reader = WordNLI()
    document = document_from_text("https://example.org/votes", "", page)
    read_sources(
        fast,
        analyse(VOTE_CLAIM, "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
        reread=CascadeReader(reader, windows=1, contradiction=0.5, against=0),
    )
    return {p for p, _ in reader.pairs}


def test_the_reader_rereads_a_joined_text_only_where_every_sentence_of_it_is_about_the_claim():
    # Beside the article, a sentence that shares one word of the claim ("vote") is joined to the
    # evidence, and the fast model reads the two together as the most entailing text: the reader
    # re-reads the evidence alone, so the verdict does not hang on the page's chrome (issue 37).
    def joined_best(joined: str) -> ScriptedNLI:  # the first fragment the premise holds wins
        return ScriptedNLI(
            [
                (joined, VOTE_CLAIM, Entailment(0.9, 0.05, 0.05)),
                (VOTES, VOTE_CLAIM, Entailment(0.3, 0.6, 0.1)),
            ]
        )

    assert reread_texts(f"{COUNCIL}\n{VOTES}", joined_best(f"{COUNCIL} {VOTES}")) == {VOTES}
    # Two sentences each about the claim: their joined text is what the reader re-reads.
    second = "Five of the lawmakers were elected in the north."
    joined = f"{VOTES} {second}"
    assert reread_texts(f"{VOTES}\n{second}", joined_best(joined)) == {joined}


def test_a_window_the_fast_model_does_not_read_as_the_opposite_is_left_to_it():
    fast = WordNLI()
    reader = WordNLI()
    read(CascadeReader(reader, windows=1, contradiction=0.99), fast)
    # WordNLI contradicts "not of steel" at 0.98, under this bar: the most entailing text alone.
    assert len(reader.pairs) == 1


def test_a_judge_refuses_a_cascade_without_its_reader_and_a_reader_without_a_cascade():
    model = fake_model()
    cascade = dataclasses.replace(model, cascade=Cascade(model, windows=1, contradiction=0.5))
    with pytest.raises(ModelUnavailable, match="reader word-nli is not loaded"):
        Judge(WordNLI(), cascade)
    with pytest.raises(ModelUnavailable, match="no cascade"):
        Judge(WordNLI(), model, reader=WordNLI())


@pytest.fixture(scope="module")
def cascade_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped English model with the shipped multilingual network as its stand-in reader:
    two real ONNX models, so the loading, routing and reading are the product's own."""
    root = tmp_path_factory.mktemp("models")
    fast, reader = root / "fast", root / "reader"
    shutil.copytree(default_model_dir(), fast)
    shutil.copytree(default_model_dir().parent / "citelens-e5-multilingual-nli", reader)
    cascade = {"cascade": {"reader": "reader", "windows": 1, "contradiction": 0.5}}
    for folder, extra in ((fast, cascade), (reader, {"role": "reader"})):
        config = json.loads((folder / "config.json").read_text())
        (folder / "config.json").write_text(json.dumps({**config, **extra}))
    return fast


def test_a_cascade_loads_from_its_config_and_names_its_reader(cascade_models: Path):
    config = load_config(cascade_models)
    assert config.cascade is not None and config.cascade.reader.name == "citelens-e5-multilingual-nli"
    described = config.describe()
    assert described["reader"]["name"] == "citelens-e5-multilingual-nli"  # type: ignore[index]
    assert described["reader"]["sha256"]["model.onnx"] == config.cascade.reader.onnx_sha256  # type: ignore[index]
    # The reader judges nothing alone: only the model naming it is offered to judge.
    assert model_dirs(default=cascade_models) == [cascade_models]


def test_a_cascade_with_a_missing_reader_is_refused_in_words(tmp_path: Path, cascade_models: Path):
    broken = tmp_path / "fast"
    shutil.copytree(cascade_models, broken)
    with pytest.raises(ModelUnavailable, match=r"no model at .*reader.*build_reader.py builds it"):
        load_config(broken)


def test_the_real_cascade_judges_with_both_models(cascade_models: Path):
    with ThreadPoolExecutor(2) as pool:
        judge = build_judge(load_config(cascade_models), Retrieval(), pool)
        assert judge.cascade is not None
        url = "https://example.org/eiffel"
        document = document_from_text(url, "Eiffel Tower", PAGE.replace("\n", " "), declared_language="en")
        [statement] = statements(CLAIM, [Citation("c1", "1", url, len(CLAIM))])
        verdict = judge.judge(statement, {url: SourceResult(url, document)})
        reader = judge.cascade.reader
        assert 0 < reader.pairs_scored < judge.nli.pairs_scored  # type: ignore[attr-defined]
        assert verdict.judgment != "complete_support"


def test_the_reader_rereads_only_the_most_contradicting_windows_and_the_others_still_count():
    fast = ScriptedNLI(
        [
            ("Visitors climb", CLAIM, Entailment(0.3, 0.6, 0.1)),  # the most entailing text
            ("wrought iron, not of steel", CLAIM, Entailment(0.0, 0.3, 0.7)),
            ("puddled iron from Pompey", CLAIM, Entailment(0.0, 0.1, 0.9)),
        ]
    )
    reader = ScriptedNLI([("puddled iron from Pompey", CLAIM, Entailment(0.02, 0.9, 0.08))])
    reading = read(CascadeReader(reader, windows=1, contradiction=0.5, against=1), fast)[
        "https://example.org/eiffel"
    ]
    assert sorted(p for p, _ in reader.pairs) == [
        "The tower is made of puddled iron from Pompey in Lorraine.",
        "Visitors climb the tower by stairs or by lift.",
    ]
    # Every window keeps the fast model's reading of the opposite, the re-read one's 0.9 included:
    # the reader's 0.08 there is added beside it and clears nothing.
    pompey = next(i for i, w in enumerate(reading.windows) if "Pompey" in w.text)
    assert reading.opposed == (Opposed(pompey, Entailment(0.02, 0.9, 0.08), 0.08),)
    assert reading.contradiction == pytest.approx(0.9)
    assert any(s.contradiction == pytest.approx(0.7) for s in reading.window_scores)

    both = ScriptedNLI(list(reader.readings))
    read(CascadeReader(both, windows=1, contradiction=0.5, against=2), fast)
    assert any("not of steel" in p for p, _ in both.pairs) and any("Pompey" in p for p, _ in both.pairs)


def test_a_window_the_reader_read_is_rechecked_by_the_reader_with_the_page_around_it():
    claim = "The tower of the 1889 World's Fair is made of steel."
    document = document_from_text("https://example.org/eiffel", "", PAGE)

    def run(recheck_at: float | None) -> tuple[ScriptedNLI, ScriptedNLI]:
        fast = ScriptedNLI(
            [
                ("World's Fair. The tower is made", claim, Entailment(0.02, 0.38, 0.6)),
                ("not of steel", claim, Entailment(0.02, 0.1, 0.88)),
            ]
        )
        reader = ScriptedNLI([("not of steel", claim, Entailment(0.01, 0.02, 0.97))])
        read_sources(
            fast,
            analyse(claim, "en"),
            [(document.url, document, "")],
            Retrieval(),
            Judging(),
            recheck_at=recheck_at,
            reread=CascadeReader(reader, windows=1, contradiction=0.5, against=1),
        )
        return fast, reader

    fast, reader = run(0.5)
    fast_alone, reader_alone = run(None)
    # The window lacks the claim's 1889, which the page gives in another sentence: it is read again
    # with that sentence before it by each model that read it as the opposite, the reader's
    # reading by the reader and the fast model's (which stays beside it) by the fast model.
    for model, alone in ((reader, reader_alone), (fast, fast_alone)):
        again = model.pairs[len(alone.pairs) :]
        assert model.pairs[: len(alone.pairs)] == alone.pairs
        assert len(again) == 1 and again[0][0].endswith("not of steel.") and "1889" in again[0][0]


def test_the_windows_left_to_the_fast_model_are_marked_and_rechecked_at_its_own_bar():
    claim = "The tower of the 1889 World's Fair is made of steel."
    document = document_from_text("https://example.org/eiffel", "", PAGE)

    def run(fast_recheck_at: float | None) -> tuple[SourceWindows, ScriptedNLI, ScriptedNLI]:
        fast = ScriptedNLI(
            [
                ("Visitors climb", claim, Entailment(0.3, 0.6, 0.1)),  # the most entailing text
                ("not of steel", claim, Entailment(0.02, 0.1, 0.88)),
                ("puddled iron", claim, Entailment(0.0, 0.2, 0.8)),
            ]
        )
        reader = ScriptedNLI([("not of steel", claim, Entailment(0.01, 0.02, 0.97))])
        readings = read_sources(
            fast,
            analyse(claim, "en"),
            [(document.url, document, "")],
            Retrieval(),
            Judging(),
            recheck_at=0.5,
            reread=CascadeReader(
                reader, windows=1, contradiction=0.5, against=1, fast_recheck_at=fast_recheck_at
            ),
        )
        return readings[document.url], fast, reader

    reading, fast, reader = run(0.85)
    # The windows whose reading is not the reader's are marked so: those it did not re-read, and
    # the one it re-read for the opposite, whose reading it only added to.
    asked = {p for p, _ in reader.pairs}
    opposed = {o.window for o in reading.opposed}
    marked = tuple(w.text not in asked or i in opposed for i, w in enumerate(reading.windows))
    assert opposed and reading.fast == marked
    assert any(reading.fast) and not all(reading.fast)
    # A window the fast model alone read is read again with the page's 1889 where it reaches the
    # fast model's own bar (0.85): its 0.88 does, its 0.8 does not; at the reader's bar (0.5), both.
    read_once = len(reading.windows) + 1  # every window and the joined top sentences
    again = [p for p, _ in fast.pairs[read_once:]]
    assert again and all("1889" in p and "not of steel" in p for p in again)
    _, fast, _ = run(None)
    assert any("1889" in p and "puddled iron" in p for p, _ in fast.pairs[read_once:])


def test_a_source_the_fast_model_reads_as_no_support_anywhere_is_left_to_it():
    fast = ScriptedNLI(
        [
            ("Visitors climb", CLAIM, Entailment(0.04, 0.9, 0.06)),  # its most entailing text
            ("wrought iron, not of steel", CLAIM, Entailment(0.0, 0.3, 0.7)),
        ]
    )
    reader = WordNLI()
    reading = read(CascadeReader(reader, windows=1, contradiction=0.5, against=1, gate=0.05), fast)[
        "https://example.org/eiffel"
    ]
    assert reader.pairs == []
    # Its reading of the opposite still counts, and its best reading stays far from support.
    assert reading.contradiction == pytest.approx(0.7)
    assert reading.best_entailment < 0.05
    read(CascadeReader(reader, windows=1, contradiction=0.5, against=1, gate=0.03), fast)
    assert len(reader.pairs) == 2


def test_the_reader_build_checks_its_readings_against_the_recorded_ones(tmp_path: Path):
    from research.training import build_reader

    state = default_model_dir().parent / "training" / "mpnet8-reader"
    reference = json.loads((state / "reference.json").read_text())
    assert [tuple(p) for p in reference["pairs"]] == build_reader.REFERENCE_PAIRS
    # A model that is not the measured reader reads the pairs otherwise, and the build says so.
    assert build_reader.disagreement(default_model_dir(), reference) > build_reader.TOLERANCE
    same = dict(reference, probabilities=build_reader.read_reference(default_model_dir())["probabilities"])
    assert build_reader.disagreement(default_model_dir(), same) == 0.0


# What the model reads of a source (reading.py): a myth's sentence is read with the sentence
# after it, where pages refute it.

MYTH = (
    "The Great Barrier Reef lies off the coast of Queensland.\n"
    "A popular myth holds that the reef is visible from the Moon with the naked eye.\n"
    "Astronauts report that it cannot be seen from the Moon.\n"
    "The reef was made a World Heritage Site in 1981."
)


def windows_read(text: str, claim: str, language: str = "en") -> list[str]:
    document = document_from_text("https://example.org/reef", "", text)
    readings = read_sources(
        WordNLI(),
        analyse(claim, language),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
        language=claim_language(language),
    )
    return [w.text for w in readings[document.url].windows]


def test_a_myth_is_read_with_the_sentence_that_follows_it():
    read = windows_read(MYTH, "The reef is visible from the Moon with the naked eye.")
    assert read[0] == (
        "A popular myth holds that the reef is visible from the Moon with the naked eye. "
        "Astronauts report that it cannot be seen from the Moon."
    )
    # The myth's sentence is never read alone, and no window is read twice.
    assert "A popular myth holds that the reef is visible from the Moon with the naked eye." not in read
    assert len(read) == len(set(read))


def test_a_sentence_that_already_refutes_is_read_as_it_is():
    text = "The myth that the reef is visible from the Moon is false.\nThe reef was listed in 1981."
    assert "The myth that the reef is visible from the Moon is false." in windows_read(
        text, "The reef is visible from the Moon."
    )


def test_french_myths_are_read_on_too():
    text = (
        "On lit souvent qu'elle est visible depuis la Lune à l'œil nu.\n"
        "C'est faux : les astronautes ne la distinguent pas depuis la Lune.\n"
        "Le récif est inscrit au patrimoine mondial depuis 1981."
    )
    read = windows_read(text, "Elle est visible depuis la Lune à l'œil nu.", "fr")
    assert read[0].startswith("On lit souvent") and "C'est faux" in read[0]
    assert windows_read(text, "Elle est visible depuis la Lune à l'œil nu.", "en")[0] == (
        "On lit souvent qu'elle est visible depuis la Lune à l'œil nu."
    )


def test_the_numbers_and_names_a_window_lacks_are_taken_from_the_rest_of_the_page():
    text = (
        "The tower was completed in March 1889.\n"
        "It was designed by the company of Gustave Eiffel.\n"
        "When it opened, the tower was 300 metres tall.\n"
        "Its paint is renewed every seven years."
    )
    document = document_from_text("https://example.org/tower", "", text)
    window = Window(2, 2, document.sentences[2].text, 1.0)
    claim = "When it opened in 1889, the tower by Eiffel was 300 metres tall."
    sentences = sentence_words(document, "en")
    assert given_elsewhere(sentences, window, analyse(claim, "en")) == (
        "The tower was completed in March 1889. It was designed by the company of Gustave Eiffel."
    )
    first = "The tower was completed in March 1889."
    assert given_elsewhere(sentences, window, analyse(claim, "en"), limit=1) == first
    # Nothing is missing, or the page does not give it: nothing to add.
    assert given_elsewhere(sentences, window, analyse("The tower was 300 metres tall.", "en")) == ""
    assert given_elsewhere(sentences, window, analyse("It was 300 metres tall in 1920.", "en")) == ""


def test_the_joined_top_sentences_hold_each_ones_words():
    url = "https://example.org/tower"
    document = document_from_text(url, "", "It opened in 1889. Gustave Eiffel built it.")
    claim = analyse("Gustave Eiffel built it, and it opened in 1889.", "en")
    read = read_sources(WordNLI(), claim, [(url, document, "")], Retrieval(), Judging())[url]
    one, two = read.sentences
    both = read.joined_words
    assert both.text == read.joined_text == "It opened in 1889. Gustave Eiffel built it."
    assert both.terms == one.terms + two.terms and both.numbers == {"1889"}
    assert both.names == {"gustave", "eiffel"}


def test_words_of_frequency_do_not_put_a_window_on_topic():
    document = document_from_text(
        "https://example.org/paris", "", "Snow is rare in Paris and seldom stays on the ground."
    )
    claim_reading = read_sources(
        WordNLI(),
        analyse("Paris is rarely windy, so the tower seldom sways.", "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
    )[document.url]
    assert claim_reading.on_topic == (False,)
    on_topic = read_sources(
        WordNLI(),
        analyse("Snow is rarely seen in Paris.", "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
    )[document.url]
    assert on_topic.on_topic == (True,)
