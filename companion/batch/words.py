"""A verify result's ids and counts in words, said the same by `citelens verify` and report.html.

Here rather than in the CLI because the batch report may not import the CLI (the stages' import
directions, tests/companion/test_structure.py), and the two must not word a verdict differently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..text.language import NAMES

__all__ = [
    "counted",
    "counts_in_words",
    "is_likely",
    "language_names",
    "quote_label",
    "reasons_in_words",
    "shown_state",
    "why_words",
]

# The reason ids of docs/api.md in words, as the overlay card says them (extension/_locales).
_REASON_WORDS = {
    "model.no_entailment": "the model does not read the source as saying it",
    "model.contradiction": "the model reads the source as saying the opposite",
    "model.conflicting_reading": "the model also reads a passage of the source as saying the opposite",
    "wording.says_otherwise": "a sentence of the source says it is not so, or gives another value",
    "score.below_complete": "too little of it (its words, numbers or names) is in the source",
    "score.below_partial": "too little of it (its words, numbers or names) is in the source",
    "claims.unsupported": "part of it is not in the source",
}
_RULE_WORDS = {
    "framed": "a wording rule found it reported as a claim, myth or hope, not stated",
    "framed_numbers": "a wording rule found it reported as a claim, myth or hope, not stated",
    "negated": "a wording rule found the source saying it is not so",
    "negated_between": "a wording rule found the source saying it is not so",
    "negates": "a wording rule found the source saying it is not so",
    "restates_negated": "a wording rule found the source saying it is not so",
    "substituted": "a wording rule found another value in the source",
    "another_number": "a wording rule found another value in the source",
    "opposite": "a wording rule found the source saying the opposite direction",
    "reversed": "a wording rule found the source saying the opposite direction",
    "passive_reversed": "a wording rule found the source saying the opposite direction",
    **{
        f"scope_{k}": "a wording rule found the source saying less (some, not all)"
        for k in ("universal", "only", "part_of", "partial")
    },
}
_SUPPORTS = frozenset({"complete_support", "partial_support"})


def is_likely(judged: Mapping[str, Any]) -> bool:
    """Complete support the model read with low confidence (api.md `confidence`): its own state,
    "likely supported: check the quote", never shown as the plain green of a sure one. A
    judgment without `confidence` (an older companion) reads as high."""
    return judged.get("judgment") == "complete_support" and judged.get("confidence") == "low"


def shown_state(statement: Mapping[str, Any]) -> str:
    """The state a reader is shown for a statement: its judgment, or "likely_support"."""
    return "likely_support" if is_likely(statement) else str(statement["judgment"])


# The summary's parts in the order they are said, each with its words.
_PARTS = (
    ("likely_support", "likely supported (check the quote)"),
    ("partial_support", "partly"),
    ("no_support", "not supported"),
    ("inaccessible", "inaccessible"),
    ("not_checked", "not checked (language)"),
    ("no_citation", "without citation"),
)


def counts_in_words(statements: Iterable[Mapping[str, Any]]) -> str:
    """ "3 of 8 statements fully supported · 1 likely supported (check the quote) · 2 not
    supported, 1 of them contradicted · 1 without citation": the parts sum to the statements
    (issue 60). A contradicted statement is counted once, in its judgment, and said among them."""
    states: dict[str, int] = {}
    contradicted: dict[str, int] = {}
    total = 0
    for s in statements:
        total += 1
        state = shown_state(s)
        states[state] = states.get(state, 0) + 1
        if s.get("contradicted"):
            contradicted[state] = contradicted.get(state, 0) + 1
    parts = [f"{states.get('complete_support', 0)} of {counted(total, 'statement')} fully supported"]
    if contradicted.get("complete_support"):
        parts[0] += f", {contradicted['complete_support']} of them contradicted"
    for state, words in _PARTS:
        if states.get(state):
            against = contradicted.get(state, 0)
            parts.append(
                f"{states[state]} {words}" + (f", {against} of them contradicted" if against else "")
            )
    return " · ".join(parts)


def counted(n: int, noun: str, plural: str = "") -> str:
    """ "1 source", "2 sources", "0 sources"; `plural` for nouns that do not take an s."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def reasons_in_words(reasons: Iterable[str], details: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The reasons a verdict names, each said once, strongest first; unknown ids are left out.
    `details` (api.md `reason_details`) gives a reason's particulars: the two values of a number
    the source gives otherwise."""
    words = [_in_words(r, (details or {}).get(r) or {}) for r in reasons]
    return "; ".join(dict.fromkeys(w for w in words if w))


def _in_words(reason: str, detail: Mapping[str, str]) -> str:
    if not reason.startswith("rule:"):
        return _REASON_WORDS.get(reason, "")
    family = reason.split(".", 1)[-1]
    if family == "another_number" and detail.get("claim") and detail.get("source"):
        return f"the source gives another value: {detail['source']} where the sentence says {detail['claim']}"
    return _RULE_WORDS.get(family, "")


# What a source with neither support nor a passage saying otherwise shows instead of a quote: since
# issue 58 no passage is quoted that supports nothing of the statement.
NO_PASSAGE = "no passage of this source supports it"


def quote_label(judgment: str, contradicted: bool) -> str:
    """What a quoted source sentence is to its statement: a passage that supports it, one that
    says the opposite, or, for a source that does neither, only the nearest it has."""
    if judgment in _SUPPORTS:
        return "evidence"
    return "says otherwise" if contradicted else "closest passage"


def why_words(per_citation: dict[str, Any]) -> str:
    """Why a cited source gave its verdict: the page's own reason when it was not read or not
    checked (api.md `reason`), else the decisive reasons of anything short of complete support."""
    if per_citation.get("reason"):
        return str(per_citation["reason"])
    if per_citation.get("judgment") == "complete_support":
        return ""
    return reasons_in_words(per_citation.get("reasons") or (), per_citation.get("reason_details"))


def language_names(codes: Iterable[str]) -> str:
    """ISO 639-1 codes as names, in the order given: "German", "German and Spanish"."""
    names = list(dict.fromkeys(NAMES.get(code, code) for code in codes))
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
