"""What the companion knows of each language, as data: one file per language (`<code>.json`),
read through one typed record (`Language`). Adding a language is adding a file; a language without
one is read without that knowledge, and the judge says so where it matters.

A file holds, grouped by the stage that reads it:
- `detection`: the scripts it is written in, letters only it uses, romanised function words
  (text/language.py: the detector itself stays code);
- `segment`: the stops that end its sentences where pysbd does not serve it, and the words that
  tell a heading from a sentence (text/segment.py);
- `lexicon`: how its words and numbers are read (stemmer, number style, stop words, and for the
  scripts written without spaces the character runs read as pairs) (text/language.py);
- `claims`: the words the claim splitter reads (text/claims.py; English only today);
- `quantities`: how it writes numbers and units, and the words that make a number a bound
  (text/values.py, text/quantities.py). Articles ("a", "un", "ein") are left out of the number
  words on purpose: read as "1" they would make every noun phrase a quantity;
- `walls`: what bot checks, consent interstitials and paywalls say (sources/walls.py);
- `chrome`: the words of menus, banners and share bars (sources/chrome.py);
- `meaning`: the rules of meaning and the cue words they read (judging/rulebook.py).
Every field is present in every file, empty where the language has none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

__all__ = [
    "FOLDER",
    "ChromeWords",
    "ClaimWords",
    "Detection",
    "Language",
    "LanguageFileError",
    "LexiconWords",
    "MeaningRule",
    "MeaningWords",
    "NumberWords",
    "SegmentWords",
    "WallWords",
    "codes",
    "language",
]

FOLDER: Final = Path(__file__).resolve().parent


class LanguageFileError(ValueError):
    """A language file that cannot be read: names the file and the field."""

    def __init__(self, path: Path, field: str, problem: str) -> None:
        super().__init__(f"{path}: field {field!r} {problem}")
        self.path, self.field = path, field


@dataclass(frozen=True, slots=True)
class Detection:
    scripts: tuple[str, ...]  # the scripts it is written in, its own first ("Kana" before "Han")
    letters: str  # a regex of letters only it uses among its script's languages; "" for none
    romanised_words: frozenset[str]  # its function words when written in Latin letters


@dataclass(frozen=True, slots=True)
class SegmentWords:
    stops: frozenset[str]  # the marks that end a sentence, where pysbd does not serve; empty: pysbd's
    question_words: frozenset[str]  # a heading may open with one ("Why they matter")
    subject_pronouns: frozenset[str]  # a line opening with one is a sentence
    verb_words: frozenset[str]  # copulas, auxiliaries, modals: a line with one is a sentence


@dataclass(frozen=True, slots=True)
class LexiconWords:
    numbers: str  # how it writes numbers: "english", "french", "dot thousands", "space thousands", ...
    stemmer: str  # a Snowball algorithm, "light english", or "" for none
    stopwords: frozenset[str]
    elisions: tuple[str, ...]  # elided before an apostrophe and read apart: "l'œil" is "œil"
    pair_run: str  # a regex character class of the letters read as pairs (no spaces); "" for none
    pair_skip: str  # pairs made only of these letters are endings and particles, left out
    myriads: Mapping[str, int]  # "万" -> 10^4: number units written after digits


@dataclass(frozen=True, slots=True)
class ClaimWords:
    pronouns: tuple[str, ...]  # a statement opening with one is read with its subject in place
    possessives: frozenset[str]
    auxiliaries: frozenset[str]
    irregular_past: frozenset[str]
    clause_breaks: tuple[str, ...]  # after a comma: ", but", ", while"
    contrasts: tuple[str, ...]  # alone: " but ", " whereas "
    list_verbs: frozenset[str]
    function_words: frozenset[str]
    determiners: frozenset[str]
    list_joiners: tuple[str, ...]  # "and", "or": before a list's last item
    list_ends: tuple[str, ...]  # the prepositions a list may end before
    apposition_openers: tuple[str, ...]
    relatives: frozenset[str]  # apposition openers that are relative pronouns ("who")
    predicate_joiner: str  # "and" between two predicates
    copula: str  # "is": what an apposition adds

    @property
    def splits(self) -> bool:
        """Whether its statements are split into claims at all."""
        return bool(self.auxiliaries)


@dataclass(frozen=True, slots=True)
class NumberWords:
    """A language's spelled numbers: "soixante millions" is 60 x 10^6."""

    units: Mapping[str, int]  # "six" -> 6: the words that add their value
    tens: Mapping[str, int]  # "soixante" -> 60
    hundreds: Mapping[str, int]  # "cent" -> 100, "doscientos" -> 200: multiply what came before
    scales: Mapping[str, float]  # "millions" -> 10^6: close a group
    other: Mapping[str, int]  # "dozen" -> 12
    joiners: frozenset[str]  # "and", "et", "y": inside a spelled number


@dataclass(frozen=True, slots=True)
class WallWords:
    """Regexes of what walls say: bot checks, consent interstitials, paywalls."""

    challenge: tuple[str, ...]
    consent: tuple[str, ...]
    paywall: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChromeWords:
    class_parts: tuple[str, ...]  # inside class and id names ("cookieBanner")
    class_words: frozenset[str]  # class and id tokens matched whole ("nav")
    labels: tuple[str, ...]  # regexes of aria-labels
    consent_words: tuple[str, ...]  # regexes
    consent_actions: tuple[str, ...]  # regexes of a consent button's whole text
    subscribe_words: tuple[str, ...]  # regexes
    email_words: tuple[str, ...]  # regexes of an e-mail field's name
    phrases: frozenset[str]  # chrome headings and labels, whole, lower case


@dataclass(frozen=True, slots=True)
class MeaningRule:
    id: str
    family: str
    effect: str
    means: str


@dataclass(frozen=True, slots=True)
class MeaningWords:
    word: str  # a regex of one word as the rules align them
    unspaced: bool  # written without spaces: a word of the rules is one character
    about: str
    rules: tuple[MeaningRule, ...]
    lexicons: Mapping[str, tuple[str, ...]]  # "negation" -> its cue words
    how_often: tuple[str, ...]  # "rarely", "often": say nothing of what a sentence is about


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    name: str  # in English: "the answer is in French"
    detection: Detection
    segment: SegmentWords
    lexicon: LexiconWords
    claims: ClaimWords
    numbers: NumberWords
    units: Mapping[str, str]  # a unit word as written, lower-cased -> its dimension ("time", ...)
    lower_bounds: tuple[str, ...]  # "more than": a claim's number is a floor, not a value
    upper_bounds: tuple[str, ...]  # "up to": a ceiling
    walls: WallWords
    chrome: ChromeWords
    meaning: MeaningWords


@cache
def codes() -> tuple[str, ...]:
    """The codes of the languages with a file, sorted."""
    return tuple(sorted(path.stem for path in FOLDER.glob("*.json")))


@cache
def language(code: str) -> Language | None:
    """The record of a language, or None where no file describes it."""
    path = FOLDER / f"{code}.json"
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise LanguageFileError(path, "", f"is not JSON: {error}") from error
    return _Reader(path, raw).language(code)


class _Reader:
    """Reads one file's fields, each checked for its type; a missing or mistyped one is named."""

    def __init__(self, path: Path, raw: Any) -> None:
        self.path, self.raw = path, raw

    def get(self, name: str, kind: type) -> Any:
        value = self.raw
        for part in name.split("."):
            if not isinstance(value, dict) or part not in value:
                raise LanguageFileError(self.path, name, "is missing")
            value = value[part]
        if not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool):
            raise LanguageFileError(self.path, name, f"is not a {kind.__name__}")
        return value

    def words(self, name: str) -> tuple[str, ...]:
        values = self.get(name, list)
        if not all(isinstance(v, str) for v in values):
            raise LanguageFileError(self.path, name, "holds something other than strings")
        return tuple(values)

    def word_set(self, name: str) -> frozenset[str]:
        return frozenset(self.words(name))

    def table(self, name: str, kind: type | tuple[type, ...]) -> dict[str, Any]:
        values: dict[str, Any] = self.get(name, dict)
        if not all(isinstance(v, kind) and not isinstance(v, bool) for v in values.values()):
            raise LanguageFileError(self.path, name, "holds something other than numbers")
        return values

    def language(self, code: str) -> Language:
        if self.get("code", str) != code:
            raise LanguageFileError(self.path, "code", f"is not {code!r}, the file's name")
        n = "quantities.numbers"
        return Language(
            code,
            self.get("name", str),
            Detection(
                self.words("detection.scripts"),
                self.get("detection.letters", str),
                frozenset(self.words("detection.romanised_words")),
            ),
            SegmentWords(
                frozenset(self.get("segment.stops", str)),
                self.word_set("segment.question_words"),
                self.word_set("segment.subject_pronouns"),
                self.word_set("segment.verb_words"),
            ),
            LexiconWords(
                self.get("lexicon.numbers", str),
                self.get("lexicon.stemmer", str),
                frozenset(self.words("lexicon.stopwords")),
                self.words("lexicon.elisions"),
                self.get("lexicon.pairs.run", str),
                self.get("lexicon.pairs.skip", str),
                self.table("lexicon.pairs.myriads", int),
            ),
            self._claims(),
            NumberWords(
                self.table(f"{n}.units", int),
                self.table(f"{n}.tens", int),
                self.table(f"{n}.hundreds", int),
                {word: float(value) for word, value in self.table(f"{n}.scales", (int, float)).items()},
                self.table(f"{n}.other", int),
                frozenset(self.words(f"{n}.joiners")),
            ),
            {
                word: dimension
                for dimension in self.get("quantities.units", dict)
                for word in self.words(f"quantities.units.{dimension}")
            },
            self.words("quantities.bounds.lower"),
            self.words("quantities.bounds.upper"),
            WallWords(*(self.words(f"walls.{k}") for k in ("challenge", "consent", "paywall"))),
            self._chrome(),
            self._meaning(),
        )

    def _claims(self) -> ClaimWords:
        w, s = self.words, self.word_set
        return ClaimWords(
            w("claims.pronouns"),
            s("claims.possessives"),
            s("claims.auxiliaries"),
            s("claims.irregular_past"),
            w("claims.clause_breaks"),
            w("claims.contrasts"),
            s("claims.list_verbs"),
            s("claims.function_words"),
            s("claims.determiners"),
            w("claims.list_joiners"),
            w("claims.list_ends"),
            w("claims.apposition_openers"),
            s("claims.relatives"),
            self.get("claims.predicate_joiner", str),
            self.get("claims.copula", str),
        )

    def _chrome(self) -> ChromeWords:
        w = self.words
        return ChromeWords(
            w("chrome.class_parts"),
            frozenset(w("chrome.class_words")),
            w("chrome.labels"),
            w("chrome.consent_words"),
            w("chrome.consent_actions"),
            w("chrome.subscribe_words"),
            w("chrome.email_words"),
            frozenset(w("chrome.phrases")),
        )

    def _meaning(self) -> MeaningWords:
        rules = []
        for i, _ in enumerate(self.get("meaning.rules", list)):
            at = f"meaning.rules.{i}"
            rule = _Reader(self.path, {at: self.get("meaning.rules", list)[i]})
            rules.append(MeaningRule(*(rule._one(at, k) for k in ("id", "family", "effect", "means"))))
        names = self.get("meaning.lexicons", dict)
        lexicons = {name: self.words(f"meaning.lexicons.{name}") for name in names}
        return MeaningWords(
            self.get("meaning.word", str),
            self.get("meaning.unspaced", bool),
            self.get("meaning.about", str),
            tuple(rules),
            lexicons,
            self.words("meaning.how_often"),
        )

    def _one(self, at: str, key: str) -> str:
        value = self.raw[at]
        if not isinstance(value, dict) or not isinstance(value.get(key), str):
            raise LanguageFileError(self.path, f"{at}.{key}", "is missing or not a str")
        return str(value[key])
