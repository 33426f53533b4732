"""``uci-engine-match``: engine matches with cutechess-cli's command line, on python-chess.

Example (same arguments as cutechess-cli)::

    uci-engine-match -engine cmd=uci-engine name=new -engine cmd=stockfish \\
        option.UCI_LimitStrength=true option.UCI_Elo=1500 \\
        -each tc=10+0.1 proto=uci -games 2 -rounds 100 -repeat -concurrency 2 \\
        -openings file=noob_2moves.epd format=epd order=random -srand 42 \\
        -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -recover -pgnout games.pgn

Output is cutechess's (``Started game``, ``Finished game``, ``Score of``, ``Elo difference``)
plus fastchess's pentanomial lines (``Ptnml(0-2)``, ``LLR``). Games run concurrently on one
asyncio event loop (``-concurrency N``): each game has its own engine processes. A tqdm bar is
drawn on stderr when stderr is a terminal (never with ``CI=true`` or ``-noprogress``). Ctrl-C
stops the match and prints the statistics of the games finished so far.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Callable, TextIO

from .args import ArgError, MatchConfig, parse_args
from .report import format_pgn, format_results
from .schedule import MatchResult, PlayerStats, Scheduled, build_schedule
from .tournament import EngineKeeper, Tournament

__all__ = ["main", "run_match", "play_match", "match_summary", "MatchResult", "Scheduled",
           "build_schedule", "format_pgn"]

USAGE = """usage: uci-engine-match -engine cmd=CMD [name=N] [proto=uci|xboard] [arg=A] [dir=D]
         [option.NAME=VALUE] [tc=TC|st=S] ... -engine ... [-each KEY=VALUE ...]
         [-games N] [-rounds N] [-repeat [N]] [-concurrency N]
         [-openings file=F [format=epd|pgn] [order=sequential|random] [plies=N] [start=N]]
         [-srand N] [-pgnout FILE [min]] [-draw movenumber=N movecount=N score=CP]
         [-resign movecount=N score=CP] [-maxmoves N]
         [-sprt elo0=X elo1=Y alpha=A beta=B [model=normalized|logistic]
                [prior=P0,P1,P2,P3,P4]]
         [-tournament round-robin|gauntlet] [-recover] [-ratinginterval N] [-timemargin MS]
         [-event NAME] [-site NAME] [-noswap] [-wait MS] [-debug]
         [-stalltimeout MS] [-noprogress]
TC: inf | SECONDS[+INC] | MOVES/SECONDS[+INC], SECONDS may be MIN:SEC (40/1:00+0.5)."""


class _Output:
    """stdout lines that do not garble the tqdm bar on stderr."""

    def __init__(self, stream: TextIO, bar):
        self.stream = stream
        self.bar = bar

    def __call__(self, line: str) -> None:
        if self.bar is not None:
            self.bar.clear()
        print(line, file=self.stream, flush=True)
        if self.bar is not None:
            self.bar.refresh()


def _progress_enabled(cfg: MatchConfig) -> bool:
    if not cfg.progress or os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


async def run_match(cfg: MatchConfig, out: Callable[[str], None] = print,
                    warn: Callable[[str], None] | None = None, bar=None,
                    sigint: bool = True,
                    on_start: Callable[[Tournament], None] | None = None,
                    keep: EngineKeeper | None = None) -> MatchResult:
    """Play the whole schedule of ``cfg``; print cutechess output through ``out``.

    Returns a :class:`MatchResult`. Stops early on an SPRT decision, on an engine crash or
    stall without ``-recover`` (as cutechess does), or on SIGINT (Ctrl-C) when ``sigint``.
    Matches run side by side on one event loop pass ``sigint=False`` and get their
    :class:`Tournament` from ``on_start`` (called before the engines start), whose ``stop``
    ends it as Ctrl-C would. A caller that plays match after match with the same engine
    commands passes one :class:`EngineKeeper` to them all: the engines then run on from one
    match to the next, and the caller closes the keeper at the end.
    """
    from .openings import OpeningsError

    run = Tournament(cfg, out, warn or out, bar, sigint=sigint, keep=keep)
    if on_start is not None:
        on_start(run)
    try:
        run.load_openings()
    except OpeningsError as err:
        return MatchResult([PlayerStats(e.display_name()) for e in cfg.engines], error=str(err))
    if not await run.start_engines():
        return run.res
    await run.play_all()
    return run.res


def pairs_argv(pairs, concurrency, seed, book=None, pgn=None, maxmoves=None) -> list[str]:
    """Our runner's (cutechess-cli) arguments that play ``pairs`` game pairs (``-games 2
    -repeat``: each opening with colours swapped) ``concurrency`` at a time, ``-recover``,
    seeded by ``seed``, without a progress bar; random EPD openings from ``book``, the PGN to
    ``pgn`` and a ``-maxmoves`` draw when given. The engines' ``-engine``/``-each`` arguments
    go before them."""
    argv = ["-games", "2", "-rounds", str(pairs), "-repeat", "-concurrency", str(concurrency),
            "-recover", "-srand", str(seed), "-noprogress"]
    if book:
        argv += ["-openings", f"file={book}", "format=epd", "order=random"]
    if pgn:
        argv += ["-pgnout", pgn]
    if maxmoves:
        argv += ["-maxmoves", str(maxmoves)]
    return argv


def play_match(argv: list[str], log: Callable[[str], None] = print) -> dict:
    """Play one match in this process from our runner's (cutechess-cli) arguments ``argv``;
    returns engine 1's results: ``wins``, ``losses``, ``draws`` (int), ``penta`` (list of 5
    game-pair counts, LL to WW), ``faults`` (dict result type -> games engine 1 lost by time,
    illegal move, crash or stall), ``opponent_faults`` (the same for the other engines' games
    lost so) and ``stopped``: None for a whole match, else why it ended early (str:
    ``"interrupted"`` by Ctrl-C, ``"sprt"``, ``"crash"``, ``"error"``). Raises
    ArgError on a bad command line and RuntimeError when the match could not start (an engine
    failed, no openings)."""
    cfg = parse_args(argv)
    quiet_engine_logs()
    return match_summary(asyncio.run(run_match(cfg, out=log, warn=log)))


def match_summary(res: MatchResult) -> dict:
    """The dict of :func:`play_match` (engine 1's wins, losses, draws, pentanomial, faults and
    why the match stopped) of a finished :func:`run_match`, with ``opponent_faults``: the
    same count for the games the other engines lost by a fault. Raises RuntimeError when the
    match could not start."""
    if res.error and not res.players[0].games:
        raise RuntimeError(f"match failed: {res.error}")
    first = res.players[0]
    faults: dict[str, int] = {}
    others: dict[str, int] = {}
    for rec in res.records.values():
        loser = rec.fault_loser
        if loser is not None:
            side = faults if (rec.white if loser else rec.black) == first.name else others
            side[rec.rtype] = side.get(rec.rtype, 0) + 1
    return {"wins": first.wins, "losses": first.losses, "draws": first.draws,
            "penta": list(res.penta), "faults": faults, "opponent_faults": others,
            "stopped": res.stopped}


def quiet_engine_logs() -> None:
    """python-chess warns about every unexpected engine line (xboard engines chat a lot);
    show only errors unless ``-debug``."""
    logging.getLogger("chess.engine").setLevel(logging.ERROR)


def main(argv: list[str] | None = None) -> int:
    """Console entry point (``uci-engine-match``). Returns the process exit status:
    0 after a match (also when stopped by SPRT or Ctrl-C), 1 on an engine start failure,
    2 on a bad command line."""
    if argv is None:
        argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "-help", "--help"):
        print(USAGE)
        return 0 if argv else 2
    try:
        cfg = parse_args(argv)
    except ArgError as err:
        print(f"uci-engine-match: error: {err}", file=sys.stderr)
        print("Run 'uci-engine-match -help' for the accepted arguments.", file=sys.stderr)
        return 2
    if cfg.debug:
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    else:
        quiet_engine_logs()

    bar = None
    if _progress_enabled(cfg):
        try:
            from tqdm import tqdm
            bar = tqdm(total=cfg.total_games(), file=sys.stderr, unit="game", dynamic_ncols=True)
        except ImportError:  # pragma: no cover
            bar = None
    out = _Output(sys.stdout, bar)
    try:
        res = asyncio.run(run_match(cfg, out=out, warn=out, bar=bar))
    except KeyboardInterrupt:  # pragma: no cover - SIGINT before the handler was installed
        return 130
    finally:
        if bar is not None:
            bar.close()
    if res.error and not any(p.games for p in res.players):
        print(f"uci-engine-match: error: {res.error}", file=sys.stderr)
        return 1
    if res.error:
        out(f"Warning: {res.error}")
    if res.stopped == "interrupted":
        out("Match interrupted; results of the finished games:")
    for line in format_results(cfg, res):
        out(line)
    out("Finished match")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
