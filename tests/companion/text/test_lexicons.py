"""How words and numbers are read per language (issue 39 item 4), for when a model reads these
languages: character pairs where words have no spaces between them, numbers in local formats,
full-width digits. English and French are pinned in test_language_pins.py (French reads
"2\u00a0300", with a no-break space, as two numbers: left as it is, as it decides French verdicts)."""

from __future__ import annotations

import pytest

from companion.text.language import lexicon


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        # Thousands with dots, decimals with a comma.
        ("de", "1.000,5 Meter, 2,5 km und 12.345.678 Menschen", ["1000.5", "2.5", "12345678"]),
        ("es", "1.000,5 metros y 2,5 km", ["1000.5", "2.5"]),
        ("it", "1.000,5 metri e 2,5 km", ["1000.5", "2.5"]),
        ("pt", "1.000,5 metros e 2,5 km", ["1000.5", "2.5"]),
        ("id", "1.000,5 meter dan 2,5 km", ["1000.5", "2.5"]),
        # Thousands with spaces, no-break or narrow no-break.
        ("ru", "1 000,5 метра, 2\u00a0300 и 12\u202f000 человек, 2,5 км", ["1000.5", "2300", "12000", "2.5"]),
        # 万 (10⁴) and 億 (10⁸), full-width digits.
        ("ja", "毎年700万人、総額1.5億円、人口3億5000万人", ["7000000", "150000000", "350000000"]),
        ("ja", "高さ３３３メートル、１，０００人", ["333", "1000"]),
        ("zh", "每年约700万人，投资2亿元，共1,000人", ["7000000", "200000000", "1000"]),
        ("ko", "매년 700만 명", ["7000000"]),
        # A script's own digits: Devanagari, Arabic-Indic (Arabic, and Urdu's extended ones), Thai.
        ("hi", "टॉवर १८८९ में बना और 330 मीटर ऊंचा है", ["1889", "330"]),
        ("ar", "بني عام ١٨٨٩ بارتفاع 330 مترا", ["1889", "330"]),
        ("ur", "۱۸۸۹ میں", ["1889"]),
        ("th", "สร้างในปี ๑๘๘๙ สูง 330 เมตร", ["1889", "330"]),
    ],
)
def test_numbers_in_local_formats_read_as_one_canonical_form(language, text, expected):
    assert lexicon(language).numbers(text) == expected


def test_the_same_quantity_is_one_number_across_languages():
    forms = {"en": "7,000,000", "de": "7.000.000", "fr": "7 000 000", "ja": "700万", "zh": "７００万"}
    assert {lexicon(language).numbers(text)[0] for language, text in forms.items()} == {"7000000"}
    # And a claim's number matches its page's whichever digits each writes: a term, not only a number.
    assert lexicon("hi").terms("१८८९") == lexicon("hi").terms("1889") == ["1889"]


def test_chinese_and_japanese_are_read_as_character_pairs():
    assert lexicon("zh").terms("埃菲尔铁塔高330米") == ["埃菲", "菲尔", "尔铁", "铁塔", "塔高", "330", "米"]
    # Pairs of hiragana alone are endings and particles: left out, as stop words are.
    assert lexicon("ja").terms("東京タワーは建設されました") == [
        "東京",
        "京タ",
        "タワ",
        "ワー",
        "ーは",
        "は建",
        "建設",
        "設さ",
    ]


def test_latin_names_inside_chinese_text_are_names():
    assert lexicon("zh").names("苹果公司的iPhone在Apple Store发售") == {"apple", "store"}


def test_character_pairs_let_a_claim_find_its_sentence():
    words = lexicon("ja")
    claim = set(words.terms("東京タワーの高さは333メートル"))
    page = [
        "東京タワーは1958年に完成した。",
        "東京タワーの高さは333メートルである。",
        "富士山は日本一高い山だ。",
    ]
    overlap = [len(claim & set(words.terms(sentence))) for sentence in page]
    assert overlap.index(max(overlap)) == 1 and overlap[1] > 2 * overlap[0]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("ru", "Книги лежат на столе, книга лежит на столе"),
        ("el", "Ο πύργος είναι ψηλός και οι πύργοι είναι ψηλοί"),
        ("tr", "Kitaplar masada, kitap masada"),
        ("bg", "Той не каза и дума"),
        ("th", "เขาไม่ได้พูดสักคำ"),
        ("ko", "그는 아무 말도 하지 않았다"),
        ("hi", "उसने कुछ नहीं कहा"),
    ],
)
def test_every_script_has_terms(language, text):
    words = lexicon(language)
    assert words.language == language
    assert words.terms(text), text


def test_snowball_stems_inflected_forms_alike():
    assert lexicon("ru").terms("книги") == lexicon("ru").terms("книга")
    assert lexicon("tr").terms("kitaplar") == lexicon("tr").terms("kitap")


def test_a_lexicon_reads_a_word_the_same_when_it_remembers_it_and_forgets_past_its_bound(monkeypatch):
    import companion.text.language as language_module

    text = "The towers were painted in 1889; the painters' ladders swayed. Les tours, l'œil, 東京タワー."
    for code in ("en", "fr", "ja"):
        words = lexicon(code)
        first, again = words.terms(text), words.terms(text)
        assert first == again and first
        monkeypatch.setattr(language_module, "_MEMO_WORDS", 3)
        words.terms("Entirely novel vocabulary here")
        assert len(words._terms_of) <= 3
        assert words.terms(text) == first
        monkeypatch.undo()
