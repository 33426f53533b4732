#!/usr/bin/env python3
"""Search speed against Debian's Glaurung 2.2, and our startup times.

For each position (default: 5 of the bench positions in uci_engine/bench.py) both engines get
``ucinewgame``, ``position fen ...``, ``go movetime T`` (Glaurung with ``Threads 1``), through
python-chess's ``chess.engine``; the nps is taken from the last ``info ... nps N`` before
``bestmove`` (or nodes / time when no nps is given). Prints one table row per position with
both nps and the ratio ours / glaurung.

Then startup (raw lines, :mod:`uci_engine.tools.uci_driver`): time to ``uciok`` and to the
first ``readyok`` for our engine with the normal (warm) Numba cache, and with an empty one (a
fresh ``NUMBA_CACHE_DIR``: every kernel compiles).

``--reference CMD`` measures against another UCI engine command instead of Glaurung, e.g. the
NNUE (the default) against the hand-crafted evaluation of the same build:
``--engine uci-engine --reference "uci-engine --option 'Use NNUE=false'"``.

Usage: python scripts/bench_search.py [--movetime 2000] [--positions 0,2,5,10,20]
           [--engine uci-engine] [--glaurung /usr/games/glaurung | --reference CMD] [--no-cold]
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import chess
import chess.engine

from uci_engine.bench import BENCH_FENS  # plain Python, no numba import
from uci_engine.tools.uci_driver import UciPipe

DEFAULT_POSITIONS = "0,1,5,10,20"
#: seconds python-chess waits for a reply (setup, ``isready``): the first start compiles
ENGINE_TIMEOUT = 900


def search_nps(engine, fen, movetime):
    """(nps, nodes, depth, ms) of one ``go movetime`` search after ``ucinewgame``: nps, nodes
    and time from the last ``info`` with a node count (nps = nodes / time when not given),
    depth from the last ``info`` with a PV."""
    nps = nodes = depth = ms = None
    limit = chess.engine.Limit(time=movetime / 1000)
    with engine.analysis(chess.Board(fen), limit, game=object()) as analysis:
        for info in analysis:
            if "nodes" in info:
                nodes = info["nodes"]
                if "time" in info:
                    ms = round(info["time"] * 1000)
                nps = info.get("nps")
                if nps is None and ms:
                    nps = int(nodes * 1000 / ms)
            if "depth" in info and "pv" in info:
                depth = info["depth"]
    return nps, nodes, depth, ms


def start_engine(cmd, options):
    """python-chess's engine for ``cmd`` with ``options`` set, after its first ``readyok``.
    ``UCI_AnalyseMode`` (if the engine has it) stays off, as in a game."""
    engine = chess.engine.SimpleEngine.popen_uci(cmd, timeout=ENGINE_TIMEOUT,
                                                 stderr=subprocess.DEVNULL)
    if "UCI_AnalyseMode" in engine.options:
        options = dict(options, UCI_AnalyseMode=False)
    engine.configure(options)
    engine.ping()
    return engine


def startup_times(cmd, env=None):
    """Seconds to ``uciok`` and to the first ``readyok`` after process start."""
    p = UciPipe(cmd, env, stderr=subprocess.DEVNULL)
    p.send("uci")
    p.expect("uciok", 60)
    t_uciok = time.perf_counter() - p.t0
    p.send("isready")
    p.expect("readyok", 1800)
    t_ready = time.perf_counter() - p.t0
    p.quit()
    return t_uciok, t_ready


def main(argv=None):
    ap = argparse.ArgumentParser(description="nps vs glaurung, and startup times")
    ap.add_argument("--movetime", type=int, default=2000, help="ms per position (2000)")
    ap.add_argument("--positions", default=DEFAULT_POSITIONS,
                    help=f"indices into uci_engine.bench.BENCH_FENS ({DEFAULT_POSITIONS})")
    ap.add_argument("--engine", default="uci-engine", help="our engine's command line")
    ap.add_argument("--glaurung", default=None, help="glaurung binary (/usr/games/glaurung)")
    ap.add_argument("--reference", default=None,
                    help="compare with this UCI engine command line instead of glaurung")
    ap.add_argument("--no-cold", action="store_true", help="skip the empty-cache startup")
    ap.add_argument("--no-search", action="store_true", help="only the startup times")
    args = ap.parse_args(argv)

    ours_cmd = shlex.split(args.engine)
    if not args.no_search:
        if args.reference:
            ref_cmd, ref_opts, label = shlex.split(args.reference), {"Hash": 16}, "reference"
        else:
            gl = args.glaurung or shutil.which("glaurung") or shutil.which("glaurung",
                                                                          path="/usr/games")
            if not gl:
                raise SystemExit("glaurung not found: apt-get install -y glaurung")
            ref_cmd, ref_opts, label = [gl], {"Threads": 1, "Hash": 16}, "glaurung"
        fens = [BENCH_FENS[int(i)] for i in args.positions.split(",")]
        ours = start_engine(ours_cmd, {"Hash": 16})
        theirs = start_engine(ref_cmd, ref_opts)
        print(f"go movetime {args.movetime}, one thread, Hash 16 MiB")
        print(f"{'#':>2} {'ours nps':>10} {'depth':>5} {label + ' nps':>13} {'depth':>5} "
              f"{'ratio':>6}  fen")
        ratios = []
        tot = [0, 0, 0, 0]
        for i, fen in enumerate(fens, 1):
            a = search_nps(ours, fen, args.movetime)
            b = search_nps(theirs, fen, args.movetime)
            ratio = a[0] / b[0] if a[0] and b[0] else float("nan")
            ratios.append(ratio)
            tot[0] += a[1] or 0
            tot[1] += a[3] or 0
            tot[2] += b[1] or 0
            tot[3] += b[3] or 0
            print(f"{i:>2} {a[0] or 0:>10} {a[2] or 0:>5} {b[0] or 0:>13} {b[2] or 0:>5} "
                  f"{ratio:>6.3f}  {fen}", flush=True)
        ours.quit()
        theirs.quit()
        o_nps = int(tot[0] * 1000 / max(tot[1], 1))
        g_nps = int(tot[2] * 1000 / max(tot[3], 1))
        print(f"{'all':>2} {o_nps:>10} {'':>5} {g_nps:>13} {'':>5} "
              f"{o_nps / max(g_nps, 1):>6.3f}  (total nodes / total time)")
        print()

    t_u, t_r = startup_times(ours_cmd)
    print(f"startup, warm cache:  uciok {t_u * 1000:.0f} ms, first readyok {t_r:.2f} s")
    if not args.no_cold:
        with tempfile.TemporaryDirectory(prefix="uci_engine_cold_") as d:
            env = dict(os.environ, NUMBA_CACHE_DIR=d)
            env.pop("UCI_ENGINE_USER_NUMBA_CACHE_DIR", None)
            t_u, t_r = startup_times(ours_cmd, env)
            print(f"startup, empty cache: uciok {t_u * 1000:.0f} ms, first readyok {t_r:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
