"""Measuring the judge and the networks: the figures on the cards and in docs/."""
