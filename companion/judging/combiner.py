"""From what the model read to a score: the features and their calibrated combination.

The combiner is a small logistic model (research/evaluation/calibrate.py fits it on held-out citation data)
over the model's best entailment and cheap lexical features. Its weights only mean something for
the features they were fitted to, so the model's config records the features' names and a
version that fingerprints everything that defines them (stemmer, stop words, retrieval and
judging settings); a config fitted to anything else is refused in words.

The labels are policy.py's. Pure: no I/O, no model.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..config import Judging, Retrieval
from ..errors import ModelUnavailable
from ..model.folder import ModelConfig
from ..records import PageIndex, Words
from ..text.analysis import content_terms
from ..text.language import lexicon

__all__ = ["FEATURES", "Combiner", "Overlap", "crossed_combiner", "features_version", "overlap"]

# The combiner's inputs, in order (research/evaluation/calibrate.py fits one weight per name).
# Contradiction is not one: it has its own flag and bar, and fitted on 303 calib examples its
# weight learned that an on-topic window "contradicts" on WiCE, which cost the combined score 2.7
# points of held WiCE AUC once the model read negated pages (cross-validated on calib, these four
# ranked best for both models).
FEATURES = (
    "max_entailment_logit",
    "coverage",
    "missing_numbers",
    "missing_names",
)
# Word forms whose terms show what the stemmer and the stop words do: a change to either changes
# this text's terms, and so the features version.
_PROBE = (
    "The colonies' queens were laying 2,000 eggs daily; studies found no link, and it isn't "
    "unusually fast. Running, ran, runs: women's bodies, studied classes, 3.5 per cent in 1889."
)


@dataclass(frozen=True, slots=True)
class Overlap:
    """Cheap signals of what a claim says that the evidence does not (combiner features)."""

    coverage: float  # idf-free share of the claim's content terms found in the evidence
    missing_numbers: float  # share of the claim's numbers absent from the evidence
    missing_names: float  # share of the claim's capitalised names absent from the evidence


def overlap(claim: Words, terms: frozenset[str], numbers: frozenset[str], lowered: Sequence[str]) -> Overlap:
    """Overlap of a claim with evidence: its terms, its numbers, and its lower-cased texts, where
    the claim's names are looked for."""
    coverage = len(claim.term_set & terms) / len(claim.term_set) if claim.term_set else 1.0
    missing_numbers = len(claim.numbers - numbers) / len(claim.numbers) if claim.numbers else 0.0
    missing = sum(1 for n in claim.names if not any(n in text for text in lowered))
    missing_names = missing / len(claim.names) if claim.names else 0.0
    return Overlap(coverage, missing_numbers, missing_names)


def features_version(retrieval: Retrieval, judging: Judging) -> str:
    """A short fingerprint of everything that defines the features the weights were fitted to."""
    defining = {
        "features": FEATURES,
        "stopwords": sorted(lexicon("en").stopwords),
        "probe_terms": content_terms(_PROBE),
        "retrieval": dataclasses.asdict(retrieval),
        # What the contradiction flag and the atoms' features read; quoting settings do not count.
        "judging": {"on_topic": judging.on_topic, "atom_windows": judging.atom_windows},
    }
    return hashlib.sha256(json.dumps(defining, sort_keys=True).encode()).hexdigest()[:16]


class Combiner:
    """The calibrated probability that cited text fully supports a claim, from its features."""

    def __init__(self, model: ModelConfig, retrieval: Retrieval, judging: Judging, *, strict: bool = True):
        """`strict=False` is for experiments that vary the settings on purpose (evaluate.py's
        --candidates): the weights are then read as they are, and the figures say so."""
        self.weights = model.combiner_weights
        self.bias = model.combiner_bias
        self.version = features_version(retrieval, judging)
        if not self.weights:
            return
        fix = f"rerun scripts/calibrate.py --model {model.path}"
        if model.combiner_features != FEATURES:
            raise ModelUnavailable(
                f"{model.path / 'config.json'}: its combiner was fitted to {list(model.combiner_features)}, "
                f"this CiteLens reads {list(FEATURES)}; {fix}"
            )
        if strict and model.features_version != self.version:
            raise ModelUnavailable(
                f"{model.path / 'config.json'}: its combiner was fitted to features version "
                f"{model.features_version or '(none recorded)'}, this CiteLens computes version "
                f"{self.version} (the stemmer, stop words, retrieval or judging settings changed); {fix}"
            )

    @staticmethod
    def features(
        claim: Words, evidence: Sequence[Words], pages: Sequence[PageIndex], best: float
    ) -> list[float]:
        """FEATURES for a claim as written against the top evidence of its sources (their joined
        top sentences, analysed when read) and their whole pages, with the model's best
        entailment probability over them."""
        top = overlap(claim, frozenset().union(*(e.term_set for e in evidence)), frozenset(), ())
        anywhere = overlap(
            claim,
            frozenset().union(*(p.terms for p in pages)),
            frozenset().union(*(p.numbers for p in pages)),
            [p.lowered for p in pages],
        )
        return [_logit(best), top.coverage, anywhere.missing_numbers, anywhere.missing_names]

    def score(self, features: Sequence[float]) -> float:
        if not self.weights:  # an uncalibrated model: its own best entailment probability
            z = features[0]
        else:
            z = self.bias + sum(w * f for w, f in zip(self.weights, features, strict=True))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def crossed_combiner(
    model: ModelConfig, retrieval: Retrieval, judging: Judging, *, strict: bool = True
) -> Combiner | None:
    """The combiner of the model's crossed reading (model.folder.Crossed), None where it records
    none: the same FEATURES, the lexical ones weighted 0, so a source's features read the same
    on both scales and only the weights differ."""
    if model.crossed is None:
        return None
    weights = (model.crossed.weight,) + (0.0,) * (len(FEATURES) - 1)
    across = dataclasses.replace(model, combiner_weights=weights, combiner_bias=model.crossed.bias)
    return Combiner(across, retrieval, judging, strict=strict)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))
