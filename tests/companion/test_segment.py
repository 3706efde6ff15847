"""Answer segmentation: sentence spans, marker forms, citation attachment, headings and lists."""

from companion.records import Citation
from companion.segment import attach_citations, split_sentences, statements, strip_markers


def cite(offset: int, n: int = 1) -> Citation:
    return Citation(id=f"c{n}", marker=str(n), url=f"https://example.org/{n}", offset=offset)


def test_spans_are_trimmed_and_cover_each_sentence():
    text = "  First one is here. Second follows!  Third?"
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == ["First one is here.", "Second follows!", "Third?"]


def test_headings_and_list_items_are_statements():
    text = "Key facts\n- The tower is 330 m tall\n- It opened in 1889\nIt is in Paris."
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "Key facts",
        "- The tower is 330 m tall",
        "- It opened in 1889",
        "It is in Paris.",
    ]
    result = statements(text, [])
    assert [s.text for s in result][:3] == ["Key facts", "The tower is 330 m tall", "It opened in 1889"]


def test_every_marker_form_is_stripped():
    for marked in (
        "Paris is big [1].",
        "Paris is big.[1][2]",
        "Paris is big [1, 2].",
        "Paris is big [1-3].",
        "Paris is big.¹²",
        "Paris is big【1】.",
    ):
        assert strip_markers(marked).replace(" .", ".") == "Paris is big."


def test_marker_after_full_stop_belongs_to_the_sentence_before():
    text = "Paris is the capital. [1] Lyon is smaller. [2]"
    spans = split_sentences(text)
    assert len(spans) == 2  # "[1]" is not a sentence of its own
    attached = attach_citations(text, spans, [cite(text.index("[1]"), 1), cite(text.index("[2]"), 2)])
    assert [[c.id for c in a] for a in attached] == [["c1"], ["c2"]]


def test_marker_removed_from_text_attaches_at_the_boundary():
    text = "Paris is the capital. Lyon is smaller."
    boundary = text.index(" Lyon")  # the extension put the marker right after the full stop
    attached = attach_citations(text, split_sentences(text), [cite(boundary), cite(boundary + 1, 2)])
    assert [len(a) for a in attached] == [2, 0]


def test_marker_inside_a_sentence_stays_with_it():
    text = "Paris [1] is the capital of France. Lyon is smaller."
    attached = attach_citations(text, split_sentences(text), [cite(text.index("[1]"))])
    assert [len(a) for a in attached] == [1, 0]


def test_statement_spans_point_into_the_sent_text_and_exclude_markers():
    text = "The sun is a star.[1] The moon orbits Earth.[2][3] No source here."
    cites = [cite(text.index("[1]"), 1), cite(text.index("[2]"), 2), cite(text.index("[3]"), 3)]
    result = statements(text, cites, question="space facts")
    assert [text[s.span[0] : s.span[1]] for s in result] == [
        "The sun is a star.",
        "The moon orbits Earth.",
        "No source here.",
    ]
    assert [[c.id for c in s.citations] for s in result] == [["c1"], ["c2", "c3"], []]
    assert result[1].previous == "The sun is a star." and result[1].question == "space facts"
