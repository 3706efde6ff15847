"""Answer offsets on the wire count UTF-16 code units, as the extension's JavaScript strings do
(docs/api.md, "Offsets"); inside the companion they are Python str indices. Issue 25.1: an emoji
before a marker shifted every later span, and a marker near the end was refused."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.config import Limits
from companion.errors import RequestInvalid
from companion.judging.judge import Judge
from companion.pipeline import SourceLoader, Verifier
from companion.service.cli import main
from companion.text.utf16 import OffsetInvalid, Utf16Offsets
from companion.wire.capture import parse_request
from companion.wire.export import collect

from ..fakes import MemoryFetcher, WordNLI, fake_model

LIMITS = Limits()


def units(text: str) -> int:
    """The length JavaScript gives `text`: the oracle, independent of the code under test."""
    return len(text.encode("utf-16-le")) // 2


def slice16(text: str, start: int, end: int) -> str:
    return text.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


def cited(text: str, *offsets: int) -> dict[str, object]:
    return {
        "answer": {"text": text},
        "citations": [{"url": f"https://example.org/{i}", "offset": o} for i, o in enumerate(offsets)],
    }


# Letters, combining marks, CJK, right-to-left scripts and characters beyond U+FFFF, mixed.
MIXED = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@given(MIXED)
def test_every_position_between_characters_goes_both_ways_as_javascript_counts_it(text):
    offsets = Utf16Offsets(text)
    assert offsets.units == units(text)
    for index in range(len(text) + 1):
        position = offsets.to_units(index)
        assert position == units(text[:index])
        assert offsets.to_index(position) == index


@given(MIXED)
def test_no_position_inside_a_character_or_past_the_end_is_taken(text):
    offsets = Utf16Offsets(text)
    between = {units(text[:i]) for i in range(len(text) + 1)}
    for position in [-1, *range(offsets.units + 2)]:
        if position in between:
            continue
        with pytest.raises(OffsetInvalid):
            offsets.to_index(position)


# The issue's answer: 84 characters, "🐝" first and "🌼" in the middle, its second marker at the end.
BEE = "🐝 Honeybees pollinate crops in spring. 🌼 Wildflowers feed them when orchards finish."


def test_the_issues_answer_is_read_with_its_marker_at_the_end():
    assert (len(BEE), units(BEE)) == (84, 86)
    middle = units(BEE[: BEE.index("🌼") - 1])
    request = parse_request(cited(BEE, middle, units(BEE)), LIMITS)
    assert [c.offset for c in request.citations] == [BEE.index("🌼") - 1, len(BEE)]


@pytest.mark.parametrize(
    ("before", "what"),
    [
        ("🐝🌼 ", "emoji, two code units each"),
        ("👩‍🔬 ", "an emoji sequence: two astral characters and a joiner"),
        ("Cafe\u0301 de Flore, ", "a combining accent: one code unit, not merged into é"),
        ("蜜蜂 and 𠮷, ", "CJK, one ideograph beyond U+FFFF"),
        ("דבורה ونحلة, ", "right-to-left Hebrew and Arabic"),
    ],
)
def test_an_offset_after_any_script_lands_where_the_extension_put_it(before, what):
    text = before + "bees make honey. They dance."
    marker = units(before + "bees make honey.")
    request = parse_request(cited(text, marker), LIMITS)
    assert request.citations[0].offset == len(before + "bees make honey."), what


def test_an_offset_inside_an_emoji_is_refused_on_its_field():
    # "🌼" is code units 2 and 3: offset 3 falls between its halves, where no marker can stand.
    with pytest.raises(RequestInvalid) as info:
        parse_request(cited("A 🌼 bloom.", 0, 3), LIMITS)
    error = info.value
    assert (error.field, error.status) == ("citations[1].offset", 422)
    assert "between the two halves of a character" in error.message


def test_an_offset_past_the_end_names_the_length_in_utf16_code_units():
    with pytest.raises(RequestInvalid) as info:
        parse_request(cited(BEE, 87), LIMITS)
    assert info.value.field == "citations[0].offset"
    assert "between 0 and 86" in info.value.message and "UTF-16" in info.value.message


# --- the round trip: UTF-16 offsets in, the pipeline on str indices, UTF-16 spans out --------------

SENTENCES = [
    "🐝 Honeybees pollinate about one third of food crops.",
    "In Hebrew a bee is דבורה and in Arabic نحلة.",
    "The Cafe\u0301 de Flore serves honey with its café crème.",
    "The Chinese word for bee is 蜜蜂, and 𠮷 is a rare variant character.",
    "👩‍🔬 Researchers count the colonies every 🌼 spring.",
]


async def test_spans_come_back_in_the_unit_the_offsets_went_in():
    text, citations = "", []
    for i, sentence in enumerate(SENTENCES):
        text += (" " if text else "") + sentence
        citations.append({"id": f"c{i}", "url": f"https://example.org/{i}", "offset": units(text)})
    sources = {f"https://example.org/{i}": {"text": s} for i, s in enumerate(SENTENCES)}
    request = parse_request({"answer": {"text": text}, "citations": citations, "sources": sources}, LIMITS)
    with ThreadPoolExecutor(2) as pool:
        model = fake_model()
        loader = SourceLoader(MemoryFetcher({}), None, LIMITS, pool)
        verifier = Verifier(Judge(WordNLI(), model), loader, pool)
        result = await collect(verifier.run(request), model, units=request.units)
    statements = result["statements"]
    assert [s["citations"] for s in statements] == [[f"c{i}"] for i in range(len(SENTENCES))]
    for statement, sentence in zip(statements, SENTENCES, strict=True):
        start, end = statement["span"]
        assert slice16(text, start, end) == sentence == statement["text"]
    assert statements[-1]["span"][1] == units(text)


@pytest.mark.slow  # the real model
def test_citelens_verify_checks_the_issues_answer_and_gives_its_spans_in_utf16(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    middle = BEE.index("🌼") - 1
    pages = ("https://a.example/spring", "https://a.example/flowers")
    request = cited(BEE, units(BEE[:middle]), units(BEE))
    request["citations"] = [{**c, "url": url} for c, url in zip(request["citations"], pages, strict=True)]
    request["sources"] = {
        pages[0]: {"html": "<article><p>Honeybees pollinate crops in spring.</p></article>"},
        pages[1]: {"html": "<article><p>Wildflowers feed them when orchards finish.</p></article>"},
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    assert main(["verify", "--json", str(path)]) == 0, capsys.readouterr().err
    statements = json.loads(capsys.readouterr().out)["statements"]
    assert [s["citations"] for s in statements] == [["c1"], ["c2"]]
    assert [slice16(BEE, *s["span"]) for s in statements] == [BEE[:middle], BEE[middle + 1 :]]
