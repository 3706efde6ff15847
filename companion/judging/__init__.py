"""From a statement and its sources' Documents to verdicts, no I/O: what the model reads of each
source (reading), how a claim lines up with each source sentence (relation), the rules of meaning
as data per language (rulebook, rules/) and the predicates that apply them (meaning), the score
(combiner), the one decision and its reasons (policy), quotes (evidence), ALCE's figures (alce),
and the judge that runs them (judge), one per model (judges)."""
