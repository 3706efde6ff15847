"""Which language a text is in, and how its words are read in that language (issues 14, 39).

Detection runs once per answer and once per page, not per sentence: a ten-word sentence is too
little to tell French from English reliably, and every sentence of a page shares the page's
language. The one exception is a sentence of an answer written in another script than the
answer's, other than Latin (`own_script`): a Japanese sentence in an English answer is Japanese
whatever its length, and judging it as English would judge it blind.

It goes by script first (issue 39): the script most of the letters are written in
(Greek, Thai, Hangul, kana, Han, Cyrillic, Arabic, Devanagari…) rules English out whatever the
text's length, so a Thai or Chinese one-liner is never judged as English by a model that cannot
read it. Within a script shared by several languages (Latin, Cyrillic, Arabic, Devanagari),
py3langid (the langid.py model, BSD) chooses among those of DETECTED written in it.

Latin-script text is read as English unless another language is clearly ahead: at least
_ENGLISH_ODDS times as likely as English. English is the language of most answers and of the
default model, and a short English sentence with names or loanwords ("Esponosa died in 1900.")
must stay English. A language that is ahead must also be confident (_MIN_CONFIDENCE) to be
named; if it is not, the text is UNDETERMINED ("und"), which no model reads, so its statements
are "not checked" (judges.py), unless the page's `lang` attribute names a language. A short text
(under _MIN_LETTERS letters) of names and numbers only ("Paris, 1889", "Jakarta") is read as the
declared language, else English, as before: names and numbers read alike in every Latin-script
language. Vietnamese is told by its own letters (ơ, ư, đ and the stacked tone marks) and
romanised Hindi and Urdu by their function words, before any of this: langid has no class for
the latter and may have too few letters of the former.

A Lexicon is what the lexical features and retrieval need of a language: its words, stop words,
stemmer, numbers and names. English keeps its own light suffix stripper: the default model's
combiner weights were fitted to its terms (combiner.features_version fingerprints them). Other
languages with spaces between words use the Snowball stemmer of that language where there is
one; Chinese, Japanese, Korean and Thai, written without spaces (or with particles glued on), are
read as overlapping character pairs, which lets retrieval rank windows without a segmenter.
"""

from __future__ import annotations

import bisect
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache, lru_cache
from types import MappingProxyType

from .. import languages
from ..records import Words

__all__ = ["DETECTED", "NAMES", "UNDETERMINED", "Lexicon", "detect_language", "lexicon", "own_script"]

# What detect_language returns for Latin-script text it cannot tell (ISO 639-2 / BCP 47 "und").
UNDETERMINED = "und"


# The languages told apart, by the script they are written in: every language with a file in
# companion/languages/ (its `detection.scripts`). More than the models read, so that a German,
# Greek or Thai page is named as itself and judges.py says it was not checked, rather than being
# read as French or English because those were the only choices. py3langid chooses within a
# script of several languages; a script of one language names it outright. A language is listed
# first under its own first script: Han alone is Chinese unless the page declares Japanese or
# Korean, whose first scripts are kana and Hangul.
@cache
def _by_script() -> Mapping[str, tuple[str, ...]]:
    found: dict[str, list[tuple[bool, str]]] = {}
    for code in languages.codes():
        for i, script in enumerate(_record(code).detection.scripts):
            found.setdefault(script, []).append((i > 0, code))
    return MappingProxyType(
        {script: tuple(code for _, code in sorted(pairs)) for script, pairs in found.items()}
    )


def _record(code: str) -> languages.Language:
    record = languages.language(code)
    if record is None:
        raise LookupError(f"no file for {code!r} in {languages.FOLDER}")
    return record


DETECTED = tuple(dict.fromkeys(code for codes in _by_script().values() for code in codes))
NAMES: Mapping[str, str] = MappingProxyType(
    {**{code: _record(code).name for code in DETECTED}, UNDETERMINED: "an unidentified language"}
)

# The first code point of each block and its script (None: not a letter of a script told here).
# Latin covers Basic Latin to IPA and Latin Extended Additional (Vietnamese's stacked marks).
_BLOCKS = (
    (0x0000, "Latin"),
    (0x02B0, None),
    (0x0370, "Greek"),
    (0x0400, "Cyrillic"),
    (0x0530, "Armenian"),
    (0x0590, "Hebrew"),
    (0x0600, "Arabic"),
    (0x0780, None),
    (0x0900, "Devanagari"),
    (0x0980, "Bengali"),
    (0x0A00, None),
    (0x0B80, "Tamil"),
    (0x0C00, None),
    (0x0E00, "Thai"),
    (0x0E80, None),
    (0x10A0, "Georgian"),
    (0x1100, "Hangul"),
    (0x1200, None),
    (0x1C80, "Cyrillic"),
    (0x1C90, "Georgian"),
    (0x1CC0, None),
    (0x1E00, "Latin"),
    (0x1F00, "Greek"),
    (0x2000, None),
    (0x2C00, None),
    (0x2DE0, "Cyrillic"),
    (0x2E00, None),
    (0x3040, "Kana"),
    (0x3100, None),
    (0x3130, "Hangul"),
    (0x3190, None),
    (0x31F0, "Kana"),
    (0x3200, None),
    (0x3400, "Han"),
    (0x4DC0, None),
    (0x4E00, "Han"),
    (0xA000, None),
    (0xA640, "Cyrillic"),
    (0xA6A0, None),
    (0xAC00, "Hangul"),
    (0xD7B0, None),
    (0xF900, "Han"),
    (0xFB00, None),
    (0xFB1D, "Hebrew"),
    (0xFB50, "Arabic"),
    (0xFE00, None),
    (0xFE70, "Arabic"),
    (0xFF00, None),
    (0xFF21, "Latin"),  # full-width Latin letters
    (0xFF3B, None),
    (0xFF41, "Latin"),
    (0xFF5B, None),
    (0xFF66, "Kana"),  # half-width katakana
    (0xFFA0, "Hangul"),
    (0xFFE0, None),
    (0x20000, "Han"),
    (0x31350, None),
)
_BLOCK_STARTS = tuple(start for start, _ in _BLOCKS)
_UNKNOWN_SCRIPT = "unknown"
# Scripts that languages not told here write too, which langid knows (_another_language).
_SHARED_SCRIPTS = frozenset({"Latin", "Cyrillic", "Arabic", "Devanagari", "Bengali"})
# Japanese mixes kana into Han on every line; Chinese has none. This share of kana among the
# Han and kana letters tells them apart (a Chinese text quoting one Japanese word stays Chinese).
_KANA_SHARE = 0.1
# A Han character, kana or Hangul syllable stands for a syllable or a word: worth two letters of
# an alphabet when scripts are weighed against each other in a mixed text.
_SYLLABIC = {"Han": 2, "Kana": 2, "Hangul": 2}
_MIXED_SHARE = 0.3
# Romanised Hindi and Urdu ("Wo ghar nahi gaya"), common in answers from South Asia, are in no
# model's languages and langid has no class for them: their commonest function words tell them
# (`detection.romanised_words` of the language files).
_ROMANISED_SHARE = 0.2
_WORDS = re.compile(r"[^\W\d_]+")
# Letters only one language uses among the Latin-script languages told here (`detection.letters`:
# Vietnamese's, not ă or â: Romanian).
_OWN_LETTERS_SHARE = 0.05

_DEFAULT = "en"
_MIN_CONFIDENCE = 0.9
_ENGLISH_ODDS = 20.0  # measured on XNLI dev: the lowest that keeps every English pair English
_MIN_LETTERS = 20
# The letters a sentence needs in another script than its answer's to be read in its own language.
_OWN_SCRIPT_LETTERS = 4
_SAMPLE_CHARS = 4_000  # the start of a page is enough, and keeps detection under a millisecond


@cache
def _identifier():  # type: ignore[no-untyped-def]
    """The langid model over every language it knows, read once (about a second) and never
    changed after: one instance, read by the event loop and the extraction threads at once.
    _ranked narrows its ranking to the languages told apart."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _script_of(char: str) -> str | None:
    return _BLOCKS[bisect.bisect_right(_BLOCK_STARTS, ord(char)) - 1][1]


def _scripts(sample: str) -> Counter[str]:
    """How many letters of `sample` each script has, with the vowel signs of Thai, Devanagari or
    Arabic: they are marks, not letters, to Unicode, but half of what those scripts write. Letters
    of a script not told here (Ethiopic, Sinhala, Khmer…) count as _UNKNOWN_SCRIPT: left out, an
    Amharic text read as the Latin of its digits and names."""
    return Counter(
        _script_of(c) or _UNKNOWN_SCRIPT
        for c in sample
        if c.isalpha() or (unicodedata.category(c) == "Mn" and _script_of(c) is not None)
    )


def _main_script(sample: str) -> str:
    """The script of `sample`'s language, Han and kana read together as Japanese when kana are a
    fair share of them. Another script than Latin is it when it outweighs Latin (_SYLLABIC), when
    the Latin letters are all in capitalised words (names, acronyms: "Hillary Clinton은…"), or,
    where it holds a fair share (_MIXED_SHARE), when langid reads the whole as one of its languages
    far ahead of English (_ENGLISH_ODDS): a Russian answer full of code and English terms is
    Russian, "Moscow (Москва) is the capital of Russia." English."""
    scripts = _scripts(sample)
    han, kana = scripts.pop("Han", 0), scripts.pop("Kana", 0)
    if han or kana:
        scripts["Kana" if kana >= _KANA_SHARE * (han + kana) else "Han"] = han + kana
    weighed = Counter({script: n * _SYLLABIC.get(script, 1) for script, n in scripts.items()})
    other = next((s for s, _ in weighed.most_common() if s != "Latin"), None)
    if other is None:
        return "Latin"
    if weighed[other] > weighed["Latin"] or not _has_common_word(sample):
        return other
    if other != _UNKNOWN_SCRIPT and weighed[other] >= _MIXED_SHARE * weighed.total():
        ranked = _ranked(sample, (*_by_script()[other], *_by_script()["Latin"]))
        if max(ranked[code] for code in _by_script()[other]) >= _ENGLISH_ODDS * ranked["en"]:
            return other
    return "Latin"


def _has_common_word(sample: str) -> bool:
    """Whether a Latin-script word of `sample` starts in lower case: a word, not a name."""
    return any(len(w) > 1 and w[0].islower() and _script_of(w[0]) == "Latin" for w in _WORDS.findall(sample))


@lru_cache(maxsize=64)
def _rank(sample: str) -> tuple[tuple[str, float], ...]:
    """langid's probabilities over every language it knows, most probable first: a detection asks
    for them twice (_ranked, _another_language)."""
    return tuple((str(code), float(p)) for code, p in _identifier().rank(sample))


def _ranked(sample: str, languages: Iterable[str]) -> dict[str, float]:
    """langid's probabilities for `languages` alone, summing to 1."""
    wanted = set(languages)
    ranked = {code: p for code, p in _rank(sample) if code in wanted}
    total = sum(ranked.values()) or 1.0
    return {code: p / total for code, p in ranked.items()}


def detect_language(text: str, *, declared: str = "") -> str:
    """The ISO 639-1 code of `text`'s language, or UNDETERMINED; `declared` (a page's `lang`
    attribute) decides when the text itself cannot tell among its script's languages."""
    sample = unicodedata.normalize("NFC", text[:_SAMPLE_CHARS])
    hint = declared.split("-")[0].strip().lower()
    script = _main_script(sample)
    if script == _UNKNOWN_SCRIPT:
        return UNDETERMINED
    if script != "Latin":
        found = _within_script(sample, _by_script()[script], hint)
    else:
        found = _latin(sample, hint if hint in DETECTED else "")
    if script in _SHARED_SCRIPTS and found not in (UNDETERMINED, hint) and _another_language(sample, found):
        return UNDETERMINED
    return found


def own_script(part: str, whole: str) -> bool:
    """Whether `part` of `whole` (a sentence of an answer) is written in a script of its own: not
    Latin, and not the script of `whole`'s language. Latin text inside an answer in another
    script (a product name, a line of code, an English title) keeps the answer's language, as it
    did: telling its language apart needs more words than a sentence has. So does Han inside a
    Japanese or Korean answer: a line of kanji alone (a name, an address, a heading) is Japanese
    there, not Chinese. A few letters of another script are a symbol, not a language ("α = 0.05.")."""
    script, answer = _script_of_text(part), _script_of_text(whole)
    if script in ("Latin", _UNKNOWN_SCRIPT, answer):
        return False
    if sum(n for s, n in _scripts(part).items() if s != "Latin") < _OWN_SCRIPT_LETTERS:
        return False
    return not (script == "Han" and answer in ("Kana", "Hangul"))


@lru_cache(maxsize=16)
def _script_of_text(text: str) -> str:
    """_main_script of a text's start; cached, as an answer is asked once for each sentence."""
    return _main_script(unicodedata.normalize("NFC", text[:_SAMPLE_CHARS]))


def _another_language(sample: str, found: str) -> bool:
    """Whether langid, free to name any language it knows, names one not told apart here, sure of
    it (_MIN_CONFIDENCE) and far ahead of `found` (_ENGLISH_ODDS): chosen among the languages told
    apart, Romanian came out English and Serbian Russian, and a model judged them on another
    language's figure. Short or list-like text it is unsure of ("Nairobi, Kenya": Kikuyu at 0.24)
    keeps the detector's choice."""
    ranked = _rank(sample)
    top, p = ranked[0]
    return (
        top not in DETECTED
        and p >= _MIN_CONFIDENCE
        and p >= _ENGLISH_ODDS * next((q for code, q in ranked if code == found), 0.0)
    )


def _within_script(sample: str, languages: tuple[str, ...], hint: str) -> str:
    """The language of a text in another script than Latin: never English, however short."""
    if hint in languages or len(languages) == 1 or languages == _by_script()["Han"]:
        return hint if hint in languages else languages[0]
    ranked = _ranked(sample, languages)
    return max(ranked, key=ranked.__getitem__)


@cache
def _own_letters() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple(
        (code, re.compile(_record(code).detection.letters))
        for code in _by_script()["Latin"]
        if _record(code).detection.letters
    )


@cache
def _romanised_words() -> frozenset[str]:
    return frozenset().union(*(_record(code).detection.romanised_words for code in DETECTED))


def _latin(sample: str, hint: str) -> str:
    letters = [c for c in sample if c.isalpha()]
    for code, own in _own_letters():
        if len(own.findall(sample)) >= max(2, _OWN_LETTERS_SHARE * len(letters)):
            return code
    words = [w.lower() for w in _WORDS.findall(sample)]
    romanised = [w for w in words if w in _romanised_words()]
    if len(set(romanised)) >= 2 and len(romanised) >= _ROMANISED_SHARE * len(words):
        return hint or UNDETERMINED
    if (len(letters) < _MIN_LETTERS and not _has_common_word(sample)) or len(letters) < 2:
        return hint or _DEFAULT
    ranked = _ranked(sample, _by_script()["Latin"])
    top = max(ranked, key=ranked.__getitem__)
    if top != "en" and ranked[top] >= _ENGLISH_ODDS * ranked["en"]:
        if ranked[top] >= _MIN_CONFIDENCE:
            return top
        return hint or UNDETERMINED
    return hint if hint and ranked["en"] < _MIN_CONFIDENCE else "en"


# --- lexicons ----------------------------------------------------------------------------------

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.,]\d+)*")
_EN_NAME = re.compile(r"\b[A-Z][a-zA-Z'’-]+")
_EN_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

# Function words carry no evidence (`lexicon.stopwords`); a short list beats a library for this job.

# Unicode letters for the languages that have accents; "l'œil" is "œil", "qu'elle" is "elle"
# (`lexicon.elisions`, _eliding).
_WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*|\d+(?:[  \u202f]\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[^\W\d_a-zà-ÿ][^\W\d_'’-]+")
# "2 300", "2 300,5" (spaces, no-break or narrow no-break, between thousands) and "1,5".
_FR_NUMBER = re.compile(r"\d+(?:[  \u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?(?:\.\d+)*")


_MEMO_WORDS = 200_000  # distinct words a lexicon remembers the terms of (a few tens of MB at most)


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
    # A cleaned word → the terms it makes: itself, or its character pairs where a script writes
    # no spaces between words (Chinese, Japanese, Korean, Thai).
    pieces: Callable[[str], Iterable[str]] = lambda word: (word,)
    # A word as found → its terms. Words recur on a page and across pages, and reading one costs a
    # clean, a split and a stem: two thirds of reading a page (issue 38). Bounded by _MEMO_WORDS.
    _terms_of: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, compare=False, repr=False)

    def terms(self, text: str) -> list[str]:
        """Stemmed, lower-cased content words and numbers of `text`, in order."""
        memo, terms = self._terms_of, list[str]()
        for raw in self.word.findall(text):
            found = memo.get(raw)
            if found is None:
                if len(memo) >= _MEMO_WORDS:
                    memo.clear()
                found = memo[raw] = tuple(
                    self.stem(word)
                    for word in self.pieces(self.clean(raw.lower()))
                    if word and word not in self.stopwords
                )
            terms.extend(found)
        return terms

    def numbers(self, text: str) -> list[str]:
        return [self.to_number(n) for n in self.number.findall(text)]

    def words(self, text: str) -> Words:
        """`text`'s terms in order, its numbers and names: everything a stage reads of it."""
        terms = tuple(self.terms(text))
        return Words(
            text,
            self.language,
            terms,
            frozenset(terms),
            frozenset(self.numbers(text)),
            frozenset(self.names(text)),
            text.lower(),
        )

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


def _ascii_digits(text: str) -> str:
    """Devanagari, Arabic-Indic, Thai and every other script's decimal digits as ASCII ones
    ("१८८९" → "1889"): a page and a claim may write the same number in either."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def _native_number(number: str) -> str:
    return _english_number(_ascii_digits(number))


def _native_clean(word: str) -> str:
    return _english_clean(_ascii_digits(word))


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
    return _french_number(word) if word[0].isdigit() else word.strip("'’-")


def _eliding(clean: Callable[[str], str], elisions: tuple[str, ...]) -> Callable[[str], str]:
    """`clean` of a word less the article or pronoun elided before it ("l'", "qu'")."""
    elision = re.compile(rf"^(?:{'|'.join(elisions)})['’]", re.IGNORECASE)

    def eliding(word: str) -> str:
        if word[0].isdigit():
            return clean(word)
        rest = elision.sub("", word)
        return clean(rest) if rest else ""

    return eliding


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


# Numbers as each language writes them (issue 39, `lexicon.numbers`): thousands with dots and a
# decimal comma ("dot thousands": "1.000,5"), or thousands with spaces and a decimal comma ("space
# thousands": "1 000,5", as French); the others ("native") as English, in their own script's digits
# too ("१८८९", _ascii_digits). Chinese, Japanese and Korean ("cjk") add 万/億 (`lexicon.pairs.myriads`)
# and full-width digits.
_DOT_WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*|\d+(?:[.,]\d+)*")
# As French, but with the no-break space (U+00A0) too: the French patterns lack it, and adding it
# there would change French verdicts, which this issue leaves as they are.
_SPACED = "[ \u00a0\u202f]"
_SPACE_NUMBER = re.compile(rf"\d+(?:{_SPACED}\d{{3}})+(?:,\d+)?|\d+(?:,\d+)?(?:\.\d+)*")
_SPACE_WORD = re.compile(rf"[^\W\d_][^\W\d_'’-]*|{_SPACE_NUMBER.pattern}")

# Runs of the scripts written without spaces between words (`lexicon.pairs.run`), read as
# character pairs: retrieval can rank windows by shared pairs without a word segmenter (none ships
# for these languages).


@cache
def _myriads() -> Mapping[str, int]:
    """The number units written after digits ("700万") of every language, in any of them."""
    return MappingProxyType({k: v for code in DETECTED for k, v in _record(code).lexicon.myriads.items()})


@cache
def _cjk_number_pattern() -> re.Pattern[str]:
    return re.compile(rf"(?:\d+(?:[.,．，]\d+)*[{''.join(_myriads())}]?)+")


_FULL_WIDTH = str.maketrans("．，", ".,")
_LATIN_WORD = "[A-Za-zÀ-ɏ][A-Za-zÀ-ɏ'’-]*"
# A capitalised Latin word is a name even when glued to the characters around it ("在Apple").
_PAIRED_NAME = re.compile(r"(?<![A-Za-z])[A-Z][a-zA-Z'’-]+")


def _cjk_number(number: str) -> str:
    """ "700万" → "7000000", "1.5億" → "150000000", "１，０００" → "1000"."""
    digits = _ascii_digits(number).translate(_FULL_WIDTH)
    parts = re.findall(r"([\d.,]+)(\D?)", digits)
    if len(parts) == 1 and not parts[0][1]:
        return _english_number(digits)
    total = sum(
        (Decimal(_english_number(value)) * _myriads().get(unit, 1) for value, unit in parts), Decimal(0)
    )
    return format(total.normalize(), "f")


def _pairs(word: str) -> list[str]:
    """Overlapping character pairs of a run of a script without spaces (a run of one character
    stays whole)."""
    return [word[i : i + 2] for i in range(len(word) - 1)] or [word]


def _pairs_but(skip: re.Pattern[str]) -> Callable[[str], list[str]]:
    """Pairs, less those made only of `skip`'s letters: in Japanese, pairs of hiragana alone are
    endings and particles ("まし", "した"), left out as stop words."""
    return lambda word: [pair for pair in _pairs(word) if not skip.fullmatch(pair)]


def _run_pieces(run: re.Pattern[str], pairs: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """A token's terms: character pairs for a run of the script, the token itself otherwise (a
    number, a Latin word)."""
    return lambda token: pairs(token) if run.fullmatch(token) else [token]


def _paired_lexicon(record: languages.Language) -> Lexicon:
    words = record.lexicon
    cjk = words.numbers == "cjk"
    number = _cjk_number_pattern() if cjk else _EN_NUMBER
    word = re.compile(rf"{number.pattern}|[{words.pair_run}ー]+|{_LATIN_WORD}")
    run_of = re.compile(rf"[{words.pair_run}ー]+")
    to_number = _cjk_number if cjk else _native_number

    def clean(token: str) -> str:
        return to_number(token) if token[0].isdecimal() else token.strip("'’-")

    pairs = _pairs_but(re.compile(f"[{words.pair_skip}]+")) if words.pair_skip else _pairs
    pieces = _run_pieces(run_of, pairs)
    return Lexicon(
        record.code, words.stopwords, clean, _identity, word, _PAIRED_NAME, number, to_number, pieces
    )


def _identity(word: str) -> str:
    return word


def _stemmer(name: str) -> Callable[[str], str]:
    """The stemmer a language file names: English's own, or Snowball's where the installed
    snowballstemmer has that algorithm."""
    import snowballstemmer

    if name == "light english":
        return _english_stem
    return _snowball(name) if name in snowballstemmer.algorithms() else _identity


def _comma_decimal(number: str) -> str:
    """ "1.000,5" and "1 000,5" → "1000.5"; "1.000" → "1000"; "1.5" stays."""
    return _french_number(re.sub(_SPACED, "", number))


def _comma_clean(word: str) -> str:
    return _comma_decimal(word) if word[0].isdecimal() else word.strip("'’-")


# How each style of `lexicon.numbers` cleans a word, finds words, names and numbers, and writes a
# number in one canonical form.
_STYLES: Mapping[
    str,
    tuple[Callable[[str], str], re.Pattern[str], re.Pattern[str], re.Pattern[str], Callable[[str], str]],
] = MappingProxyType(
    {
        "english": (_english_clean, _EN_WORD, _EN_NAME, _EN_NUMBER, _english_number),
        "french": (_french_clean, _WORD, _NAME, _FR_NUMBER, _french_number),
        "space thousands": (_comma_clean, _SPACE_WORD, _NAME, _SPACE_NUMBER, _comma_decimal),
        "dot thousands": (_comma_clean, _DOT_WORD, _NAME, _EN_NUMBER, _comma_decimal),
        "native": (_native_clean, _DOT_WORD, _NAME, _EN_NUMBER, _native_number),
    }
)


@cache
def lexicon(language: str) -> Lexicon:
    """The lexicon of `language`; a language without one of its own (UNDETERMINED, a code not
    detected here) reads as English. Stop words are those of its file (none for most: the stems
    alone still match inflected forms)."""
    record = _record(language if language in DETECTED else "en")
    words = record.lexicon
    if words.pair_run:
        return _paired_lexicon(record)
    style = _STYLES.get(words.numbers)
    if style is None:
        raise languages.LanguageFileError(
            languages.FOLDER / f"{record.code}.json", "lexicon.numbers", f"is none of {sorted(_STYLES)}"
        )
    clean, word, name, number, to_number = style
    if words.elisions:
        clean = _eliding(clean, words.elisions)
    stem = _stemmer(words.stemmer)
    return Lexicon(record.code, words.stopwords, clean, stem, word, name, number, to_number)
