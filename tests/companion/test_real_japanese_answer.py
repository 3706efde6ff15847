"""A real Japanese engine answer judged end to end (issue 39): the text and citations the ChatGPT
adapter captured from a real saved page (tests/fixtures/engines/real-pages/, checked against the
page by the extension's tests), posted to a real companion.

The cited sites cannot be reached from here, so each cited URL is given a stand-in page: short
texts we wrote about what those pages cover, not their words. The real pages are in English; a
Japanese sentence on an English page is read only where the model was measured reading across
that pair of languages, and no data here pairs Japanese with English, so those sentences are "not
checked" and say why. On stand-ins in Japanese the same answer is judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.config import Settings
from tests.conftest import free_port

CAPTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures/engines/real-pages/chatgpt--obsidian-ai-exporter-chat-simple-2026-02.expected.json"
)
HELP = "https://help.openai.com/en/articles/9260256-chatgpt-capabilities-overview"
GPT4 = "https://openai.com/index/gpt-4-research/"
GPT4O = "https://openai.com/index/hello-gpt-4o/"
MULTILINGUAL = "citelens-e5-multilingual-nli"

ENGLISH = {
    HELP: (
        "ChatGPT is a conversational AI assistant. It can answer questions, explain concepts, and "
        "help you write, summarize and rewrite text. ChatGPT can translate text between many "
        "languages. You can upload files such as PDFs, slides and text documents and ask ChatGPT to "
        "summarize them or answer questions about them."
    ),
    GPT4: "GPT-4 is a large multimodal model: it accepts image and text inputs and produces text outputs.",
    GPT4O: "GPT-4o is faster than GPT-4 Turbo and costs half as much in the API.",
}
JAPANESE = {
    HELP: (
        "ChatGPTは会話型のAIアシスタントです。質問に答えたり、概念を説明したり、文章の作成、要約、"
        "書き換えを手伝ったりできます。ChatGPTは多くの言語の間で文章を翻訳でき、文脈に合わせて自然な"
        "文章にします。PDF、スライド、テキスト文書などのファイルをアップロードして、その内容を要約"
        "させたり、内容について質問に答えさせたりできます。ChatGPTはコードを実行してCSVファイルや"
        "スプレッドシートのデータを分析し、グラフを作成できます。モバイルアプリの音声モードでは、"
        "声でChatGPTと会話できます。ChatGPTはテキストの説明から画像を生成し、生成した画像を編集できます。"
    ),
    GPT4: (
        "GPT-4は大規模なマルチモーダルモデルで、画像とテキストの入力を受け付け、テキストを出力します。"
        "GPT-4はGPT-3.5より信頼性が高く創造的で、はるかに細かな指示に対応できます。"
    ),
    GPT4O: (
        "GPT-4oはGPT-4 Turboより高速で、APIでの料金は半分です。テキスト、音声、画像、動画を"
        "組み合わせた入力を受け付けます。"
    ),
}
# The help page in Japanese, saying the opposite of the answer's claims about translation and files.
CONTRADICTING = {
    **JAPANESE,
    HELP: (
        "ChatGPTは英語でしか回答できず、文章を他の言語に翻訳することはできません。"
        "ChatGPTはファイルを読むことができず、PDF、スライド、テキスト文書をアップロードすることはできません。"
    ),
}
TRANSLATION = "翻訳：多言語間の翻訳も得意で、文脈に合わせて自然な文章に変換できます。"
FILES = (
    "ファイルアップロード：PDFやスライド、テキスト文書をアップロードし、"
    "その内容を要約したり質問に答えることができます。"
)


def _body(pages: dict[str, str], language: str) -> dict:
    capture = json.loads(CAPTURE.read_text(encoding="utf-8"))
    return {
        "answer": {"text": capture["text"], "engine": capture["engine"]},
        "citations": [
            {"id": f"c{i}", "marker": c["marker"], "url": c["url"], "offset": c["offset"]}
            for i, c in enumerate(capture["citations"], 1)
        ],
        "sources": {
            url: {"html": f"<html lang='{language}'><body><article><p>{text}</p></article></body></html>"}
            for url, text in pages.items()
        },
    }


@pytest.fixture
async def companion(start_companion, tmp_path):
    return await start_companion(Settings(port=free_port(), state_dir=tmp_path / "state"))


async def _verify(companion, pages: dict[str, str], language: str) -> tuple[list[dict], dict[str, dict]]:
    result = await (await companion.post("/v1/verify", _body(pages, language))).json()
    cited = [s for s in result["statements"] if s["judgment"] != "no_citation"]
    assert len(cited) >= 20, [s["text"] for s in result["statements"]]
    assert all(s["language"] == "ja" for s in cited), [s["text"] for s in cited if s["language"] != "ja"]
    return cited, {s["text"].strip(): s for s in cited}


async def test_the_real_japanese_answer_is_judged_on_japanese_pages(companion):
    cited, by_text = await _verify(companion, JAPANESE, "ja")
    for statement in cited:
        assert statement["model"] == MULTILINGUAL, statement["text"]
        assert statement["judgment"] not in ("not_checked", "inaccessible"), statement
    # The stand-in says both outright.
    for text in (TRANSLATION, FILES):
        assert by_text[text]["judgment"] in ("complete_support", "partial_support"), by_text[text]
    supported = [s for s in cited if s["judgment"] in ("complete_support", "partial_support")]
    assert len(supported) >= 5, [(s["text"], s["judgment"], s["score"]) for s in cited]


async def test_a_japanese_page_that_says_the_opposite_never_gives_green(companion):
    _, by_text = await _verify(companion, CONTRADICTING, "ja")
    for text in (TRANSLATION, FILES):
        assert by_text[text]["judgment"] not in ("complete_support", "not_checked"), by_text[text]


async def test_on_its_real_english_pages_the_answer_is_not_checked_and_says_why(companion):
    cited, _ = await _verify(companion, ENGLISH, "en")
    for statement in cited:
        assert statement["judgment"] == "not_checked", statement
        reasons = {pc["reason"] for pc in statement["per_citation"]}
        assert reasons == {
            "the page is in English and the sentence in Japanese; "
            "CiteLens has not measured how well it reads across them"
        }, reasons
