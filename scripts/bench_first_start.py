#!/usr/bin/env python3
"""First start after install, as a match starts it: several engines launched at once on one
empty per-user cache; seconds from ``isready`` to ``readyok`` for each, and the worst.

Usage::

    python scripts/bench_first_start.py [--rounds 10] [--together 2] [--nps]

Each round makes a fresh empty cache directory (``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME``),
launches ``--together`` engines (``uci-engine`` on PATH, else ``python -m uci_engine``) at the
same moment, sends each ``uci``, then ``isready`` at its ``uciok``, and times the replies. The
installed package's prebuilt cache (``pip install .``) is what such a start loads; without one
(an editable install) the engines compile, answer ``readyok`` at once all the same, and say so.
``--nps`` adds ``uci-engine bench`` on a fresh empty cache and again on the cache it left
(the search speed of a first start against a warm start's, as a ratio).

Clients' patience for comparison: fastchess waits 10 s for ``uciok``, cutechess-cli 15 s for
``readyok``; the engine's goal is 2 s.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from uci_engine.bench import parse_bench


def engine_cmd():
    exe = shutil.which("uci-engine")
    return [exe] if exe else [sys.executable, "-m", "uci_engine"]


def _env(cache):
    env = dict(os.environ)
    for var in ("UCI_ENGINE_USER_NUMBA_CACHE_DIR", "UCI_ENGINE_ACTIVE_SLIDERS"):
        env.pop(var, None)
    env["NUMBA_CACHE_DIR"] = os.path.join(cache, "numba")
    env["XDG_CACHE_HOME"] = cache
    return env


def _start(cache, barrier, result):
    """One engine: waits at ``barrier``, then fills ``result`` with ``uciok`` (seconds from
    launch), ``readyok`` (seconds from ``isready``) and the ``info string`` lines."""
    barrier.wait()
    t0 = time.perf_counter()
    proc = subprocess.Popen(engine_cmd(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=_env(cache), bufsize=1)
    proc.stdin.write("uci\n")
    proc.stdin.flush()
    sent = None
    result["infos"] = []
    for line in proc.stdout:
        line = line.strip()
        if line == "uciok":
            result["uciok"] = time.perf_counter() - t0
            sent = time.perf_counter()
            proc.stdin.write("isready\n")
            proc.stdin.flush()
        elif line == "readyok" and sent is not None:
            result["readyok"] = time.perf_counter() - sent
            break
        elif line.startswith("info string"):
            result["infos"].append(line)
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=120)


def one_round(together):
    """Results (list of dicts) of ``together`` engines launched at once on a new empty cache."""
    cache = tempfile.mkdtemp(prefix="uci-engine-first-")
    try:
        barrier = threading.Barrier(together)
        results = [{} for _ in range(together)]
        threads = [threading.Thread(target=_start, args=(cache, barrier, r)) for r in results]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def bench_nps(cache):
    """nps (int) of ``uci-engine bench`` on the cache directory ``cache``."""
    out = subprocess.run(engine_cmd() + ["bench"], env=_env(cache), capture_output=True,
                         text=True, timeout=600, check=True).stdout
    return parse_bench(out)[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10, help="rounds, each on a new empty cache")
    ap.add_argument("--together", type=int, default=2, help="engines launched at once")
    ap.add_argument("--nps", action="store_true",
                    help="also bench a first start against a warm start")
    args = ap.parse_args(argv)
    print(f"first start of {' '.join(engine_cmd())}: {args.rounds} rounds of {args.together} "
          f"at once; {os.cpu_count()} cpus, load avg %.2f %.2f %.2f" % os.getloadavg())
    worst_ready = worst_uciok = 0.0
    for i in range(args.rounds):
        results = one_round(args.together)
        ready = [r.get("readyok", float("inf")) for r in results]
        uciok = [r.get("uciok", float("inf")) for r in results]
        worst_ready, worst_uciok = max(worst_ready, *ready), max(worst_uciok, *uciok)
        infos = sorted({ln for r in results for ln in r["infos"] if "sliders" not in ln})
        print(f"round {i + 1}: readyok after isready "
              + ", ".join(f"{x:.2f}" for x in ready) + " s; uciok after launch "
              + ", ".join(f"{x:.2f}" for x in uciok) + " s" + "".join(f"\n    {ln}" for ln in infos))
    print(f"worst readyok after isready: {worst_ready:.2f} s; worst uciok: {worst_uciok:.2f} s")
    if args.nps:
        cache = tempfile.mkdtemp(prefix="uci-engine-first-")
        try:
            first, warm = bench_nps(cache), bench_nps(cache)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        print(f"bench nps: first start {first}, warm start {warm}, ratio {first / warm:.3f}")
    return 0 if worst_ready < float("inf") else 1


if __name__ == "__main__":
    sys.exit(main())
