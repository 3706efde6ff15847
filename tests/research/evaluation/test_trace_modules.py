"""The judge reads in one direction (issue 61): one statement followed through Judge.judge, call
site by call site as the code is written, comes back to a module it had left at most 20 times
(0.15.6: 58; 0.16.2: 17), and the rules never call back into relation.py."""

from __future__ import annotations

from collections import Counter

import pytest

from research.evaluation.trace_modules import trace

# The bar, not this build's figure: a change that sends a stage back to an earlier one
# again and again fails here, one that adds a call site or two does not.
MOST_RETURNS = 20


@pytest.mark.parametrize("statement", [3, 4])
def test_one_statement_comes_back_to_a_module_it_left_at_most_twenty_times(statement):
    sites, written, _, calls = trace(statement, None)
    returns = len(written) - len(set(written))
    assert returns <= MOST_RETURNS, (returns, " → ".join(written))
    assert written[0] == "judging.judge"
    # The relations are computed once, into a table the rules read: no rule asks relation.py.
    assert Counter(written)["judging.relation"] == 1, written
    assert calls["judging.meaning", "judging.relation"] == 0
    # Reading asks retrieval once per page and claim, the same call site for each.
    assert [s for s in sites if s[0] == "judging.reading" and s[2] == "text.retrieve"] == [
        ("judging.reading", "_plan", "text.retrieve", "candidates")
    ]
