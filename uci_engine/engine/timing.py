"""When a search stops (plain Python): the hard deadline's timer, the soft limit scaled after each
iteration (:func:`uci_engine.timeman.scale_soft`), depth/mate/node limits, ``stop`` and
``ponderhit``. Part of :class:`uci_engine.engine.Engine`."""
import threading
import time

from .. import params as SP
from ..kernels import position as P
from ..kernels import state as SS
from ..timeman import TM_MIN_DEPTH, budget, scale_soft


class StopTimer:
    """One long-lived thread that calls ``callback`` when an armed deadline passes.

    A new ``threading.Timer`` per move cost about 1 ms to start (``Thread.start`` waits for the
    thread to run), a tenth of a 1+0.01 increment. ``disarm`` returns only when a pending call
    can no longer happen: the callback runs under the same lock, so a deadline of one search
    never stops the next."""

    def __init__(self, callback):
        self._callback = callback
        self._cv = threading.Condition()
        self._deadline = None
        threading.Thread(target=self._run, daemon=True, name="stop-timer").start()

    def arm(self, seconds):
        """Call back ``seconds`` from now (replacing any armed deadline)."""
        with self._cv:
            self._deadline = time.monotonic() + seconds
            self._cv.notify()

    def disarm(self):
        with self._cv:
            self._deadline = None
            self._cv.notify()

    def _run(self):
        with self._cv:
            while True:
                if self._deadline is None:
                    self._cv.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._cv.wait(left)
                    continue
                self._deadline = None
                self._callback()


class StopControl:
    """Stop rules and timers (a mixin of :class:`uci_engine.engine.Engine`)."""

    def _should_stop_after(self, depth, score, best, limits, multipv=1):
        """After iteration ``depth`` (score in centipawns, ``best`` move): True when the search
        should end. Updates the scaled soft limit (:func:`uci_engine.timeman.scale_soft`) and
        re-arms its timer, which stops the next iteration after a root move."""
        if limits.mate and score is not None and score >= SS.MATE - 2 * limits.mate:
            return True
        if limits.depth and depth >= limits.depth:
            return True
        if self.soft_ms is not None:
            self._tm_stability = self._tm_stability + 1 if best == self._tm_best else 0
            drop = (self._tm_score - score
                    if self._tm_score is not None and score is not None else 0)
            self._tm_best, self._tm_score = best, score
            # a clock's budget only: ``movetime`` is spent whole, as in Stockfish
            if depth >= TM_MIN_DEPTH and multipv == 1 and limits.movetime is None:
                h = self.ctl
                share = int(h[SS.BEST_NODES]) / max(1, int(h[SS.NODES] - h[SS.ITER_NODES]))
                self._scaled_soft_ms = scale_soft(self.soft_ms, self.hard_ms,
                                                  self._tm_stability, drop, min(1.0, share),
                                                  **SP.time_factors(self.params))
            elapsed_ms = (self._clock() - self._tstart) * 1000
            if elapsed_ms >= self._scaled_soft_ms:
                return True
            self._arm_soft_timer(self._scaled_soft_ms - elapsed_ms)
        if self.soft_ms is not None and score is not None and abs(score) >= SS.MATE_BOUND \
                and depth >= 2 * (SS.MATE - abs(score)) + 4:
            return True
        return False

    def request_stop(self):
        """Ask a running search to stop as soon as possible (thread-safe)."""
        self.ctl[SS.STOP] = 1
        for w in self.helpers:
            w.ctl[SS.STOP] = 1

    def _soft_stop(self):
        """The soft deadline passed: the main thread stops after its current root move."""
        self.ctl[SS.SOFT_STOP] = 1

    def _arm_timer(self, hard_ms):
        if hard_ms is not None:
            if self._timer is None:
                self._timer = StopTimer(self.request_stop)
            self._timer.arm(hard_ms / 1000.0)

    def _arm_soft_timer(self, ms):
        if self._soft_timer is None:
            self._soft_timer = StopTimer(self._soft_stop)
        self._soft_timer.arm(max(ms, 0.0) / 1000.0)

    def _disarm_timer(self):
        if self._timer is not None:
            self._timer.disarm()
        if self._soft_timer is not None:
            self._soft_timer.disarm()

    def extend_time(self, limits, move_overhead=10):
        """On ``ponderhit``: restart the clock budget from now using ``limits``."""
        white = int(self.st[self.root, P.STM]) == 0
        self._tstart = self._clock()
        self.soft_ms, self.hard_ms = budget(limits, white, move_overhead)
        self._scaled_soft_ms = self.soft_ms
        self._disarm_timer()
        self._arm_timer(self.hard_ms)
