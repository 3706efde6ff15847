"""ALCE's citation recall and precision (Gao et al. 2023), per statement and for the answer.

- Recall: a statement's citations, read together, fully support it (here: the statement's own
  verdict is complete support, which reads all its sources together).
- Irrelevant citation: it cannot support the statement alone, and the remaining citations still
  support it without it. Precision counts a citation as precise when the statement is supported
  (recall 1) and the citation is not irrelevant.
Statements without citations, and inaccessible sources, are left out of both figures: the
verifiability study reports them separately, and the summary says what the figures were computed
over, so that "100 %" over one sentence of three reads as what it is.
A statement cited by the link that closes its paragraph or list item (an AI Overview's chip,
`block_cited`) counts as cited by it: the engine put that link there for the whole block, and
ALCE asks whether a statement's citations support it. The summary says how many they are.
Whether some of a statement's citations alone support it is read here (`PrecisionTest`): their
sources' joined top sentences read together by the model that read the statement's own, and
scored on their scale; no I/O, the model behind the NLIBackend protocol.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..records import JUDGMENTS, CitationJudgment, StatementJudgment, Summary
from ..typedefs import NLIBackend
from .claim import Claim
from .combiner import Combiner
from .policy import Scale
from .reading import SourceWindows, read_jointly

__all__ = ["PrecisionTest", "irrelevant", "summarize", "supported_by"]


@dataclass(frozen=True, slots=True)
class PrecisionTest:
    """What ALCE's precision reads of one statement: its claim and cited sources as read, those
    in another language than the claim (`across`), the scale of each side, the combiner whose
    features every scale scores, and the model that reads sources' joined text together (the
    one that read the statement's own: one scale for the test)."""

    claim: Claim
    sources: Mapping[str, SourceWindows]
    across: frozenset[str]
    own: Scale
    crossed: Scale | None
    combiner: Combiner
    reader: NLIBackend


def supported_by(test: PrecisionTest, urls: Sequence[str]) -> bool:
    """Whether these of the statement's sources alone give it complete support on their scale,
    each side of the language line alone where they lie on both."""
    if test.crossed is None:
        return _complete(test, test.own, urls)
    return any(
        _complete(test, scale, side)
        for side, scale in (
            ([u for u in urls if u not in test.across], test.own),
            ([u for u in urls if u in test.across], test.crossed),
        )
        if side
    )


def _complete(test: PrecisionTest, scale: Scale, urls: Sequence[str]) -> bool:
    """The statement's features against some of its sources only, read together, at the complete bar."""
    readings = [test.sources[u] for u in urls]
    joint = read_jointly(test.reader, test.claim.read, readings) if len(readings) > 1 else None
    best = max((r.best_reading for r in readings), key=lambda s: s.entailment)
    if joint is not None:
        best = max(best, joint, key=lambda s: s.entailment)
    features = test.combiner.features(
        test.claim.written, [r.joined_words for r in readings], [r.page for r in readings], best.entailment
    )
    return scale.combiner.score(features) >= scale.thresholds.complete


def irrelevant(
    per_citation: Sequence[CitationJudgment], recall: bool, supported_by: Callable[[list[str]], bool]
) -> set[str]:
    """URLs of the irrelevant citations; `supported_by(urls)` says whether those sources alone
    fully support the statement."""
    judged = [cj for cj in per_citation if cj.judgment != "inaccessible"]
    if not recall or len(judged) < 2:
        return set()
    return {
        cj.citation.url
        for cj in judged
        if cj.judgment != "complete_support" and supported_by([o.citation.url for o in judged if o is not cj])
    }


def summarize(judged: Sequence[StatementJudgment], elapsed_ms: int) -> Summary:
    """Counts of each label, the answer's ALCE citation recall and precision, and how many
    statements were found supported elsewhere (kept apart from ALCE's figures)."""
    counts: dict[str, int] = {j: 0 for j in JUDGMENTS}
    recalls: list[int] = []
    precise = cited = misplaced = uncited_supported = block_cited = recall_block_cited = 0
    for result in judged:
        counts[result.judgment] += 1
        block_cited += result.statement.block_cited
        if result.found_elsewhere:
            if result.judgment == "no_citation":
                uncited_supported += 1
            else:
                misplaced += 1
        if result.judgment in ("no_citation", "inaccessible", "not_checked"):
            continue
        recalls.append(result.recall)
        recall_block_cited += result.statement.block_cited
        for cj in result.per_citation:
            if cj.judgment in ("inaccessible", "not_checked"):
                continue
            cited += 1
            precise += int(bool(result.recall) and not cj.irrelevant)
    judged_by = Counter((r.model, r.model_version) for r in judged if r.model and r.reasons)
    return Summary(
        models=tuple(m for m, _ in judged_by.most_common()),
        counts=counts,
        citation_recall=round(sum(recalls) / len(recalls), 4) if recalls else None,
        citation_precision=round(precise / cited, 4) if cited else None,
        elapsed_ms=elapsed_ms,
        misplaced_citations=misplaced,
        uncited_but_supported=uncited_supported,
        block_cited=block_cited,
        alce_statements=len(recalls),
        alce_citations=cited,
        alce_block_cited=recall_block_cited,
    )
