#!/usr/bin/env python3
"""Slider backends compared in one run: lookups per second, perft speed, table bytes.

Usage::

    python scripts/bench_sliders.py [--samples 20000] [--seed 1] [--repeat 5]
                                    [--perft-repeat 3] [--no-perft]

Compares ``pext`` (skipped without BMI2), ``magic``, ``black`` and ``rayscan`` in one process
(the method: :mod:`uci_engine.slider_bench`):

1. Samples leaf-parent positions of startpos perft(6) and Kiwipete perft(5) uniformly over the
   tree, as perft counts them.
2. Lists, for each sampled position, the slider lookups that the counting generator performs.
3. Times the rook and bishop lookups of each backend over those (square, occupancy) lists in a
   compiled loop, minus a baseline loop, and prints ns per lookup, lookups per leaf and their
   ratios.
4. Runs our perft on every backend (a subprocess each, one after the other; best of
   ``--perft-repeat``) for the figure that counts: startpos perft(6) and Kiwipete perft(5) nps,
   and from the magic and rayscan runs the bound on ``magic / rayscan``.
5. Ends with one table: per backend, million lookups per second (mean over both cases), perft
   Mnps by wall and by CPU time, and the bytes of the tables its lookups read; then each
   figure as a ratio to ``magic`` measured in the same run.

The Numba target follows the environment: ``NUMBA_CPU_NAME=generic NUMBA_CPU_FEATURES=-bmi2``
gives the Docker image's generic x86-64 code (pext is then skipped).
"""
import argparse
import os
import sys

from uci_engine.slider_bench import (CASES, measure, perft_all, report, summary,
                                     table_bytes)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=20000, help="leaf parents sampled per case")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="timed lookup loops, best kept")
    ap.add_argument("--perft-repeat", type=int, default=3, help="timed perfts per case, best kept")
    ap.add_argument("--no-perft", action="store_true", help="skip the perft runs and the bound")
    args = ap.parse_args(argv)
    from uci_engine import cpu
    info = cpu.cpu_info()
    target = ", ".join(f"{k}={os.environ[k]}" for k in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")
                       if k in os.environ) or "host CPU"
    print(f"bench_sliders: {info.get('brand_raw', '?')} (family {info.get('family', '?')}), "
          f"{os.cpu_count()} cpus; Numba target: {target}")
    perft = None if args.no_perft else perft_all(args.perft_repeat)
    per_leaf = None
    if perft and all("error" not in perft.get(n, {"error": 1}) for n in ("magic", "rayscan")):
        per_leaf = {n: {case: 1e9 / perft[n][case]["cpu_nps"] for case, _, _, _ in CASES}
                    for n in ("magic", "rayscan")}
    meas = measure(args.samples, args.seed, args.repeat)
    report(meas, per_leaf, args.samples, args.seed, args.repeat)
    summary(meas, perft, table_bytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
