"""Data preparation: the splits, and the pairs training reads."""
