#!/usr/bin/env python3
"""Cold start of the UCI loop: seconds from launch to ``uciok`` and to ``readyok``.

Usage::

    python scripts/bench_coldstart.py [--runs 2] [--warm]

Each run starts ``uci-engine`` (or ``python -m uci_engine``) with a fresh temporary
``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME`` (so nothing is compiled yet and the CPU detection
cache is empty), sends ``uci`` then ``isready``, and times the replies (wall clock, and the CPU time of the
engine with its leaf-compiler process). ``--warm`` adds a run
on the cache the last cold run left behind. Also shows the ``info string`` lines sent before
``readyok``. Clients' patience for comparison: cutechess-cli waits 15 s for ``readyok``,
fastchess 10 s for ``uciok``.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from uci_engine.tools.uci_driver import UciPipe, engine_cmd


def _children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def one_run(cache):
    """(uciok_s, readyok_s, info_lines, cpu_s) for one engine launched on cache dir ``cache``;
    ``cpu_s`` is the user + system CPU time of the engine and its leaf-compiler process (less
    sensitive to other load on the machine than the wall times)."""
    cpu0 = _children_cpu()
    env = dict(os.environ)
    for var in ("UCI_ENGINE_USER_NUMBA_CACHE_DIR", "UCI_ENGINE_ACTIVE_SLIDERS"):
        env.pop(var, None)
    env["NUMBA_CACHE_DIR"] = os.path.join(cache, "numba")
    env["XDG_CACHE_HOME"] = cache
    proc = UciPipe(engine_cmd(), env=env, stderr=subprocess.DEVNULL)
    t0 = proc.t0
    proc.send("uci")
    uciok = readyok = None
    infos = []
    sent_isready = False
    for line in proc.lines():
        line = line.strip()
        if line == "uciok":
            uciok = time.perf_counter() - t0
            proc.send("isready")
            sent_isready = True
        elif line == "readyok" and sent_isready:
            readyok = time.perf_counter() - t0
            break
        elif line.startswith("info string"):
            infos.append(f"{time.perf_counter() - t0:6.2f} s  {line}")
    proc.quit(timeout=60)       # the engine waits for its helper, so both are counted
    if uciok is None or readyok is None:
        raise RuntimeError("engine did not answer uciok/readyok")
    return uciok, readyok, infos, _children_cpu() - cpu0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2, help="cold runs, each on a fresh cache")
    ap.add_argument("--warm", action="store_true", help="one more run on a warm cache")
    args = ap.parse_args(argv)
    try:
        load = "load avg %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = ""
    print(f"cold start of {' '.join(engine_cmd())}; {os.cpu_count()} cpus, {load}")
    cold = []
    tmp = None
    for i in range(args.runs):
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        tmp = tempfile.mkdtemp(prefix="uci-engine-cold-")
        u, r, infos, cpu = one_run(tmp)
        cold.append(r)
        print(f"cold run {i + 1}: uciok {u:.2f} s, readyok {r:.2f} s, cpu {cpu:.1f} s")
        for ln in infos:
            print("    " + ln)
    if args.warm and tmp is not None:
        u, r, _, cpu = one_run(tmp)
        print(f"warm run: uciok {u:.2f} s, readyok {r:.2f} s, cpu {cpu:.1f} s")
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    if cold:
        print(f"cold readyok: mean {sum(cold) / len(cold):.2f} s, min {min(cold):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
