#!/usr/bin/env python3
"""Lazy SMP scaling: search nps with N threads against 1 thread in the same run.

Each position is searched for ``--movetime`` ms with a cleared TT, alternating the thread
counts so both see the same machine load; nps counts the nodes of every thread. Prints the
per-position figures and the ratio of the totals (target on 2 cores: >= 1.8).

    python scripts/bench_smp.py [--threads 2] [--movetime 3000] [--repeat 1]
"""
import argparse
import sys
import time

from uci_engine.bench import BENCH_FENS  # plain Python, no numba import

POSITIONS = BENCH_FENS[:4]      # start position, Kiwipete, a rook endgame, a middlegame


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--movetime", type=int, default=3000, help="ms per search")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    from uci_engine import backend
    backend.choose_and_select()
    from uci_engine.engine import Engine
    from uci_engine.timeman import Limits
    eng = Engine(64)
    eng.search(Limits(depth=6))                       # load or compile the kernels
    totals = {1: [0, 0.0], args.threads: [0, 0.0]}
    for _ in range(args.repeat):
        for fen in POSITIONS:
            row = []
            for n in (1, args.threads):
                eng.set_threads(n)
                eng.clear()
                eng.set_position(fen, [])
                t = time.perf_counter()
                eng.search(Limits(movetime=args.movetime))
                el = time.perf_counter() - t
                totals[n][0] += eng.last_nodes
                totals[n][1] += el
                row.append(eng.last_nodes / el)
            print(f"{fen[:40]:40s}  1 thread {row[0] / 1e6:5.2f} M nps   {args.threads} threads "
                  f"{row[1] / 1e6:5.2f} M nps   x{row[1] / row[0]:.2f}")
    one = totals[1][0] / totals[1][1]
    many = totals[args.threads][0] / totals[args.threads][1]
    print(f"total: 1 thread {one / 1e6:.2f} M nps, {args.threads} threads {many / 1e6:.2f} M nps:"
          f" x{many / one:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
