"""Strength ladder: a gauntlet of our engine against the chess engines Debian packages.

``uci-engine-ladder [--engine CMD] [--tc 10+0.1] [--games 20] ...`` plays our engine
(default command ``uci-engine``) against every opponent found on PATH or in ``/usr/games``
(missing ones are skipped), then prints score and Elo per opponent and a rating estimate
anchored on each opponent's published CCRL rating (maximum-likelihood performance rating over
all games, plus the per-opponent performances).

About the anchor ratings (``CCRL`` column)
------------------------------------------
The figures below are CCRL 40/4 ("Blitz") ratings as we remember them from
https://computerchess.org.uk/ccrl/404/ for the versions Debian ships, **quoted from memory and
not verified against the current list** -- check them before publishing any number, and note
that CCRL ratings drift by tens of Elo between list updates. Our hardware and time control
differ from CCRL's, so the anchored estimate is indicative only (+-100 Elo is optimistic).

Stockfish's ``UCI_Elo`` levels are anchored on the level itself: Stockfish documents its
``UCI_LimitStrength`` Elo as calibrated against CCRL 40/4-rated engines (the calibration was
done at 60+0.6 s for Stockfish 16's 1320-3190 range; Debian's 15.1 accepts 1350-2850 and its
calibration is older -- treat these anchors with the same caution).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import stats
from .args import EngineSpec, MatchConfig, OpeningsSpec
from .tc import parse_tc

__all__ = ["Opponent", "FIXED_OPPONENTS", "available_opponents", "performance_rating", "main",
           "stockfish_elo_range", "clamp_stockfish_elo"]


@dataclass
class Opponent:
    """An opponent: display ``name``, command, protocol, UCI options and its anchor rating.
    ``ccrl_note`` says how sure we are of ``ccrl``."""

    name: str
    cmd: str
    proto: str
    ccrl: float
    ccrl_note: str
    options: dict[str, str] = field(default_factory=dict)


# Anchor ratings: CCRL 40/4 (Blitz), from memory, UNVERIFIED -- see the module docstring.
FIXED_OPPONENTS = [
    # Fairy-Max 5.0b (H.G. Muller). CCRL 40/4 listed Fairy-Max 4.8 around 1950; 5.0b is a
    # variant-oriented update of about the same strength. Uncertain by ~100.
    Opponent("Fairy-Max 5.0b", "fairymax", "xboard", 1950, "CCRL 40/4 ~1950 (Fairy-Max 4.8), unverified"),
    # HoiChess (Holger Ruckdeschel), xboard only. CCRL 40/4 had HoiChess 0.10.x near 2100;
    # Debian ships 0.22.0 which we have not seen rated. Very uncertain.
    Opponent("HoiChess 0.22", "hoichess", "xboard", 2100, "CCRL 40/4 ~2100 (0.10.x), version differs, very uncertain"),
    # Phalanx XXV (Dusan Dobes / José de Paula). CCRL 40/4 around 2500 for Phalanx XXIII-XXV.
    Opponent("Phalanx XXV", "phalanx", "xboard", 2500, "CCRL 40/4 ~2500, unverified"),
    # GNU Chess 6.2.x in UCI mode. CCRL 40/4 around 2750 for GNU Chess 6.x. Unverified.
    Opponent("GNU Chess 6.2", "gnuchess --uci", "uci", 2750, "CCRL 40/4 ~2750 (6.x), unverified"),
    # Glaurung 2.2 (Tord Romstad), single thread. CCRL 40/4 around 2850. Unverified.
    Opponent("Glaurung 2.2", "glaurung", "uci", 2850, "CCRL 40/4 ~2850, unverified",
             {"Threads": "1"}),
]

#: Stockfish strength levels (UCI_Elo); clamped to the engine's own minimum at run time.
STOCKFISH_LEVELS = [1320, 1600, 1900, 2200, 2500]


def _find(cmd: str) -> str | None:
    prog = cmd.split()[0]
    return shutil.which(prog) or shutil.which(prog, path="/usr/games")


def stockfish_elo_range() -> tuple[int, int] | None:
    """(min, max) of the installed Stockfish's UCI_Elo option (Elo), or None when Stockfish is
    not installed (PATH or /usr/games), cannot be started or has no such option."""
    path = _find("stockfish")
    if not path:
        return None
    import chess.engine

    try:
        with chess.engine.SimpleEngine.popen_uci(path, timeout=20) as eng:
            opt = eng.options.get("UCI_Elo")
            if opt is None:
                return None
            return int(opt.min), int(opt.max)
    except Exception:  # noqa: BLE001 - a broken install is simply skipped
        return None


def clamp_stockfish_elo(wanted: int, elo_range: tuple[int, int] | None) -> int:
    """``wanted`` (UCI_Elo) clamped to ``elo_range`` (from :func:`stockfish_elo_range`; None:
    unchanged). Stockfish 15.1, Debian's, accepts no less than 1350."""
    if elo_range is None:
        return wanted
    return min(max(wanted, elo_range[0]), elo_range[1])


def available_opponents(levels: list[int] | None = None) -> tuple[list[Opponent], list[str]]:
    """Opponents installed here (PATH or /usr/games) and the names of those skipped."""
    found: list[Opponent] = []
    skipped: list[str] = []
    rng = stockfish_elo_range()
    if rng is None:
        skipped.append("Stockfish (not installed)")
    else:
        lo, hi = rng
        done = set()
        for lvl in levels or STOCKFISH_LEVELS:
            v = clamp_stockfish_elo(lvl, rng)
            if v in done:
                continue
            done.add(v)
            note = "UCI_Elo (Stockfish's own calibration, CCRL 40/4 anchored)"
            if v != lvl:
                note += f"; requested {lvl}, engine minimum is {lo}"
            found.append(Opponent(f"Stockfish Elo {v}", "stockfish", "uci", v, note,
                                  {"UCI_LimitStrength": "true", "UCI_Elo": str(v), "Threads": "1"}))
    for op in FIXED_OPPONENTS:
        if _find(op.cmd):
            found.append(op)
        else:
            skipped.append(f"{op.name} ({op.cmd.split()[0]} not installed)")
    return found, skipped


def performance_rating(results: list[tuple[float, float, int]]) -> float:
    """Maximum-likelihood rating R from ``(opponent_rating, points, games)`` triples: the R at
    which the expected total score equals the actual one. Perfect or zero scores are pulled in
    by half a point (so R stays finite)."""
    games = sum(n for _, _, n in results)
    if games == 0:
        return float("nan")
    points = sum(p for _, p, _ in results)
    points = min(max(points, 0.5), games - 0.5) if games > 1 else min(max(points, 0.25), 0.75)

    def f(r: float) -> float:
        return sum(n * stats.elo_to_score(r - ro) for ro, _, n in results) - points

    lo, hi = -1000.0, 5000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def _parser() -> argparse.ArgumentParser:
    here = Path(__file__).resolve().parents[2]
    default_book = here / "tests" / "data" / "openings" / "noob_2moves.epd"
    p = argparse.ArgumentParser(prog="uci-engine-ladder", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", default="uci-engine", help="our engine's command (default: uci-engine)")
    p.add_argument("--name", default=None, help="our engine's name (default: its id name)")
    p.add_argument("--proto", default="uci", choices=["uci", "xboard"])
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="UCI option for our engine (repeatable)")
    p.add_argument("--tc", default="10+0.1", help="cutechess time control (default 10+0.1)")
    p.add_argument("--games", type=int, default=20, help="games per opponent (even; default 20)")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--openings", default=str(default_book) if default_book.exists() else None)
    p.add_argument("--srand", type=int, default=None)
    p.add_argument("--levels", default=None,
                   help="comma-separated Stockfish UCI_Elo levels (default 1320,1600,1900,2200,2500)")
    p.add_argument("--only", default=None, help="comma-separated substrings: play only matching opponents")
    p.add_argument("--pgnout", default=None)
    p.add_argument("--timemargin", type=int, default=0, help="ms an engine may exceed its clock")
    p.add_argument("--recover", action="store_true", help="restart crashed engines (cutechess -recover)")
    p.add_argument("--list", action="store_true", help="list the opponents found and exit")
    p.add_argument("--verbose", action="store_true", help="print every game (cutechess output)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the ladder; returns the exit status."""
    a = _parser().parse_args(argv)
    try:
        tc = parse_tc(a.tc)
    except ValueError as err:
        print(f"ladder: error: --tc: {err}", file=sys.stderr)
        return 2
    levels = [int(x) for x in a.levels.split(",")] if a.levels else None
    opponents, skipped = available_opponents(levels)
    if a.only:
        keys = [k.strip().lower() for k in a.only.split(",")]
        opponents = [o for o in opponents if any(k in o.name.lower() for k in keys)]
    for s in skipped:
        print(f"skipped: {s}")
    if a.list or not opponents:
        for o in opponents:
            print(f"{o.name:<22} {o.proto:<6} anchor {o.ccrl:>6.0f}  ({o.ccrl_note})")
        if not opponents:
            print("no opponents installed (apt-get install stockfish fairymax phalanx ...)")
            return 0 if a.list else 1
        return 0

    ours = EngineSpec(cmd=a.engine, name=a.name, proto=a.proto, tc=tc, timemargin_ms=a.timemargin)
    for kv in a.option:
        k, _, v = kv.partition("=")
        ours.options[k] = v
    try:
        from .args import ArgError, _resolve_cmd
        _resolve_cmd(ours, "--engine")
    except ArgError as err:
        print(f"ladder: error: {err}", file=sys.stderr)
        return 2

    from .match import quiet_engine_logs, run_match

    quiet_engine_logs()

    rows = []
    our_name = a.name or a.engine
    for op in opponents:
        spec = EngineSpec(cmd=op.cmd, name=op.name, proto=op.proto, tc=tc, options=dict(op.options),
                          timemargin_ms=a.timemargin)
        cfg = MatchConfig(engines=[ours, spec], games=max(2, a.games), rounds=1, repeat=2,
                          concurrency=a.concurrency, srand=a.srand, pgnout=a.pgnout,
                          ratinginterval=0, recover=a.recover, progress=False,
                          event="uci-engine ladder")
        if a.openings:
            cfg.openings = OpeningsSpec(file=a.openings, order="random" if a.srand is not None else "sequential")
        out = print if a.verbose else (lambda _line: None)
        res = asyncio.run(run_match(cfg, out=out, warn=print))
        p = res.players[0]
        our_name = p.name
        if res.error and not p.games:
            print(f"{op.name}: not played ({res.error})")
            continue
        e = stats.elo_trinomial(p.wins, p.losses, p.draws)
        rows.append((op, p, e))
        print(f"{op.name}: +{p.wins} -{p.losses} ={p.draws}  Elo {e.elo:+.0f} +/- {e.error:.0f}"
              .replace("nan", "-"), flush=True)
        if res.stopped == "interrupted":
            break

    if not rows:
        return 1
    print()
    print(f"Ladder of {our_name} at tc={tc.pgn_string()}")
    print(f"{'Opponent':<22} {'Anchor':>6} {'Games':>5} {'W-L-D':>11} {'Score':>6} {'Elo diff':>9} {'+/-':>5} {'Perf':>6}")
    triples = []
    for op, p, e in rows:
        score = (p.wins + 0.5 * p.draws) / p.games
        clamped = min(max(score, 0.5 / p.games), 1 - 0.5 / p.games)
        perf = op.ccrl + stats.score_to_elo(clamped)
        diff = ("+inf" if e.elo > 0 else "-inf") if math.isinf(e.elo) else f"{e.elo:+.0f}"
        err = "-" if math.isnan(e.error) or math.isinf(e.error) else f"{e.error:.0f}"
        print(f"{op.name:<22} {op.ccrl:>6.0f} {p.games:>5} {f'{p.wins}-{p.losses}-{p.draws}':>11} "
              f"{100 * score:>5.1f}% {diff:>9} {err:>5} {perf:>6.0f}")
        triples.append((op.ccrl, p.wins + 0.5 * p.draws, p.games))
    est = performance_rating(triples)
    print(f"\nEstimated rating (max-likelihood over all {sum(t[2] for t in triples)} games, "
          f"anchored on the CCRL 40/4 figures above): {est:.0f}")
    print("Anchors are approximate and partly unverified (see uci_engine/tools/ladder.py).")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
