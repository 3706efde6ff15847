"""A real Japanese engine answer through the companion (issue 39): the text and citations the
ChatGPT adapter captured from a real saved page (tests/fixtures/engines/real-pages/, checked
against the page by the extension's tests), posted to a real companion.

The cited sites cannot be reached from here, so each cited URL is given a stand-in page: short
texts we wrote about what those pages cover, not their words. The multilingual model's Japanese
figure is under its floor, so every cited sentence is "not checked" and says why: on Japanese
stand-ins with the figure, on the English pages the answer really cites with the figure of
reading a Japanese sentence on an English page. Never a verdict from a model not shown to read
them; test_languages.py has the languages that are judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.config import Settings
from companion.model.folder import default_model_dir, load_config
from tests.conftest import free_port

CAPTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures/engines/real-pages/chatgpt--obsidian-ai-exporter-chat-simple-2026-02.expected.json"
)
HELP = "https://help.openai.com/en/articles/9260256-chatgpt-capabilities-overview"
GPT4 = "https://openai.com/index/gpt-4-research/"
GPT4O = "https://openai.com/index/hello-gpt-4o/"
MULTILINGUAL = load_config(default_model_dir().parent / "citelens-e5-multilingual-nli")

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
        "させたり、内容について質問に答えさせたりできます。"
    ),
    GPT4: "GPT-4は大規模なマルチモーダルモデルで、画像とテキストの入力を受け付け、テキストを出力します。",
    GPT4O: "GPT-4oはGPT-4 Turboより高速で、APIでの料金は半分です。",
}


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


async def _reasons(companion, pages: dict[str, str], language: str) -> set[str]:
    result = await (await companion.post("/v1/verify", _body(pages, language))).json()
    cited = [s for s in result["statements"] if s["judgment"] != "no_citation"]
    assert len(cited) >= 20, [s["text"] for s in result["statements"]]
    assert all(s["language"] == "ja" for s in cited), [s["text"] for s in cited if s["language"] != "ja"]
    assert {s["judgment"] for s in cited} == {"not_checked"}, [(s["text"], s["judgment"]) for s in cited]
    assert result["summary"]["counts"]["complete_support"] == 0
    return {pc["reason"] for s in cited for pc in s["per_citation"]}


async def test_the_real_japanese_answer_on_japanese_pages_is_not_checked_with_its_figure(companion):
    figure = MULTILINGUAL.figure("ja")
    assert figure is not None and not figure.checked
    [reason] = await _reasons(companion, JAPANESE, "ja")
    assert reason.startswith("the answer is in Japanese; CiteLens reads English, "), reason
    assert reason.endswith(f"(judged at {figure.shown} on held pairs, under the {figure.floor:.2f} it needs)")


async def test_on_its_real_english_pages_the_answer_is_not_checked_and_says_why(companion):
    [reason] = await _reasons(companion, ENGLISH, "en")
    assert reason.startswith("the answer is in Japanese; "), reason
