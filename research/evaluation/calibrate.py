"""Fits the score combiner and the decision thresholds of a model folder on calibration data.

Runs the companion's own judge (`Judge.read`: retrieval, the model, the rules of meaning.py) on
the calib parts (research/data/make_splits.py) of AttributionBench and WiCE once, then fits everything
through the policy that runs (policy.decide_statement), so the figures describe the pipeline:
- `contradiction`, the bar for flagging a statement contradicted, first, on pairs labelled
  contradiction: the lowest bar at which >= 95% of the flags are right (the citation sets have no
  contradiction labels; searched on them, the bar drifted to where it never fires). SNLI has no
  split here that training leaves alone but test, so the bar reads SNLI test's rows after the
  first 2,000, the rows every SNLI figure (research/evaluation/evaluate.py --limit 2000) is measured on; the
  harder sets not trained on (CAD-SNLI dev, TaxiNLI for a model not trained on it) bring no bar
  under 0.99 to 90 % precision, and would turn the flag off;
- the combiner: an L2-regularised logistic regression from combiner.FEATURES to "fully
  supported" (both sets pooled, each weighted equally), its L2 chosen by 5-fold
  cross-validation, with the Brier score and expected calibration error (ECE, ten bins) of the
  out-of-fold probabilities;
- `complete`, `claim` (atomic claims) and `entailment_floor` (the model's own entailment that
  complete support needs) together, for the mean balanced accuracy of the two sets (with
  `--smooth`, `complete` on that curve averaged over a window around each bar); `partial`
  for WiCE 3-way macro-F1; then `contradiction_ceiling` (the most the most entailing reading may
  contradict for complete support) on those two and NLI pairs that no recipe in the model cards
  trains on (CAD-SNLI dev, 1,000 pairs whose hypotheses people edited minimally to flip the label:
  the same words, another meaning), since the citation sets hold no contradictions. TaxiNLI's
  MNLI pairs served until issue 27's candidates trained on them. The fit before the ceiling is also
  cross-validated (5 folds: fit on four, judge the fifth), and that figure is written beside the
  in-sample one;
- last, `conflict` (issue 36: one on-topic window read as contradiction at it vetoes complete
  support): the lowest bar of CONFLICT_BARS that costs the citation calib parts at most
  CONFLICT_COST of mean balanced accuracy against the veto off. The citation parts hold no
  contradictions, so the veto can only cost there; where it costs nothing the bar goes as low as
  the candidates do, since a reader who trusts green must not be sent past a reading of the
  opposite (the first version of this rule broke ties towards the higher bar, which turned the
  veto off for a model whose curve was flat: the model card says so). The mean balanced
  accuracy with the NLI pairs beside them is recorded for each bar (`conflict_curve`);
- with a cascade (issue 37), every bar above is the reader's; the windows the reader leaves to the
  fast model are compared with the fast model's own bars, fitted by the same rules on its own
  readings: `fast_contradiction` on SNLI, then `fast_conflict` last;
and writes them into <model>/config.json. The held parts stay untouched for reporting; SNLI test
accuracy is an argmax figure that no threshold touches.

    python -m research.evaluation.calibrate --model models/citelens-minilm-nli [--splits runs/splits]
        [--snli FILE] [--nli-calib FILE] [--smooth 0.05]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.judging.combiner import FEATURES, Combiner, features_version
from companion.judging.judge import Judge
from companion.judging.policy import ClaimFacts, Scale, decide_sides
from companion.model.folder import ModelConfig, Thresholds
from companion.model.infer import OnnxNLI, load_reader
from research.evaluation.evaluate import balanced_accuracy, macro_f1
from research.lib.datasets import examples, read_rows

HERE = Path(__file__).resolve().parents[2]
LABELS3 = ("complete_support", "partial_support", "no_support")


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Newton's method on the weighted, L2-regularised log loss (the bias is not penalised)."""
    mean, std = x.mean(0), x.std(0) + 1e-6
    z = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ beta))
        grad = z.T @ (w * (p - y)) + penalty * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = beta[:-1] / std
    bias = beta[-1] - float((beta[:-1] * mean / std).sum())
    return weights, bias


def collect(judge: Judge, fmt: str, rows: list[dict]) -> list[tuple[ClaimFacts | None, str]]:
    """Each example's readings (None: no source could be read) and its gold label."""
    out: list[tuple[ClaimFacts | None, str]] = []
    for ex in examples(fmt, rows):
        read = judge.read(ex.statement, ex.sources)
        out.append((read.facts if read else None, ex.gold))
    return out


def contradiction_bar(nli: OnnxNLI, rows: list[dict], precision: float = 0.95) -> float:
    """The lowest bar whose contradiction flags on labelled NLI pairs are right `precision` of the time."""
    pairs = [(r["premise"], r["hypothesis"]) for r in rows]
    scores = np.array([s.contradiction for s in nli.score_uncached(pairs)])
    truth = np.array([r["label"] == "contradiction" for r in rows])
    for bar in np.round(np.arange(0.5, 0.995, 0.01), 2):
        flagged = scores >= bar
        if flagged.any() and truth[flagged].mean() >= precision:
            return float(bar)
    return 0.99


@dataclass(frozen=True, slots=True)
class Fit:
    weights: np.ndarray
    bias: float
    l2: float
    thresholds: Thresholds


def combiner_for(base: ModelConfig, judge: Judge, weights: np.ndarray, bias: float) -> Combiner:
    fitted = dataclasses.replace(
        base,
        combiner_weights=tuple(float(w) for w in weights),
        combiner_bias=float(bias),
        combiner_features=FEATURES,
        features_version=features_version(judge.retrieval, judge.judging),
    )
    return Combiner(fitted, judge.retrieval, judge.judging)


def labels(
    rows: Sequence[tuple[ClaimFacts | None, str]],
    combiner: Combiner,
    t: Thresholds,
    across: Scale | None = None,
) -> list[str]:
    """The statements' labels as the policy decides them; `across`, the model's crossed scale, for
    the rows whose pages the judge reads in another language than the claim (policy.decide_sides:
    a short claim the detector places in another language than its page is one)."""
    return [decide_sides(f, Scale(combiner, t), across)[0].judgment if f else "no_support" for f, _ in rows]


def mean_ba(
    sets: Sequence[Sequence[tuple[ClaimFacts | None, str]]], combiner: Combiner, t: Thresholds
) -> float:
    return float(
        np.mean(
            [
                balanced_accuracy(
                    [g == "complete_support" for _, g in rows],
                    [label == "complete_support" for label in labels(rows, combiner, t)],
                )
                for rows in sets
            ]
        )
    )


def design(
    sets: Sequence[Sequence[tuple[ClaimFacts | None, str]]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, gold and weights (each set weighted equally) of the readable examples."""
    x = np.array([f.features for rows in sets for f, _ in rows if f], dtype=float)
    y = np.array([g == "complete_support" for rows in sets for f, g in rows if f], dtype=float)
    w = np.concatenate([np.full(sum(1 for f, _ in rows if f), 1.0 / max(1, len(rows))) for rows in sets])
    return x, y, w * len(x) / len(sets)


def folds(n: int, k: int = 5, seed: int = 13) -> list[np.ndarray]:
    return list(np.array_split(np.random.default_rng(seed).permutation(n), k))


def choose_l2(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """The L2 with the lowest out-of-fold weighted log loss, and those out-of-fold probabilities."""
    best: tuple[float, float, np.ndarray] | None = None
    for l2 in (0.1, 1.0, 10.0, 100.0):
        p = np.zeros(len(x))
        for held in folds(len(x)):
            train = np.setdiff1d(np.arange(len(x)), held)
            weights, bias = fit_logistic(x[train], y[train], w[train], l2)
            p[held] = 1 / (1 + np.exp(-(bias + x[held] @ weights)))
        q = np.clip(p, 1e-6, 1 - 1e-6)
        loss = float(-(w * (y * np.log(q) + (1 - y) * np.log(1 - q))).sum() / w.sum())
        if best is None or loss < best[0]:
            best = (loss, l2, p)
    assert best is not None
    return best[1], best[2]


def calibration_error(p: np.ndarray, y: np.ndarray, w: np.ndarray, bins: int = 10) -> tuple[float, float]:
    """The weighted Brier score and expected calibration error (equal-width bins) of `p`."""
    brier = float((w * (p - y) ** 2).sum() / w.sum())
    at = np.minimum((p * bins).astype(int), bins - 1)
    ece = sum(
        w[at == b].sum()
        / w.sum()
        * abs(np.average(p[at == b], weights=w[at == b]) - np.average(y[at == b], weights=w[at == b]))
        for b in range(bins)
        if w[at == b].sum() > 0
    )
    return brier, float(ece)


def fit(
    base: ModelConfig,
    judge: Judge,
    sets: Sequence[Sequence[tuple[ClaimFacts | None, str]]],
    contradiction: float,
    smooth: float = 0.0,
) -> Fit:
    """Weights, then thresholds searched through the policy, on these examples; with `smooth`,
    `complete` is chosen on the curve averaged over the grid points within +-`smooth` of each bar
    (a bar fitted to a few hundred examples otherwise lands on their noise)."""
    x, y, w = design(sets)
    l2, _ = choose_l2(x, y, w)
    weights, bias = fit_logistic(x, y, w, l2)
    combiner = combiner_for(base, judge, weights, bias)
    fixed = base.thresholds
    start = Thresholds(
        contradiction=contradiction,
        negated_contradiction=fixed.negated_contradiction,
        elsewhere_entailment=fixed.elsewhere_entailment,
        entailment_floor=fixed.entailment_floor,
        fast_contradiction=fixed.fast_contradiction,
        fast_conflict=fixed.fast_conflict,
    )
    grid = np.round(np.arange(0.05, 0.96, 0.01), 2)
    claims = np.round(np.arange(0.3, 0.96, 0.05), 2)
    floors = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)

    def best_complete_claim(t: Thresholds) -> Thresholds:
        # complete and claim together decide "fully supported" (policy.decide): searched jointly.
        curves = {
            float(a): [
                mean_ba(sets, combiner, dataclasses.replace(t, complete=float(c), claim=float(a)))
                for c in grid
            ]
            for a in claims
        }
        complete, claim = best_on_curves(grid, curves, smooth)
        return dataclasses.replace(t, complete=complete, claim=claim)

    t = best_complete_claim(start)
    t = max(
        (dataclasses.replace(t, entailment_floor=f) for f in floors), key=lambda c: mean_ba(sets, combiner, c)
    )
    t = best_complete_claim(t)
    wice = sets[-1]
    # Below 0.15, "partial" would fire on sources that share almost no words with the statement.
    partial = max(
        (float(p) for p in grid if 0.15 <= p < t.complete),
        default=t.complete,
        key=lambda p: macro_f1(
            [g for _, g in wice], labels(wice, combiner, dataclasses.replace(t, partial=p)), LABELS3
        ),
    )
    return Fit(weights, bias, l2, dataclasses.replace(t, partial=partial))


def best_on_curves(grid: np.ndarray, curves: dict[float, list[float]], smooth: float) -> tuple[float, float]:
    """(complete, claim): the argmax over `grid` (complete) and the curves' keys (claim) of each
    curve averaged over the grid points within +-`smooth` of the point (fewer at the grid's ends);
    ties go to the lowest complete, then the lowest claim."""
    _, complete, claim = max(
        (
            (float(np.mean(np.asarray(curve)[np.abs(grid - c) <= smooth + 1e-9])), float(c), claim)
            for c in grid
            for claim, curve in curves.items()
        ),
        key=lambda scored: scored[0],
    )
    return complete, claim


def cross_validated(
    base: ModelConfig,
    judge: Judge,
    sets: Sequence[Sequence[tuple[ClaimFacts | None, str]]],
    contradiction: float,
    smooth: float = 0.0,
) -> float:
    """Mean balanced accuracy of the whole fit on examples it did not see (5 folds per set)."""
    split = [folds(len(rows)) for rows in sets]
    scores = []
    for k in range(5):
        train = [
            [rows[i] for i in range(len(rows)) if i not in set(parts[k])] for rows, parts in zip(sets, split)
        ]
        test = [[rows[i] for i in parts[k]] for rows, parts in zip(sets, split)]
        f = fit(base, judge, train, contradiction, smooth)
        scores.append(mean_ba(test, combiner_for(base, judge, f.weights, f.bias), f.thresholds))
    return float(np.mean(scores))


CONFLICT_BARS = (1.01, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5)
CONFLICT_COST = 0.005


def conflict_bar(
    sets: Sequence[Sequence[tuple[ClaimFacts | None, str]]],
    combiner: Combiner,
    t: Thresholds,
    fast: bool = False,
) -> Thresholds:
    """`t` with the conflict bar of the module docstring's rule (never above the contradiction
    bar, where a window's reading contradicts the claim outright); with `fast`, the bar for the
    windows a cascade's fast model alone read, on its scale (Thresholds.fast_conflict)."""
    name, contradiction = ("fast_conflict", t.fast_contradiction) if fast else ("conflict", t.contradiction)
    off = mean_ba(sets, combiner, dataclasses.replace(t, **{name: 1.01}))
    bars = [b for b in CONFLICT_BARS if b >= 1 or b <= (contradiction or 1.0)]
    affordable = [
        b for b in bars if mean_ba(sets, combiner, dataclasses.replace(t, **{name: b})) >= off - CONFLICT_COST
    ]
    return dataclasses.replace(t, **{name: min(affordable)})


def conflict_curve(
    sets: Sequence[Sequence[tuple[ClaimFacts | None, str]]],
    with_nli: Sequence[Sequence[tuple[ClaimFacts | None, str]]],
    combiner: Combiner,
    t: Thresholds,
) -> dict[str, list[float]]:
    """Per candidate bar: the citation parts' mean balanced accuracy, and with the NLI pairs."""
    return {
        str(b): [round(mean_ba(s, combiner, dataclasses.replace(t, conflict=b)), 4) for s in (sets, with_nli)]
        for b in CONFLICT_BARS
    }


def _shown(path: Path) -> str:
    """A path as the config records it: relative to the checkout where it lies inside it."""
    try:
        return str(path.resolve().relative_to(HERE))
    except ValueError:
        return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--splits", type=Path, default=HERE / "runs" / "splits")
    parser.add_argument("--part", default="calib")
    parser.add_argument(
        "--snli", type=Path, default=HERE.parent / "shared" / "data" / "snli" / "test.jsonl.gz"
    )
    parser.add_argument(
        "--nli-calib",
        type=Path,
        default=HERE.parent / "shared" / "data" / "nli_extra" / "cad_snli_dev.jsonl.gz",
        help="NLI pairs with contradictions, not trained on, for the contradiction ceiling",
    )
    parser.add_argument("--nli-calib-rows", type=int, default=1000)
    parser.add_argument(
        "--smooth",
        type=float,
        default=0.0,
        help="choose `complete` on the curve averaged over +-this (0: the exact argmax, as shipped)",
    )
    parser.add_argument(
        "--snli-skip",
        type=int,
        default=2000,
        help="SNLI rows the evaluation reads, left out of the bar's fit",
    )
    args = parser.parse_args()

    nli = OnnxNLI(args.model, cache_pairs=5_000_000)
    # With a cascade (issue 37) the reader's readings are the ones the bars are read on, and the
    # windows the reader leaves to the fast model are read with the fast model's own bars.
    reader = load_reader(nli.config, cache_pairs=5_000_000)
    snli = read_rows(args.snli)[args.snli_skip :]
    contradiction = contradiction_bar(reader or nli, snli)
    fast = contradiction_bar(nli, snli) if reader else None
    # The readings depend on the contradiction bars alone (a window past one is read again with
    # the page's other sentences about the claim); everything else is fitted on them below.
    base = dataclasses.replace(
        nli.config,
        combiner_weights=(),
        thresholds=dataclasses.replace(
            nli.config.thresholds, contradiction=contradiction, fast_contradiction=fast
        ),
    )
    # Read as if the conflict bars were their lowest candidate, so that every window they could
    # veto on is read again with the page's context as at run time; the fits below start with
    # them off.
    lowest = min(CONFLICT_BARS)
    judge = Judge(
        nli,
        dataclasses.replace(
            base,
            thresholds=dataclasses.replace(
                base.thresholds, conflict=lowest, fast_conflict=lowest if reader else None
            ),
        ),
        reader=reader,
    )
    base = dataclasses.replace(
        base,
        thresholds=dataclasses.replace(
            base.thresholds, conflict=1.01, fast_conflict=1.01 if reader else None
        ),
    )
    names = ("attributionbench", "wice")
    sets = [collect(judge, fmt, read_rows(args.splits / f"{fmt}.{args.part}.jsonl")) for fmt in names]

    chosen = fit(base, judge, sets, contradiction, args.smooth)
    combiner = combiner_for(base, judge, chosen.weights, chosen.bias)
    # The ceiling on the most entailing reading's contradiction needs pairs that contradict, which
    # the citation sets lack: searched on NLI pairs beside them, the others held. Ties go to the
    # highest ceiling, so that it stays off unless it pays.
    pool = read_rows(args.nli_calib)
    nli_rows = [
        pool[i] for i in sorted(np.random.default_rng(13).permutation(len(pool))[: args.nli_calib_rows])
    ]
    nli_set = collect(judge, "snli", nli_rows)
    nli_set = [(f, "complete_support" if g == "entailment" else "no_support") for f, g in nli_set]
    ceilings = (1.01, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1)
    with_nli = [*sets, nli_set]
    best = max(
        ceilings,
        key=lambda c: mean_ba(
            with_nli, combiner, dataclasses.replace(chosen.thresholds, contradiction_ceiling=c)
        ),
    )
    chosen = dataclasses.replace(
        chosen, thresholds=dataclasses.replace(chosen.thresholds, contradiction_ceiling=best)
    )
    chosen = dataclasses.replace(chosen, thresholds=conflict_bar(sets, combiner, chosen.thresholds))
    if reader:
        chosen = dataclasses.replace(
            chosen, thresholds=conflict_bar(sets, combiner, chosen.thresholds, fast=True)
        )
    x, y, w = design(sets)
    _, out_of_fold = choose_l2(x, y, w)
    brier, ece = calibration_error(out_of_fold, y, w)
    f1 = macro_f1([g for _, g in sets[1]], labels(sets[1], combiner, chosen.thresholds), LABELS3)

    config_path = args.model / "config.json"
    config = json.loads(config_path.read_text())
    config["thresholds"] = {k: v for k, v in dataclasses.asdict(chosen.thresholds).items() if v is not None}
    config["combiner"] = {
        "features": list(FEATURES),
        "features_version": features_version(judge.retrieval, judge.judging),
        "weights": [round(float(v), 6) for v in chosen.weights],
        "bias": round(float(chosen.bias), 6),
        "l2": chosen.l2,
    }
    config["calibration"] = {
        "data": f"{args.part} parts of AttributionBench dev and WiCE dev in {_shown(args.splits)} "
        "(research/data/make_splits.py, seed 13), read by the judge and decided by its policy",
        "contradiction_data": f"{args.snli.parent.name}/{args.snli.name} after its first "
        f"{args.snli_skip} rows, flags right 95% of the time",
        "examples": {fmt: len(rows) for fmt, rows in zip(names, sets)},
        "ceiling_data": f"{args.nli_calib.parent.name}/{args.nli_calib.name}, {len(nli_set)} rows (seed 13)",
        "mean_balanced_accuracy_with_nli": round(mean_ba(with_nli, combiner, chosen.thresholds), 4),
        "mean_balanced_accuracy": round(mean_ba(sets, combiner, chosen.thresholds), 4),
        "cv_mean_balanced_accuracy": round(cross_validated(base, judge, sets, contradiction, args.smooth), 4),
        "combiner_brier_cv": round(brier, 4),
        "combiner_ece_cv": round(ece, 4),
        "wice_macro_f1": round(f1, 4),
        "conflict_curve": conflict_curve(sets, with_nli, combiner, chosen.thresholds),
    }
    if args.smooth:
        config["calibration"]["complete_chosen_on_curve_averaged_over"] = args.smooth
    config_path.write_text(json.dumps(config, indent=2) + "\n")
    print(
        json.dumps(
            {"thresholds": config["thresholds"], "combiner": config["combiner"], **config["calibration"]}
        )
    )


if __name__ == "__main__":
    main()
