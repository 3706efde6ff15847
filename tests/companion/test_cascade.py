"""The cascade (issue 37): the fast model reads every window, a stronger reader re-reads only those
that decide, and the verdict is the reader's wherever it has read."""

from __future__ import annotations

import dataclasses
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from companion.config import Judging, Retrieval
from companion.errors import ModelUnavailable
from companion.judging.judge import Judge
from companion.judging.judges import model_dirs
from companion.judging.reading import Reread, read_sources
from companion.model.folder import Cascade, default_model_dir, load_config
from companion.records import Citation, Entailment, SourceResult
from companion.service.runtime import build_judge
from companion.sources.extract import document_from_text
from companion.text.analysis import analyse
from companion.text.segment import statements

from .fakes import ScriptedNLI, WordNLI, fake_model

PAGE = (
    "The Eiffel Tower stands on the Champ de Mars in Paris.\n"
    "Gustave Eiffel's company designed and built the tower for the 1889 World's Fair.\n"
    "The tower is made of wrought iron, not of steel.\n"
    "Its wrought iron is repainted every seven years to protect it from rust.\n"
    "Visitors climb the tower by stairs or by lift.\n"
    "The tower is made of puddled iron from Pompey in Lorraine."
)
CLAIM = "The tower is made of steel."


def read(reread: Reread | None, fast: WordNLI) -> dict:
    document = document_from_text("https://example.org/eiffel", "", PAGE)
    return read_sources(
        fast,
        analyse(CLAIM, "en"),
        [(document.url, document, "")],
        Retrieval(),
        Judging(),
        reread=reread,
    )


def test_the_reader_reads_only_what_decides_and_its_reading_is_the_one_kept():
    fast = ScriptedNLI([("wrought iron, not of steel", CLAIM, Entailment(0.02, 0.28, 0.7))])
    alone = read(None, WordNLI())["https://example.org/eiffel"]
    reader = ScriptedNLI([("wrought iron, not of steel", CLAIM, Entailment(0.01, 0.01, 0.98))])
    reading = read(Reread(reader, windows=1, contradiction=0.5), fast)["https://example.org/eiffel"]

    # The reader read the text the fast model found most entailing and the window it reads as the
    # opposite: two of the pairs the fast model read (every window and the joined top sentences).
    assert len(fast.pairs) == len(alone.windows) + 1
    assert len(reader.pairs) == 2
    assert {p for p, _ in reader.pairs} <= {p for p, _ in fast.pairs}
    # Every window stays for the quote and the rules; the one the reader re-read carries its
    # reading, not the fast model's 0.7, and the others the fast model's.
    assert reading.windows == alone.windows
    negated = next(i for i, w in enumerate(reading.windows) if "not of steel" in w.text)
    assert reading.window_scores[negated] == Entailment(0.01, 0.01, 0.98)
    assert reading.contradiction == pytest.approx(0.98)
    read_by_reader = {p for p, _ in reader.pairs}
    for window, score in zip(reading.windows, reading.window_scores, strict=True):
        if window.text not in read_by_reader:
            assert score == fast.score([(window.text, CLAIM)])[0]
    # The best reading is the reader's, never a window only the fast model read.
    assert reading.best_reading in reader.score(list(reader.pairs))


def test_a_window_the_fast_model_does_not_read_as_the_opposite_is_left_to_it():
    fast = WordNLI()
    reader = WordNLI()
    read(Reread(reader, windows=1, contradiction=0.99), fast)
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
    with pytest.raises(ModelUnavailable, match=r"no model at .*reader"):
        load_config(broken)


def test_the_real_cascade_judges_with_both_models(cascade_models: Path):
    with ThreadPoolExecutor(2) as pool:
        judge = build_judge(load_config(cascade_models), Retrieval(), pool)
        assert judge.reread is not None
        url = "https://example.org/eiffel"
        document = document_from_text(url, "Eiffel Tower", PAGE.replace("\n", " "), declared_language="en")
        [statement] = statements(CLAIM, [Citation("c1", "1", url, len(CLAIM))])
        verdict = judge.judge(statement, {url: SourceResult(url, document)})
        reader = judge.reread.reader
        assert 0 < reader.pairs_scored < judge.nli.pairs_scored  # type: ignore[attr-defined]
        assert verdict.judgment != "complete_support"
