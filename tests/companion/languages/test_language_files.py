"""One place per language (issue 61 item 3): every language file loads into a whole record, a broken
one is named, no stage keeps a per-language word list of its own, and a language is added by adding
its file."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import languages
from companion.judging.rulebook import rule_book
from companion.languages import Language, LanguageFileError, codes, language
from companion.sources import walls
from companion.sources.walls import PAYWALLED, wall_reason

COMPANION = Path(__file__).resolve().parents[3] / "companion"

# The groups of a file and the fields of each, by the stage that reads them.
SCHEMA = {
    "code": None,
    "name": None,
    "detection": {"scripts", "letters", "romanised_words"},
    "segment": {"stops", "question_words", "subject_pronouns", "verb_words"},
    "lexicon": {"numbers", "stemmer", "stopwords", "elisions", "pairs"},
    "claims": {
        "pronouns", "possessives", "auxiliaries", "irregular_past", "clause_breaks", "contrasts",
        "list_verbs", "function_words", "determiners", "list_joiners", "list_ends", "apposition_openers",
        "relatives", "predicate_joiner", "copula",
    },
    "quantities": {"numbers", "units", "bounds"},
    "walls": {"challenge", "consent", "paywall"},
    "chrome": {
        "class_parts", "class_words", "labels", "consent_words", "consent_actions", "subscribe_words",
        "email_words", "phrases",
    },
    "meaning": {"word", "unspaced", "about", "rules", "lexicons", "how_often"},
}  # fmt: skip


def _caches() -> None:
    """Forget what was read from the folder (the loaders and the stages that keep what they made)."""
    languages.language.cache_clear()
    languages.codes.cache_clear()
    walls._wording.cache_clear()
    rule_book.cache_clear()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the language folder that the loaders read instead (test-only)."""
    copy = tmp_path / "languages"
    copy.mkdir()
    for path in languages.FOLDER.glob("*.json"):
        shutil.copy(path, copy / path.name)
    monkeypatch.setattr(languages, "FOLDER", copy)
    _caches()
    yield copy
    _caches()


def test_every_file_loads_with_every_field():
    assert len(codes()) >= 31 and {"en", "fr", "de", "ja", "zh", "ko", "ru", "hi", "vi"} <= set(codes())
    for code in codes():
        raw = json.loads((languages.FOLDER / f"{code}.json").read_text(encoding="utf-8"))
        assert set(raw) == set(SCHEMA), code
        for group, fields in SCHEMA.items():
            assert fields is None or set(raw[group]) == fields, (code, group)
        record = language(code)
        assert isinstance(record, Language) and record.code == code and record.name
        assert record.detection.scripts
        for field in dataclasses.fields(Language):
            assert getattr(record, field.name) is not None
    assert language("xx") is None


def test_the_record_is_read_once_and_frozen():
    assert language("en") is language("en")
    with pytest.raises(dataclasses.FrozenInstanceError):
        language("en").name = "Anglais"  # type: ignore[misc, union-attr]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda raw: raw["walls"].pop("paywall"), "walls.paywall"),
        (lambda raw: raw["lexicon"].update(stopwords="the a an"), "lexicon.stopwords"),
        (lambda raw: raw["quantities"]["numbers"]["units"].update(one="1"), "quantities.numbers.units"),
        (lambda raw: raw["meaning"].update(unspaced=0), "meaning.unspaced"),
        (lambda raw: raw.update(code="de"), "code"),
    ],
)
def test_a_broken_file_is_named_with_its_field(folder, change, field):
    path = folder / "en.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(LanguageFileError, match=re.escape(f"{path}: field {field!r}")) as error:
        language("en")
    assert error.value.path == path and error.value.field == field


def test_a_file_that_is_not_json_is_named(folder):
    (folder / "fr.json").write_text("{", encoding="utf-8")
    with pytest.raises(LanguageFileError, match=r"fr\.json"):
        language("fr")


def _words_of_files() -> frozenset[str]:
    """The distinctive words of every file: its word lists, less English's stop words (which any
    English message is made of) and the words of three letters or fewer."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.update(w.lower() for w in re.findall(r"[^\W\d_]+", value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for code in codes():
        raw = json.loads((languages.FOLDER / f"{code}.json").read_text(encoding="utf-8"))
        for group in ("detection", "segment", "lexicon", "claims", "quantities", "walls", "chrome"):
            walk(raw[group])
        walk(raw["meaning"]["lexicons"])
        walk(raw["meaning"]["how_often"])
    stop = language("en").lexicon.stopwords  # type: ignore[union-attr]
    return frozenset(w for w in found if len(w) > 3 and w not in stop)


# Left where they are, each for its reason: English grammar written into a regex rather than a word
# list (issue 61 item 3 allows it): the "part of" family's counting words, which only English's
# rules read, and relation.py's "not only", read in English and French sentences alike; and the
# pair `citelens doctor` asks each model to read, a check of the model rather than knowledge of
# its language.
_LEFT = {
    ("judging/meaning.py", "_COUNT_EN"),
    ("judging/relation.py", "_NOT_ONLY"),
    ("service/cli.py", "_PROBES"),
}
# A literal that holds this many distinct words of the files, which make this share of its words,
# is a word list.
_LIST_WORDS = 4
_LIST_SHARE = 0.5


def _literals(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """Each string literal of a module that is not a docstring, with the name it is assigned to."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    named = dict(_named(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield named.get(id(node), ""), node.value


def _named(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Each node inside an assignment to a name, with that name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            name = next((t.id for t in targets if isinstance(t, ast.Name)), "")
            yield from ((id(inner), name) for inner in ast.walk(node.value))


def _language_tables(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """Dict or set literals keyed by two language codes or more (a per-language table), with the
    name they are assigned to."""
    known, named = set(codes()), dict(_named(tree))
    for node in ast.walk(tree):
        keys = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, ast.Set) else []
        found = {k.value for k in keys if isinstance(k, ast.Constant) and k.value in known}
        if len(found) >= 2:
            yield named.get(id(node), ""), ", ".join(sorted(found))


def test_no_stage_keeps_a_word_list_of_its_own():
    """A per-language word list hard-coded in companion/ outside languages/ fails: a string
    literal made mostly of the files' words, or a table keyed by language codes."""
    words = _words_of_files()
    found = []
    for path in sorted(COMPANION.rglob("*.py")):
        module = path.relative_to(COMPANION).as_posix()
        if module.startswith("languages/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, literal in _literals(tree):
            tokens = [w.lower() for w in re.findall(r"[^\W\d_]+", literal)]
            known = {t for t in tokens if t in words}
            share = len([t for t in tokens if t in words]) / max(1, len(tokens))
            listed = len(known) >= _LIST_WORDS and share >= _LIST_SHARE
            if listed and (module, name) not in _LEFT:
                found.append(f"{module} {name or '(literal)'}: {sorted(known)[:6]}")
        found += [
            f"{module} {name}: a table of {keys}"
            for name, keys in _language_tables(tree)
            if (module, name) not in _LEFT
        ]
    assert not found, "move these into companion/languages/<code>.json:\n" + "\n".join(found)


def test_the_scan_finds_a_word_list():
    words = _words_of_files()
    tree = ast.parse(
        '_AUX = frozenset("is are were remains remained became becomes".split())\n_T = {"en": 1, "fr": 2}'
    )
    tokens = [w for _, literal in _literals(tree) for w in re.findall(r"[^\W\d_]+", literal)]
    assert len({t for t in tokens if t in words}) >= _LIST_WORDS
    assert list(_language_tables(tree)) == [("_T", "en, fr")]


def test_adding_a_language_is_adding_a_file(folder):
    esperanto = json.loads((folder / "en.json").read_text(encoding="utf-8"))
    esperanto.update(code="eo", name="Esperanto")
    esperanto["walls"] = {"challenge": [], "consent": [], "paywall": [r"abonu (nun|por legi)"]}
    esperanto["meaning"] = {
        **esperanto["meaning"],
        "rules": [{"id": "eo.negated", "family": "negated", "effect": "hedge", "means": "a negation"}],
        "lexicons": {"negation": ["ne"]},
        "how_often": [],
    }
    (folder / "eo.json").write_text(json.dumps(esperanto, ensure_ascii=False), encoding="utf-8")
    assert "eo" in codes() and language("eo").name == "Esperanto"  # type: ignore[union-attr]
    page = "Abonu nun por legi la tutan artikolon."
    assert wall_reason(page, language="eo") == PAYWALLED  # the walls stage reads it
    assert wall_reason(page, language="de") is None
    book = rule_book("eo")  # and so does the judge's
    assert [r.id for r in book.rules] == ["eo.negated"] and book.negation.search("La turo ne estas alta.")
