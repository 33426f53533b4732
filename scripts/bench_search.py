#!/usr/bin/env python3
"""Search speed against Debian's Glaurung 2.2, and our startup times.

For each position (default: 5 of the bench positions in uci_engine/bench.py) both engines get
``ucinewgame``, ``position fen ...``, ``go movetime T`` (Glaurung with ``Threads 1``); the nps
is taken from the last ``info ... nps N`` before ``bestmove`` (or nodes / time when no nps is
given). Prints one table row per position with both nps and the ratio ours / glaurung.

Then startup: time to ``uciok`` and to the first ``readyok`` for our engine with the normal
(warm) Numba cache, and with an empty one (a fresh ``NUMBA_CACHE_DIR``: every kernel compiles).

``--reference CMD`` measures against another UCI engine command instead of Glaurung, e.g. the
NNUE (the default) against the hand-crafted evaluation of the same build:
``--engine uci-engine --reference "uci-engine --option 'Use NNUE=false'"``.

Usage: python scripts/bench_search.py [--movetime 2000] [--positions 0,2,5,10,20]
           [--engine uci-engine] [--glaurung /usr/games/glaurung | --reference CMD] [--no-cold]
"""
import argparse
import os
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir))
from uci_engine.bench import BENCH_FENS  # noqa: E402  (plain Python, no numba import)

DEFAULT_POSITIONS = "0,1,5,10,20"


class Proc:
    """A UCI engine subprocess with line reads under a timeout."""

    def __init__(self, cmd, env=None):
        self.t0 = time.monotonic()
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)
        self.q = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix, timeout):
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            try:
                line = self.q.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no {prefix!r} within {timeout} s")
            if line is None:
                raise EOFError(f"engine exited (rc {self.p.poll()}) before {prefix!r}")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def quit(self):
        try:
            self.send("quit")
            self.p.wait(10)
        except Exception:
            self.p.kill()
            self.p.wait()


def search_nps(proc, fen, movetime):
    """(nps, nodes, depth, ms) of one ``go movetime`` search."""
    proc.send("ucinewgame")
    proc.send(f"position fen {fen}")
    proc.send("isready")
    proc.until("readyok", 120)
    proc.send(f"go movetime {movetime}")
    lines = proc.until("bestmove", movetime / 1000 + 30)
    nps = nodes = depth = ms = None
    for line in lines:
        tok = line.split()
        if not tok or tok[0] != "info" or "string" in tok[:2]:
            continue
        vals = {}
        for key in ("nps", "nodes", "depth", "time"):
            if key in tok:
                i = tok.index(key)
                if i + 1 < len(tok) and tok[i + 1].lstrip("-").isdigit():
                    vals[key] = int(tok[i + 1])
        if "nodes" in vals:
            nodes = vals["nodes"]
            ms = vals.get("time", ms)
            nps = vals.get("nps")
            if nps is None and ms:
                nps = int(nodes * 1000 / ms)
        if "depth" in vals and "pv" in tok:
            depth = vals["depth"]
    return nps, nodes, depth, ms


def start_engine(cmd, options, env=None):
    p = Proc(cmd, env)
    p.send("uci")
    p.until("uciok", 30)
    for name, value in options.items():
        p.send(f"setoption name {name} value {value}")
    p.send("isready")
    p.until("readyok", 900)
    return p


def startup_times(cmd, env=None):
    """Seconds to ``uciok`` and to the first ``readyok`` after process start."""
    p = Proc(cmd, env)
    p.send("uci")
    p.until("uciok", 60)
    t_uciok = time.monotonic() - p.t0
    p.send("isready")
    p.until("readyok", 1800)
    t_ready = time.monotonic() - p.t0
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
