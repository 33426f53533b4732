#!/usr/bin/env python3
"""Perft speed table: our slider paths vs python-chess and Stockfish, plus start-up times.

Usage::

    python scripts/bench_perft.py [--repeat 3] [--no-stockfish] [--no-startup] [--no-lookups]
                                  [--pychess-depth 4] [--lookup-samples 20000]

* Each slider path (pext, magic, black, rayscan) runs in its own subprocess, because the backend is
  fixed per process: ``python -m uci_engine.slider_bench BACKEND`` selects it, warms up (loads or
  compiles the kernels, perft(2)), then times startpos perft(6) and Kiwipete perft(5) (best of
  ``--repeat``) and prints one JSON line. pext is skipped without BMI2.
* python-chess: recursive perft with ``legal_moves``/``push``/``pop`` and bulk counting at the
  last ply, startpos to ``--pychess-depth``.
* Stockfish (``/usr/games/stockfish`` or ``stockfish`` on PATH): ``go perft 6`` / ``go perft 5``,
  wall clock from sending ``go`` to reading ``Nodes searched``.
* Slider lookups alone (``scripts/bench_sliders.py``): ns per lookup of each path on the
  occupancies perft asks about, and the bound they put on ``magic / rayscan`` (skip with
  ``--no-lookups``).
* Start-up: wall time of a ``uci-engine perft --depth 1`` subprocess with an empty Numba cache
  (a fresh temporary ``NUMBA_CACHE_DIR``; everything is compiled) and again with it warm.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from uci_engine import slider_bench
from uci_engine.slider_bench import BACKENDS, CASES, STARTPOS, result, run_worker, worker
from uci_engine.tools.uci_driver import UciPipe, engine_cmd


def proc_cpu_seconds(pid):
    """user + system CPU seconds of process ``pid`` (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


# --- python-chess -------------------------------------------------------------------------------
def pychess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for mv in board.legal_moves:
        board.push(mv)
        n += pychess_perft(board, depth - 1)
        board.pop()
    return n


def bench_pychess(depth):
    import chess
    board = chess.Board(STARTPOS)
    t, c = time.perf_counter(), time.process_time()
    nodes = pychess_perft(board, depth)
    out = result(nodes, depth, time.perf_counter() - t, time.process_time() - c)
    out["version"] = chess.__version__
    return out


# --- stockfish ------------------------------------------------------------------------------------
def find_stockfish():
    for path in ("/usr/games/stockfish", shutil.which("stockfish")):
        if path and os.access(path, os.X_OK):
            return path
    return None


def bench_stockfish(path, repeat):
    """``go perft`` (not in python-chess's protocol) through the raw line driver."""
    sf = UciPipe([path], stderr=None)

    def until(prefix):
        """The lines up to the first starting with ``prefix`` (no time limit)."""
        try:
            return sf.expect(prefix, None)
        except EOFError:
            raise RuntimeError("stockfish exited") from None

    sf.send("uci")
    ids = [ln for ln in until("uciok") if ln.startswith("id name")]
    name = ids[-1][len("id name "):].strip() if ids else "stockfish"
    sf.send("isready")
    until("readyok")
    out = {"name": name}
    try:
        for key, fen, depth, want in CASES:
            best = best_cpu = None
            for _ in range(repeat):
                sf.send("position startpos" if fen == STARTPOS else f"position fen {fen}")
                sf.send("isready")
                until("readyok")
                c = proc_cpu_seconds(sf.proc.pid)
                t = time.perf_counter()
                sf.send(f"go perft {depth}")
                line = until("Nodes searched")[-1]
                dt = time.perf_counter() - t
                c2 = proc_cpu_seconds(sf.proc.pid)
                dc = c2 - c if c is not None and c2 is not None else None
                nodes = int(line.split(":")[1])
                if nodes != want:
                    raise RuntimeError(f"stockfish {key} perft({depth}) = {nodes}")
                best = dt if best is None else min(best, dt)
                if dc:
                    best_cpu = dc if best_cpu is None else min(best_cpu, dc)
            out[key] = result(nodes, depth, best, best_cpu)
    finally:
        sf.quit()
    return out


# --- start-up -------------------------------------------------------------------------------------
def bench_startup():
    """(cold_s, warm_s, backend_text) for ``uci-engine perft --depth 1`` with a fresh cache."""
    env = dict(os.environ)
    for var in ("UCI_ENGINE_USER_NUMBA_CACHE_DIR", "UCI_ENGINE_ACTIVE_SLIDERS"):
        env.pop(var, None)
    with tempfile.TemporaryDirectory(prefix="uci-engine-cold-") as tmp:
        env["NUMBA_CACHE_DIR"] = tmp
        times = []
        text = ""
        for _ in range(2):
            t = time.perf_counter()
            proc = subprocess.run(engine_cmd() + ["perft", "--depth", "1"], env=env,
                                  capture_output=True, text=True)
            times.append(time.perf_counter() - t)
            if proc.returncode != 0 or "Nodes searched: 20" not in proc.stdout:
                raise RuntimeError(f"uci-engine perft failed: {proc.stderr[-300:]}")
            for line in proc.stderr.splitlines():
                if line.startswith("info string sliders"):
                    text = line[len("info string sliders "):].rsplit(",", 1)[0]
    return times[0], times[1], text


# --- report ---------------------------------------------------------------------------------------
def fmt_case(r):
    return f"{r['nps'] / 1e6:9.1f} {r['seconds']:7.3f} {r['cpu_nps'] / 1e6:9.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", choices=BACKENDS, help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case, best kept")
    ap.add_argument("--pychess-depth", type=int, default=4)
    ap.add_argument("--no-stockfish", action="store_true")
    ap.add_argument("--no-startup", action="store_true")
    ap.add_argument("--no-lookups", action="store_true",
                    help="skip the slider-lookup table (scripts/bench_sliders.py)")
    ap.add_argument("--lookup-samples", type=int, default=20000,
                    help="leaf parents sampled per case for the slider-lookup table")
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.repeat)

    from uci_engine import cpu
    ours = []
    for name in BACKENDS:
        if name == "pext" and not cpu.host_has_bmi2():
            ours.append({"backend": name, "error": "skipped: no BMI2"})
            continue
        ours.append(run_worker(name, args.repeat))
    pyc = bench_pychess(args.pychess_depth)
    sf_path = None if args.no_stockfish else find_stockfish()
    sf = None
    if sf_path:
        try:
            sf = bench_stockfish(sf_path, args.repeat)
        except (RuntimeError, OSError) as exc:
            sf = {"error": str(exc)}
    startup = None if args.no_startup else bench_startup()

    try:
        load = "load avg %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = ""
    brand = ""
    try:
        brand = cpu.cpu_info().get("brand_raw", "")
    except Exception:  # noqa: BLE001 - cosmetic
        pass
    print(f"perft benchmark: {brand}, {os.cpu_count()} cpus, {load}; best of {args.repeat}")
    print()
    print("Mnps = nodes / wall time; cpu Mnps = nodes / CPU time of the perft process "
          "(steadier on a loaded machine)")
    print(f"{'':28s} {'startpos perft(6)':>27s}  {'kiwipete perft(5)':>27s}")
    print(f"{'':28s} {'Mnps':>9s} {'time s':>7s} {'cpu Mnps':>9s}  "
          f"{'Mnps':>9s} {'time s':>7s} {'cpu Mnps':>9s}")
    for r in ours:
        label = f"uci_engine {r['backend']}"
        if "error" in r:
            print(f"{label:28s} {r['error']}")
        else:
            print(f"{label:28s} {fmt_case(r['startpos'])}  {fmt_case(r['kiwipete'])}"
                  f"   (warm-up {r['warmup_s']:.2f} s)")
    if sf is not None:
        if "error" in sf:
            print(f"{'stockfish':28s} {sf['error']}")
        else:
            print(f"{sf['name'][:28]:28s} {fmt_case(sf['startpos'])}  {fmt_case(sf['kiwipete'])}")
    else:
        print(f"{'stockfish':28s} not run (not installed or --no-stockfish)")
    print(f"{'python-chess ' + pyc['version']:28s} startpos perft({pyc['depth']}) "
          f"{pyc['nodes']} nodes in {pyc['seconds']:.2f} s = {pyc['nps'] / 1e3:.1f} knps, "
          f"cpu {pyc['cpu_nps'] / 1e3:.1f} knps (bulk-counted last ply)")
    print()
    ok = [r for r in ours if "error" not in r]
    by = {r["backend"]: r for r in ok}
    print("ratios (by cpu nps; by wall nps in brackets):")

    def ratio(a, b):
        return f"{a['cpu_nps'] / b['cpu_nps']:.2f} [{a['nps'] / b['nps']:.2f}]"
    if ok:
        for key, _, depth, _ in CASES:
            best = max(ok, key=lambda r: r[key]["cpu_nps"])
            parts = [f"{key}: best ours ({best['backend']})"]
            if sf and "error" not in sf:
                parts.append(f"/ stockfish = {ratio(best[key], sf[key])}")
            if "magic" in by and "rayscan" in by:
                parts.append(f"; magic / rayscan = {ratio(by['magic'][key], by['rayscan'][key])}")
            if "pext" in by and "magic" in by:
                parts.append(f"; pext / magic = {ratio(by['pext'][key], by['magic'][key])}")
            print("  " + " ".join(parts))
        best = max(ok, key=lambda r: r["startpos"]["cpu_nps"])
        print(f"  ours ({best['backend']}, startpos perft(6)) / python-chess "
              f"(perft({pyc['depth']})) = {best['startpos']['cpu_nps'] / pyc['cpu_nps']:.0f}x "
              f"[{best['startpos']['nps'] / pyc['nps']:.0f}x]")
    if not args.no_lookups and "magic" in by and "rayscan" in by:
        # Why magic / rayscan on perft is far below the lookups' own ratio: bench_sliders.py
        # times the lookups alone on perft's occupancies and bounds the 4x target.
        per_leaf = {name: {key: 1e9 / by[name][key]["cpu_nps"] for key, _, _, _ in CASES}
                    for name in ("magic", "rayscan")}
        print()
        slider_bench.report(slider_bench.measure(args.lookup_samples, 1, 5), per_leaf,
                            args.lookup_samples, 1, 5)
    if startup:
        cold, warm, text = startup
        print()
        print(f"time to first perft result (`uci-engine perft --depth 1`, sliders {text}): "
              f"empty Numba cache {cold:.2f} s, warm cache {warm:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
