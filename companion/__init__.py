"""CiteLens companion: checks whether the sources an AI search answer cites support each sentence.

The pipeline's stages, in data-flow order, are modules of their own: capture → segment → fetch →
extract → retrieve → infer → judge → export; `pipeline` runs them, `server` and `cli` expose them.
"""

__all__ = ["JUDGE_CODE", "__version__"]

# Both written by scripts/release.py (docs/releasing.md): the release, bumped with every change of
# what the companion outputs, and the fingerprint of the judging code it was made from
# (companion.versions; tests/companion/test_versions.py holds the two together).
__version__ = "0.3.1"
JUDGE_CODE = "8f059fda0da81a85"
