"""Languages (text/language.py, issue 14): detection per answer and per page, French words and
numbers, and the choice of model per statement, through the real pipeline with a deterministic NLI
double; then detection of every checked language, lexicons per language, and the pins of English
and French reading."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib import resources
from pathlib import Path

import pytest

from companion.config import Judging, Limits, Retrieval
from companion.judging.combiner import features_version, overlap
from companion.judging.judge import Judge
from companion.judging.judges import Judges
from companion.model.folder import ModelConfig, default_model_dir, load_config
from companion.pipeline import SourceLoader, Verifier
from companion.records import Citation, PageInfo, StatementJudgment, VerifyRequest
from companion.sources.extract import html_to_document
from companion.text.analysis import analyse
from companion.text.language import DETECTED, NAMES, UNDETERMINED, detect_language, lexicon
from companion.text.segment import split_sentences, statements

from ..fakes import MemoryFetcher, WordNLI, fake_model

FRENCH = (
    "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie. "
    "On lit souvent qu'elle est visible depuis la Lune à l'œil nu. C'est faux : aucun astronaute "
    "ne l'a jamais vue depuis la Lune."
)
ENGLISH = "The Great Barrier Reef stretches for more than 2,300 kilometres off the coast of Australia."


def test_the_language_of_an_answer_and_of_a_page_is_detected():
    assert detect_language(FRENCH) == "fr"
    assert detect_language(ENGLISH) == "en"
    # Too short to tell: the page's own lang attribute decides, and English without one.
    assert detect_language("Paris, 1889", declared="fr-FR") == "fr"
    assert detect_language("Paris, 1889") == "en"
    document = html_to_document(
        "https://a.example/", f"<html><body><p>{FRENCH}</p></body></html>", max_chars=10_000
    )
    assert document.language == "fr"
    assert [s.text for s in document.sentences][
        1
    ] == "On lit souvent qu'elle est visible depuis la Lune à l'œil nu."


# Languages the detector does not tell apart, each once read as a language a model judges (issue
# 39 item 6): as English (Romanian, Tagalog, Estonian, Welsh, Somali; Amharic, whose script it did
# not know), as Russian (Serbian), as Indonesian (Javanese).
NOT_TOLD_APART = {
    "ro": "Turnul Eiffel a fost construit pentru Expoziția Universală din 1889 și e făcut din fier forjat.",
    "tl": "Ang Eiffel Tower ay itinayo para sa World's Fair noong 1889 sa Paris at gawa ito sa bakal.",
    "et": "Eiffeli torn ehitati 1889. aasta Pariisi maailmanäituseks ja see on valmistatud sepisrauast.",
    "cy": "Adeiladwyd Tŵr Eiffel ar gyfer Ffair y Byd 1889 ym Mharis ac mae wedi'i wneud o haearn gyr.",
    "so": "Munaaradda Eiffel waxaa loo dhisay Bandhigga Adduunka ee 1889 ee Paris waxaana laga sameeyay bir.",
    "am": "የአይፍል ግንብ በ1889 ለፓሪስ የዓለም ትርኢት ተሠራ።",
    "sr": "Ајфелова кула је изграђена за Светску изложбу 1889. године и направљена је од кованог гвожђа.",
    "jv": "Menara Eiffel dibangun kanggo Pameran Donya 1889 ing Paris lan digawe saka wesi tempa.",
}


@pytest.mark.parametrize("language", sorted(NOT_TOLD_APART))
def test_a_language_the_detector_does_not_tell_apart_is_undetermined_not_another(language):
    assert detect_language(NOT_TOLD_APART[language]) == "und"


def test_french_words_are_stemmed_without_elisions_and_numbers_read_as_french_writes_them():
    words = lexicon("fr")
    assert words.terms("l'œil des astronautes visibles") == words.terms("œil astronaute visible")
    assert words.numbers("2 300 km, 1,5 million et 12\u202f000") == ["2300", "1.5", "12000"]
    # "2 300" in French and "2,300" in English are one number; "1,5" is not 15.
    assert set(words.numbers("2 300")) == set(lexicon("en").numbers("2,300"))
    page = analyse(FRENCH, "fr")

    def against_page(claim: str):
        return overlap(analyse(claim, "fr"), page.term_set, page.numbers, [page.lowered])

    assert against_page("Le récif mesure 2 300 kilomètres.").missing_numbers == 0.0
    assert against_page("Le récif mesure 2 400 kilomètres.").missing_numbers == 1.0
    assert against_page("La barrière s'étend sur des kilomètres.").coverage == 1.0


def test_english_words_read_exactly_as_the_default_model_was_fitted_to():
    # The shipped combiner refuses to run on other terms (features_version): English is unchanged.
    shipped = load_config(default_model_dir())
    assert shipped.features_version == features_version(Retrieval(), Judging())
    assert shipped.languages == ("en",)


def test_statements_are_split_in_the_answer_language_and_carry_it():
    answer = "Selon M. Dupont, le projet coûte env. 3 millions. Il a été lancé par Mme Martin."
    found = statements(answer, ())
    # pysbd's English rules end a sentence at "env."; its French ones know the abbreviation.
    assert [s.text for s in found] == [
        "Selon M. Dupont, le projet coûte env. 3 millions.",
        "Il a été lancé par Mme Martin.",
    ]
    assert {s.language for s in found} == {"fr"}


def _config(name: str, languages: tuple[str, ...]) -> ModelConfig:
    return dataclasses.replace(fake_model(), name=name, languages=languages)


ENGLISH_MODEL, MULTILINGUAL = _config("english", ("en",)), _config("multilingual", ("fr", "en"))
PAGES = {
    "https://fr.example/recif": f"<html><body><p>{FRENCH}</p></body></html>",
    "https://en.example/reef": f"<html><body><p>{ENGLISH} It is home to many species.</p></body></html>",
}


async def _verify(answer: str, urls: list[str]) -> list[StatementJudgment]:
    built: list[str] = []

    def build(config: ModelConfig) -> Judge:
        built.append(config.name)
        return Judge(WordNLI(), config)

    judges = Judges([ENGLISH_MODEL, MULTILINGUAL], build)
    citations, at = [], len(answer)
    for i, url in enumerate(urls):
        citations.append(Citation(f"c{i}", str(i + 1), url, at))
    with ThreadPoolExecutor(2) as pool:
        verifier = Verifier(judges, SourceLoader(MemoryFetcher(PAGES), None, Limits(), pool), pool)
        events = [e async for e in verifier.run(VerifyRequest(PageInfo(), answer, tuple(citations)))]
    return [e for e in events if isinstance(e, StatementJudgment)]


@pytest.mark.parametrize(
    ("answer", "urls", "model"),
    [
        (
            "The reef stretches for more than 2,300 kilometres off Australia.",
            ["https://en.example/reef"],
            "english",
        ),
        (
            "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie.",
            ["https://fr.example/recif"],
            "multilingual",
        ),
        # A French answer citing an English page: only the multilingual model reads both.
        (
            "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie.",
            ["https://en.example/reef"],
            "multilingual",
        ),
        # An English answer citing a French page too.
        (
            "The reef stretches for more than 2,300 kilometres off Australia.",
            ["https://fr.example/recif"],
            "multilingual",
        ),
    ],
)
async def test_each_statement_goes_to_the_model_whose_languages_hold_it_and_its_sources(answer, urls, model):
    (judged,) = await _verify(answer, urls)
    assert judged.model == model


async def test_a_french_answer_is_judged_with_french_words():
    judged = await _verify(
        "La Grande Barrière de corail s'étend sur plus de 2 300 kilomètres au large de l'Australie.",
        ["https://fr.example/recif"],
    )
    # WordNLI entails only when every content term of the claim is on the page: French stems and
    # "2 300" read as one number make that so.
    assert [j.judgment for j in judged] == ["complete_support"]


def test_a_language_no_model_holds_goes_to_the_default_model():
    judges = Judges([ENGLISH_MODEL, MULTILINGUAL], lambda c: Judge(WordNLI(), c))
    german = statements(
        "Das Riff ist vom Mond aus mit bloßem Auge nicht zu sehen, sagen die Astronauten.", ()
    )[0]
    assert german.language == "de"
    assert judges.choose(german, {}).name == "english"
    assert judges.loaded() == []  # choosing loads nothing


# Every language of the checked sets is told apart, and none is read as English blind (issue 39
# item 6): XNLI dev and the native sets as realistic text per language (../shared/data beside the
# clone in CI; a missing file fails), the script guard on short and mixed text, and what unsure
# Latin-script text becomes.

MULTILINGUAL_DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "multilingual"
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
    path = MULTILINGUAL_DATA / f"{name}.jsonl.gz"
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


# How words and numbers are read per language (issue 39 item 4), for when a model reads these
# languages: character pairs where words have no spaces between them, numbers in local formats,
# full-width digits. English and French are pinned at the end of this file (French reads
# "2 300", with a no-break space, as two numbers: left as it is, as it decides French verdicts).


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


# English and French text reads exactly as before issue 39 (more languages, CJK text): the
# terms, stems, numbers, names and sentences the shipped models' combiners and rules were fitted to.
#
# Each digest covers realistic text: the XNLI dev pairs of that language (../shared/data, beside the
# clone in CI; a missing file fails) and the bundled example answer. A change here changes English
# or French verdicts, so it must be deliberate, with the digests recomputed and the reason given.

ROWS = 600  # enough to cover numbers, names and elisions; reading them takes a fraction of a second


def _texts(language: str) -> list[str]:
    path = MULTILINGUAL_DATA / f"xnli_{language}_dev.jsonl.gz"
    assert path.exists(), f"{path} is missing: CI runs with ../shared beside the clone"
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for _, line in zip(range(ROWS), lines, strict=False)]
    texts = list(dict.fromkeys(t for row in rows for t in (row["premise"], row["hypothesis"])))
    example = json.loads((resources.files("companion.examples") / "answer.json").read_text("utf-8"))
    return [*texts, example["answer"]["text"], *EDGES]


# Numbers and words at the edges of the patterns: thousands, decimals, spaces, elisions, dashes.
EDGES = (
    "It cost $1,200.50 in 1998, 2,300 km and 1.5 million; 12 000 people, 2 300,5 m and 3.000.000.",
    "L'œil d'Hélène, qu'elle voit jusqu'à 12\u202f000 km : 1,5 million, 2\u00a0300 et 2.300.",
    "Ｔｈｅ ＦＵＬＬ－ｗｉｄｔｈ １２３ and 東京 700万 are not English words.",
    "Mr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3! Did he? Yes.",
)

PINNED = {
    "en": "7ac23abfebd89acf690f5d9bf3093935f5897e06493f9b466077cafbf42e5520",
    "fr": "87a0ec5428db8f524fbac503b6b36143bcbd87fd27cbe0a468f6677ae0a86141",
}


def _digest(language: str) -> str:
    words = lexicon(language)
    readings = [
        (words.terms(t), words.numbers(t), sorted(words.names(t)), split_sentences(t, language))
        for t in _texts(language)
    ]
    return hashlib.sha256(json.dumps(readings, ensure_ascii=False).encode()).hexdigest()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_english_and_french_read_as_before(language):
    assert _digest(language) == PINNED[language]
