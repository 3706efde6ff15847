"""Atomic claims (FActScore) and context reading (verifiability study)."""

import json
import re
from pathlib import Path

from companion.text.claims import atomic_claims, hypothesis

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
AB = DATA / "attributionbench" / "dev.jsonl"
WICE = DATA / "wice" / "dev_oracle_chunks.jsonl"


def test_coordinated_predicates_share_their_subject():
    assert atomic_claims("Marie Curie was born in Warsaw in 1867 and died in France in 1934.") == [
        "Marie Curie was born in Warsaw in 1867.",
        "Marie Curie died in France in 1934.",
    ]


def test_lists_keep_their_frame():
    assert atomic_claims("A colony holds one queen, a few hundred drones and thousands of workers.") == [
        "A colony holds one queen.",
        "A colony holds a few hundred drones.",
        "A colony holds thousands of workers.",
    ]


def test_apposition_becomes_a_claim_of_its_own():
    assert atomic_claims("Barack Obama, the 44th president, was born in Hawaii.") == [
        "Barack Obama is the 44th president.",
        "Barack Obama was born in Hawaii.",
    ]


def test_clauses_split_and_pronoun_subjects_resolve():
    assert atomic_claims("The drug lowers blood pressure, but it can cause dizziness.") == [
        "The drug lowers blood pressure.",
        "The drug can cause dizziness.",
    ]


def test_single_fact_stays_whole():
    assert atomic_claims("Python is a programming language.") == ["Python is a programming language."]
    assert atomic_claims("Many doctors recommend walking and swimming.") == [
        "Many doctors recommend walking and swimming."
    ]


def test_hypothesis_resolves_a_leading_pronoun_from_the_previous_sentence():
    assert hypothesis("It was completed in 1889.", previous="The Eiffel Tower is in Paris.") == (
        "The Eiffel Tower was completed in 1889."
    )


def test_hypothesis_folds_the_question_into_a_bare_answer():
    assert (
        hypothesis("The Proclaimers.", question="who sang 500 miles?")
        == "who sang 500 miles? The Proclaimers."
    )
    long = "The Proclaimers recorded the song in 1988 in Edinburgh."
    assert hypothesis(long, question="who sang 500 miles?") == long


def test_another_languages_statement_is_read_whole():
    # The splitter and the pronoun rules read English; a French statement is checked as written.
    french = "La tour mesure 330 mètres et elle a été construite en 1889."
    assert atomic_claims(french, "fr") == [french]
    assert len(atomic_claims("The tower is 330 metres tall and it was built in 1889.")) == 2
    assert hypothesis("Elle a été construite en 1889.", "La tour Eiffel est à Paris.", language="fr") == (
        "Elle a été construite en 1889."
    )
    assert hypothesis("It was built in 1889.", "The Eiffel Tower is in Paris.").startswith("The Eiffel Tower")


def test_an_atom_that_would_cut_a_word_or_a_quote_leaves_the_statement_whole():
    # The list pattern's match began inside "studies" and made six atoms "Ies have …".
    studies = (
        "However, studies have shown widespread concern about environmental issues, such as climate "
        "change, air pollution, and waste management, among individuals and communities around the world."
    )
    assert atomic_claims(studies) == [studies]
    # The list began inside the quoted title and made an atom of "Hall, the Parlour".
    title = (
        'The band recorded "Hall, the Parlour and the Kitchen" in London, Paris and Berlin, with three '
        "producers."
    )
    assert all(a.count('"') in (0, 2) for a in atomic_claims(title))


def test_every_atom_of_real_claims_is_made_of_the_statements_words():
    """AttributionBench's and WiCE's claims (../shared/data): no atom begins inside a word or holds
    part of a quoted span, and the splitter still splits many of them."""
    claims = [json.loads(line)["claim"] for line in AB.read_text("utf-8").splitlines()]
    claims += [json.loads(line)["claim"] for line in WICE.read_text("utf-8").splitlines()]
    assert len(claims) > 1000
    split = 0
    for claim in claims:
        atoms = atomic_claims(claim)
        split += len(atoms) > 1
        words = set(re.findall(r"\w+", claim.lower())) | {"is"}
        for atom in atoms if len(atoms) > 1 else []:
            assert set(re.findall(r"\w+", atom.lower())) <= words, (claim, atom)
            for quoted in re.findall(r"“[^”]{1,120}”|\"[^\"]{1,120}\"", claim):
                assert quoted in atom or quoted[1:-1] not in atom, (claim, atom)
    assert split > len(claims) // 10  # the splitter still splits: the check is not vacuous
