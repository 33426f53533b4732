#!/usr/bin/env python3
"""How many more games a stopped SPRT is likely to need, and how it is likely to end.

From a test's pentanomial counts ``[LL, LD, WL+DD, WD, WW]`` (game pairs, ``-repeat``) the
script plays the test on by simulation: it draws further pairs at random from a pair
distribution, ``step`` pairs at a time, and stops a run when the LLR (``stats.sprt_llr``, the
normalized model our runner and fishtest use, decided by ``stats.sprt_status``) leaves the
bounds of ``alpha`` and ``beta``, or after ``--max-games`` more games. Two distributions are
tried:

- ``observed``: the counts' own frequencies (the test's point estimate is the truth);
- ``level``: the same frequencies made symmetric, ``(p + reversed(p)) / 2`` (0 Elo, the same
  draw rate and pair spread).

For each it prints the median and the 10th and 90th percentiles of the further games (games,
not pairs) and how many runs ended in H0, in H1 or undecided. It answers whether a stopped
test is worth its cores; the Elo itself comes only from the games played.

The technique is the average sample number of Wald's SPRT estimated by Monte Carlo (A. Wald,
"Sequential Tests of Statistical Hypotheses", 1945; chessprogramming wiki "Sequential
Probability Ratio Test").

Usage: python scripts/sprt_forecast.py LL LD WLDD WD WW [--elo0 0] [--elo1 10]
           [--runs 200] [--seed 1]
"""
import argparse

import numpy as np

from uci_engine.tools import stats


def forecast(penta, elo0, elo1, alpha, beta, probs, runs, seed, step=50, max_games=40_000):
    """Simulate ``runs`` continuations of a test at ``penta`` (5 ints, pairs) drawing pairs
    with ``probs`` (5 floats summing to 1).

    Returns (further_games, outcomes): an int64 array of shape (runs,) with the games (2 per
    pair) each run added, and a list of "H0", "H1" or "none" (``max_games`` reached).
    Raises ValueError for a pentanomial that is not 5 non-negative counts."""
    start = np.asarray(penta, dtype=np.int64)
    if start.shape != (5,) or (start < 0).any():
        raise ValueError(f"a pentanomial is 5 non-negative counts, not {penta!r}")
    rng = np.random.default_rng(seed)
    games = np.zeros(runs, dtype=np.int64)
    outcomes = []
    for r in range(runs):
        counts, added, outcome = start.copy(), 0, "none"
        while 2 * added < max_games:
            counts += rng.multinomial(step, probs)
            added += step
            decision = stats.sprt_status(elo0, elo1, alpha, beta, counts.tolist()).decision
            if decision is not None:
                outcome = decision
                break
        games[r] = 2 * added
        outcomes.append(outcome)
    return games, outcomes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("penta", type=int, nargs=5, metavar="N",
                    help="the test's pairs: LL LD WL+DD WD WW")
    ap.add_argument("--elo0", type=float, default=0.0)
    ap.add_argument("--elo1", type=float, default=10.0)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--runs", type=int, default=200, help="simulated continuations (200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-games", type=int, default=40_000,
                    help="a run stops undecided after this many more games (40,000)")
    args = ap.parse_args(argv)
    p = np.asarray(args.penta, dtype=float)
    if p.sum() == 0:
        ap.error("the test has no pairs yet")
    p /= p.sum()
    now = stats.sprt_llr(args.elo0, args.elo1, args.penta)
    est = stats.elo_pentanomial(args.penta)
    print(f"now: {2 * sum(args.penta)} games, {est.elo:+.1f} +/- {est.error:.1f} Elo, "
          f"LLR {now:.2f} [{args.elo0:g}, {args.elo1:g}]")
    for name, probs in (("observed", p), ("level", (p + p[::-1]) / 2)):
        games, outcomes = forecast(args.penta, args.elo0, args.elo1, args.alpha, args.beta,
                                   probs, args.runs, args.seed, max_games=args.max_games)
        q10, q50, q90 = np.percentile(games, [10, 50, 90])
        print(f"{name:8s}: further games median {q50:,.0f} (10 % {q10:,.0f}, 90 % {q90:,.0f}); "
              f"H0 {outcomes.count('H0')}, H1 {outcomes.count('H1')}, "
              f"undecided {outcomes.count('none')} of {args.runs}")


if __name__ == "__main__":
    main()
