#!/usr/bin/env python3
"""Perft cases and the per-backend perft worker shared by ``bench_perft.py`` and
``bench_sliders.py`` (both import this module; it imports neither).

Usage (what :func:`run_worker` starts)::

    python scripts/perft_worker.py BACKEND [--repeat 3]

selects slider backend ``BACKEND`` (fixed per process), warms up (loads or compiles the
kernels, perft(2) of each case), times startpos perft(6) and Kiwipete perft(5), best of
``--repeat``, checks the node counts and prints one JSON line (see :func:`worker`).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
CASES = (("startpos", STARTPOS, 6, 119_060_324), ("kiwipete", KIWIPETE, 5, 193_690_690))
BACKENDS = ("pext", "magic", "rayscan")


def result(nodes, depth, wall, cpu):
    cpu = cpu if cpu and cpu > 0 else wall
    return {"depth": depth, "nodes": nodes, "seconds": wall, "nps": nodes / wall,
            "cpu_seconds": cpu, "cpu_nps": nodes / cpu}


# --- worker: one backend in this process ---------------------------------------------------------
def worker(name, repeat):
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from uci_engine import backend
    backend.select(name)
    t0 = time.perf_counter()
    import numpy as np
    from uci_engine.fen import parse_fen
    from uci_engine.kernels import position as P
    from uci_engine.kernels.perft import perft
    st, mb = P.new_stack(16)
    for _, fen, _, _ in CASES:
        parse_fen(fen, st, mb, 0)
        perft(st, mb, np.int64(0), np.int64(2))
    out = {"backend": name, "warmup_s": time.perf_counter() - t0}
    for key, fen, depth, want in CASES:
        parse_fen(fen, st, mb, 0)
        best = best_cpu = None
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            nodes = int(perft(st, mb, np.int64(0), np.int64(depth)))
            dt, dc = time.perf_counter() - t, time.process_time() - c
            if nodes != want:
                raise SystemExit(f"{name} {key} perft({depth}) = {nodes}, expected {want}")
            best = dt if best is None else min(best, dt)
            best_cpu = dc if best_cpu is None else min(best_cpu, dc)
        out[key] = result(nodes, depth, best, best_cpu)
    print(json.dumps(out), flush=True)
    return 0


def run_worker(name, repeat):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), name,
                           "--repeat", str(repeat)], capture_output=True, text=True)
    if proc.returncode != 0:
        return {"backend": name, "error": (proc.stderr or proc.stdout).strip()[-300:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("backend", choices=BACKENDS)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case, best kept")
    args = ap.parse_args(argv)
    return worker(args.backend, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
