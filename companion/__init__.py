"""CiteLens companion: checks whether the sources an AI search answer cites support each sentence.

The stages are subpackages, bottom up: text (sentences, languages, retrieval, claims), sources
(fetch, cache, extract), model (onnxruntime), judging (reading, rules, policy, judge); `pipeline`
runs them for one answer, wire (capture, export) speaks the API, service (server, cli) and batch
expose them.
"""

__all__ = ["JUDGE_CODE", "__version__"]

# Both written by scripts/release.py (docs/releasing.md): the release, bumped with every change of
# what the companion outputs, and the fingerprint of the judging code it was made from
# (companion.versions; tests/companion/test_versions.py holds the two together).
__version__ = "0.16.2"
JUDGE_CODE = "96cca9582295407b"
