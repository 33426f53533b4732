"""The search driver (plain Python over the ``negamax`` kernel): iterative deepening, aspiration
windows (chessprogramming wiki "Aspiration Windows"), MultiPV, the info lines and the ponder
move. Part of :class:`uci_engine.engine.Engine`.

Aspiration windows: from ASPIRATION_MIN_DEPTH on, an iteration starts with the window
prev_score +- ASPIRATION_DELTA (centipawns); each fail widens delta by half (Ethereal's growth)
plus ASPIRATION_GROWTH_CP, and a fail low also pulls beta to the window's middle, as Stockfish
does. The three values are search parameters (uci_engine/params.py).
"""
import dataclasses
import time

import numpy as np

from .. import params as SP
from .. import strength
from ..kernels import position as P
from ..kernels import search as S
from ..kernels import state as SS
from ..kernels import tt as TT
from ..tbfiles import NO_TABLES
from ..timeman import budget
from .game import _legal
from .smp import _new_search


class SearchDriver:
    """``search`` and its helpers (a mixin of :class:`uci_engine.engine.Engine`)."""

    def search(self, limits, on_info=None, multipv=1, move_overhead=10, clock=None,
               tablebases=None):
        """Iterative deepening with aspiration windows.

        ``limits`` is a :class:`uci_engine.timeman.Limits`; ``on_info(dict)`` is called after
        each finished depth and on aspiration fail-high/low with keys depth, seldepth, multipv,
        score (cp), mate (moves or None), bound, nodes, nps, hashfull, tbhits, time (ms), pv
        (UCI list). :meth:`request_stop` (from another thread) ends the search early. ``clock``
        returns seconds (defaults to time.monotonic). ``tablebases`` is None or a
        :class:`uci_engine.syzygy.Tablebases`: when the root is in the tables, only the root
        moves of the best tablebase rank are searched and a non-mate score is replaced by the
        tablebase score (:meth:`_tb_filter`); inside the search the WDL tables are probed by
        the compiled prober (``Tablebases.search_array``, Step 5b of ``negamax``); tbhits
        counts both. Returns ``(best_uci, ponder_uci_or_None)``;
        ``best`` is ``"0000"`` when there is no legal move."""
        clock = clock or time.monotonic
        t0 = clock()
        self._tstart = t0
        # The first move of the last line reported as multipv 1: bestmove must match it
        # (fastchess warns "Bestmove does not match beginning of last PV" otherwise).
        reported = [None]
        send_info = on_info
        if send_info:
            def on_info(info):
                if info["multipv"] == 1 and info["pv"]:
                    reported[0] = info["pv"][0]
                send_info(info)
        self._clock = clock
        legal = self.legal_moves()
        if limits.searchmoves:
            allowed = [m for m in legal if self.move_to_uci(m) in set(limits.searchmoves)]
            allowed = allowed or legal
        else:
            allowed = legal
        if not allowed:
            return "0000", None
        if self.limit_strength:
            cap = strength.nodes_for(self.uci_elo)
            limits = dataclasses.replace(limits, nodes=min(limits.nodes or cap, cap))
            multipv = max(multipv, strength.multipv_for(self.uci_elo))
        self.tb_hits = 0
        self._tb_scores = None
        # the packed WDL tables the kernels probe (uci_engine.tbfiles), and their owner held
        # for the whole search, so their memory maps outlive it even if SyzygyPath changes
        self.tb_array = NO_TABLES
        if tablebases is not None:
            allowed = self._tb_filter(tablebases, allowed)
            self.tb_array = tablebases.search_array()
            self._tb_held = tablebases.wdl
        h = self.ctl
        _new_search(h, self.ss, (h[SS.AGE] + 1) & 0x1F, limits.nodes or 0)
        white = int(self.st[self.root, P.STM]) == 0
        self.soft_ms, self.hard_ms = budget(limits, white, move_overhead)
        self._scaled_soft_ms = self.soft_ms
        self._tm_best, self._tm_stability, self._tm_score = None, 0, None
        max_depth = min(limits.depth or (SS.MAX_PLY - 8), SS.MAX_PLY - 8)
        # the limits count from t0: what the root ranking took is off the hard limit
        self._arm_timer(None if self.hard_ms is None
                        else max(1.0, self.hard_ms - (clock() - t0) * 1000))
        self._start_helpers(allowed if len(allowed) != len(legal) else [], max_depth)
        multipv = max(1, min(multipv, len(allowed)))
        best_pvs = [[m] for m in allowed[:multipv]]
        best_scores = [None] * multipv
        # every line of the last iteration that finished all of them (the skill pick's choice)
        full_lines = None
        done_depth = 0
        try:
            for depth in range(1, max_depth + 1):
                found = []
                done_pvs, done_scores = [], []
                for k in range(multipv):
                    root_moves = [m for m in allowed if m not in found]
                    filtered = len(root_moves) != len(legal)
                    h[SS.ROOT_N] = len(root_moves) if filtered else 0
                    if filtered:
                        h[SS.ROOT_MOVES:SS.ROOT_MOVES + len(root_moves)] = root_moves
                    prev = best_pvs[k]
                    h[SS.BEST_MOVE] = prev[0] if prev[0] in root_moves else 0
                    score, pv, complete = self._aspiration(depth, best_scores[k], t0, clock,
                                                           k + 1, on_info)
                    if not pv:
                        pv = prev if prev[0] in root_moves else [root_moves[0]]
                        score = best_scores[k]          # None until an iteration finishes
                    found.append(pv[0])
                    done_pvs.append(pv)
                    done_scores.append(score)
                    if not complete:
                        break
                if len(done_pvs) == multipv or h[SS.STOP]:
                    for k in range(len(done_pvs)):
                        best_pvs[k] = done_pvs[k]
                        best_scores[k] = done_scores[k]
                if multipv > 1 and len(done_pvs) == multipv and None not in best_scores:
                    # a later line can score above an earlier one (the TT changes between
                    # them): report and play them best first, as Stockfish sorts its root moves
                    order = sorted(range(multipv), key=lambda k: -best_scores[k])
                    best_pvs = [best_pvs[k] for k in order]
                    best_scores = [best_scores[k] for k in order]
                if h[SS.STOP]:
                    break
                done_depth = depth
                if None not in best_scores:         # (here every line finished)
                    full_lines = list(zip(best_scores, best_pvs))
                if on_info:
                    for k in range(multipv):
                        on_info(self._info(depth, k + 1, best_scores[k], best_pvs[k], None,
                                           t0, clock))
                if self._should_stop_after(depth, best_scores[0], best_pvs[0][0], limits,
                                           multipv):
                    break
            if best_scores[0] is None:
                # Stopped before depth 1 finished: a depth-1 search takes well under a
                # millisecond, so finish it rather than answer with an unsearched move.
                h[SS.STOP] = 0
                h[SS.NODE_LIMIT] = 0
                h[SS.ROOT_N] = len(allowed) if len(allowed) != len(legal) else 0
                if h[SS.ROOT_N]:
                    h[SS.ROOT_MOVES:SS.ROOT_MOVES + len(allowed)] = allowed
                score, pv, _ = self._aspiration(1, None, t0, clock, 1, None)
                if pv:
                    best_pvs[0], best_scores[0] = pv, score
                    done_depth = 1
        finally:
            self._disarm_timer()
            self._stop_helpers()
        if multipv == 1 and not limits.depth and self.helpers and best_scores[0] is not None:
            best_scores[0], best_pvs[0] = self._vote(done_depth, best_scores[0], best_pvs[0])
        if self.limit_strength and full_lines:
            # the lines of one finished iteration: an interrupted one mixes depths
            k = strength.pick([s for s, _ in full_lines], strength.noise_for(self.uci_elo),
                              self.skill_rng)
            best_scores[0], best_pvs[0] = full_lines[k]
        best = best_pvs[0][0]
        if on_info and best_scores[0] is not None and reported[0] != self.move_to_uci(best):
            # The move comes from an iteration cut short (or the depth-1 search finished
            # after a stop, which reports nothing), the helpers' vote or the skill pick:
            # report its line last, as Stockfish does for a new best thread.
            on_info(self._info(max(done_depth, 1), 1, best_scores[0], best_pvs[0], None,
                               t0, clock))
        ponder = best_pvs[0][1] if len(best_pvs[0]) > 1 else self._ponder_from_tt(best)
        self.last_move = best
        self.last_score = best_scores[0]
        if (self._tb_scores and self.last_score is not None
                and abs(self.last_score) < SS.MATE_BOUND):
            self.last_score = self._tb_scores[best]
        self.last_nodes = self._nodes()
        return self.move_to_uci(best), (self.move_to_uci(ponder) if ponder else None)

    def _aspiration(self, depth, prev_score, t0, clock, multipv, on_info, w=None):
        """Search one depth, widening the window on fail-high/low. Returns (score, pv,
        complete). ``w`` is a helper's :class:`SearchThread` (default: the main thread).

        A search stopped before any root move of a pass finished returns the line of the
        pass before it when that pass failed high (its score is then a lower bound): the
        move that beat the window is played, as Stockfish plays its fail-high root move
        (sorted first after each pass). Otherwise ``pv`` is empty and the caller keeps the
        previous iteration's line."""
        st, mb, h, hist, ss, mv, root, acc = (
            (self.st, self.mb, self.ctl, self.hist, self.ss, self.mv, self.root, self.acc)
            if w is None else (w.st, w.mb, w.ctl, w.hist, w.ss, w.mv, w.root, w.acc))
        acc = self._root_acc(st, root, acc)
        tune = self.params
        if (depth >= tune[SP.ASPIRATION_MIN_DEPTH] and prev_score is not None
                and abs(prev_score) < SS.MATE_BOUND):
            delta = int(tune[SP.ASPIRATION_DELTA])
            alpha, beta = max(prev_score - delta, -SS.INF), min(prev_score + delta, SS.INF)
        else:
            delta = SS.INF
            alpha, beta = -SS.INF, SS.INF
        fail_high = None                    # (score, pv) of the last pass when it failed high
        while True:
            h[SS.ROOT_ROW] = root
            h[SS.ROOT_DONE] = 0
            score = int(S.negamax(st, mb, self.tt, h, hist, ss, mv, acc, self.net_packed,
                                  self.net_params, self.params, self.tb_array,
                                  np.int64(root), np.int64(depth),
                                  np.int64(alpha), np.int64(beta), S.ZERO))
            pv = self._pv(ss)
            if h[SS.STOP]:
                # keep what a finished root move proved, else the caller keeps the last PV
                if pv and h[SS.ROOT_DONE] > 0:
                    return int(h[SS.BEST_SCORE]), pv, False
                if fail_high is not None:
                    return fail_high[0], fail_high[1], False
                return score, [], False
            fail_high = None
            if score <= alpha:
                if on_info and clock() - t0 > 1.0:
                    on_info(self._info(depth, multipv, score, pv or [int(h[SS.BEST_MOVE])]
                                       if h[SS.BEST_MOVE] else pv, "upperbound", t0, clock))
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -SS.INF)
            elif score >= beta:
                if on_info and clock() - t0 > 1.0 and pv:
                    on_info(self._info(depth, multipv, score, pv, "lowerbound", t0, clock))
                if pv:
                    fail_high = (score, pv)
                beta = min(score + delta, SS.INF)
            else:
                return score, pv, True
            delta += delta // 2 + int(tune[SP.ASPIRATION_GROWTH_CP])

    def _info(self, depth, multipv, score, pv, bound, t0, clock):
        elapsed = max(clock() - t0, 1e-6)
        nodes = self._nodes()
        mate = None
        if (self._tb_scores and score is not None and abs(score) < SS.MATE_BOUND and pv
                and pv[0] in self._tb_scores):
            score = self._tb_scores[pv[0]]
        if score is not None and abs(score) >= SS.MATE_BOUND:
            plies = SS.MATE - abs(score)
            mate = (plies + 1) // 2 if score > 0 else -(plies // 2)
        return {"depth": depth, "seldepth": max(int(self.ctl[SS.SELDEPTH]), depth),
                "multipv": multipv, "score": score, "mate": mate, "bound": bound,
                "nodes": nodes, "nps": int(nodes / elapsed), "hashfull": self.hashfull(),
                "tbhits": self.tb_hits + self._search_tb_hits(), "time": int(elapsed * 1000),
                "pv": self._pv_uci(pv)}

    def _pv_uci(self, pv):
        out = []
        row = 0
        n = min(len(pv), SS.MAX_PLY)
        st = np.empty((n + 2, P.STATE_LEN), dtype=np.uint64)
        mb = np.empty((n + 2, 64), dtype=np.int8)
        st[0] = self.st[self.root]
        mb[0] = self.mb[self.root]
        for m in pv[:n]:
            if m not in _legal(st, row):
                break
            out.append(self.move_to_uci(m))
            P.make_move(st, mb, row, np.int64(m))
            row += 1
        return out

    def _pv(self, ss=None):
        ss = self.ss if ss is None else ss
        n = int(ss[SS.PV_LEN])
        return [int(m) for m in ss[SS.PV:SS.PV + n]]

    def _ponder_from_tt(self, best):
        """A ponder move for ``best`` from the TT when the PV has only one move."""
        row = self.root
        P.make_move(self.st, self.mb, row, np.int64(best))
        d = int(TT.tt_probe(self.tt, self.st[row + 1, P.KEY]))
        if d >= 0:
            m = d & 0xFFFF
            if m in self.legal_moves(row + 1):
                return m
        return None
