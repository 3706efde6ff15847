"""A sentence's verdict does not depend on its neighbours (issue 58 item 5), on real citation
data: a seeded sample of AttributionBench claims (../shared/data), each judged with the sentence
before it in its response and the question, and with the question alone. The answer so far only
resolves what a sentence refers to (a leading "it", "they"), so claims that open with a pronoun
are left out: alone, there is nothing for them to refer to. The fixture answers' half of the check
is test_badges.py.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from companion.judging.judge import Judge
from companion.model.folder import default_model_dir
from companion.model.infer import OnnxNLI, load_reader
from companion.records import Citation, SourceResult, Statement
from companion.sources.extract import document_from_passages
from companion.text.segment import split_sentences

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "attributionbench" / "dev.jsonl"
SAMPLE = 40
_PRONOUN = re.compile(r"^(it|its|this|that|these|those|they|their|them|he|his|she|her)\b", re.IGNORECASE)


def _previous(row: dict) -> str:
    response, claim = row.get("response") or "", row["claim"].strip()
    at = response.find(claim)
    before = [response[s:e] for s, e in split_sentences(response[:at])] if at > 0 else []
    return before[-1] if before else ""


def _rows() -> list[dict]:
    if not DATA.exists():
        pytest.fail(f"AttributionBench dev not found at {DATA}: ../shared/data must sit beside the checkout")
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    usable = [r for r in rows if _previous(r) and not _PRONOUN.match(r["claim"].strip()) and r["references"]]
    return random.Random(58).sample(usable, SAMPLE)


@pytest.fixture(scope="module")
def judge() -> Judge:
    nli = OnnxNLI(default_model_dir())
    return Judge(nli, nli.config, reader=load_reader(nli.config))


def _verdict(judge: Judge, row: dict, previous: str) -> tuple[str, bool, str | None]:
    references = row["references"] if isinstance(row["references"], list) else [row["references"]]
    document, _ = document_from_passages("https://evidence.invalid/", "", [str(r) for r in references])
    claim = row["claim"].strip()
    citation = Citation("c1", "1", document.url, len(claim))
    statement = Statement(0, claim, (0, len(claim)), (citation,), previous, row.get("question") or "")
    result = judge.judge(statement, {document.url: SourceResult(document.url, document)})
    return result.judgment, result.contradicted, result.confidence


def test_held_claims_get_the_same_verdict_alone_and_after_their_neighbour(judge):
    changed = []
    for row in _rows():
        inside, alone = _verdict(judge, row, _previous(row)), _verdict(judge, row, "")
        if inside != alone:
            changed.append((row["claim"][:80], inside, alone))
    assert changed == []
