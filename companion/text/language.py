"""Which language a text is in, and how its words are read in that language (issue 14).

Detection: py3langid (the langid.py model, BSD), restricted to the languages below; a text too
short or too mixed to tell reads as English, the default model's language. Detection runs once
per answer and once per page, never per sentence: a ten-word sentence is too little to tell
French from English reliably, and every sentence of a page shares the page's language.

A Lexicon is what the lexical features and retrieval need of a language: its words, stop words,
stemmer, numbers and names. English keeps its own light suffix stripper: the default model's
combiner weights were fitted to its terms (combiner.features_version fingerprints them). Other
languages use the Snowball stemmer of that language.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

__all__ = ["DETECTED", "NAMES", "Lexicon", "detect_language", "lexicon"]

# The languages told apart. More than the models cover, so that a German or Japanese page is not
# read as French or English just because those were the only choices (judges.py then says it was
# not checked).
DETECTED = ("en", "fr", "de", "es", "it", "nl", "pt", "pl", "cs", "sv", "tr", "ru", "ar", "zh", "ja", "ko")
NAMES = {
    "en": "English",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "pl": "Polish",
    "cs": "Czech",
    "sv": "Swedish",
    "tr": "Turkish",
    "ru": "Russian",
    "ar": "Arabic",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
}
_DEFAULT = "en"
_MIN_CONFIDENCE = 0.9
_MIN_LETTERS = 20
_SAMPLE_CHARS = 4_000  # the start of a page is enough, and keeps detection under a millisecond


@cache
def _identifier():  # type: ignore[no-untyped-def]
    """The langid model, read once (about a second) and never changed after."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(DETECTED))
    return identifier


def detect_language(text: str, *, declared: str = "") -> str:
    """The ISO 639-1 code of `text`'s language; `declared` (a page's `lang` attribute) decides
    when the text itself is too short to tell."""
    sample = text[:_SAMPLE_CHARS]
    hint = declared.split("-")[0].strip().lower()
    fallback = hint if hint in DETECTED else _DEFAULT
    if sum(c.isalpha() for c in sample) < _MIN_LETTERS:
        return fallback
    language, confidence = _identifier().classify(sample)
    return str(language) if confidence >= _MIN_CONFIDENCE else fallback


# --- lexicons ----------------------------------------------------------------------------------

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.,]\d+)*")
_EN_NAME = re.compile(r"\b[A-Z][a-zA-Z'’-]+")
_EN_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

# Function words carry no evidence; a short list beats a library for this job.
_EN_STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves s t may might must shall one many
    much well however thus therefore although though according like including include includes
    included""".split()
)

_FR_STOPWORDS = frozenset(
    """a à au aux avec ce ces cet cette dans de des du elle elles en est et été être eu il ils je la
    le les leur leurs lui ma mais me même mes moi mon ne nos notre nous on ont ou où par pas pour
    qu que qui sa se ses son sont sur ta te tes toi ton tu un une vos votre vous y c d j l m n s t
    ceci cela ça celui celle ceux celles dont ainsi aussi alors comme donc car ni soit sous vers
    chez entre sans selon depuis pendant avant après plus moins très tout tous toute toutes autre
    autres quel quelle quels quelles lors était étaient sera seront serait avait avaient fait être
    avoir peut peuvent doit doivent""".split()
)

# Unicode letters for the languages that have accents; "l'œil" is "œil", "qu'elle" is "elle".
_WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*|\d+(?:[  \u202f]\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[^\W\d_a-zà-ÿ][^\W\d_'’-]+")
_ELISION = re.compile(r"^(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’]", re.IGNORECASE)
# "2 300", "2 300,5" (spaces, no-break or narrow no-break, between thousands) and "1,5".
_FR_NUMBER = re.compile(r"\d+(?:[  \u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?(?:\.\d+)*")


@dataclass(frozen=True)
class Lexicon:
    """How words, numbers and names are read in one language."""

    language: str
    stopwords: frozenset[str]
    clean: Callable[[str], str]  # a lower-cased word as found → the word to stem or the number
    stem: Callable[[str], str]
    word: re.Pattern[str]
    name: re.Pattern[str]
    number: re.Pattern[str]
    to_number: Callable[[str], str]  # a number as written → one canonical form ("1,5" → "1.5")

    def terms(self, text: str) -> list[str]:
        """Stemmed, lower-cased content words and numbers of `text`, in order."""
        terms = []
        for raw in self.word.findall(text):
            word = self.clean(raw.lower())
            if word and word not in self.stopwords:
                terms.append(self.stem(word))
        return terms

    def numbers(self, text: str) -> list[str]:
        return [self.to_number(n) for n in self.number.findall(text)]

    def names(self, text: str) -> set[str]:
        return {m.lower() for m in self.name.findall(text) if m.lower() not in self.stopwords}


def _english_stem(word: str) -> str:
    """A light suffix stripper: enough to match "sings"/"sang" no, "songs"/"song" yes."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("edly", ""), ("ed", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + keep
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _english_number(number: str) -> str:
    return number.replace(",", "")


def _french_number(number: str) -> str:
    """French writes thousands with spaces (or dots) and decimals with a comma."""
    digits = re.sub(r"[  \u202f]", "", number)
    if "," in digits:
        whole, _, decimals = digits.partition(",")
        return whole.replace(".", "") + "." + decimals
    return digits.replace(".", "") if re.fullmatch(r"\d{1,3}(?:\.\d{3})+", digits) else digits


def _english_clean(word: str) -> str:
    return word.strip("'’-").replace(",", "")


def _french_clean(word: str) -> str:
    return _french_number(word) if word[0].isdigit() else _ELISION.sub("", word).strip("'’-")


def _snowball(algorithm: str) -> Callable[[str], str]:
    """A Snowball stemmer per thread: a stemmer keeps the word it works on in the instance, and
    pages are indexed on extraction threads while the judge thread reads claims."""
    import snowballstemmer

    local = threading.local()

    def stem(word: str) -> str:
        if word[0].isdigit():
            return word
        stemmer = getattr(local, "stemmer", None)
        if stemmer is None:
            stemmer = local.stemmer = snowballstemmer.stemmer(algorithm)
        return str(stemmer.stemWord(word))

    return stem


_SNOWBALL = {
    "fr": "french",
    "de": "german",
    "es": "spanish",
    "it": "italian",
    "nl": "dutch",
    "pt": "portuguese",
}


@cache
def lexicon(language: str) -> Lexicon:
    """The lexicon of `language`; a language without one of its own reads as English."""
    if language not in _SNOWBALL:
        return Lexicon(
            "en",
            _EN_STOPWORDS,
            _english_clean,
            _english_stem,
            _EN_WORD,
            _EN_NAME,
            _EN_NUMBER,
            _english_number,
        )
    stem = _snowball(_SNOWBALL[language])
    if language == "fr":
        return Lexicon("fr", _FR_STOPWORDS, _french_clean, stem, _WORD, _NAME, _FR_NUMBER, _french_number)
    # No stop-word list of our own for these yet: the stems alone still match inflected forms.
    return Lexicon(language, frozenset(), _english_clean, stem, _WORD, _NAME, _EN_NUMBER, _english_number)
