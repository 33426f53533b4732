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
import contextlib
import logging
import math
import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Callable, TextIO

from . import stats
from .args import ArgError, EngineSpec, MatchConfig, parse_args

__all__ = ["main", "run_match", "MatchResult", "Scheduled", "build_schedule", "format_pgn"]

USAGE = """usage: uci-engine-match -engine cmd=CMD [name=N] [proto=uci|xboard] [arg=A] [dir=D]
         [option.NAME=VALUE] [tc=TC|st=S] ... -engine ... [-each KEY=VALUE ...]
         [-games N] [-rounds N] [-repeat [N]] [-concurrency N]
         [-openings file=F [format=epd|pgn] [order=sequential|random] [plies=N] [start=N]]
         [-srand N] [-pgnout FILE [min]] [-draw movenumber=N movecount=N score=CP]
         [-resign movecount=N score=CP] [-maxmoves N]
         [-sprt elo0=X elo1=Y alpha=A beta=B [model=normalized|logistic]]
         [-tournament round-robin|gauntlet] [-recover] [-ratinginterval N] [-timemargin MS]
         [-event NAME] [-site NAME] [-noswap] [-wait MS] [-debug]
         [-stalltimeout MS] [-noprogress]
TC: inf | SECONDS[+INC] | MOVES/SECONDS[+INC], SECONDS may be MIN:SEC (40/1:00+0.5)."""


@dataclass
class Scheduled:
    """One scheduled game: 1-based ``number``, player indices, the round, the opening index
    and the index of the game pair it belongs to (for pentanomial statistics)."""

    number: int
    white: int
    black: int
    round: int
    opening: int
    pair: int


def build_schedule(cfg: MatchConfig) -> list[Scheduled]:
    """The full game list in cutechess order.

    Round-robin plays every pair (gauntlet: engine 1 against each other engine) ``-games``
    times per round; colours alternate within a pair (unless ``-noswap``); a new opening is
    taken every ``-repeat`` games; consecutive games 2k, 2k+1 of a pair form a game pair.
    """
    n = len(cfg.engines)
    if cfg.tournament == "gauntlet":
        pairs = [(0, j) for j in range(1, n)]
    else:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    out: list[Scheduled] = []
    pair_game_count = {p: 0 for p in pairs}
    pair_ids: dict[tuple, int] = {}
    k = 0
    for rnd in range(1, cfg.rounds + 1):
        for p in pairs:
            for _g in range(cfg.games):
                c = pair_game_count[p]
                pair_game_count[p] += 1
                a, b = p
                white, black = (a, b) if (cfg.noswap or c % 2 == 0) else (b, a)
                key = (p, c // 2)
                pid = pair_ids.setdefault(key, len(pair_ids))
                out.append(Scheduled(k + 1, white, black, rnd, k // cfg.repeat, pid))
                k += 1
    return out


@dataclass
class PlayerStats:
    """Per-player tallies (cutechess ``TournamentPlayer``)."""

    name: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    white_wins: int = 0
    white_losses: int = 0
    white_draws: int = 0

    @property
    def games(self) -> int:
        """Finished games."""
        return self.wins + self.losses + self.draws

    @property
    def black_wins(self) -> int:  # noqa: D401
        """Wins with Black."""
        return self.wins - self.white_wins

    @property
    def black_losses(self) -> int:
        """Losses with Black."""
        return self.losses - self.white_losses

    @property
    def black_draws(self) -> int:
        """Draws with Black."""
        return self.draws - self.white_draws


@dataclass
class MatchResult:
    """What :func:`run_match` returns: per-player stats, the game records by number, the
    pentanomial of player 1 (two-player matches), the SPRT decision, and why it stopped."""

    players: list[PlayerStats]
    records: dict = field(default_factory=dict)
    penta: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    sprt: stats.SprtResult | None = None
    stopped: str | None = None
    error: str | None = None


def _fmt(x: float, nd: int = 1) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{nd}f}"


def format_results(cfg: MatchConfig, res: MatchResult) -> list[str]:
    """The cutechess results block (and fastchess's pentanomial/LLR lines)."""
    lines: list[str] = []
    ps = res.players
    if len(ps) == 2:
        p = ps[0]
        if p.games == 0:
            return lines
        ww, wl, wd = p.white_wins, p.white_losses, p.white_draws
        bw, bl, bd = p.black_wins, p.black_losses, p.black_draws
        wg, bg = ww + wl + wd, bw + bl + bd
        if wg:
            lines.append(f"...      {p.name} playing White: {ww} - {wl} - {wd}  [{(2 * ww + wd) / (2 * wg):.3f}] {wg}")
        if bg:
            lines.append(f"...      {p.name} playing Black: {bw} - {bl} - {bd}  [{(2 * bw + bd) / (2 * bg):.3f}] {bg}")
        wsc = 2 * ww + wd + 2 * bg - (2 * bw + bd)
        lines.append(f"...      White vs Black: {ww + bl} - {wl + bw} - {p.draws}  [{wsc / (2 * p.games):.3f}] {p.games}")
        e = stats.elo_trinomial(p.wins, p.losses, p.draws)
        los = stats.los_cutechess(p.wins, p.losses)
        lines.append(f"Elo difference: {_fmt(e.elo)} +/- {_fmt(e.error)}, LOS: {los:.1f} %, "
                     f"DrawRatio: {100.0 * p.draws / p.games:.1f} %")
        if sum(res.penta):
            pe = stats.elo_pentanomial(res.penta)
            lines.append(f"Ptnml(0-2): [{', '.join(str(x) for x in res.penta)}], "
                         f"Elo (pentanomial): {_fmt(pe.elo, 2)} +/- {_fmt(pe.error, 2)}, "
                         f"nElo: {_fmt(pe.nelo, 2)} +/- {_fmt(pe.nelo_error, 2)}")
        if cfg.sprt:
            lines.extend(format_sprt(cfg, res))
        return lines
    # ranking table for more than two players (cutechess default format)
    lines.append(f"{'Rank':>4} {'Name':<25} {'Elo':>7} {'+/-':>7} {'Games':>7} {'Score':>7} {'Draw':>7}")
    rows = []
    for p in ps:
        if p.games:
            e = stats.elo_trinomial(p.wins, p.losses, p.draws)
            rows.append((e.score, p, e))
    rows.sort(key=lambda r: -r[0])
    for rank, (score, p, e) in enumerate(rows, 1):
        lines.append(f"{rank:>4} {p.name:<25} {_fmt(e.elo, 0):>7} {_fmt(e.error, 0):>7} {p.games:>7} "
                     f"{100 * score:>6.1f}% {100 * p.draws / p.games:>6.1f}%")
    return lines


def format_sprt(cfg: MatchConfig, res: MatchResult) -> list[str]:
    """fastchess's ``LLR: x (lower, upper) [elo0, elo1]`` and cutechess's ``SPRT:`` line."""
    sp = cfg.sprt
    st = res.sprt or stats.sprt_status(sp.elo0, sp.elo1, sp.alpha, sp.beta, res.penta, sp.model)
    out = [f"LLR: {st.llr:.2f} ({st.lower:.2f}, {st.upper:.2f}) [{sp.elo0:.2f}, {sp.elo1:.2f}]"]
    pct = 100.0 * st.llr / st.upper if st.upper else 0.0
    line = f"SPRT: llr {st.llr:.3g} ({pct:.1f}%), lbound {st.lower:.3g}, ubound {st.upper:.3g}"
    if st.decision == "H0":
        line += " - H0 was accepted"
    elif st.decision == "H1":
        line += " - H1 was accepted"
    out.append(line)
    return out


def format_pgn(cfg: MatchConfig, rec, sched: Scheduled, tcs: dict[bool, str]) -> str:
    """One game as PGN with cutechess's headers (Event, Site, Date, Round, White, Black,
    Result, then FEN, GameDuration, GameEndTime, GameStartTime, PlyCount, SetUp, Termination,
    TimeControl -- alphabetical as cutechess writes them) and ``{reason}`` comments."""
    import chess
    import chess.pgn

    root = rec.board.root()
    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = cfg.event
    h["Site"] = cfg.site
    h["Date"] = rec.start_time.astimezone().strftime("%Y.%m.%d")
    h["Round"] = str(sched.round)
    h["White"] = rec.white
    h["Black"] = rec.black
    h["Result"] = rec.result
    extra: dict[str, str] = {}
    if root.fen() != chess.STARTING_FEN:
        extra["FEN"] = root.fen()
        extra["SetUp"] = "1"
    end = rec.end_time or rec.start_time
    dur = int((end - rec.start_time).total_seconds())
    extra["GameDuration"] = f"{dur // 3600:02d}:{dur // 60 % 60:02d}:{dur % 60:02d}"
    extra["GameEndTime"] = end.strftime("%Y-%m-%dT%H:%M:%S.") + f"{end.microsecond // 1000:03d} UTC"
    st = rec.start_time
    extra["GameStartTime"] = st.strftime("%Y-%m-%dT%H:%M:%S.") + f"{st.microsecond // 1000:03d} UTC"
    extra["PlyCount"] = str(len(rec.board.move_stack))
    if rec.termination:
        extra["Termination"] = rec.termination
    if tcs[True] == tcs[False]:
        extra["TimeControl"] = tcs[True]
    else:
        extra["WhiteTimeControl"] = tcs[True]
        extra["BlackTimeControl"] = tcs[False]
    if cfg.pgn_min:
        extra = {k: v for k, v in extra.items() if k in ("FEN", "SetUp")}
    for k in sorted(extra):
        h[k] = extra[k]
    node = game
    for ply, move in enumerate(rec.board.move_stack):
        node = node.add_variation(move)
        if not cfg.pgn_min and ply in rec.comments:
            node.comment = rec.comments[ply]
    if not cfg.pgn_min:
        if node is game:
            game.comment = rec.reason
        else:
            node.comment = f"{node.comment}, {rec.reason}" if node.comment else rec.reason
    exporter = _CutechessExporter(headers=True, variations=False, comments=not cfg.pgn_min)
    return game.accept(exporter) + "\n\n"


def _exporter_class():
    import chess.pgn

    class CutechessExporter(chess.pgn.StringExporter):
        """PGN text with cutechess's comment style ``{+0.25/12 0.52s}`` (no inner spaces)."""

        def visit_comment(self, comment: str) -> None:
            if self.comments and (self.variations or not self.variation_depth):
                self.write_token("{" + comment.replace("}", "").strip() + "} ")
                self.force_movenumber = True

    return CutechessExporter


def _CutechessExporter(**kwargs):
    return _exporter_class()(**kwargs)


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
                    warn: Callable[[str], None] | None = None, bar=None) -> MatchResult:
    """Play the whole schedule of ``cfg``; print cutechess output through ``out``.

    Returns a :class:`MatchResult`. Stops early on an SPRT decision, on an engine crash or
    stall without ``-recover`` (as cutechess does), or on SIGINT (Ctrl-C).
    """
    import chess  # lazily: python-chess is only needed for matches, not by the engine

    from .game import EngineInstance, EngineStartError, GameSettings, play_game
    from .openings import OpeningsError, OpeningStream, load_openings

    warn = warn or out
    schedule = build_schedule(cfg)
    total = len(schedule)
    stall_s = cfg.stall_timeout_ms / 1000.0

    # openings
    if cfg.openings:
        try:
            ops = load_openings(cfg.openings.file, cfg.openings.format, cfg.openings.plies)
        except OpeningsError as err:
            return MatchResult([PlayerStats(e.display_name()) for e in cfg.engines], error=str(err))
        stream = OpeningStream(ops, cfg.openings.order, cfg.openings.start, cfg.srand)
        n_open = max(s.opening for s in schedule) + 1 if schedule else 0
        openings = [next(stream) for _ in range(n_open)]
    else:
        openings = None

    pools: list[list[EngineInstance]] = [[] for _ in cfg.engines]
    all_instances: set[EngineInstance] = set()
    players = [PlayerStats(e.display_name()) for e in cfg.engines]
    res = MatchResult(players)

    async def acquire(idx: int) -> EngineInstance:
        pool = pools[idx]
        while pool:
            inst = pool.pop()
            if inst.alive:
                return inst
        inst = await EngineInstance.start(cfg.engines[idx], max(35.0, stall_s), warn)
        all_instances.add(inst)
        return inst

    async def release(idx: int, inst: EngineInstance, failed: bool) -> None:
        spec: EngineSpec = cfg.engines[idx]
        if failed or not inst.alive:
            all_instances.discard(inst)
            if inst.alive:
                await inst.kill()
            return
        if spec.restart == "on":
            all_instances.discard(inst)
            await inst.quit()
            return
        pools[idx].append(inst)

    # Start one instance per engine up front: names come from the engines ("id name"), and a
    # broken command fails before any game starts.
    try:
        for i in range(len(cfg.engines)):
            inst = await acquire(i)
            players[i].name = inst.name
            pools[i].append(inst)
    except EngineStartError as err:
        for inst in list(all_instances):
            await inst.quit()
        res.error = str(err)
        return res


    stop_event = asyncio.Event()
    sem = asyncio.Semaphore(cfg.concurrency)
    pair_results: dict[int, list[float]] = {}
    pair_sizes: dict[int, int] = {}
    for s in schedule:
        pair_sizes[s.pair] = pair_sizes.get(s.pair, 0) + 1
    pgn_buffer: dict[int, str] = {}
    next_pgn = [1]
    finished = [0]
    running: set[asyncio.Task] = set()

    def flush_pgn(final: bool = False) -> None:
        if not cfg.pgnout:
            return
        with open(cfg.pgnout, "a", encoding="utf-8") as fh:
            while next_pgn[0] in pgn_buffer or (final and pgn_buffer):
                if next_pgn[0] not in pgn_buffer:
                    next_pgn[0] = min(pgn_buffer)
                fh.write(pgn_buffer.pop(next_pgn[0]))
                next_pgn[0] += 1

    def stop(reason: str) -> None:
        if res.stopped is None:
            res.stopped = reason
        stop_event.set()
        for t in list(running):
            t.cancel()

    def record(s: Scheduled, rec) -> None:
        """Count a finished game (cutechess Tournament::onGameFinished)."""
        pw, pb = players[s.white], players[s.black]
        if rec.result == "1-0":
            pw.wins += 1
            pw.white_wins += 1
            pb.losses += 1
            wscore = 1.0
        elif rec.result == "0-1":
            pb.wins += 1
            pw.losses += 1
            pw.white_losses += 1
            wscore = 0.0
        else:
            pw.draws += 1
            pw.white_draws += 1
            pb.draws += 1
            wscore = 0.5
        finished[0] += 1
        out(f"Finished game {s.number} ({rec.white} vs {rec.black}): {rec.verbose_result}")
        if len(players) == 2:
            p0 = players[0]
            score0 = wscore if s.white == 0 else 1.0 - wscore
            pair_results.setdefault(s.pair, []).append(score0)
            if len(pair_results[s.pair]) == 2 and pair_sizes[s.pair] == 2:
                res.penta[int(round(sum(pair_results[s.pair]) * 2))] += 1
            g = p0.games
            out(f"Score of {p0.name} vs {players[1].name}: {p0.wins} - {p0.losses} - {p0.draws}  "
                f"[{(p0.wins + 0.5 * p0.draws) / g:.3f}] {g}")
            if cfg.sprt:
                sp = cfg.sprt
                res.sprt = stats.sprt_status(sp.elo0, sp.elo1, sp.alpha, sp.beta, res.penta, sp.model)
            if cfg.ratinginterval and finished[0] % cfg.ratinginterval == 0 and finished[0] < total:
                for line in format_results(cfg, res):
                    out(line)
            if res.sprt is not None and res.sprt.decision is not None:
                stop("sprt")
        if cfg.pgnout:
            tcs = {True: cfg.engines[s.white].tc.pgn_string(), False: cfg.engines[s.black].tc.pgn_string()}
            pgn_buffer[s.number] = format_pgn(cfg, rec, s, tcs)
            flush_pgn()
        if bar is not None:
            bar.update(1)

    async def run_one(s: Scheduled) -> None:
        async with sem:
            if stop_event.is_set():
                return
            if cfg.wait_ms:
                await asyncio.sleep(cfg.wait_ms / 1000.0)
            try:
                w = await acquire(s.white)
            except EngineStartError as err:
                res.error = str(err)
                stop("error")
                return
            try:
                b = await acquire(s.black)
            except EngineStartError as err:
                await release(s.white, w, False)
                res.error = str(err)
                stop("error")
                return
            if stop_event.is_set():
                await release(s.white, w, False)
                await release(s.black, b, False)
                return
            start = openings[s.opening].board() if openings else None
            if start is None:
                start = chess.Board()
            out(f"Started game {s.number} of {total} ({w.name} vs {b.name})")
            ew, eb = cfg.engines[s.white], cfg.engines[s.black]
            settings = GameSettings(tc={True: ew.tc, False: eb.tc},
                                    margin_ms={True: ew.timemargin_ms or 0, False: eb.timemargin_ms or 0},
                                    draw=cfg.draw, resign=cfg.resign, maxmoves=cfg.maxmoves,
                                    stall_timeout_s=stall_s)
            task = asyncio.ensure_future(play_game(w, b, start, settings))
            running.add(task)
            try:
                rec = await task
            except asyncio.CancelledError:
                # interrupted (Ctrl-C / SPRT stop / crash stop): the game does not count
                await w.kill()
                await b.kill()
                all_instances.discard(w)
                all_instances.discard(b)
                return
            finally:
                running.discard(task)
            await release(s.white, w, True in rec.failed)
            await release(s.black, b, False in rec.failed)
            res.records[s.number] = rec
            record(s, rec)
            if rec.failed and not cfg.recover:
                names = ", ".join(rec.white if c else rec.black for c in sorted(rec.failed, reverse=True))
                warn(f"Warning: engine {names} crashed or stalled ({rec.reason}); stopping the match "
                     "(use -recover to restart crashed engines)")
                stop("crash")

    loop = asyncio.get_running_loop()
    default_handler = loop.get_exception_handler()

    def exception_handler(lp, context) -> None:
        # python-chess reports commands we cancelled (timeout, stall) whose engine we then
        # killed; that is expected here, not an error worth printing.
        if "failed after returning preliminary result" in str(context.get("message", "")):
            return
        if default_handler is None:
            lp.default_exception_handler(context)
        else:
            default_handler(lp, context)

    loop.set_exception_handler(exception_handler)
    sigint_installed = False
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, lambda: stop("interrupted"))
        sigint_installed = True

    tasks = [asyncio.ensure_future(run_one(s)) for s in schedule]
    try:
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        if sigint_installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGINT)
        for t in tasks:
            if not t.done():
                t.cancel()
        flush_pgn(final=True)
        for pool in pools:
            for inst in pool:
                all_instances.discard(inst)
                await inst.quit()
        for inst in list(all_instances):
            await inst.kill()
    for t in tasks:
        if t.done() and not t.cancelled() and t.exception() is not None:
            exc = t.exception()
            res.error = f"internal error: {exc!r}"
            logging.getLogger(__name__).error("game task failed", exc_info=exc)
    return res


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
