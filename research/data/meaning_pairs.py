"""Synthetic "same words, other meaning" NLI pairs for a future stage-2 run (issue 10).

The shipped model reads a page that *mentions* a claim as a page that *asserts* it: "It is often
said that X. In fact, not-X" supports X; "critics warned that X" supports X; "31 of the 40" supports
"all 40". Every pair made here keeps the claim's words on the page, with the sentence that denies,
narrows, reverses or merely reports it, so that word overlap cannot be the answer.

Pages are real: sentences of WiCE evidence, AttributionBench references (the *train* parts of
research/data/make_splits.py only, so no held row leaks into training) and FactCG CG2C news documents.
One sentence S of a page is rewritten, and its neighbours stay around it as context. Families
(the meaning test's, tests/fixtures/meaning):

- myth:        "It is often said that S. In fact, not-S."  → S contradiction, not-S entailment
               (and the mirror: the myth is not-S, the page's original S is the fact)
- negation:    not / never / no longer / "It is false that" / "Contrary to some reports" → S
               contradiction; "The report that S was later withdrawn" / "looked for evidence that
               S but found none" → S neutral; a page sentence already negated → its positive form
               contradiction
- quantifier:  "N things" → "M of the N things": "all N things" contradiction, "M things"
               entailment; "some / several / many things" → "all things" neutral
- direction:   one direction word swapped in the claim (rose/fell, increased/decreased, before/
               after, imported/exported, north/south, …) → contradiction
- attribution: "Critics claimed that S, but this was never confirmed" → S neutral; "… it later
               proved false" → contradiction; "Critics claimed that S" → entailment
- scope:       "X was partly built …" → "X was entirely built …" contradiction; "X was briefly
               the capital" → "X was always the capital" contradiction

Writes JSON lines {"premise", "hypothesis", "label" (entailment / neutral / contradiction),
"family", "kind", "source"}; seeded, so the same inputs give the same file.

    python -m research.data.meaning_pairs [--out runs/meaning_pairs.jsonl] [--per-kind 200] [--seed 13]
        [--splits runs/splits] [--data ../shared/data]

The same pairs also serve as a development set for the judge's meaning checks, in the meaning
test's format (tests/fixtures/meaning), so that rules are developed on them and only reported
on the hand-written sets:

    python -m research.data.meaning_pairs --as-meaning-test runs/meaning_dev.jsonl \\
        [--out runs/meaning_pairs.jsonl]
    python -m research.evaluation.evaluate --format meaning --data runs/meaning_dev.jsonl --out PRED.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.sources.extract import document_from_passages
from research.lib.datasets import read_rows, references

HERE = Path(__file__).resolve().parents[2]
ENTAIL, NEUTRAL, CONTRA = "entailment", "neutral", "contradiction"

# Modal "may", "could", "should" are left out: "X may be Y" and "X may not be Y" do not contradict.
_AUX = "is|was|are|were|has|have|had|will|can"
# Subject (at most 8 words, no clause of its own), auxiliary, rest. Sentences that open with a
# preposition or a subordinate clause are left alone: their first auxiliary is not the main verb's.
_CLAUSE = re.compile(rf"^(?P<subj>[A-Z][^,;:()\"“”]*?) (?P<aux>{_AUX}) (?P<rest>[^;:()\"“”]+?)\.$")
_OPENERS = {
    "in", "on", "at", "after", "before", "when", "while", "although", "though", "if", "however",
    "according", "during", "since", "as", "because", "unlike", "for", "from", "with", "by", "to",
    "there", "it", "he", "she", "they", "this", "these", "that", "those", "we", "i", "you", "what",
    "who", "which", "where", "why", "how", "once", "then", "also", "but", "and", "or", "so", "yet",
}  # fmt: skip
# A subject holding a verb of its own ("The company says the iMac", "The results found 45 percent")
# would have the negation land in the reported clause.
_SUBJ_STOP = re.compile(
    r"\b(who|which|that|whose|whom|when|where|if|because|and then|not|never|says?|said|found|finds|"
    r"shows?|showed|reported|reports|believes?|thinks?|notes?|noted|argues?|argued|claims?|claimed|"
    r"suggests?|suggested|states?|stated|added|explains?|explained|according)\b",
    re.I,
)
# "is only", "will likely", "is reportedly": a negation after the auxiliary would turn the adverb's
# meaning, not the clause's.
_ADVERB = re.compile(
    r"^([a-z]+ly|only|also|still|already|just|even|often|usually|always|now|then|more|less)\b"
)
_LOWERABLE = {"The", "A", "An", "This", "These", "Its", "His", "Her", "Their", "Some", "Many", "Most", "Each"}
# After has / have / had, these open an object ("had two sons", "has to go"); anything else is
# taken for a participle ("had left", "has won").
_POSSESSED = re.compile(
    r"^(\d|a|an|the|no|some|many|much|several|any|all|his|her|their|its|my|our|your|one|two|three|four|"
    r"five|more|less|fewer|over|about|nearly|almost|around|to|little|few|plenty|lots|enough)\b"
)
_NEGATED = re.compile(rf"\b({_AUX}) (not|never) ")
# Not after "the", "of", "some" …: "met some of the 205 of the 240 families"; not a rate ("one per
# 100,000 participants") or a product name ("an RTX 40 graphics card").
_NUMBER_NOUN = re.compile(
    r"(?<![$£€.,\d-])(?<!\bthe )(?<!\bThe )(?<!\bof )(?<!\bOf )"
    r"(?<!\bsome )(?<!\ball )(?<!\btheir )(?<!\bits )(?<!\bper )(?<![A-Z] )"
    r"\b(?P<n>\d{1,3}(?:,\d{3})?|\d+) (?P<noun>[a-z]{3,}s)\b"
)
# "5 of the 10 cents", "141 of the 223 pounds": units and amounts are not sets of things.
_UNITS = set(
    "cents dollars pounds euros minutes hours days weeks months years seconds miles kilometers kilometres "
    "metres meters feet inches yards points percent degrees tons tonnes kilograms grams acres hectares "
    "times calories litres liters gallons ounces bytes megabytes gigabytes watts volts decades centuries "
    "basis others this its his has was is".split()
)
_VAGUE = re.compile(
    r"(?<!as )(?<!so )(?<!too )(?<!how )\b(?P<q>[Ss]ome|[Ss]everal|[Mm]any) (?P<noun>[a-z]+s)\b"
)
# "Some figures are flat, whereas some are solid": "all" would contradict, not merely overreach.
_CONTRAST = re.compile(r"\b(others?|whereas|while|but|rest)\b|\bsome\b.*\bsome\b", re.I)
# Left out after a look at the output: before / after and earlier / later ("no looking back after
# the EP" is not contradicted by "before"), won / lost ("lost the award"), bare more / less
# ("less regions").
_DIRECTION = {
    "increased": "decreased", "increase": "decrease", "increases": "decreases", "increasing": "decreasing",
    "rose": "fell", "risen": "fallen", "rising": "falling", "rise": "fall", "rises": "falls",
    "grew": "shrank", "higher": "lower", "highest": "lowest", "more than": "less than",
    "largest": "smallest", "larger": "smaller", "imported": "exported", "imports": "exports",
    "above": "below", "north": "south", "east": "west", "northern": "southern", "eastern": "western",
    "maximum": "minimum", "promoted": "relegated", "older": "younger", "oldest": "youngest",
    "longest": "shortest", "expanded": "contracted", "upstream": "downstream", "strengthened": "weakened",
    "improved": "worsened",
}  # fmt: skip
_DIRECTION.update({v: k for k, v in list(_DIRECTION.items())})
_DIRECTION["gained"] = "lost"  # one way: "lost the match" has no "gained" reading
del _DIRECTION["lower"]  # "can help lower blood pressure" is a verb
_NEGATION_WORD = re.compile(r"\b(not|never|no|nor|without|neither|n't)\b|n't\b")
_DIRECTION_WORD = re.compile(r"\b(" + "|".join(sorted(_DIRECTION, key=len, reverse=True)) + r")\b")
_SCOPE_VERB = re.compile(
    r"^(built|made|owned|funded|financed|written|designed|produced|composed|based|located|"
    r"covered|filmed|recorded|paid|run|staffed|powered|constructed|inspired|influenced|responsible)\b"
)
# A role or a standing that can be held for a while ("was briefly the capital"), unlike a trait
# ("was briefly a visionary").
_ROLE = re.compile(
    r"\b(capital|president|chair(man|woman)?|director|member|leader|head|captain|coach|manager|editor|"
    r"owner|home|headquarters|champion|minister|mayor|chief|host|seat|ambassador|governor|holder|"
    r"partner|spokes(man|woman|person)|secretary|largest|tallest|number one|record)\b"
)
_MYTH = (
    "It is often said that {s}.",
    "Many people believe that {s}.",
    "A popular myth holds that {s}.",
    "It is widely assumed that {s}.",
    "A common misconception is that {s}.",
)
_FACT = ("In fact, {t}.", "This is not the case: {t}.", "Records show otherwise: {t}.", "However, {t}.")
_AGENTS = ("Some critics", "A local newspaper", "Several commentators", "Early reports", "One blogger")
_SAID = ("claimed", "alleged", "suggested", "speculated", "predicted")
_UNCONFIRMED = ("but this was never confirmed", "but no evidence for this has been published")
_DENIED = ("but this later proved false", "but the claim was later shown to be untrue")


@dataclass(frozen=True)
class Clause:
    subj: str
    aux: str
    rest: str

    def text(self, aux: str | None = None, rest: str | None = None) -> str:
        return f"{self.subj} {aux or self.aux} {rest or self.rest}."

    @property
    def perfect(self) -> bool:
        """ "has won" (an auxiliary) rather than "has two sons" (a verb of its own)."""
        return self.aux not in ("has", "have", "had") or not _POSSESSED.match(self.rest)

    @property
    def copula(self) -> bool:
        return self.aux in ("is", "was", "are", "were")


def parse(sentence: str) -> Clause | None:
    m = _CLAUSE.match(sentence)
    if not m:
        return None
    subj, rest = m["subj"], m["rest"]
    words = subj.split()
    if not 1 <= len(words) <= 8 or words[0].lower() in _OPENERS or _SUBJ_STOP.search(subj):
        return None
    if len(rest.split()) < 2 or rest.split()[0] in ("not", "never", "no", "to") or _ADVERB.match(rest):
        return None
    return Clause(subj, m["aux"], rest)


_COMMON: set[str] = set()  # words the pages write in lower case (generate() fills it)


def embedded(sentence: str) -> str:
    """The sentence as the object of "that …": no full stop, a leading common word in lower case
    ("that the state", "that your citizenship"), a leading name kept ("that Amazon")."""
    body = sentence.rstrip(". ")
    first = body.split(" ", 1)[0]
    if first in _LOWERABLE or (first[1:].islower() and first.lower() in _COMMON):
        return body[0].lower() + body[1:]
    return body


def negate(c: Clause, how: str = "not") -> str | None:
    if how == "no longer" and not (c.copula or c.aux in ("can", "will")):
        return None
    if not c.perfect:  # "has two sons" → "does not have two sons"
        if how != "not":
            return None
        return c.text({"has": "does not", "have": "do not", "had": "did not"}[c.aux], "have " + c.rest)
    if how == "never" and c.rest.split()[0].endswith("ing"):  # "is never examining"
        how = "not"
    return c.text(f"{c.aux} {how}")


def positive(sentence: str) -> str | None:
    """An already negated page sentence, without its negation ("was not elected" → "was elected")."""
    m = _NEGATED.search(sentence)
    if not m or sentence.count(" not ") + sentence.count(" never ") != 1 or "n't" in sentence:
        return None
    if sentence.split(" ", 1)[0].lower() in _OPENERS:  # "If you have not paid, click …"
        return None
    return sentence[: m.start()] + m.group(1) + " " + sentence[m.end() :]


Pair = tuple[str, str, str, str]  # premise sentence(s) replacing S, hypothesis, label, kind


def myth(s: str, c: Clause, rng: random.Random) -> list[Pair]:
    neg = negate(c, rng.choice(("not", "never")) if c.perfect else "not")
    if not neg:
        return []
    intro = rng.choice(_MYTH)
    if rng.random() < 0.5:  # the myth is S, the page's fact not-S
        page = intro.format(s=embedded(s)) + " " + rng.choice(_FACT).format(t=embedded(neg))
        return [(page, s, CONTRA, "myth_claim"), (page, neg, ENTAIL, "myth_fact")]
    page = intro.format(s=embedded(neg)) + " " + rng.choice(_FACT).format(t=embedded(s))
    return [(page, neg, CONTRA, "myth_claim"), (page, s, ENTAIL, "myth_fact")]


def negation(s: str, c: Clause, rng: random.Random) -> list[Pair]:
    kind = rng.choice(("not", "never", "no longer", "is false", "contrary", "withdrawn", "no evidence"))
    if kind in ("not", "never", "no longer"):
        neg = negate(c, kind)
        return [(neg, s, CONTRA, f"negation_{kind.replace(' ', '_')}")] if neg else []
    if kind == "is false":
        page = f"{rng.choice(('It is false', 'It is not true'))} that {embedded(s)}."
        neg = negate(c)
        out = [(page, s, CONTRA, "negation_is_false")]
        # "It is not true that A and B" does not say "not-A and B": only one-clause sentences.
        one_clause = neg and "," not in s and " and " not in s
        return out + ([(page, neg, ENTAIL, "negation_is_false_fact")] if one_clause and neg else [])
    if kind == "contrary":
        neg = negate(c)
        if not neg:
            return []
        page = "Contrary to some reports, " + embedded(neg) + "."
        return [(page, s, CONTRA, "negation_contrary")]
    if kind == "withdrawn":
        page = f"A report that {embedded(s)} was later withdrawn by its publisher."
        return [(page, s, NEUTRAL, "negation_withdrawn")]
    page = f"Researchers looked for evidence that {embedded(s)}, but found none."
    return [(page, s, NEUTRAL, "negation_no_evidence")]


def quantifier(s: str, rng: random.Random) -> list[Pair]:
    m = _NUMBER_NOUN.search(s)
    if m and m["noun"] not in _UNITS:
        n = int(m["n"].replace(",", ""))
        if 3 <= n <= 100_000 and not 1800 <= n <= 2100:
            k = rng.randint(max(1, n // 4), n - 1)
            page = s[: m.start()] + f"{k:,} of the {m['n']} {m['noun']}" + s[m.end() :]
            everything = s[: m.start()] + f"all {m['n']} {m['noun']}" + s[m.end() :]
            some = s[: m.start()] + f"{k:,} {m['noun']}" + s[m.end() :]
            return [(page, everything, CONTRA, "quantifier_all_n"), (page, some, ENTAIL, "quantifier_k")]
    m = _VAGUE.search(s)
    if m and not _CONTRAST.search(s) and m["noun"] not in _UNITS:  # "for many years"
        everything = (
            s[: m.start()] + ("All" if m["q"][0].isupper() else "all") + f" {m['noun']}" + s[m.end() :]
        )
        return [(s, everything, NEUTRAL, "quantifier_some_all")]
    return []


def direction(s: str, rng: random.Random) -> list[Pair]:
    words = _DIRECTION_WORD.findall(s)
    # Two direction words may swap back into the same meaning; "did not rise" and "did not fall"
    # do not contradict each other.
    if len(words) != 1 or _NEGATION_WORD.search(s):
        return []
    word = words[0]
    m = _DIRECTION_WORD.search(s)
    assert m
    new = _DIRECTION[m.group()]
    head = s[: m.start()]
    if head.endswith((" a ", " an ")):  # "a decrease" → "an increase"
        head = head[: head.rstrip().rfind(" ") + 1] + ("an " if new[0] in "aeiou" else "a ")
    swapped = head + new + s[m.end() :]
    return [(s, swapped, CONTRA, f"direction_{min(word, _DIRECTION[word])}")]


def attribution(s: str, c: Clause, rng: random.Random) -> list[Pair]:
    agent, said = rng.choice(_AGENTS), rng.choice(_SAID)
    report = f"{agent} {said} that {embedded(s)}"
    if rng.random() < 0.5:
        page = f"{report}, {rng.choice(_UNCONFIRMED)}."
        return [
            (page, s, NEUTRAL, "attribution_unconfirmed"),
            (page, report + ".", ENTAIL, "attribution_report"),
        ]
    page = f"{report}, {rng.choice(_DENIED)}."
    return [(page, s, CONTRA, "attribution_denied")]


def scope(s: str, c: Clause, rng: random.Random) -> list[Pair]:
    if c.copula and _SCOPE_VERB.match(c.rest):
        page = c.text(rest="partly " + c.rest)
        claim = c.text(rest=rng.choice(("entirely ", "wholly ", "solely ")) + c.rest)
        return [(page, claim, CONTRA, "scope_partly")]
    # "Berlin was briefly the capital"; with a common-noun subject it read as nonsense ("The next
    # step in his career was briefly the Cuban Revolution").
    name = all(w[:1].isupper() for w in c.subj.split()) and len(c.subj.split()) <= 4
    if (
        name
        and c.aux in ("was", "were")
        and c.rest.split()[0] in ("the", "a", "an", "one")
        and _ROLE.search(c.rest)
    ):
        page = c.text(rest="briefly " + c.rest)
        always = c.text("has always been" if c.aux == "was" else "have always been")
        return [(page, always, CONTRA, "scope_briefly")]
    return []


def pages(splits: Path, data: Path) -> list[tuple[str, list[str]]]:
    """(source, sentences) of every page: the train parts of the citation sets, and FactCG docs."""
    out: list[tuple[str, list[str]]] = []

    def sentences(passages: list[str]) -> list[str]:
        document, _ = document_from_passages("", "", passages)
        return [s.text for s in document.sentences]

    for row in read_rows(splits / "attributionbench.train.jsonl"):
        out.append(("attributionbench", sentences(references(row))))
    for row in read_rows(splits / "wice.train.jsonl"):
        out.append(("wice", [" ".join(e.split()) for e in row["evidence"]]))
    for row in read_rows(data / "nli_extra" / "factcg_cg2c_doc.jsonl.gz"):
        out.append(("factcg", sentences([row["premise"]])))
    return [(source, p) for source, p in out if len(p) >= 2]


_PERSON = re.compile(r"\b(I|I'm|I've|me|my|we|we've|we're|us|our|you|you're|your)\b", re.I)


def _usable(sentence: str) -> bool:
    # "No doubt …", "Maybe …" cannot follow "claimed that" or "It is false that".
    first = sentence.split(" ", 1)[0]
    return (
        40 <= len(sentence) <= 220
        and sentence.isascii()
        and sentence.endswith(".")
        and "?" not in sentence
        and first not in ("No", "Yes", "Not", "Perhaps", "Maybe", "So", "And", "But", "Or")
        # A speaker's "I'm sure …" or a reader's "your name" turn into nonsense once reported.
        and not _PERSON.search(sentence)
    )


def generate(all_pages: list[tuple[str, list[str]]], per_kind: int, seed: int) -> list[dict]:
    """Up to per_kind pairs of each family, drawn in a seeded order."""
    rng = random.Random(seed)
    words = Counter(
        w for _, page in all_pages for sentence in page for w in re.findall(r"\b[a-z]+\b", sentence)
    )
    _COMMON.clear()
    _COMMON.update(w for w, n in words.items() if n >= 3)
    order = [(p, i) for p in range(len(all_pages)) for i in range(len(all_pages[p][1]))]
    rng.shuffle(order)
    makers: dict[str, Callable[[str, Clause | None, random.Random], list[Pair]]] = {
        "myth": lambda s, c, r: myth(s, c, r) if c else [],
        "negation": lambda s, c, r: (
            [(s, pos, CONTRA, "negation_page_negated")]
            if (pos := positive(s))
            else negation(s, c, r)
            if c
            else []
        ),
        "quantifier": lambda s, c, r: quantifier(s, r),
        "direction": lambda s, c, r: direction(s, r),
        "attribution": lambda s, c, r: attribution(s, c, r) if c else [],
        "scope": lambda s, c, r: scope(s, c, r) if c else [],
    }
    made: dict[str, list[dict]] = {family: [] for family in makers}
    seen: set[tuple[str, str]] = set()
    for p, i in order:
        if all(len(v) >= per_kind for v in made.values()):
            break
        source, page = all_pages[p]
        s = page[i]
        if not _usable(s) or (source, s) in seen:
            continue
        seen.add((source, s))
        clause = parse(s)
        # One family per sentence, the one furthest from its quota, so no page sentence is taught
        # two ways and rare families (scope, quantifier) get every sentence they can use.
        for family in sorted(makers, key=lambda f: len(made[f])):
            if len(made[family]) >= per_kind:
                continue
            pairs = makers[family](s, clause, rng)
            if not pairs:
                continue
            # The neighbours the retriever would show with the sentence: up to two before, one after.
            lo, hi = max(0, i - rng.randint(0, 2)), min(len(page), i + 1 + rng.randint(0, 1))
            for replacement, claim, label, kind in pairs:
                premise = " ".join(page[lo:i] + [replacement] + page[i + 1 : hi])
                made[family].append(
                    {
                        "premise": premise,
                        "hypothesis": claim,
                        "label": label,
                        "family": family,
                        "kind": kind,
                        "source": source,
                    }
                )
            break
    return [row for family in made.values() for row in family]


_AS_JUDGED = {ENTAIL: "supported", CONTRA: "refuted", NEUTRAL: "unsupported"}


def write_meaning_test(pairs: list[dict], out: Path, count: int = 500, seed: int = 5) -> None:
    """NLI pairs as the meaning test's rows: the hypothesis is the claim, the premise the page."""
    pairs = list(pairs)
    random.Random(seed).shuffle(pairs)
    with out.open("w", encoding="utf-8") as f:
        for i, pair in enumerate(pairs[:count]):
            row = {
                "id": f"{pair['kind']}-{i}",
                "page_id": str(i),
                "family": pair["family"],
                "claim": pair["hypothesis"],
                "page": pair["premise"],
                "label": _AS_JUDGED[pair["label"]],
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=HERE / "runs" / "meaning_pairs.jsonl")
    parser.add_argument("--per-kind", type=int, default=200, help="pairs per family (at most)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    parser.add_argument("--data", type=Path, default=HERE.parent / "shared" / "data")
    parser.add_argument(
        "--as-meaning-test",
        type=Path,
        default=None,
        help="write 500 of the pairs in --out, shuffled (seed 5), as meaning-test rows to this file",
    )
    args = parser.parse_args()
    if args.as_meaning_test:
        write_meaning_test(read_rows(args.out), args.as_meaning_test)
        return
    for name in ("attributionbench", "wice"):
        if not (args.splits / f"{name}.train.jsonl").exists():
            parser.error(f"{args.splits / name}.train.jsonl is missing: run research.data.make_splits first")
    rows = generate(pages(args.splits, args.data), args.per_kind, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = Counter((r["family"], r["label"]) for r in rows)
    print(
        json.dumps(
            {
                "out": str(args.out),
                "pairs": len(rows),
                "by_family_label": {f"{f}/{lab}": n for (f, lab), n in sorted(counts.items())},
            }
        )
    )


if __name__ == "__main__":
    main()
