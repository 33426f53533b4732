"""What a UCI session does while its kernels load or compile (plain Python): the session never
makes a client wait long, and never plays without saying how.

The kernels load in a background thread (:meth:`KernelLoading._load`): from the cache in about
a second, or, where nothing compiled fits, compiled for 15 s or more (one process compiles, the
others that start on the same cache wait for its lock). Meanwhile ``isready`` answers within
:data:`READY_PATIENCE_S`, ``position`` is checked with python-chess and kept, options keep their
values (the option table applies them at the hand-over), and ``go`` waits for the kernels as
long as its clock allows, else the plain-Python fallback search (:mod:`uci_engine.fallback`)
answers with an ``info string`` that says so.
"""
import contextlib
import gc
import sys
import time
import traceback

import chess

from .timeman import Limits, budget

COLD_START_TEXT = ("compiling search kernels, first start only; until they are ready a "
                   "plain-Python fallback search plays any move the clock cannot wait for")
LOADING_TEXT = "search kernels still loading"
FALLBACK_TEXT = ("search kernels not ready yet (first start): this move comes from the "
                 "plain-Python fallback search, far weaker than the engine's")
TB_COMPILING_TEXT = ("Syzygy probers still loading (compiling on first use); the tables are "
                     "probed once they are ready")
#: seconds ``isready`` waits for the kernels on a warm cache (loading takes about one) before it
#: answers anyway: no client sees a silent engine (cutechess-cli's ping allows 15 s)
READY_PATIENCE_S = 1.5
#: milliseconds of a move's hard limit kept for the fallback search when the kernels are still
#: loading from the cache at that limit
FALLBACK_RESERVE_MS = 50


class KernelLoading:
    """The loading half of :class:`uci_engine.uci.UCI` (a mixin: it uses the session's
    events, locks, options and output)."""

    def _load(self, sliders):
        try:
            from . import backend
            try:
                name, text, warning = backend.choose_and_select(sliders)
                self.sliders_text, self.sliders_warning = text, warning
            finally:
                self.chosen.set()
            from .numba_cache import compile_lock, is_cold
            from .warmup import start_leaf_compiler, warm_up
            self.cold = is_cold()
            self.cold_known.set()
            # On an empty cache, processes starting together compile once: the others wait
            # for the lock, then load what the first one cached (the helper sees a warm cache).
            with compile_lock() if self.cold else contextlib.nullcontext():
                helper = start_leaf_compiler()
                from .engine import Engine
                eng = Engine(self.options["Hash"].value)
                with self.handover:     # the options set so far (Use NNUE, EvalFile, Threads):
                    self.options.apply_to(eng)   # warm_up then compiles the search they use
                warm_up(eng, perft=False)
                if helper is not None:
                    helper.wait()
            with self.handover:
                if eng.default_net_error and self.options["Use NNUE"].value:
                    # the shipped net is missing or damaged: the hand-crafted evaluation plays
                    self.options.set("Use NNUE", "false")
                    self.error(f"EvalFile {eng.default_net_error}; Use NNUE is off, the "
                               f"hand-crafted evaluation plays")
                self.options.apply_to(eng)         # with the values set while it loaded
                self._apply_pending_position(eng)
                self.engine = eng
            # The objects made so far (modules, Numba's dispatchers and types: about 118,000)
            # live as long as the process; in the permanent generation no collection walks
            # them again. A full collection took 70 ms of CPU with them and 0.1 ms after,
            # and one that falls in a move of a 30 ms low-clock limit would flag
            # (docs/faults.md, "Stalls of 0.2-0.5 s in a long match were the runner's").
            gc.freeze()
        except Exception as exc:  # reported on isready; the loop keeps answering
            self.load_error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=sys.stderr)
        finally:
            self.cold_known.set()
            self.ready.set()

    def _apply_pending_position(self, eng):
        """Set the position a ``position`` command gave while the kernels loaded on ``eng``."""
        if self.pending_position is None:
            return
        fen, moves, _ = self.pending_position
        self.pending_position = None
        eng.chess960 = self.options["uci_chess960"].value
        try:
            eng.set_position(fen, moves)
        except ValueError as exc:
            self.error(f"{exc}; position unchanged")

    def _announce_loading(self):
        """Say once, before answering ``isready`` early, why the kernels are not ready."""
        if not self.cold_announced:
            self.cold_announced = True
            self.send(f"info string {COLD_START_TEXT if self.cold else LOADING_TEXT}")

    def _wait_ready(self):
        """Wait for the kernels (commands that need the engine itself: d, eval, perft); False
        (with an error line) if they failed to load."""
        if not self.ready.is_set():
            self.cold_known.wait()
            if self.cold:
                self._announce_loading()
        self.ready.wait()
        self._announce_sliders()
        if self.engine is None:
            self.error(f"engine failed to load: {self.load_error}")
            return False
        return True

    def _pend_position(self, fen, moves):
        """Keep a position given while the kernels load, checked with python-chess (the
        engine's own parser is being compiled); a bad one leaves the previous position."""
        try:
            board = chess.Board(fen, chess960=self.options["uci_chess960"].value)
            if not board.is_valid():
                raise ValueError(f"invalid position {fen!r}")
            for mv in moves:
                board.push_uci(mv)
        except ValueError as exc:
            self.error(f"{exc}; position unchanged")
            return
        self.pending_position = (fen, moves, board)

    def _pending_board(self):
        """The python-chess board of the position set while loading (the start position if
        none was)."""
        if self.pending_position is not None:
            return self.pending_position[2]
        return chess.Board(chess960=self.options["uci_chess960"].value)

    def _go_while_loading(self, limits, t0):
        """A ``go`` received at monotonic time ``t0`` while the kernels load: wait for them,
        then search as usual with the clock less the wait; if the clock cannot wait, play the
        move of the plain-Python fallback search (:mod:`uci_engine.fallback`) and say so.

        How long it waits (:func:`uci_engine.timeman.budget` gives the move's soft and hard
        limits): without a clock, or while pondering or infinite, until the kernels are ready
        or ``stop``; while they load from the cache (a second or two), up to the hard limit
        less :data:`FALLBACK_RESERVE_MS` for the fallback; while they compile (15 s or more),
        half the soft limit, and the fallback gets the other half."""
        board = self._pending_board()
        soft, hard = budget(limits, board.turn == chess.WHITE, self.options["move overhead"].value)
        if soft is None:
            wait_ms = reserve_ms = None
        elif self.cold:
            wait_ms = reserve_ms = soft / 2
        else:
            reserve_ms = min(FALLBACK_RESERVE_MS, hard / 4)
            wait_ms = hard - reserve_ms
        while not (self.ready.is_set() or self.stop_event.is_set()):
            if wait_ms is not None and not (limits.infinite or self.pondering) \
                    and (time.monotonic() - t0) * 1000 >= wait_ms:
                break
            self.ready.wait(0.005)
        if self.engine is not None:
            if self.stop_event.is_set():             # stopped as the kernels got ready
                limits = Limits(depth=1)
            waited = int((time.monotonic() - t0) * 1000)
            side = "wtime" if board.turn == chess.WHITE else "btime"
            if getattr(limits, side) is not None:
                setattr(limits, side, max(0, getattr(limits, side) - waited))
            if limits.movetime is not None:
                limits.movetime = max(1, limits.movetime - waited)
            self._search(limits)
            return
        seconds = FALLBACK_RESERVE_MS / 1000
        if reserve_ms is not None and not self.stop_event.is_set():
            seconds = reserve_ms / 1000
        self._fallback_move(board, limits, seconds, t0)

    def _fallback_move(self, board, limits, seconds, t0):
        """Answer ``bestmove`` from :func:`uci_engine.fallback.quick_move` (after an ``info
        string`` that says so), honouring ``infinite``/``ponder`` as :meth:`_search` does."""
        from .fallback import quick_move
        try:
            move, depth, score = quick_move(board, seconds)
            best = move.uci()
            self.send(f"info string {FALLBACK_TEXT}")
            self.send(f"info depth {depth} score cp {score} nodes 0 time "
                      f"{int((time.monotonic() - t0) * 1000)} pv {best}")
        except ValueError:                       # no legal move: checkmate or stalemate
            best = "0000"
        while (limits.infinite or self.pondering) and not self.release.is_set():
            self.release.wait(0.05)
        self.send_bestmove(f"bestmove {best}")
