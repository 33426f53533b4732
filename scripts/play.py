#!/usr/bin/env python3
"""Play uci_engine against reference opponents and check it plays clean games.

Default: 20 games at 10+0.1 against Debian's ``stockfish`` (UCI_LimitStrength=true,
UCI_Elo=1320, clamped to the engine's minimum if it allows no less: Stockfish 15.1's is 1350)
and 20 games against ``fairymax`` (xboard protocol), openings drawn at random (``--seed``) from
``tests/data/openings/noob_2moves.epd``, each opening played twice with colours swapped,
``--concurrency 2`` games at a time. Every game starts fresh engine processes.

The games are played by the project's cutechess-compatible runner
(:func:`uci_engine.tools.match.run_match`, one match per opponent), so clocks, faults and
draws are judged as cutechess does (see :mod:`uci_engine.tools.game`): the runner keeps the
clocks (wall time from ``go`` to the move); a move that arrives after the clock ran out (plus
``--timemargin`` ms) loses on time; an engine that does not answer ``isready`` / ``stop`` within
``--stall`` seconds forfeits; illegal moves, engine errors and dead processes lose the game.
Checkmate, stalemate, threefold repetition, the fifty-move rule and insufficient material end
the game; nothing is adjudicated. Fairy-Max declares ``setboard=0``: the runner sets its
positions up with the xboard ``edit`` command.

Prints each game, the score against each opponent, the termination counts and our lowest clock
(from the move times the runner records), and exits 1 if uci_engine lost any game by illegal
move, time or crash (2 on a bad command line).

Usage: python scripts/play.py [--games 20] [--tc 10+0.1] [--concurrency 2]
           [--opponents stockfish,fairymax] [--seed 1] [--pgn games.pgn] [--snapshot]
"""
import argparse
import asyncio
import collections
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir))
from uci_engine.tools.args import (ArgError, EngineSpec, MatchConfig, OpeningsSpec,  # noqa: E402
                                   _resolve_cmd)
from uci_engine.tools.game import DISCONNECTION, ILLEGAL, STALLED, TIMEOUT  # noqa: E402
from uci_engine.tools.tc import TimeControlError, parse_tc  # noqa: E402

DEFAULT_OPENINGS = os.path.join(HERE, os.pardir, "tests", "data", "openings", "noob_2moves.epd")
OURS = "uci_engine"
FAULTS = (TIMEOUT, ILLEGAL, DISCONNECTION, STALLED)

# name -> (command, protocol, options); stockfish's UCI_Elo comes from --elo
OPPONENTS = {
    "stockfish": ("stockfish", "uci", {"Threads": "1", "Hash": "16",
                                       "UCI_LimitStrength": "true"}),
    "fairymax": ("fairymax", "xboard", {}),
}


def stockfish_elo(wanted):
    """``wanted`` (UCI_Elo) clamped to the installed Stockfish's range."""
    from uci_engine.tools.ladder import _stockfish_elo_range
    rng = _stockfish_elo_range()
    if rng is None:
        return wanted
    return min(max(wanted, rng[0]), rng[1])


def snapshot_engine():
    """Copy the working tree's ``uci_engine`` package to a temporary directory and return a
    command running that copy, so edits made while a long match runs do not change the engine
    between games. The copy compiles its own Numba cache once (``warmup``)."""
    src = os.path.join(HERE, os.pardir, "uci_engine")
    dst = tempfile.mkdtemp(prefix="uci_engine_snapshot_")
    shutil.copytree(src, os.path.join(dst, "uci_engine"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    env = dict(os.environ, PYTHONPATH=dst)
    cache = os.path.join(dst, "numba_cache")
    env["NUMBA_CACHE_DIR"] = cache
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "uci_engine", "warmup"], env=env, check=True,
                   stdout=subprocess.DEVNULL, cwd=dst)
    print(f"engine snapshot in {dst} (warmup {time.monotonic() - t:.0f} s)", flush=True)
    return f"env PYTHONPATH={dst} NUMBA_CACHE_DIR={cache} {sys.executable} -m uci_engine"


def our_colour(rec):
    """True when uci_engine had White in game record ``rec``."""
    return rec.white == OURS


def our_points(rec):
    ours_white = our_colour(rec)
    if rec.result == "1-0":
        return 1.0 if ours_white else 0.0
    if rec.result == "0-1":
        return 0.0 if ours_white else 1.0
    return 0.5


def fault_by(rec):
    """Name of the side that lost ``rec`` by a fault (time, illegal move, crash, stall), or None."""
    if rec.rtype not in FAULTS:
        return None
    white_lost = rec.result == "0-1"
    return rec.white if white_lost else rec.black


def lowest_clock(rec, tc):
    """Our lowest clock (seconds) in ``rec``: base minus each move time (from the runner's PGN
    comments, ``... 0.52s``), plus the increment after each move."""
    ours_white = our_colour(rec)
    clock = low = tc.base_ms / 1000.0
    first = rec.board.root().turn
    for ply, comment in sorted(rec.comments.items()):
        mover_white = (ply % 2 == 0) == (first is True)
        if mover_white != ours_white:
            continue
        secs = float(comment.split()[-1].rstrip("s"))
        clock -= secs
        low = min(low, clock)
        clock += tc.inc_ms / 1000.0
    return low


def move_times(rec):
    ours_white = our_colour(rec)
    first = rec.board.root().turn
    return [float(c.split()[-1].rstrip("s")) for ply, c in sorted(rec.comments.items())
            if ((ply % 2 == 0) == (first is True)) == ours_white]


def run(args):
    from uci_engine.tools.match import quiet_engine_logs, run_match
    quiet_engine_logs()
    try:
        tc = parse_tc(args.tc)
    except TimeControlError as err:
        print(f"play.py: error: --tc: {err}", file=sys.stderr)
        return 2
    opponents = [o for o in args.opponents.split(",") if o]
    for o in opponents:
        if o not in OPPONENTS:
            print(f"play.py: unknown opponent {o!r}; known: {', '.join(OPPONENTS)}",
                  file=sys.stderr)
            return 2
    if args.snapshot:
        args.engine = snapshot_engine()
    else:
        subprocess.run(shlex.split(args.engine) + ["warmup"], stdout=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL)
    # restart="on": every game starts fresh engine processes
    ours = EngineSpec(cmd=args.engine, name=OURS, tc=tc, timemargin_ms=args.timemargin,
                      options={"Hash": "16"}, restart="on")
    specs = []
    try:
        _resolve_cmd(ours, "--engine")
        for o in opponents:
            cmd, proto, options = OPPONENTS[o]
            options = dict(options)
            if o == "stockfish":
                options["UCI_Elo"] = str(stockfish_elo(args.elo))
            spec = EngineSpec(cmd=cmd, name=o, proto=proto, tc=tc, options=options,
                              timemargin_ms=args.timemargin, restart="on")
            _resolve_cmd(spec, o)
            specs.append(spec)
    except ArgError as err:
        print(f"play.py: error: {err} (apt-get install -y stockfish fairymax)", file=sys.stderr)
        return 2
    print(f"{OURS} vs {', '.join(opponents)}: {args.games} games each at {args.tc}, "
          f"concurrency {args.concurrency}", flush=True)
    t_start = time.monotonic()
    bad = 0
    if args.pgn:
        open(args.pgn, "w").close()                     # the runner appends game by game
    summaries = []
    for o, spec in zip(opponents, specs):
        cfg = MatchConfig(engines=[ours, spec], games=max(2, args.games), rounds=1, repeat=2,
                          concurrency=args.concurrency, srand=args.seed, pgnout=args.pgn,
                          ratinginterval=0, recover=True, progress=False,
                          stall_timeout_ms=int(args.stall * 1000), event="uci_engine play.py",
                          openings=OpeningsSpec(file=args.openings, order="random"))

        def out(line, o=o):
            if line.startswith("Finished game"):
                print(f"[{o}] {line} [{time.monotonic() - t_start:.0f} s]", flush=True)

        res = asyncio.run(run_match(cfg, out=out, warn=print))
        if res.error and not res.records:
            print(f"play.py: {o}: not played ({res.error})", file=sys.stderr)
            bad += 1
            continue
        summaries.append((o, spec, res))

    print()
    for o, spec, res in summaries:
        rs = [res.records[k] for k in sorted(res.records)]
        pts = [our_points(r) for r in rs]
        w, l_, d = pts.count(1.0), pts.count(0.0), pts.count(0.5)
        print(f"Score of {OURS} vs {o} {spec.options or ''}: {w} - {l_} - {d}  "
              f"[{sum(pts):g}/{len(rs)}]")
        terms = collections.Counter()
        for r in rs:
            who = fault_by(r)
            terms[r.reason if who is None else f"{r.termination} by {who}"] += 1
        for t, n in sorted(terms.items()):
            print(f"    {t}: {n}")
        ours_faults = [r for r in rs if fault_by(r) == OURS]
        bad += len(ours_faults)
        for r in ours_faults:
            print(f"    FAULT: {r.verbose_result}  opening {r.board.root().fen()}")
        lows = [lowest_clock(r, tc) for r in rs]
        mts = [t for r in rs for t in move_times(r)]
        if lows:
            print(f"    {OURS} lowest clock left: {min(lows):.2f} s, "
                  f"average move {sum(mts) / max(1, len(mts)):.3f} s")
    print(f"Illegal moves / time losses / crashes by {OURS}: {bad}")
    print(f"Total time: {time.monotonic() - t_start:.0f} s")
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description="uci_engine vs stockfish (limited) and fairymax")
    ap.add_argument("--games", type=int, default=20, help="games per opponent (20, even)")
    ap.add_argument("--tc", default="10+0.1", help="cutechess time control (10+0.1)")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--opponents", default="stockfish,fairymax")
    ap.add_argument("--elo", type=int, default=1320, help="stockfish UCI_Elo (1320)")
    ap.add_argument("--openings", default=DEFAULT_OPENINGS)
    ap.add_argument("--seed", type=int, default=1, help="opening selection seed")
    ap.add_argument("--engine", default="uci-engine", help="our engine's command line")
    ap.add_argument("--timemargin", type=int, default=0, help="ms allowed past zero (0)")
    ap.add_argument("--stall", type=float, default=5.0,
                    help="seconds an engine may ignore isready/stop before it forfeits (5)")
    ap.add_argument("--pgn", default=None, help="write the games to this PGN file")
    ap.add_argument("--snapshot", action="store_true",
                    help="play a frozen copy of the current uci_engine package")
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
