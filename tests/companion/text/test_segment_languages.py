"""Sentence splitting for the languages pysbd does not cover or covers badly (issue 39 item 4):
Japanese and Chinese end sentences with 。！？ and put no spaces between them; pysbd's Arabic rules
end a sentence at the Arabic comma. Spans stay exact: text[start:end] is the sentence."""

from __future__ import annotations

import pytest

from companion.records import Citation
from companion.text.segment import split_sentences, statements


def _sentences(text: str, language: str) -> list[str]:
    spans = split_sentences(text, language)
    assert all(text[s:e].strip() == text[s:e] for s, e in spans)
    return [text[s:e] for s, e in spans]


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        (
            "ja",
            "エッフェル塔は1887年に着工した。高さは330.5メートル！本当？彼は「そうです。」と言った。",
            [
                "エッフェル塔は1887年に着工した。",
                "高さは330.5メートル！",
                "本当？",
                "彼は「そうです。」と言った。",
            ],
        ),
        (
            "zh",
            "埃菲尔铁塔高330米。它建于1889年！每年约有700万人参观？他说：“是的。”然后离开了。价格是3.5元。",
            [
                "埃菲尔铁塔高330米。",
                "它建于1889年！",
                "每年约有700万人参观？",
                "他说：“是的。”然后离开了。",
                "价格是3.5元。",
            ],
        ),
        ("zh", "真的吗？！是的……我知道。", ["真的吗？！", "是的……我知道。"]),
        (
            "ar",
            "ذهبت إلى السوق، واشتريت خبزا بسعر 3.5 دينار. هل أنت هنا؟ نعم!",
            ["ذهبت إلى السوق، واشتريت خبزا بسعر 3.5 دينار.", "هل أنت هنا؟", "نعم!"],
        ),
    ],
)
def test_sentences_end_where_the_language_ends_them(language, text, expected):
    assert _sentences(text, language) == expected


def test_a_long_chinese_paragraph_is_split_at_its_full_stops_not_at_a_length():
    sentence = "这座塔位于巴黎，建于一八八九年，是当时世界上最高的建筑物之一"
    text = "。".join([sentence] * 200) + "。"  # one line of 6,200 characters without a space
    assert _sentences(text, "zh") == [sentence + "。"] * 200


def test_citation_markers_in_japanese_stay_with_their_sentence():
    text = "東京タワーは1958年に完成した。[1]高さは333メートルである。[2]"
    cites = [
        Citation("c1", "1", "https://a.example/", text.index("[1]")),
        Citation("c2", "2", "https://b.example/", text.index("[2]")),
    ]
    found = statements(text, cites)
    assert [s.text for s in found] == ["東京タワーは1958年に完成した。", "高さは333メートルである。"]
    assert [[c.id for c in s.citations] for s in found] == [["c1"], ["c2"]]
    assert {s.language for s in found} == {"ja"}
    assert [text[s.span[0] : s.span[1]] for s in found] == [s.text for s in found]


def test_an_unclosed_quote_does_not_swallow_the_rest_of_the_page():
    text = "他说：“这是开始。" + "这是后面的句子，很长很长很长。" * 30
    assert len(_sentences(text, "zh")) > 20


@pytest.mark.parametrize(
    ("answer", "languages"),
    [
        # A sentence in another script than the answer's is in its own language: judging this
        # Japanese sentence as English would judge it blind (issue 39 item 6).
        (
            "The tower was built for the 1889 World's Fair and is 330 metres tall. "
            "エッフェル塔は毎年約700万人が訪れる観光名所です。 It was designed by Gustave Eiffel's company.",
            ["en", "ja", "en"],
        ),
        ("埃菲尔铁塔于1887年至1889年间为世界博览会而建造。 에펠탑은 높이가 330미터이다.", ["zh", "ko"]),
        # Latin text in another script's answer keeps the answer's language: a product line or a
        # title has too few words to tell its own.
        ("埃菲尔铁塔于1887年至1889年间建造。 iPhone 15 Pro Max.", ["zh", "zh"]),
        # So does a line of kanji alone in a Japanese answer: a name or an address, not Chinese.
        ("エッフェル塔はパリにあります。 東京都港区芝公園四丁目。", ["ja", "ja"]),
        # A symbol of another script is not a sentence in another language.
        ("The test used a significance level of five percent. α = 0.05.", ["en", "en"]),
        # A few words of another script inside a sentence leave it in the answer's language.
        (
            "The novel 吾輩は猫である was published in 1905. Moscow (Москва) is the capital of Russia.",
            ["en", "en"],
        ),
    ],
)
def test_a_sentence_in_another_script_than_its_answer_is_in_its_own_language(answer, languages):
    cited = [Citation("c1", "1", "https://page.example/", len(answer))]
    assert [s.language for s in statements(answer, cited)] == languages
