#!/usr/bin/env python3
"""How an engine spent its clock in a match: time per move by phase, the clock it kept, the
longest move against the clock it had, and time losses (issue 31, point 6: the soft and hard
limits and ``Move Overhead`` at 1+0.01, 10+0.1 and 60+0.6).

Reads the PGN files our runner (or cutechess-cli, fastchess) writes: each move's comment holds
its time, ``{+0.24/12 0.31s}``, and the ``TimeControl`` (or ``WhiteTimeControl`` /
``BlackTimeControl``) tag gives ``base+inc`` in seconds (``moves/base+inc`` too; a game
without a clock is skipped). The clock is replayed from the tags: before each move of the
engine ``left``, after it ``left - time + inc`` (a new period adds the base after ``moves``
moves).

Prints, for the engine named ``--engine`` (the PGN's player name):

* games and moves read, time losses (``Termination "time forfeit"``);
* the mean time per move over moves 1-10, 11-20, 21-40, 41-60 and 61 on (seconds, and as a
  share of the base time), and the mean depth (plies) the moves of each band reached, where
  the comment gives one (``{+0.24/12 0.31s}``: depth 12);
* the median share of the base left on the clock after the engine's 40th move and at the end
  of the game (time not spent is strength not used, a clock near zero is a flag risk);
* the lowest clock before a move (milliseconds, and in increments) and the largest share of the
  clock one move took (the hard limit caps it at 30 %, uci_engine/timeman.py);
* with ``--overrun MS``, every move that took more than MS milliseconds past the hard limit our
  engine sets itself for that clock (:func:`uci_engine.timeman.budget`, ``Move Overhead`` 10):
  a stall of the engine, the machine or the client, or a wrong limit. Each line gives the game
  (its number in the files read), the move, the clock before it, its time and the limit. The
  limit is taken at the larger of the replayed clock and that clock plus CLOCK_SLACK_MS, since
  the comments round each time to the millisecond and the replay drifts by the sum.

Usage: python scripts/time_use.py GAMES.pgn [MORE.pgn ...] --engine NAME [--overrun MS]
"""
import argparse
import re
import statistics
import sys

import chess

from uci_engine.timeman import Limits, budget
from uci_engine.tools.pgnfiles import read_games
from uci_engine.tools.tc import Clock, TimeControlError
from uci_engine.tools.tc import parse_tc as parse_cutechess_tc

#: a move comment's time: the last "<seconds>s" token (cutechess writes "{score/depth time}")
TIME_RE = re.compile(r"(\d+(?:\.\d+)?)s\b")
#: a move comment's depth: the integer after the score's slash ("+0.24/12", "-M3/14")
DEPTH_RE = re.compile(r"^\S*/(\d+)\b")
#: move-number bands of the per-phase means (engine's own moves, inclusive)
PHASES = ((1, 10), (11, 20), (21, 40), (41, 60), (61, 10 ** 6))
#: the replayed clock's allowance for the comments' rounding (milliseconds; see the docstring)
CLOCK_SLACK_MS = 10
#: uci_engine's default ``Move Overhead`` (milliseconds), which its hard limits subtract
MOVE_OVERHEAD_MS = 10


def _clock_tc(text):
    """The :class:`uci_engine.tools.tc.TimeControl` of a PGN time control, or None for a game
    without a clock (``inf``, ``-``, ``?``, a fixed time per move, a node or depth limit)."""
    try:
        tc = parse_cutechess_tc(text or "")
    except TimeControlError:
        return None
    return None if tc.infinite or tc.is_per_move else tc


def parse_tc(text):
    """``(moves or None, base_s, inc_s)`` of a PGN time control (``10+0.1``, ``40/60+0.6``,
    ``60``; cutechess syntax, :func:`uci_engine.tools.tc.parse_tc`); None for a game without a
    clock (``inf``, ``-``, ``?``, a fixed time per move, a node or depth limit)."""
    tc = _clock_tc(text)
    return None if tc is None else (tc.moves or None, tc.base_ms / 1000, tc.inc_ms / 1000)


def engine_moves(game, name):
    """The engine's moves of one game as ``(clock_before_s, time_s, depth)`` triples (depth in
    plies, None when the comment gives none) and the clock it ended with, with its time
    control ``(moves, base, inc)``; None when the engine did not play the game or the game has
    no clock for it. The clock is our runner's
    (:class:`uci_engine.tools.tc.Clock`), charged with each move's time."""
    white = game.headers.get("White") == name
    if not white and game.headers.get("Black") != name:
        return None
    text = (game.headers.get("WhiteTimeControl" if white else "BlackTimeControl")
            or game.headers.get("TimeControl"))
    tc = _clock_tc(text)
    if tc is None:
        return None
    clock, out = Clock(tc), []
    mover = game.board().turn                   # the side that plays the next mainline move
    ours = chess.WHITE if white else chess.BLACK
    for node in game.mainline():
        if mover == ours:
            comment = (node.comment or "").strip()
            found = TIME_RE.findall(comment)
            spent = float(found[-1]) if found else 0.0
            depth = DEPTH_RE.match(comment)
            out.append((clock.time_left_ms / 1000, spent, int(depth.group(1)) if depth else None))
            clock.consume(spent * 1000)
        mover = not mover
    return out, clock.time_left_ms / 1000, parse_tc(text)


def hard_limit_s(left_s, tc, move_no, move_overhead=MOVE_OVERHEAD_MS):
    """The hard limit (seconds) our engine sets itself for its ``move_no``-th move (from 1)
    with ``left_s`` seconds on its clock under ``tc`` ``(moves or None, base_s, inc_s)``: the
    larger of :func:`uci_engine.timeman.budget` at the clock and at the clock plus
    CLOCK_SLACK_MS. The runner sends whole milliseconds, rounded down (python-chess)."""
    moves, _, inc = tc
    mtg = moves - (move_no - 1) % moves if moves else None
    out = 0.0
    for ms in (left_s * 1000, left_s * 1000 + CLOCK_SLACK_MS):
        lim = Limits(wtime=max(1, int(ms)), btime=1, winc=round(inc * 1000), movestogo=mtg)
        out = max(out, budget(lim, True, move_overhead)[1] / 1000)
    return out


def overruns(paths, name, over_ms):
    """The engine's moves that took more than ``over_ms`` milliseconds past
    :func:`hard_limit_s`, as ``(game, move, clock_before_s, time_s, hard_s)`` tuples (``game``
    counts the games read from 1, ``move`` the engine's moves of that game from 1), with the
    games it lost on time as ``(game, None, None, None, None)``."""
    out = []
    for n, game in enumerate(read_games(paths), 1):
        got = engine_moves(game, name)
        if got is None:
            continue
        moves, _, tc = got
        for i, (left, spent, _) in enumerate(moves, 1):
            hard = hard_limit_s(left, tc, i)
            if spent > hard + over_ms / 1000:
                out.append((n, i, left, spent, hard))
        white = game.headers.get("White") == name
        if (game.headers.get("Termination", "") == "time forfeit"
                and game.headers.get("Result") == ("0-1" if white else "1-0")):
            out.append((n, None, None, None, None))
    return out


def summarise(paths, name):
    """The figures of the docstring as a dict (see :func:`main` for the printout)."""
    games = losses = 0
    by_phase = {p: [] for p in PHASES}
    depth_by_phase = {p: [] for p in PHASES}
    after40, at_end, lowest, worst = [], [], [], []
    base = inc = None
    for game in read_games(paths):
        got = engine_moves(game, name)
        if got is None:
            continue
        moves, end_left, (_, base, inc) = got
        games += 1
        result = game.headers.get("Result")
        lost = (result == "0-1") if game.headers.get("White") == name else (
            result == "1-0")
        if lost and game.headers.get("Termination", "") == "time forfeit":
            losses += 1
        for i, (left, spent, depth) in enumerate(moves, 1):
            for p in PHASES:
                if p[0] <= i <= p[1]:
                    by_phase[p].append(spent)
                    if depth is not None:
                        depth_by_phase[p].append(depth)
            if left > 0:
                worst.append(spent / left)
            lowest.append(left)
            if i == 40:
                after40.append((left - spent + inc) / base)
        at_end.append(end_left / base)
    return {"games": games, "moves": sum(len(v) for v in by_phase.values()),
            "time_losses": losses, "base": base, "inc": inc,
            "phase_means": {p: (statistics.fmean(v) if v else None) for p, v in by_phase.items()},
            "phase_depths": {p: (statistics.fmean(v) if v else None)
                             for p, v in depth_by_phase.items()},
            "left_after_40": statistics.median(after40) if after40 else None,
            "left_at_end": statistics.median(at_end) if at_end else None,
            "lowest_clock": min(lowest) if lowest else None,
            "largest_share": max(worst) if worst else None}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--engine", required=True, help="the player name in the PGN")
    ap.add_argument("--overrun", type=float, metavar="MS",
                    help="list the moves that took more than MS ms past the engine's hard limit")
    args = ap.parse_args(argv)
    s = summarise(args.pgn, args.engine)
    if not s["games"]:
        print(f"error: no timed game of {args.engine!r} in {', '.join(args.pgn)}",
              file=sys.stderr)
        return 1
    base, inc = s["base"], s["inc"]
    print(f"{args.engine}: {s['games']} games, {s['moves']} moves at {base:g}+{inc:g}, "
          f"{s['time_losses']} time losses")
    for (lo, hi), mean in s["phase_means"].items():
        if mean is not None:
            band = f"{lo}-{hi}" if hi < 10 ** 6 else f"{lo}+"
            depth = s["phase_depths"][(lo, hi)]
            print(f"  moves {band:>6}: {mean:.3f} s a move ({mean / base:.2%} of the base)"
                  + (f", depth {depth:.2f}" if depth is not None else ""))
    if s["left_after_40"] is not None:
        print(f"  clock after move 40 (median): {s['left_after_40']:.1%} of the base")
    print(f"  clock at the end (median): {s['left_at_end']:.1%} of the base")
    low = s["lowest_clock"]
    print(f"  lowest clock before a move: {low * 1000:.0f} ms"
          + (f" ({low / inc:.1f} increments)" if inc else ""))
    print(f"  largest share of the clock one move took: {s['largest_share']:.1%}")
    if args.overrun is not None:
        found = overruns(args.pgn, args.engine, args.overrun)
        print(f"  moves over the hard limit by more than {args.overrun:g} ms: "
              f"{sum(1 for f in found if f[1] is not None)}")
        for game, move, left, spent, hard in found:
            if move is None:
                print(f"    game {game}: lost on time")
            else:
                print(f"    game {game}, move {move}: clock {left * 1000:.0f} ms, took "
                      f"{spent * 1000:.0f} ms, hard limit {hard * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
