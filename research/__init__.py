"""The laboratory: data preparation, training, evaluation and benchmarks (research/README.md).

Run its modules as `python -m research.<sub>.<module>`; the companion never imports it.
"""
