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
(kept by the runner: ``GameRecord.lowest_clock_ms``), and exits 1 if uci_engine lost any game
by illegal move, time, stall or crash, or an opponent's match could not be played (2 on a bad
command line or a missing engine).

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

import uci_engine
from uci_engine.tools.args import (ArgError, EngineSpec, MatchConfig, OpeningsSpec,
                                   _resolve_cmd)
from uci_engine.tools.ladder import clamp_stockfish_elo, stockfish_elo_range
from uci_engine.tools.match import quiet_engine_logs, run_match
from uci_engine.tools.tc import TimeControlError, parse_tc

HERE = os.path.dirname(os.path.abspath(__file__))

DEFAULT_OPENINGS = os.path.join(HERE, os.pardir, "tests", "data", "openings", "noob_2moves.epd")
OURS = "uci_engine"

# name -> (command, protocol, options); stockfish's UCI_Elo comes from --elo
OPPONENTS = {
    "stockfish": ("stockfish", "uci", {"Threads": "1", "Hash": "16",
                                       "UCI_LimitStrength": "true"}),
    "fairymax": ("fairymax", "xboard", {}),
}


def snapshot_engine():
    """Copy the imported ``uci_engine`` package (the working tree's, installed editable) to a
    temporary directory and return a command running that copy, so edits made while a long
    match runs do not change the engine between games. The copy compiles its own Numba cache
    once (``warmup``)."""
    src = os.path.dirname(os.path.abspath(uci_engine.__file__))
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


def run(args):
    """Play the matches of ``args`` (see :func:`main`) and print the summary; returns the exit
    status: 0, 1 when uci_engine lost a game by a fault or a match could not be played, 2 on a
    bad command line or a missing engine."""
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
    # restart="on": every game starts fresh engine processes
    ours = EngineSpec(cmd=args.engine, name=OURS, tc=tc, timemargin_ms=args.timemargin,
                      options={"Hash": "16"}, restart="on")
    specs = []
    try:
        if not args.snapshot:
            _resolve_cmd(ours, "--engine")
        for o in opponents:
            cmd, proto, options = OPPONENTS[o]
            options = dict(options)
            if o == "stockfish":
                options["UCI_Elo"] = str(clamp_stockfish_elo(args.elo, stockfish_elo_range()))
            spec = EngineSpec(cmd=cmd, name=o, proto=proto, tc=tc, options=options,
                              timemargin_ms=args.timemargin, restart="on")
            _resolve_cmd(spec, o)
            specs.append(spec)
    except ArgError as err:
        print(f"play.py: error: {err} (apt-get install -y stockfish fairymax)", file=sys.stderr)
        return 2
    if args.snapshot:
        ours.cmd = snapshot_engine()
    else:
        subprocess.run(shlex.split(args.engine) + ["warmup"], stdout=subprocess.DEVNULL,
                       stdin=subprocess.DEVNULL)
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
        us = res.players[0]                             # engines=[ours, opponent]
        print(f"Score of {OURS} vs {o} {spec.options or ''}: {us.wins} - {us.losses} - "
              f"{us.draws}  [{us.wins + 0.5 * us.draws:g}/{us.games}]")
        terms = collections.Counter()
        faults = []
        for r in rs:
            loser = r.fault_loser
            if loser is None:
                terms[r.reason] += 1
                continue
            who = r.white if loser else r.black
            terms[f"{r.termination} by {who}"] += 1
            if who == OURS:
                faults.append(r)
        for t, n in sorted(terms.items()):
            print(f"    {t}: {n}")
        bad += len(faults)
        for r in faults:
            print(f"    FAULT: {r.verbose_result}  opening {r.board.root().fen()}")
        lows = [r.lowest_clock_ms[r.white == OURS] for r in rs]
        lows = [x for x in lows if x is not None]       # None: tc=inf
        mts = [ms for r in rs for ms in r.move_times_ms(r.white == OURS)]
        if lows:
            print(f"    {OURS} lowest clock left: {min(lows) / 1000:.2f} s, "
                  f"average move {sum(mts) / max(1, len(mts)) / 1000:.3f} s")
    print(f"Illegal moves / time losses / crashes by {OURS}: {bad}")
    print(f"Total time: {time.monotonic() - t_start:.0f} s")
    return 1 if bad else 0


def _positive(kind):
    """argparse type: a ``kind`` (int or float) above 0 (else argparse exits with status 2)."""
    def parse(text):
        value = kind(text)
        if not value > 0:
            raise ValueError(text)
        return value
    parse.__name__ = f"positive {kind.__name__}"
    return parse


def main(argv=None):
    """Command line (see the module docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description="uci_engine vs stockfish (limited) and fairymax")
    ap.add_argument("--games", type=_positive(int), default=20,
                    help="games per opponent (20, even)")
    ap.add_argument("--tc", default="10+0.1", help="cutechess time control (10+0.1)")
    ap.add_argument("--concurrency", type=_positive(int), default=2)
    ap.add_argument("--opponents", default="stockfish,fairymax")
    ap.add_argument("--elo", type=int, default=1320, help="stockfish UCI_Elo (1320)")
    ap.add_argument("--openings", default=DEFAULT_OPENINGS)
    ap.add_argument("--seed", type=int, default=1, help="opening selection seed")
    ap.add_argument("--engine", default="uci-engine", help="our engine's command line")
    ap.add_argument("--timemargin", type=int, default=0, help="ms allowed past zero (0)")
    ap.add_argument("--stall", type=_positive(float), default=5.0,
                    help="seconds an engine may ignore isready/stop before it forfeits (5)")
    ap.add_argument("--pgn", default=None, help="write the games to this PGN file")
    ap.add_argument("--snapshot", action="store_true",
                    help="play a frozen copy of the current uci_engine package")
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
