"""English and French text reads exactly as before issue 39 (more languages, CJK text): the
terms, stems, numbers, names and sentences the shipped models' combiners and rules were fitted to.

Each digest covers realistic text: the XNLI dev pairs of that language (../shared/data, beside the
clone in CI; a missing file fails) and the bundled example answer. A change here changes English
or French verdicts, so it must be deliberate, with the digests recomputed and the reason given.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from importlib import resources
from pathlib import Path

import pytest

from companion.text.language import lexicon
from companion.text.segment import split_sentences

MULTILINGUAL = Path(__file__).resolve().parents[4] / "shared" / "data" / "multilingual"
ROWS = 600  # enough to cover numbers, names and elisions; reading them takes a fraction of a second


def _texts(language: str) -> list[str]:
    path = MULTILINGUAL / f"xnli_{language}_dev.jsonl.gz"
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
