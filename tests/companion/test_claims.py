"""Atomic claims (FActScore) and context reading (verifiability study)."""

import json
import re
from pathlib import Path

from companion.text.claims import atomic_claims, hypothesis

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
AB = DATA / "attributionbench" / "dev.jsonl"
WICE = DATA / "wice" / "dev_oracle_chunks.jsonl"
# The first words a claim taken from inside a sentence may have (besides the statement's own
# capitalised words): determiners, pronouns, numbers.
STARTERS = set(
    """the a an many some most all these those several few both each every their its his her our my
    your this it they he she we i you there others one two three four five six seven eight nine ten
    no none neither either such""".split()
)


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


def test_a_list_inside_a_clause_keeps_the_clause_before_it():
    # The list's match began inside "approaches" and made "Hes to measure happiness include …".
    assert atomic_claims(
        "Other approaches to measure happiness include quality-adjusted life years, revealed "
        "preference, and average income, but all of these have flaws."
    )[:3] == [
        "Other approaches to measure happiness include quality-adjusted life years.",
        "Other approaches to measure happiness include revealed preference.",
        "Other approaches to measure happiness include average income.",
    ]


def test_examples_after_such_as_are_the_list():
    assert atomic_claims(
        "Many communities join local initiatives, such as recycling programs, clean-up events, and "
        "conservation projects."
    ) == [
        "Many communities join local initiatives, such as recycling programs.",
        "Many communities join local initiatives, such as clean-up events.",
        "Many communities join local initiatives, such as conservation projects.",
    ]


def test_a_list_hangs_on_the_verbs_preposition():
    assert atomic_claims("The show was produced by Coppola, Glazer and Tony Hernandez.") == [
        "The show was produced by Coppola.",
        "The show was produced by Glazer.",
        "The show was produced by Tony Hernandez.",
    ]


def test_quoted_titles_and_dates_are_never_split():
    song = "Kelly Clarkson is the American singer who sings 'Gone Gone Gone' and 'She's been gone so long.'"
    assert atomic_claims(song) == [song]
    assert atomic_claims("Smith was waived on November 5, 2018 and was re-signed to the practice squad.") == [
        "Smith was waived on November 5, 2018.",
        "Smith was re-signed to the practice squad.",
    ]


def test_no_atom_without_its_subject_or_made_of_a_noun_phrase():
    # "… and form elongated needles" has no subject of its own: the statement is checked whole.
    needles = "Auer rods are made up of clumps of granular material and form elongated needles in the blasts."
    assert atomic_claims(needles) == [needles]
    # "other economic factors" only looks like a clause ("factors" is no verb here).
    factors = (
        "Many factors shape a country's development, including climate change and other economic factors."
    )
    assert all(not a.startswith("Other") for a in atomic_claims(factors))
    # A participle's noun is no verb, so the subject runs to "plastics".
    assert atomic_claims(
        "Bans on single-use plastics have been met with success in California and are expected to spread."
    ) == [
        "Bans on single-use plastics have been met with success in California.",
        "Bans on single-use plastics are expected to spread.",
    ]


def test_an_apposition_needs_a_noun_phrase_for_its_head():
    claims = atomic_claims(
        "People with autism may lack social flexibility, which can make it hard to understand others, "
        "and they may struggle with the theory of mind."
    )
    assert not any("flexibility can make" in c for c in claims)


def test_every_atom_of_real_claims_is_made_of_the_statements_words():
    """AttributionBench's and WiCE's claims (../shared/data): no atom begins inside a word, cuts a
    quoted span or begins with a word the statement has only in lower case but a subject's."""
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
            first = atom.split()[0].strip("\"'“‘([")
            assert first in claim or first.lower() in STARTERS, (claim, atom)
            for quoted in re.findall(r"“[^”]{1,120}”|\"[^\"]{1,120}\"", claim):
                assert quoted in atom or quoted[1:-1] not in atom, (claim, atom)
    assert split > len(claims) // 10  # the splitter still splits: the check is not vacuous
