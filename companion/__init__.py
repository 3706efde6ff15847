"""CiteLens companion: checks whether the sources an AI search answer cites support each sentence.

The pipeline's stages, in data-flow order, are modules of their own: capture → segment → fetch →
extract → retrieve → infer → judge → export; `pipeline` runs them, `server` and `cli` expose them.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
