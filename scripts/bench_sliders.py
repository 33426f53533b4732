#!/usr/bin/env python3
"""Slider lookups alone, on the occupancies perft really asks about, and what they bound.

Usage::

    python scripts/bench_sliders.py [--samples 20000] [--seed 1] [--repeat 5] [--no-perft]

``magic / rayscan`` measured on perft nps (``scripts/bench_perft.py``) mixes the slider lookups
with everything else a perft node costs (make, pawns, knights, pins, counting). This script
separates the two, in one process (the method: :mod:`uci_engine.slider_bench`):

1. Samples leaf-parent positions of startpos perft(6) and Kiwipete perft(5) uniformly over the
   tree, as perft counts them.
2. Lists, for each sampled position, the slider lookups that the counting generator performs.
3. Times the rook and bishop lookups of each backend over those (square, occupancy) lists in a
   compiled loop, minus a baseline loop, and prints ns per lookup, lookups per leaf and their
   ratios.
4. Runs our perft on the magic and rayscan paths (a subprocess each) for the figure that
   counts, the nanoseconds per leaf of each, and from them the bound: with the ray-scan oracle
   as it is, the magic path reaches ``magic / rayscan >= 4`` only if its whole cost per leaf
   drops to ``(T_rayscan - T_magic) / 3``.
"""
import argparse
import sys

from uci_engine.slider_bench import measure, perft_ns_per_leaf, report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=20000, help="leaf parents sampled per case")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-perft", action="store_true", help="skip the perft runs and the bound")
    args = ap.parse_args(argv)
    perft = None if args.no_perft else perft_ns_per_leaf(3)
    report(measure(args.samples, args.seed, args.repeat), perft, args.samples, args.seed,
           args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
