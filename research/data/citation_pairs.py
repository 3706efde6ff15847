"""Stage-2 training pairs: citation data in the companion's own claim-vs-window form.

Every pair is made with the companion's code (companion.sources.extract, segment, retrieve, claims), so
the model learns on exactly the premises and hypotheses it will see at run time:
- AttributionBench train part: the joined top evidence sentences as premise; attributable →
  entailment, not attributable → neutral (its top windows too: none of them supports the claim).
- WiCE train part: windows holding every oracle sentence of a supported claim → entailment;
  windows of partially / not supported claims, and windows missing the oracle sentences → neutral;
  for a claim that needs 2-4 oracle sentences, all of them among other sentences of the page →
  entailment, the same with one left out → neutral.
- Synthetic hard pairs from those evidence texts (the failure patterns of the pilot model):
  number/date swaps, negations of the claim and of the page → contradiction; an extra unsupported
  conjunct or a swapped name → neutral; clause-dropped copies → entailment; other sentences of the
  same page → neutral.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

from companion.config import Retrieval
from companion.records import Document
from companion.sources.extract import document_from_passages
from companion.text.analysis import analyse
from companion.text.claims import atomic_claims, hypothesis
from companion.text.retrieve import join_sentences, rank_windows, top_sentences
from research.lib.datasets import ab_context, read_rows, references

__all__ = ["LABELS", "citation_pairs", "synthetic_pairs"]

LABELS = ("entailment", "neutral", "contradiction")
ENTAIL, NEUTRAL, CONTRA = 0, 1, 2
Pair = tuple[str, str, int]
_R = Retrieval()


def _premises(document: Document, claim: str) -> tuple[list[tuple[int, int, str]], str, list[int]]:
    windows = rank_windows(
        document,
        analyse(claim, "en"),
        limit=_R.candidates,
        max_sentences=_R.max_window_sentences,
        min_chars=_R.min_sentence_chars,
    )
    joined_ids = top_sentences(windows, _R.joined_sentences)
    joined = " ".join(document.sentences[i].text for i in joined_ids)
    return [(w.first, w.last, w.text) for w in windows], joined, joined_ids


def citation_pairs(splits: Path, rng: random.Random) -> list[Pair]:
    pairs: list[Pair] = []
    for row in read_rows(splits / "attributionbench.train.jsonl"):
        document, _ = document_from_passages("", "", references(row))
        if not document.sentences:
            continue
        previous, question = ab_context(row)
        claim = hypothesis(row["claim"], previous, question)
        windows, joined, _ = _premises(document, claim)
        if row["attribution_label"].strip().lower() == "attributable":
            pairs.append((joined, claim, ENTAIL))
            if len(document.sentences) <= _R.max_window_sentences:
                pairs.append((join_sentences(document, 0, len(document.sentences) - 1), claim, ENTAIL))
        else:
            pairs.append((joined, claim, NEUTRAL))
            pairs.extend((text, claim, NEUTRAL) for _, _, text in windows[:2])
    for row in read_rows(splits / "wice.train.jsonl"):
        document, owner = document_from_passages("", "", row["evidence"])
        if not document.sentences:
            continue
        claim = hypothesis(row["claim"])
        oracle_items = {
            i for i, c in enumerate(row["meta"]["chunk_idx"]) if c in set(row["meta"].get("oracle_idx") or [])
        }
        oracle = {k for k, item in enumerate(owner) if item in oracle_items}
        windows, joined, joined_ids = _premises(document, claim)
        if row["label"] == "supported" and oracle:
            for first, last, text in windows:
                held = set(range(first, last + 1))
                if oracle <= held:
                    pairs.append((text, claim, ENTAIL))
                elif not held & oracle:
                    pairs.append((text, claim, NEUTRAL))
            if oracle <= set(joined_ids):
                pairs.append((joined, claim, ENTAIL))
            elif len(oracle) <= 4:
                ordered = sorted(oracle)
                pairs.append((" ".join(document.sentences[i].text for i in ordered), claim, ENTAIL))
            pairs.extend(_without_one_needed(document, oracle, claim, rng))
        elif row["label"] != "supported":
            pairs.append((joined, claim, NEUTRAL))
            pairs.extend((text, claim, NEUTRAL) for _, _, text in windows[:2])
    rng.shuffle(pairs)
    return pairs


def _without_one_needed(document: Document, oracle: set[int], claim: str, rng: random.Random) -> list[Pair]:
    """Document-level pairs in the spirit of MiniCheck's synthetic data: a claim that needs several
    evidence sentences is supported by all of them among other sentences of the page, and no longer
    fully supported when one of them is left out (the rest still on topic, so shared words alone
    cannot tell the two apart). WiCE's oracle sentences are the page's own marking of what is needed;
    where two marked sentences say the same thing, the left-out copy was not needed: that noise is
    the approximation this makes."""
    if not 2 <= len(oracle) <= 4:
        return []
    others = [i for i in range(len(document.sentences)) if i not in oracle]
    context = set(rng.sample(others, min(2, len(others))))

    def text(ids: set[int]) -> str:
        return " ".join(document.sentences[i].text for i in sorted(ids))

    left_out = rng.choice(sorted(oracle))
    return [(text(oracle | context), claim, ENTAIL), (text((oracle - {left_out}) | context), claim, NEUTRAL)]


# --- synthetic hard pairs ----------------------------------------------------------------------

_NUMBER = re.compile(r"\b\d{1,4}(?:[.,]\d+)?\b")
_AUX_NEG = re.compile(r"\b(is|was|are|were|has|have|had|can|will|does|did|could|would)\b")
_NAME = re.compile(r"(?<=[a-z,] )[A-Z][a-z]+(?: [A-Z][a-z]+)*")


def _evidence_sentences(splits: Path) -> list[list[str]]:
    pages: list[list[str]] = []
    for row in read_rows(splits / "attributionbench.train.jsonl"):
        document, _ = document_from_passages("", "", references(row))
        pages.append([s.text for s in document.sentences])
    for row in read_rows(splits / "wice.train.jsonl"):
        pages.append([" ".join(e.split()) for e in row["evidence"]])
    return [p for p in pages if p]


def _usable(sentence: str) -> bool:
    return 40 <= len(sentence) <= 260 and sentence[-1:] in ".!?\"'" and not sentence.startswith("Title:")


def _swap_number(sentence: str, rng: random.Random) -> str | None:
    numbers = _NUMBER.findall(sentence)
    if not numbers:
        return None
    old = rng.choice(numbers)
    digits = old.replace(",", "").replace(".", "")
    if not digits.isdigit():
        return None
    value = int(digits)
    new = str(value + rng.choice([-1, 1]) * rng.randint(1, max(2, value // 5 or 3)))
    if new == digits or new.startswith("-"):
        return None
    return sentence.replace(old, new, 1)


def _negate(sentence: str) -> str | None:
    match = _AUX_NEG.search(sentence)
    if not match or " not " in sentence or "n't" in sentence:
        return None
    return sentence[: match.end()] + " not" + sentence[match.end() :]


def _swap_name(sentence: str, other: str) -> str | None:
    names, others = _NAME.findall(sentence), _NAME.findall(other)
    if not names or not others or names[0] == others[0]:
        return None
    return sentence.replace(names[0], others[0], 1)


def _extra_conjunct(sentence: str, other: str, rng: random.Random) -> str | None:
    """ "The farm keeps horses." → "The farm keeps horses and other animals"-style near misses."""
    words = [w.strip(".,;:()\"'") for w in other.split() if len(w) > 3 and w.isalpha() and w.islower()]
    if len(words) < 2:
        return None
    addition = " ".join(words[i] for i in sorted(rng.sample(range(len(words)), 2)))
    return sentence.rstrip(".!?\"' ") + " and " + addition + "."


def synthetic_pairs(splits: Path, per_kind: int, rng: random.Random) -> list[Pair]:
    pages = _evidence_sentences(splits)
    made: dict[str, list[Pair]] = {
        k: [] for k in ("number", "negation", "negated_premise", "name", "conjunct", "clause", "other")
    }

    def candidates() -> Iterator[tuple[list[str], int]]:
        while True:
            page = rng.choice(pages)
            i = rng.randrange(len(page))
            if _usable(page[i]):
                yield page, i

    for attempts, (page, i) in enumerate(candidates()):
        if attempts > per_kind * 60 or all(len(v) >= per_kind for v in made.values()):
            break
        sentence = page[i]
        # The premise is a window around the sentence, as retrieval would show it.
        lo, hi = max(0, i - rng.randint(0, 1)), min(len(page), i + 1 + rng.randint(0, 1))
        premise = " ".join(page[lo:hi])
        other_page = rng.choice(pages)
        other = rng.choice(other_page)
        negated = _negate(sentence)
        kind_outputs: dict[str, Pair | None] = {
            "number": _pair(premise, _swap_number(sentence, rng), CONTRA),
            "negation": _pair(premise, negated, CONTRA),
            # The page says "X is not Y" and the answer "X is Y": the overlap is perfect, so a model
            # that never saw a negated premise read it as support (0.96 on "is not made of steel").
            "negated_premise": _pair(premise.replace(sentence, negated, 1), sentence, CONTRA)
            if negated
            else None,
            "name": _pair(premise, _swap_name(sentence, other), NEUTRAL),
            "conjunct": _pair(sentence, _extra_conjunct(sentence, other, rng), NEUTRAL),
            "clause": _clause_pair(premise, sentence, rng),
            "other": _other_pair(page, lo, hi, premise, rng),
        }
        for kind, pair in kind_outputs.items():
            if pair and len(made[kind]) < per_kind and rng.random() < 0.5:
                made[kind].append(pair)
    for kind, pairs in made.items():
        print(f"[stage2] synthetic {kind}: {len(pairs)}")
    return [p for pairs in made.values() for p in pairs]


def _pair(premise: str, hypothesis_text: str | None, label: int) -> Pair | None:
    return (premise, hypothesis_text, label) if hypothesis_text else None


def _clause_pair(premise: str, sentence: str, rng: random.Random) -> Pair | None:
    claims = atomic_claims(sentence)
    return (premise, rng.choice(claims), ENTAIL) if len(claims) > 1 else None


def _other_pair(page: list[str], lo: int, hi: int, premise: str, rng: random.Random) -> Pair | None:
    outside = [s for k, s in enumerate(page) if (k < lo - 1 or k > hi) and _usable(s)]
    return (premise, rng.choice(outside), NEUTRAL) if outside else None
