"""Engine facade (plain Python): owns the position history, TT, histories and search control.

Import only after :func:`uci_engine.backend.select`. The UCI layer (``uci.py``) parses and
formats; this class turns a ``position`` into state rows, runs iterative deepening with
aspiration windows over the recursive ``negamax`` kernel (:mod:`uci_engine.kernels.search`, which
searches the root itself, restricted to ``ctl[ROOT_MOVES]`` for searchmoves and MultiPV) and
reports iterations through a callback.
"""
import dataclasses
import random
import threading
import time

import numpy as np

from .fen import PIECE_CHARS, STARTPOS, format_fen, parse_fen, square_name
from .kernels import position as P
from .kernels import search as S
from .kernels import state as SS
from .kernels import static_eval as SE
from .kernels import tt as TT
from .kernels.bitboard import NO_PIECE
from .kernels.movegen import generate_legal
from .kernels import nnue as N
from .kernels.nnue_consts import ROW_B_FT
from .nnue_file import DEFAULT_NET, USE_NNUE_DEFAULT, find_net, load_net, random_net
from .kernels.perft import perft
from .timeman import TM_MIN_DEPTH, budget, scale_soft
from . import strength
from . import params as SP

HISTORY_ROWS = 1024           # game plies kept below the search rows
MAX_THREADS = 256             # the Threads option's upper bound (Stockfish allows 1024)
#: helper k starts iterative deepening at depth 1 + k % HELPER_DEPTH_STAGGER, so helpers do not
#: all search the same depth as the main thread (a light form of Stockfish's old skip blocks)
HELPER_DEPTH_STAGGER = 2
#: vote weight offset of Stockfish's get_best_thread: (score - min score + 14) * depth
VOTE_SCORE_OFFSET = 14
#: Aspiration windows (chessprogramming wiki "Aspiration Windows"): from this depth on, an
#: iteration starts with the window prev_score +- ASPIRATION_DELTA (centipawns); each fail
#: widens delta by half (Ethereal's growth) plus ASPIRATION_GROWTH_CP, and a fail low also
#: pulls beta to the window's middle, as Stockfish does. The three values are search parameters
#: (ASPIRATION_MIN_DEPTH, ASPIRATION_DELTA, ASPIRATION_GROWTH_CP in uci_engine/params.py).
#: Score (centipawns) of a tablebase win at the root: just below the mate range, as Stockfish's
#: VALUE_TB = VALUE_MATE_IN_MAX_PLY - 1 (see uci_engine/syzygy.py); a TB loss is its negative.
TB_WIN = SS.MATE_BOUND - 1


def _legal(st, row):
    """The legal moves (list of int) of row ``row`` of ``st``."""
    buf = np.empty(256, dtype=np.int32)
    return [int(m) for m in buf[:generate_legal(st, row, buf)]]


def _new_search(ctl, ss, age, node_limit, soft_nodes):
    """Reset a thread's control block ``ctl`` and search stack ``ss`` for a new search: stop
    flag, counters, root best move and killers cleared; TT generation ``age``; node limits
    (0 = none)."""
    ctl[SS.STOP] = 0
    ctl[SS.NODES] = 0
    ctl[SS.SELDEPTH] = 0
    ctl[SS.BEST_MOVE] = 0
    ctl[SS.AGE] = age
    ss[SS.KILLERS:SS.KILLERS + 2 * SS.MAX_PLY] = 0
    ss[SS.EXCLUDED:SS.EXCLUDED + SS.MAX_PLY + 4] = 0
    ctl[SS.NODE_LIMIT] = node_limit
    ctl[SS.SOFT_NODES] = soft_nodes
    ctl[SS.SOFT_STOP] = 0


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


class SearchThread:
    """The private search state of one Lazy SMP thread: position rows (``st``, ``mb``, a copy of
    the game history), the control block ``ctl``, histories ``hist``, search stack ``ss`` and
    move buffers ``mv`` (:mod:`uci_engine.kernels.state`), the last completed iteration
    ``(depth, score, pv)``, and its NNUE accumulator stack ``acc`` (int16[ACC_ROWS, 2,
    hidden]). All threads share the engine's TT and net."""

    def __init__(self, rows, hidden):
        self.acc = N.new_accumulators(hidden)
        self.st, self.mb = P.new_stack(rows)
        self.ctl = SS.new_control()
        self.hist = SS.new_histories()
        self.ss = SS.new_stack()
        self.mv = SS.new_move_buffers()
        self.root = 0
        self.completed = None
        self.thread = None


class Engine:
    """Position, transposition table and search for one UCI session.

    ``hash_mib`` sizes the TT in MiB. The engine starts with the shipped net
    (:data:`uci_engine.nnue_file.DEFAULT_NET`) and evaluates with it when
    :data:`uci_engine.nnue_file.USE_NNUE_DEFAULT` is set; when that net cannot be loaded it
    evaluates with the hand-crafted evaluation and ``default_net_error`` (str, else None) says
    why. Methods raise ``ValueError`` on bad input and then leave the previous state
    untouched."""

    def __init__(self, hash_mib=16):
        self.st, self.mb = P.new_stack(HISTORY_ROWS + SS.MAX_PLY + 16)
        self.root = 0
        self.chess960 = False
        self.ctl = SS.new_control()
        self.hist = SS.new_histories()
        self.ss = SS.new_stack()
        self.mv = SS.new_move_buffers()
        self.helpers = []
        self.params = SP.pack()               # search parameters (shared by every thread)
        self.limit_strength = False           # UCI_LimitStrength
        self.uci_elo = strength.ELO_DEFAULT   # UCI_Elo
        self.skill_rng = random.Random()
        self._game = None                     # (fen, chess960), moves of the last set_position
        self._timer = None                    # StopTimer, started on the first timed search
        self._soft_timer = None               # StopTimer of the (scaled) soft limit
        self.use_nnue = False                 # Use NNUE
        try:
            net = load_net(find_net(DEFAULT_NET))
            self.default_net_error = None
        except (OSError, ValueError) as exc:
            # an install without the shipped net still plays with the hand-crafted evaluation;
            # until an EvalFile loads, the NNUE is a zero net (every position scores its bias)
            net = random_net(8, seed=0, ft_range=0.0, out_range=0.0)
            self.default_net_error = f"{DEFAULT_NET}: {exc}"
        self.set_net(net)
        # set before the TT exists (set_hash below), so nothing needs clearing
        self.use_nnue = USE_NNUE_DEFAULT and self.default_net_error is None
        self.set_hash(hash_mib)
        self.set_position(STARTPOS, [])
        self.tb_hits = 0
        self._tb_scores = None

    @property
    def threads(self):
        """Search threads (int): the main thread plus the Lazy SMP helpers."""
        return 1 + len(self.helpers)

    def set_threads(self, n):
        """Use ``n`` (1 .. MAX_THREADS) search threads (Lazy SMP, chessprogramming wiki "Lazy
        SMP"): helpers search the same root in Python threads running the ``nogil`` kernels,
        each with its own stacks and heuristics, all sharing the TT. Raises ValueError."""
        n = int(n)
        if not 1 <= n <= MAX_THREADS:
            raise ValueError(f"threads must be 1..{MAX_THREADS}, not {n}")
        self.helpers = self.helpers[:n - 1]
        while len(self.helpers) < n - 1:
            self.helpers.append(SearchThread(self.st.shape[0], self.net.hidden))

    # --- options ---------------------------------------------------------------------------
    def set_net(self, net):
        """Evaluate with ``net`` (a :class:`uci_engine.nnue_file.Net`) while ``use_nnue`` is
        on: its packed weights and parameters go to the kernels, every thread gets accumulators
        of its hidden size. The TT and histories are cleared when the NNUE is in use (their
        static evals came from the previous net)."""
        self.net = net
        self.net_packed = net.packed()
        self.net_params = net.params
        self.acc = N.new_accumulators(net.hidden)
        for w in self.helpers:
            w.acc = N.new_accumulators(net.hidden)
        if self.use_nnue and hasattr(self, "tt"):
            self.clear()

    def set_use_nnue(self, on):
        """Evaluate with the loaded net (``on`` True) or the hand-crafted evaluation; a change
        clears the TT and histories (their static evals came from the other evaluation)."""
        on = bool(on)
        if on != self.use_nnue:
            self.use_nnue = on
            self.clear()

    def set_hash(self, mib):
        """Resize (and clear) the TT to ``mib`` MiB (kept in ``hash_mib``)."""
        self.hash_mib = mib
        self.tt = TT.new_tt(mib)

    def clear(self):
        """Forget TT contents and move-ordering history (``ucinewgame``, ``Clear Hash``)."""
        self.tt[:] = 0
        for w in [self] + self.helpers:
            w.ctl[:] = 0
            w.hist[:] = 0
            w.ss[:] = 0

    # --- position --------------------------------------------------------------------------
    def set_position(self, fen, moves):
        """Set the position from ``fen`` (str) and a list of UCI move strings.

        Raises ``ValueError`` (bad FEN or illegal move); the old position is then kept.

        A GUI resends the whole game every move; when ``fen`` and the first moves are those of
        the current position, only the new moves are parsed and played (a 160-ply game took
        7 ms to replay, most of a 1+0.01 increment)."""
        key = (fen, self.chess960)
        last = self._game
        if last is not None and last[0] == key and len(moves) >= len(last[1]) \
                and moves[:len(last[1])] == last[1] \
                and self.root + len(moves) - len(last[1]) < self.st.shape[0] - SS.MAX_PLY - 8:
            # the rows above the root are search scratch: play the new moves there and move
            # the root only when every one of them is legal
            row = self.root
            for i, text in enumerate(moves[len(last[1]):], start=len(last[1])):
                m = self._parse_move(self.st, row, text)
                if m is None:
                    raise ValueError(f"illegal move {text!r} at index {i} in position command")
                P.make_move(self.st, self.mb, np.int64(row), np.int64(m))
                row += 1
            self.root = row
            self._game = (key, list(moves))
            return
        st, mb = P.new_stack(min(len(moves), HISTORY_ROWS - 1) + SS.MAX_PLY + 16)
        parse_fen(fen, st, mb, 0, chess960=self.chess960)
        row = 0
        for i, text in enumerate(moves):
            m = self._parse_move(st, row, text)
            if m is None:
                raise ValueError(f"illegal move {text!r} at index {i} in position command")
            if row + 1 >= st.shape[0] - SS.MAX_PLY - 8:
                keep = 128                      # enough rows for any repetition window
                st[:keep] = st[row - keep + 1:row + 1]
                mb[:keep] = mb[row - keep + 1:row + 1]
                row = keep - 1
            P.make_move(st, mb, row, np.int64(m))
            row += 1
        n = row + 1
        self.st[:n] = st[:n]
        self.mb[:n] = mb[:n]
        self.root = row
        self._game = (key, list(moves))

    def push(self, m):
        """Play move ``m`` (int, legal in the current position) on top of the current position,
        keeping the game history for repetition detection (self-play without re-parsing)."""
        if self.root + 1 >= self.st.shape[0] - SS.MAX_PLY - 8:
            keep = 128                          # enough rows for any repetition window
            self.st[:keep] = self.st[self.root - keep + 1:self.root + 1]
            self.mb[:keep] = self.mb[self.root - keep + 1:self.root + 1]
            self.root = keep - 1
        P.make_move(self.st, self.mb, np.int64(self.root), np.int64(m))
        self.root += 1
        self._game = None

    def fen(self):
        return format_fen(self.st, self.mb, self.root)

    def legal_moves(self, row=None):
        """The legal moves (list of int) at ``row`` (default: the current position)."""
        return _legal(self.st, self.root if row is None else row)

    def move_to_uci(self, m):
        """UCI text of move ``m`` (int): castling as king to g/c file, or king-takes-rook when
        UCI_Chess960 is on."""
        frm, to, flag = int(P.move_from(m)), int(P.move_to(m)), int(P.move_flag(m))
        if flag == P.FLAG_CASTLE and not self.chess960:
            to = (to & ~7) | (6 if to > frm else 2)
        s = square_name(frm) + square_name(to)
        if flag >= P.FLAG_PROMO:
            s += "nbrq"[flag - P.FLAG_PROMO]
        return s

    def _parse_move(self, st, row, text):
        """The legal move (int) of row ``row`` named by UCI ``text``, or None. Castling is
        accepted in both notations (king to g/c file, king takes rook); an alias never
        shadows the name of another legal move."""
        moves = _legal(st, row)
        names = {self.move_to_uci(m): m for m in moves}
        for m in moves:
            if P.move_flag(m) == P.FLAG_CASTLE:
                frm, to = int(P.move_from(m)), int(P.move_to(m))
                kto = (to & ~7) | (6 if to > frm else 2)
                names.setdefault(square_name(frm) + square_name(to), m)
                names.setdefault(square_name(frm) + square_name(kto), m)
        return names.get(text.strip())

    def parse_move(self, text):
        """The move (int) for UCI text in the current position, or None if illegal."""
        return self._parse_move(self.st, self.root, text)

    def checkers(self):
        return int(P.checkers(self.st, self.root))

    def material(self):
        """Material on the board (int, pawn units, both colours: P 1, N/B 3, R 5, Q 9), the
        input of the UCI_ShowWDL model (:mod:`uci_engine.wdl`)."""
        from .wdl import material_of_counts
        row = self.st[self.root]
        return material_of_counts([int(row[t]).bit_count() + int(row[6 + t]).bit_count()
                                   for t in range(6)])

    def key(self):
        return int(self.st[self.root, P.KEY])

    def board_text(self):
        lines = []
        for r in range(7, -1, -1):
            cells = []
            for f in range(8):
                p = int(self.mb[self.root, r * 8 + f])
                cells.append(" " if p == NO_PIECE else PIECE_CHARS[p])
            lines.append(" +---+---+---+---+---+---+---+---+")
            lines.append(" | " + " | ".join(cells) + f" | {r + 1}")
        lines.append(" +---+---+---+---+---+---+---+---+")
        lines.append("   a   b   c   d   e   f   g   h")
        return lines

    # --- perft -----------------------------------------------------------------------------
    def perft_divide(self, depth):
        """List of (uci_move, leaf_count) for each root move at ``depth`` plies (>= 1)."""
        st = self.st.copy()
        mb = self.mb.copy()
        row = np.int64(self.root)
        out = []
        for m in self.legal_moves():
            P.make_move(st, mb, row, np.int64(m))
            out.append((self.move_to_uci(m), int(perft(st, mb, row + 1, np.int64(depth - 1)))))
        return out

    def perft(self, depth):
        st = self.st.copy()
        mb = self.mb.copy()
        return int(perft(st, mb, np.int64(self.root), np.int64(depth)))

    # --- search ----------------------------------------------------------------------------
    def static_eval(self):
        """Static evaluation (int, centipawns, side to move's view) of the current position by
        the evaluation in use (NNUE or hand-crafted)."""
        acc = self._root_acc(self.st, self.root, self.acc)
        return int(SE.static_eval(self.st, np.int64(self.root), self.ctl, acc, np.int64(0),
                                 self.net_packed, self.net_params))

    def _root_acc(self, st, root, acc):
        """The ``acc`` argument of the kernels for a search from row ``root`` of ``st``: the
        accumulator stack ``acc`` with its row 0 refreshed for the root while the NNUE is in
        use, else :data:`search.HCE_ACC` (the hand-crafted search, no NNUE code)."""
        if not self.use_nnue:
            return SE.HCE_ACC
        pk = self.net_packed
        N.nnue_refresh(st, np.int64(root), pk, pk[ROW_B_FT], acc, np.int64(0))
        return acc

    def hashfull(self):
        return int(TT.hashfull(self.tt, self.ctl[SS.AGE]))

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
        tablebase score (:meth:`_tb_filter`). Returns ``(best_uci, ponder_uci_or_None)``;
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
        if tablebases is not None:
            allowed = self._tb_filter(tablebases, allowed)
        h = self.ctl
        _new_search(h, self.ss, (h[SS.AGE] + 1) & 0x1F, limits.nodes or 0,
                    limits.soft_nodes or 0)
        white = int(self.st[self.root, P.STM]) == 0
        self.soft_ms, self.hard_ms = budget(limits, white, move_overhead)
        self._scaled_soft_ms = self.soft_ms
        self._tm_best, self._tm_stability, self._tm_score = None, 0, None
        max_depth = min(limits.depth or (SS.MAX_PLY - 8), SS.MAX_PLY - 8)
        self._arm_timer(self.hard_ms)
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
                h[SS.SOFT_NODES] = 0
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

    # --- Lazy SMP ---------------------------------------------------------------------------
    def _nodes(self):
        """Nodes (int) searched by all threads in the current search."""
        return int(self.ctl[SS.NODES]) + sum(int(w.ctl[SS.NODES]) for w in self.helpers)

    def _start_helpers(self, root_moves, max_depth):
        """Start every helper on the current root (``root_moves``: the allowed root moves, or
        empty for all legal moves)."""
        n = self.root + 1
        for k, w in enumerate(self.helpers, start=1):
            w.st[:n] = self.st[:n]
            w.mb[:n] = self.mb[:n]
            w.root = self.root
            w.completed = None
            h = w.ctl
            _new_search(h, w.ss, self.ctl[SS.AGE], 0, 0)   # the main thread alone counts nodes
            h[SS.ROOT_N] = len(root_moves)
            h[SS.ROOT_MOVES:SS.ROOT_MOVES + len(root_moves)] = root_moves
            w.thread = threading.Thread(target=self._helper_loop, args=(w, k, max_depth),
                                        daemon=True, name=f"lazy-smp-{k}")
            w.thread.start()

    def _helper_loop(self, w, k, max_depth):
        """A helper's iterative deepening: aspiration searches of the whole root, from a
        staggered first depth, until the main thread stops it."""
        prev = None
        depth = 1 + k % HELPER_DEPTH_STAGGER
        while depth <= max_depth and not w.ctl[SS.STOP]:
            w.ctl[SS.BEST_MOVE] = w.completed[2][0] if w.completed else 0
            score, pv, complete = self._aspiration(depth, prev, 0.0, None, 1, None, w)
            if not complete:
                break
            w.completed = (depth, score, pv)
            prev = score
            depth += 1

    def _stop_helpers(self):
        for w in self.helpers:
            w.ctl[SS.STOP] = 1
        for w in self.helpers:
            if w.thread is not None:
                w.thread.join()
                w.thread = None

    def _vote(self, depth, score, pv):
        """The best ``(score, pv)`` among the threads' last completed iterations, by Stockfish's
        vote (``Search::Worker::get_best_thread``): each thread votes for its move with weight
        (score - lowest score + VOTE_SCORE_OFFSET) x depth; a proven mate wins outright."""
        results = [(depth, score, pv)] + [w.completed for w in self.helpers if w.completed]
        low = min(r[1] for r in results)
        votes = {}
        for d, sc, p in results:
            votes[p[0]] = votes.get(p[0], 0) + (sc - low + VOTE_SCORE_OFFSET) * d
        best = results[0]
        for r in results[1:]:
            if abs(best[1]) >= SS.MATE_BOUND:
                if r[1] > best[1]:
                    best = r                            # a shorter mate, or no longer mated
            elif r[1] >= SS.MATE_BOUND:
                best = r                                # a mate the main thread has not seen
            elif votes[r[2][0]] > votes[best[2][0]] or (
                    votes[r[2][0]] == votes[best[2][0]] and r[0] > best[0]):
                best = r
        return best[1], best[2]

    # --- tablebases at the root ------------------------------------------------------------
    def _repetitions(self, moves):
        """(repeated, threefold) for the root: ``repeated`` True if a position since the last
        zeroing move occurred before (Stockfish's ``has_repeated``), ``threefold`` the set of
        moves (int) of ``moves`` whose child position occurred twice before (Zobrist keys of the
        game rows, same side to move, back to the last zeroing move)."""
        st, root = self.st, self.root
        lo = root - min(int(st[root, P.HALFMOVE]), root)
        keys = [int(st[r, P.KEY]) for r in range(lo, root + 1)]
        repeated = any(keys[i] == keys[j] for i in range(len(keys))
                       for j in range(i - 2, -1, -2))
        threefold = set()
        for m in moves:
            P.make_move(st, self.mb, np.int64(root), np.int64(m))
            if int(st[root + 1, P.HALFMOVE]) != 0:
                key = int(st[root + 1, P.KEY])
                # rows with the child's side to move: root - 1, root - 3, ...
                if sum(1 for j in range(len(keys) - 2, -1, -2) if keys[j] == key) >= 2:
                    threefold.add(m)
        return repeated, threefold

    def _tb_filter(self, tablebases, allowed):
        """The moves of ``allowed`` (ints) with the best tablebase rank, or ``allowed`` itself
        when the root is not probed or a table is missing. Sets ``tb_hits`` and the TB scores
        used by :meth:`_info`."""
        self.tb_hits = 0
        self._tb_scores = None
        board = tablebases.root_board(self.fen())
        if board is None:
            return allowed
        repeated, threefold = self._repetitions(allowed)
        before = tablebases.hits
        ranked = tablebases.rank_root(board, [self.move_to_uci(m) for m in allowed], TB_WIN,
                                      repeated, {self.move_to_uci(m) for m in threefold})
        self.tb_hits = tablebases.hits - before
        if not ranked:
            return allowed
        best = max(r for r, _ in ranked.values())
        self._tb_scores = {m: ranked[self.move_to_uci(m)][1] for m in allowed}
        return [m for m in allowed if ranked[self.move_to_uci(m)][0] == best]

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
                                  self.net_params, self.params, np.int64(root), np.int64(depth),
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
                "tbhits": self.tb_hits, "time": int(elapsed * 1000), "pv": self._pv_uci(pv)}

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

    def _should_stop_after(self, depth, score, best, limits, multipv=1):
        """After iteration ``depth`` (score in centipawns, ``best`` move): True when the search
        should end. Updates the scaled soft limit (:func:`uci_engine.timeman.scale_soft`) and
        re-arms its timer, which stops the next iteration after a root move."""
        if limits.mate and score is not None and score >= SS.MATE - 2 * limits.mate:
            return True
        if limits.depth and depth >= limits.depth:
            return True
        if limits.soft_nodes and self.ctl[SS.NODES] >= limits.soft_nodes:
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

    # --- stop control ----------------------------------------------------------------------
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
