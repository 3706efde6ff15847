"""The bar choice of research/evaluation/calibrate.py (issue 37's tenth candidate): on a curve from a few
hundred examples, a one-point spike must not beat a broad plateau once the curve is smoothed,
and with no smoothing the choice is the exact argmax the shipped fits were made with."""

import numpy as np

from research.evaluation.calibrate import best_on_curves

GRID = np.round(np.arange(0.05, 0.96, 0.01), 2)


def _curve(spike_at: float, plateau: tuple[float, float]) -> list[float]:
    """0.70 everywhere, 0.76 on the plateau, 0.80 at one grid point."""
    return [
        0.80 if abs(c - spike_at) < 1e-9 else 0.76 if plateau[0] <= c <= plateau[1] else 0.70 for c in GRID
    ]


def test_no_smoothing_takes_the_exact_argmax():
    curves = {0.3: _curve(0.2, (0.4, 0.6)), 0.35: [0.5] * len(GRID)}
    assert best_on_curves(GRID, curves, 0.0) == (0.2, 0.3)


def test_smoothing_prefers_the_plateau_to_a_spike():
    curves = {0.3: _curve(0.2, (0.4, 0.6)), 0.35: [0.5] * len(GRID)}
    complete, claim = best_on_curves(GRID, curves, 0.05)
    assert claim == 0.3
    # Every bar whose window lies on the plateau averages 0.76; the first of them wins.
    assert complete == 0.45


def test_the_claim_bar_is_chosen_with_it_and_ties_go_to_the_lowest():
    flat = [0.7] * len(GRID)
    assert best_on_curves(GRID, {0.3: flat, 0.35: flat}, 0.05) == (0.05, 0.3)
    better = [0.7] * len(GRID)
    better[50] = 0.9
    assert best_on_curves(GRID, {0.3: flat, 0.35: better}, 0.0) == (float(GRID[50]), 0.35)


def test_the_window_is_cut_at_the_grid_ends():
    # Highest at the first bar; the window there holds that bar and the 5 above it only.
    curve = [0.9] * 6 + [0.6] * (len(GRID) - 6)
    assert best_on_curves(GRID, {0.3: curve}, 0.05) == (0.05, 0.3)
