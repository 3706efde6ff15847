"""Every language of the checked sets is told apart, and none is read as English blind (issue 39
item 6): XNLI dev and the native sets as realistic text per language (../shared/data beside the
clone in CI; a missing file fails), the script guard on short and mixed text, and what unsure
Latin-script text becomes."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from companion.text.language import DETECTED, NAMES, UNDETERMINED, detect_language

MULTILINGUAL = Path(__file__).resolve().parents[4] / "shared" / "data" / "multilingual"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "real-pages"
XNLI = ("ar", "bg", "de", "el", "en", "es", "fr", "hi", "ko", "ru", "sw", "th", "tr", "ur", "vi", "zh")
NATIVE = {
    "ja": "jnli_ja_dev",
    "zh": "ocnli_zh_train",
    "pt": "assin2_pt_dev",
    "es": "inferes_es_train",
    "ru": "terra_ru_train",
    "de": "deforumte_de_dev",
    "it": "erte3_it_dev",
    "id": "indonli_id_dev",
}
NATIVE_ROWS = 1_500  # the train files are long; this many say as much


@cache
def _rows(name: str, limit: int | None = None) -> tuple[dict[str, str], ...]:
    path = MULTILINGUAL / f"{name}.jsonl.gz"
    assert path.exists(), f"{path} is missing: CI runs with ../shared beside the clone"
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return tuple(json.loads(line) for _, line in zip(range(limit or 10**9), lines, strict=False))


def _shares(texts: list[str], language: str) -> Counter[str]:
    found = Counter(detect_language(t) for t in texts)
    return Counter({k: v / len(texts) for k, v in found.items()})


# Per language: the least share of XNLI dev hypotheses (one short sentence each, the hardest case,
# as a one-sentence answer) and of premises detected as that language, and the most detected as
# English. Measured after issue 39 and set about a point below (above for English). Before it, el,
# hi, th, sw, vi were English for 92-100 % of them and bg, ur never themselves. What is still read
# as English in a non-Latin set is English left untranslated ("He never visited his family.") or,
# in hi and ur, romanised Hindi and Urdu that shares no word with _HINDUSTANI.
DETECTION = {
    "ar": (0.99, 0.005), "bg": (0.98, 0.005), "de": (0.96, 0.015), "el": (0.99, 0.005),
    "en": (1.0, 1.0), "es": (0.9, 0.015), "fr": (0.97, 0.015), "hi": (0.94, 0.015),
    "ko": (1.0, 0.0), "ru": (0.98, 0.005), "sw": (0.96, 0.015), "th": (0.99, 0.007),
    "tr": (0.97, 0.01), "ur": (0.91, 0.025), "vi": (0.99, 0.005), "zh": (0.99, 0.003),
}  # fmt: skip


@pytest.mark.parametrize("language", XNLI)
def test_each_xnli_language_is_detected_as_itself_and_never_blind_as_english(language):
    rows = _rows(f"xnli_{language}_dev")
    least, english = DETECTION[language]
    for texts in ([r["hypothesis"] for r in rows], list(dict.fromkeys(r["premise"] for r in rows))):
        shares = _shares(texts, language)
        assert shares[language] >= least, shares.most_common(4)
        assert language == "en" or shares["en"] <= english, shares.most_common(4)


# The native sets, hypotheses: the least share detected as the language and the most as English.
# Italian RTE hypotheses are often a name, a verb and a year ("Swift morì 1745."): names read alike.
NATIVE_DETECTION = {
    "ja": (0.99, 0.0), "zh": (0.99, 0.0), "pt": (0.93, 0.01), "es": (0.95, 0.01),
    "ru": (0.94, 0.005), "de": (0.99, 0.01), "it": (0.82, 0.08), "id": (0.96, 0.015),
}  # fmt: skip


@pytest.mark.parametrize(("language", "name"), sorted(NATIVE.items()))
def test_native_sets_are_detected_as_their_language(language, name):
    least, english = NATIVE_DETECTION[language]
    shares = _shares([r["hypothesis"] for r in _rows(name, NATIVE_ROWS)], language)
    assert shares[language] >= least, shares.most_common(4)
    assert shares["en"] <= english, shares.most_common(4)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("เขาไม่ได้พูดสักคำ", "th"),  # Thai: no spaces, short
        ("Δεν είπε λέξη.", "el"),
        ("उसने कुछ नहीं कहा।", "hi"),
        ("그는 아무 말도 하지 않았다.", "ko"),
        ("東京タワーは高い。", "ja"),  # kana: Japanese
        ("他一句话也没说。", "zh"),  # Han alone: Chinese
        ("Он ничего не сказал.", "ru"),
        ("Той не каза и дума.", "bg"),
        ("اس نے کچھ نہیں کہا۔", "ur"),
        ("لم يقل كلمة.", "ar"),
        ("Anh ấy không nói một lời nào.", "vi"),
        ("Tôi đã cố hiểu.", "vi"),  # short, but its letters are Vietnamese's own
        # Mixed: the script most of the letters are in decides, English names or not.
        ("iPhone 15 ของ Apple ขายดีมากในประเทศไทย", "th"),
        ("Apple의 iPhone은 한국에서 잘 팔린다.", "ko"),
        ("東京", "zh"),  # two Han characters tell nothing more
    ],
)
def test_a_short_or_mixed_text_in_another_script_is_never_english(text, language):
    assert detect_language(text) == language


def test_a_text_mixing_scripts_is_in_the_language_langid_reads_far_ahead_of_english():
    # A real Perplexity answer in Russian, half of it code and English terms (Latin letters
    # outnumber Cyrillic ones in its first 4,000 characters).
    page = json.loads(
        (FIXTURES / "perplexity--ozand-bookmark-postgresql-deep-research-2026-01.expected.json").read_text()
    )
    assert detect_language(page["text"]) == "ru"
    # English quoting another script stays English.
    assert detect_language("Moscow (Москва) is the capital of Russia.") == "en"
    assert detect_language("The Greek word for truth is αλήθεια.") == "en"
    assert detect_language("The Forbidden City (紫禁城) is in Beijing.") == "en"


def test_the_declared_language_decides_what_the_script_cannot():
    assert detect_language("東京", declared="ja-JP") == "ja"
    assert detect_language("東京", declared="en") == "zh"  # a lang attribute cannot make Han English
    assert detect_language("Той не каза и дума.", declared="bg") == "bg"


def test_unsure_latin_text_is_undetermined_unless_it_reads_as_english_or_a_page_declares_it():
    # Swahili and Indonesian one-liners are not English (before issue 39: "en", judged blind).
    assert detect_language("Hakusema chochote.") in {"sw", UNDETERMINED}
    assert detect_language("Sikuwa shabiki wake kamwe.") in {"sw", UNDETERMINED}
    assert detect_language("Ia tinggal di Eropa.") in {"id", UNDETERMINED}
    # Names and numbers alone name no language: they stay English, or the declared language.
    assert detect_language("Paris, 1889") == "en"
    assert detect_language("Jakarta") == "en"
    assert detect_language("Nairobi, Kenya") == "en"
    assert detect_language("Paris, 1889", declared="fr") == "fr"
    # Short English with names or loanwords stays English.
    for english in ("Esponosa died in 1900.", "Bruce apologizes.", "He didn't say a word.", "Yes."):
        assert detect_language(english) == "en", english
    # A page that says its language decides an unsure text.
    assert detect_language("Hakusema chochote.", declared="sw") == "sw"


def test_every_detected_language_has_a_name_in_words():
    assert set(DETECTED) <= NAMES.keys()
    assert NAMES[UNDETERMINED] == "an unidentified language"
    assert all(NAMES[code][0].isupper() for code in DETECTED)
    assert UNDETERMINED not in DETECTED
