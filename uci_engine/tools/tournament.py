"""One match in progress (cutechess's ``Tournament``): engine pools, concurrent games on one
asyncio loop, the running counts, the SPRT stop and the PGN output;
:func:`uci_engine.tools.match.run_match` drives it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from . import stats
from .args import EngineSpec, MatchConfig
from .report import format_pgn, format_results
from .schedule import MatchResult, PlayerStats, Scheduled, build_schedule


@contextlib.contextmanager
def on_sigint(callback):
    """Call ``callback`` on SIGINT (Ctrl-C) while the block runs, through the running event
    loop's one SIGINT handler; where the loop takes no signal handlers (not the main thread,
    Windows) the block runs without one."""
    loop = asyncio.get_running_loop()
    installed = False
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, callback)
        installed = True
    try:
        yield
    finally:
        if installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGINT)


class EngineKeeper:
    """Engines kept running from one match to the next, as for an SPSA worker's steps: a match
    takes a kept engine of the same command, protocol, directory, stderr file and option names
    (:meth:`key`) instead of starting one, sends it its own option values, and at its end gives
    back its idle engines instead of quitting them. That saves each match the start of its
    engines; ours also load their search kernels then, which takes 1.5 s or more on a loaded
    2-core machine, so a first game's opening moves met kernels still loading. Every game still
    begins with ``ucinewgame``. :meth:`close` quits the kept engines."""

    def __init__(self):
        self.idle: dict[tuple, list] = {}

    @staticmethod
    def key(spec: EngineSpec) -> tuple:
        """What a kept engine must share with the spec that takes it (tuple)."""
        return (tuple(spec.command()), spec.proto, spec.dir, spec.stderr,
                tuple(sorted(spec.options)))

    async def take(self, spec: EngineSpec):
        """A kept live engine for ``spec`` (removed from the keeper), or None; a kept engine
        found dead on the way is dropped through its ``kill`` (which closes its stderr file)."""
        idle = self.idle.get(self.key(spec), [])
        while idle:
            inst = idle.pop()
            if inst.alive:
                return inst
            await inst.kill()
        return None

    def give(self, inst) -> None:
        """Keep ``inst``, an idle engine, for a later match."""
        self.idle.setdefault(self.key(inst.spec), []).append(inst)

    async def close(self) -> None:
        """Quit every kept engine."""
        for idle in self.idle.values():
            for inst in idle:
                await inst.quit()
        self.idle.clear()


class Tournament:
    """One match in progress: the engine pools, the running games, the counts and the PGN
    output (cutechess's Tournament). :func:`run_match` drives it. With ``sigint`` (the
    default) Ctrl-C stops it; a caller that runs several at once on one event loop passes
    False and calls :meth:`stop` itself (an event loop has one SIGINT handler). With ``keep``
    (an :class:`EngineKeeper`) its engines come from and go back to the keeper."""

    def __init__(self, cfg: MatchConfig, out, warn, bar, sigint: bool = True,
                 keep: EngineKeeper | None = None):
        self.cfg, self.out, self.warn, self.bar = cfg, out, warn, bar
        self.sigint = sigint
        self.keep = keep
        self.schedule = build_schedule(cfg)
        self.total = len(self.schedule)
        self.stall_s = cfg.stall_timeout_ms / 1000.0
        self.openings = None
        self.pools: list[list] = [[] for _ in cfg.engines]
        self.all_instances: set = set()
        self.players = [PlayerStats(e.display_name()) for e in cfg.engines]
        self.res = MatchResult(self.players)
        self.stop_event = asyncio.Event()
        self.sem = asyncio.Semaphore(cfg.concurrency)
        self.pair_results: dict[int, list[float]] = {}
        self.pair_sizes: dict[int, int] = {}
        for s in self.schedule:
            self.pair_sizes[s.pair] = self.pair_sizes.get(s.pair, 0) + 1
        self.pgn_buffer: dict[int, str] = {}
        self.next_pgn = 1
        self.finished = 0
        self.running: set[asyncio.Task] = set()

    def load_openings(self) -> None:
        """The opening of every scheduled game (None without ``-openings``). Raises
        OpeningsError."""
        from .openings import OpeningStream, load_openings
        cfg = self.cfg
        if not cfg.openings:
            return
        ops = load_openings(cfg.openings.file, cfg.openings.format, cfg.openings.plies)
        stream = OpeningStream(ops, cfg.openings.order, cfg.openings.start, cfg.srand)
        n_open = max(s.opening for s in self.schedule) + 1 if self.schedule else 0
        self.openings = [next(stream) for _ in range(n_open)]

    async def acquire(self, idx: int):
        from .game import EngineInstance, EngineStartError
        pool = self.pools[idx]
        while pool:
            inst = pool.pop()
            if inst.alive:
                return inst
            self.all_instances.discard(inst)
            await inst.kill()                   # exited while idle: closes its stderr file
        spec, timeout_s = self.cfg.engines[idx], max(35.0, self.stall_s)
        inst = await self.keep.take(spec) if self.keep is not None else None
        if inst is not None:
            try:
                await inst.reuse(spec, timeout_s, self.warn)
            except EngineStartError:            # killed: a new one is started instead
                inst = None
        if inst is None:
            inst = await EngineInstance.start(spec, timeout_s, self.warn)
        self.all_instances.add(inst)
        return inst

    async def release(self, idx: int, inst, failed: bool) -> None:
        spec: EngineSpec = self.cfg.engines[idx]
        if failed or not inst.alive:
            self.all_instances.discard(inst)
            await inst.kill()                   # also when it exited: closes its stderr file
            return
        if spec.restart == "on":
            self.all_instances.discard(inst)
            await inst.quit()
            return
        self.pools[idx].append(inst)

    async def start_engines(self) -> bool:
        """Start one instance per engine up front: names come from the engines (``id name``),
        and a broken command fails before any game starts. False (``res.error`` set) if one
        does not start."""
        from .game import EngineStartError
        try:
            for i in range(len(self.cfg.engines)):
                inst = await self.acquire(i)
                self.players[i].name = inst.name
                self.pools[i].append(inst)
        except EngineStartError as err:
            for inst in list(self.all_instances):
                await inst.quit()
            self.res.error = str(err)
            return False
        return True

    def flush_pgn(self, final: bool = False) -> None:
        if not self.cfg.pgnout:
            return
        with open(self.cfg.pgnout, "a", encoding="utf-8") as fh:
            while self.next_pgn in self.pgn_buffer or (final and self.pgn_buffer):
                if self.next_pgn not in self.pgn_buffer:
                    self.next_pgn = min(self.pgn_buffer)
                fh.write(self.pgn_buffer.pop(self.next_pgn))
                self.next_pgn += 1

    def stop(self, reason: str) -> None:
        if self.res.stopped is None:
            self.res.stopped = reason
        self.stop_event.set()
        for t in list(self.running):
            t.cancel()

    def record(self, s: Scheduled, rec) -> None:
        """Count a finished game (cutechess Tournament::onGameFinished)."""
        cfg, players, out = self.cfg, self.players, self.out
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
        self.finished += 1
        out(f"Finished game {s.number} ({rec.white} vs {rec.black}): {rec.verbose_result}")
        if len(players) == 2:
            self._record_pair(s, wscore)
        if cfg.pgnout:
            tcs = {True: cfg.engines[s.white].tc.pgn_string(),
                   False: cfg.engines[s.black].tc.pgn_string()}
            self.pgn_buffer[s.number] = format_pgn(cfg, rec, s, tcs)
            self.flush_pgn()
        if self.bar is not None:
            self.bar.update(1)

    def _record_pair(self, s: Scheduled, wscore: float) -> None:
        """Two-player match: the pentanomial pair, the score line, the SPRT and its stop."""
        cfg, res, players, out = self.cfg, self.res, self.players, self.out
        p0 = players[0]
        score0 = wscore if s.white == 0 else 1.0 - wscore
        self.pair_results.setdefault(s.pair, []).append(score0)
        if len(self.pair_results[s.pair]) == 2 and self.pair_sizes[s.pair] == 2:
            res.penta[int(round(sum(self.pair_results[s.pair]) * 2))] += 1
        g = p0.games
        out(f"Score of {p0.name} vs {players[1].name}: {p0.wins} - {p0.losses} - {p0.draws}  "
            f"[{(p0.wins + 0.5 * p0.draws) / g:.3f}] {g}")
        if cfg.sprt:
            sp = cfg.sprt
            res.sprt = stats.sprt_status(sp.elo0, sp.elo1, sp.alpha, sp.beta,
                                         sp.combined(res.penta), sp.model)
        if cfg.ratinginterval and self.finished % cfg.ratinginterval == 0 \
                and self.finished < self.total:
            for line in format_results(cfg, res):
                out(line)
        if res.sprt is not None and res.sprt.decision is not None:
            self.stop("sprt")

    async def _pair_up(self, s: Scheduled):
        """The two instances of game ``s`` (white, black), or None when the match stops or
        an engine does not start (``res.error`` set)."""
        from .game import EngineStartError
        try:
            w = await self.acquire(s.white)
        except EngineStartError as err:
            self.res.error = str(err)
            self.stop("error")
            return None
        try:
            b = await self.acquire(s.black)
        except EngineStartError as err:
            await self.release(s.white, w, False)
            self.res.error = str(err)
            self.stop("error")
            return None
        if self.stop_event.is_set():
            await self.release(s.white, w, False)
            await self.release(s.black, b, False)
            return None
        return w, b

    async def run_one(self, s: Scheduled) -> None:
        import chess  # lazily: python-chess is only needed for matches, not by the engine

        from .game import GameSettings, play_game
        cfg = self.cfg
        async with self.sem:
            if self.stop_event.is_set():
                return
            if cfg.wait_ms:
                await asyncio.sleep(cfg.wait_ms / 1000.0)
            pair = await self._pair_up(s)
            if pair is None:
                return
            w, b = pair
            start = self.openings[s.opening].board() if self.openings else None
            if start is None:
                start = chess.Board()
            self.out(f"Started game {s.number} of {self.total} ({w.name} vs {b.name})")
            ew, eb = cfg.engines[s.white], cfg.engines[s.black]
            settings = GameSettings(tc={True: ew.tc, False: eb.tc},
                                    margin_ms={True: ew.timemargin_ms or 0,
                                               False: eb.timemargin_ms or 0},
                                    draw=cfg.draw, resign=cfg.resign, maxmoves=cfg.maxmoves,
                                    stall_timeout_s=self.stall_s)
            task = asyncio.ensure_future(play_game(w, b, start, settings))
            self.running.add(task)
            try:
                rec = await task
            except asyncio.CancelledError:
                # interrupted (Ctrl-C / SPRT stop / crash stop): the game does not count
                await w.kill()
                await b.kill()
                self.all_instances.discard(w)
                self.all_instances.discard(b)
                return
            finally:
                self.running.discard(task)
            await self.release(s.white, w, True in rec.failed)
            await self.release(s.black, b, False in rec.failed)
            self.res.records[s.number] = rec
            self.record(s, rec)                 # writes the PGN from the full record
            rec.compact()                       # then drops its moves (GameRecord.compact)
            if rec.failed and not cfg.recover:
                names = ", ".join(rec.white if c else rec.black
                                  for c in sorted(rec.failed, reverse=True))
                self.warn(f"Warning: engine {names} crashed or stalled ({rec.reason}); stopping "
                          "the match (use -recover to restart crashed engines)")
                self.stop("crash")

    async def play_all(self) -> None:
        """Run every scheduled game (``concurrency`` at a time), then close the engines."""
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
        tasks = [asyncio.ensure_future(self.run_one(s)) for s in self.schedule]
        try:
            with (on_sigint(lambda: self.stop("interrupted")) if self.sigint
                  else contextlib.nullcontext()):
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()
            self.flush_pgn(final=True)
            for pool in self.pools:
                for inst in pool:
                    self.all_instances.discard(inst)
                    if self.keep is not None and inst.alive:
                        self.keep.give(inst)
                    else:
                        await inst.quit()
            for inst in list(self.all_instances):
                await inst.kill()
        for t in tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                exc = t.exception()
                self.res.error = f"internal error: {exc!r}"
                logging.getLogger(__name__).error("game task failed", exc_info=exc)
