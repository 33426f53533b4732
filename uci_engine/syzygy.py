"""Syzygy endgame tablebases at the root: the options, and the ranking of the root moves by the
compiled probers (:mod:`uci_engine.kernels.tbprobe` for WDL, :mod:`uci_engine.kernels.tbdtz` for
DTZ, over the memory-mapped files of :mod:`uci_engine.tbfiles`).

What the UCI options ``SyzygyPath``, ``SyzygyProbeLimit``, ``Syzygy50MoveRule`` and
``SyzygyProbeDepth`` drive. The technique is Stockfish's root ranking
(``Tablebases::rank_root_moves``, ``root_probe`` and ``root_probe_wdl`` in
src/syzygy/tbprobe.cpp; chessprogramming wiki "Syzygy Bases"):

* when the root position has at most ``min(SyzygyProbeLimit, largest table)`` pieces and no
  castling rights, every root move is played on a python-chess board and the resulting position
  probed: a zeroing move (capture, pawn move) takes its DTZ from the WDL value
  (:func:`dtz_before_zeroing`), a move into a draw by the fifty-move rule (only with
  ``Syzygy50MoveRule``) or into a threefold repetition gets DTZ 0, any other move the child's
  DTZ plus one ply; a mating move has DTZ 1;
* each move gets a rank (:func:`rank_of`): wins before draws before losses; wins that the
  fifty-move counter would spoil ("cursed") rank below clean wins, losses it would save
  ("blessed") above clean losses; among wins the shorter DTZ ranks higher and among losses the
  longer (Stockfish's ``rankDTZ`` ordering, which it uses when DTZ is the distance to mate; we
  always use it, because our search at short time controls does not find long conversions on
  its own);
* the search then runs over the moves of the best rank only. If a DTZ table is missing, the
  moves are ranked by WDL alone (:meth:`Tablebases.rank_root_wdl`), which keeps the outcome but
  does not guarantee progress.

The probes were python-chess's until 2026-11-27: in pure Python a KQvKR root cost 0.1-0.23 s
whatever the clock, and games were lost on time with a TB win on the board (docs/engine.md).
The compiled probers give python-chess's values exactly (tests/test_tbprobe.py,
tests/test_tbdtz.py, which keep python-chess as the oracle) some 70-90 times faster.

Scores (centipawns, from the side to move, :func:`tb_score`): a TB win is reported as
``win`` (the engine passes ``MATE_BOUND - 1``, just below its mate range, like Stockfish's
``VALUE_MATE_IN_MAX_PLY - 1``), a TB loss as ``-win``, a draw as 0, and with
``Syzygy50MoveRule`` cursed wins / blessed losses as 1..49 cp / -1..-49 cp, growing as the
position gets closer to a real win (Stockfish's formula with a 100 cp pawn). A mate score found
by the search is kept.

Inside the search the WDL tables are probed by the same compiled prober:
:meth:`Tablebases.search_array` passes them and ``SyzygyProbeLimit``, ``SyzygyProbeDepth`` and
``Syzygy50MoveRule`` to ``negamax``, Step 5b.

python-chess (the root's board: legal moves, checkmate, the fifty-move counter) is imported
lazily; without it :meth:`Tablebases.load` raises :class:`TablebaseError` with an install hint.
"""
import os
import threading

import numpy as np

#: Stockfish's MAX_DTZ (tbprobe.h): ranks live in [-MAX_DTZ, MAX_DTZ].
MAX_DTZ = 1 << 18
#: Stockfish's rank of a WDL value -2..2 when only WDL tables are available (root_probe_wdl).
WDL_TO_RANK = (-MAX_DTZ, -MAX_DTZ + 101, 0, MAX_DTZ - 101, MAX_DTZ)
#: centipawns of a pawn in the cursed-win score formula (Stockfish uses its PawnValue).
PAWN_CP = 100
#: fifty-move rule: a draw once the halfmove clock reaches this many plies.
FIFTY_MOVE_PLIES = 100
#: largest ``SyzygyProbeLimit`` (Stockfish's option maximum; 7-piece tables).
MAX_PIECES = 7


class TablebaseError(ValueError):
    """A ``SyzygyPath`` that cannot be used (message suitable for ``info string error:``)."""


def dtz_before_zeroing(wdl):
    """DTZ (plies, int) of a position reached by a zeroing move, from its WDL value -2..2
    (Stockfish's ``dtz_before_zeroing``): win 1, cursed win 101, draw 0, blessed loss -101,
    loss -1."""
    return (-1, -101, 0, 101, 1)[wdl + 2]


def rank_of(dtz, cnt50, repeated):
    """Rank (int) of a root move whose DTZ counted from the root is ``dtz`` plies (> 0 win,
    < 0 loss, 0 draw), with the root's halfmove clock ``cnt50`` and ``repeated`` True if a
    position repeated since the last zeroing move (Stockfish's root_probe with rankDTZ)."""
    if dtz > 0:
        if dtz + cnt50 <= FIFTY_MOVE_PLIES - 1 and not repeated:
            return MAX_DTZ - dtz
        return MAX_DTZ // 2 - (dtz + cnt50)
    if dtz < 0:
        if -dtz * 2 + cnt50 < FIFTY_MOVE_PLIES:
            return -MAX_DTZ - dtz
        return -MAX_DTZ // 2 + (-dtz + cnt50)
    return 0


def tb_score(rank, rule50, win):
    """Score (centipawns, side to move) shown for a root move of rank ``rank``; ``win`` is the
    score of a TB win (see the module docstring)."""
    bound = MAX_DTZ // 2 - FIFTY_MOVE_PLIES if rule50 else 1
    if rank >= bound:
        return win
    if rank > 0:
        return max(3, rank - (MAX_DTZ // 2 - 200)) * PAWN_CP // 200
    if rank == 0:
        return 0
    if rank > -bound:
        return -(max(3, -rank - (MAX_DTZ // 2 - 200)) * PAWN_CP // 200)
    return -win


class Tablebases:
    """The loaded Syzygy tables and the root-probing options.

    Attributes set by the UCI layer: ``rule50`` (bool, ``Syzygy50MoveRule``), ``probe_limit``
    (int 0..7, ``SyzygyProbeLimit``; 0 disables probing), ``probe_depth`` (int,
    ``SyzygyProbeDepth``, used inside the search). ``hits`` counts probes (the UCI
    ``tbhits``). ``wdl`` and ``dtz`` are the compiled probers' tables
    (:class:`uci_engine.tbfiles.WdlTables`, :class:`~uci_engine.tbfiles.DtzTables`), None
    while nothing is loaded."""

    def __init__(self):
        self.wdl = None
        self.dtz = None
        self.load_errors = []    # messages for the files the probers left out
        self._scratch = None     # (st, mb, mv, pos) for the compiled probers
        self._ready = threading.Event()
        self._pair = None        # (wdl, dtz), read once by each probe
        self.warm_error = None   # why the probers could not be compiled (load(wait=False))
        self.path = ""
        self.tables = 0          # WDL tables loaded
        self.max_pieces = 0      # pieces of the largest loaded table
        self.rule50 = True
        self.probe_limit = MAX_PIECES
        self.probe_depth = 1
        self.hits = 0

    @property
    def active(self):
        return self.wdl is not None and self.probe_limit > 0

    @property
    def ready(self):
        """Whether the compiled probers are loaded (bool; see :meth:`load`)."""
        return self._ready.is_set()

    def wait_ready(self, timeout):
        """Wait up to ``timeout`` seconds for :attr:`ready`; returns it (bool)."""
        return self._ready.wait(timeout)

    def load(self, path, wait=True, after=None):
        """Load every table in ``path`` (directories separated by ``os.pathsep``, as
        Stockfish's SyzygyPath; ``""`` or ``"<empty>"`` unloads). Returns the number of WDL
        tables. A file the probers refuse is left out and named in ``load_errors``. Raises
        :class:`TablebaseError` (python-chess missing, a directory that does not exist, no
        usable WDL table found); the tables loaded before stay in use.

        The compiled probers load from the Numba cache in about a second, but compile where
        the cache lacks them (an editable install, a failed prebuild: about 18 s of CPU on
        the 2-core host, 38 s beside a running match). With ``wait=False`` (the UCI loop)
        that happens in a background thread, which first waits for the ``after`` event (the
        UCI session's slider backend choice: no kernel may be imported before it), and the
        root is not probed until it is done (:attr:`ready`); a failed compile leaves the
        root unprobed and its message in ``warm_error``. With ``wait=True`` it happens here
        and a failure raises."""
        path = path.strip()
        if path in ("", "<empty>"):
            self.close()
            return 0
        try:
            import chess  # noqa: F401  (the root board; checked here)
        except ImportError:
            raise TablebaseError("SyzygyPath needs python-chess (pip install chess)") from None
        dirs = [d for d in path.split(os.pathsep) if d]
        for d in dirs:
            if not os.path.isdir(d):
                raise TablebaseError(f"SyzygyPath: no such directory {d!r}")
        from .tbfiles import DtzTables, WdlTables
        try:
            wdl = WdlTables(dirs)
            dtz = DtzTables(dirs)
        except (OSError, ValueError) as exc:
            raise TablebaseError(f"SyzygyPath: cannot read {path!r}: {exc}") from None
        if not wdl.names:
            if wdl.errors:
                raise TablebaseError(f"SyzygyPath: no usable tables in {path!r}: "
                                     + "; ".join(wdl.errors))
            raise TablebaseError(f"SyzygyPath: no Syzygy tables (*.rtbw) in {path!r}")
        self.close()
        self.wdl, self.dtz = wdl, dtz
        self._pair = (wdl, dtz)
        self.load_errors = wdl.errors + dtz.errors
        self.path = path
        self.tables = len(wdl.names)
        self.max_pieces = wdl.largest
        self._ready = ready = threading.Event()
        self.warm_error = None
        if wait:
            from .warmup import warm_tablebases
            warm_tablebases()
            ready.set()
            return self.tables

        def warm():                       # load (or compile) the probers, not in a timed move
            if after is not None:
                after.wait()
            try:
                from .warmup import warm_tablebases
                warm_tablebases()         # its own arrays: nothing shared with this object
            except Exception as exc:      # noqa: BLE001 - the root then stays unprobed
                self.warm_error = f"{type(exc).__name__}: {exc}"
                return
            ready.set()
        threading.Thread(target=warm, name="syzygy-warm-up", daemon=True).start()
        return self.tables

    def search_array(self):
        """The packed WDL tables for the search kernels (int64 array,
        :class:`uci_engine.tbfiles.WdlTables`) with the current options written into it;
        probing is off (``H_CARD`` 0) while the tables are not active."""
        from .tbfiles import NO_TABLES
        if not self.active or self.wdl is None:
            return NO_TABLES
        self.wdl.set_options(self.probe_limit, self.probe_depth, self.rule50)
        return self.wdl.array

    def take_errors(self):
        """Messages (list of str, for ``info string error:``) about tables the compiled probers
        found corrupt since the last call; such a table is no longer probed."""
        pair = self._pair
        if pair is None:
            return []
        return pair[0].new_errors() + pair[1].new_errors()

    def close(self):
        self.wdl = None           # the maps close when the last search holding them ends
        self.dtz = None
        self._pair = None
        self.load_errors = []
        self.path = ""
        self.tables = self.max_pieces = 0

    # --- root probing ------------------------------------------------------------------------
    def root_board(self, fen):
        """A ``chess.Board`` of ``fen`` if the root is to be probed (tables loaded and their
        probers :attr:`ready`, few enough pieces, no castling rights), else None."""
        if not self.active or not self.ready:
            return None
        import chess
        board = chess.Board(fen)
        limit = min(self.probe_limit, self.max_pieces)
        if board.castling_rights or chess.popcount(board.occupied) > limit:
            return None
        return board

    def rank_root(self, board, moves, win, repeated=False, threefold=()):
        """Rank the root moves ``moves`` (UCI strings, legal in ``board``).

        Returns ``{uci_move: (rank, score)}`` (score in centipawns for the side to move, a TB
        win being ``win``), or None if a needed table is missing or corrupt. ``repeated``: a
        position repeated since the last zeroing move; ``threefold``: the moves whose child is
        a threefold repetition. DTZ ranking first, WDL ranking if a DTZ table is missing (see
        the module docstring)."""
        try:
            ranks = self._rank_dtz(board, moves, repeated, threefold)
            return {m: (r, tb_score(r, self.rule50, win)) for m, r in ranks.items()}
        except KeyError:          # a DTZ table missing or corrupt: try WDL alone
            pass
        try:
            return self.rank_root_wdl(board, moves, win, threefold)
        except KeyError:
            return None

    def _child_is_fifty_draw(self, board):
        return (self.rule50 and board.halfmove_clock >= FIFTY_MOVE_PLIES
                and not board.is_checkmate())

    def _rank_dtz(self, board, moves, repeated, threefold):
        import chess
        cnt50 = board.halfmove_clock
        out = {}
        for uci in moves:
            board.push(chess.Move.from_uci(uci))
            try:
                if board.is_checkmate():
                    dtz = 1
                elif board.halfmove_clock == 0:
                    self.hits += 1
                    dtz = dtz_before_zeroing(-self.probe_wdl(board))
                elif self._child_is_fifty_draw(board) or uci in threefold:
                    dtz = 0
                else:
                    self.hits += 1
                    dtz = -self.probe_dtz(board)
                    dtz = dtz + 1 if dtz > 0 else dtz - 1 if dtz < 0 else 0
            finally:
                board.pop()
            out[uci] = rank_of(dtz, cnt50, repeated)
        return out

    def rank_root_wdl(self, board, moves, win, threefold=()):
        """``{uci_move: (rank, score)}`` from WDL tables only (Stockfish's root_probe_wdl:
        cursed wins and blessed losses score +-2 cp with ``Syzygy50MoveRule``, else as wins
        and losses), probed by the compiled prober (:meth:`probe_wdl`). Raises ``KeyError``
        if a table is missing or unusable."""
        import chess
        out = {}
        for uci in moves:
            board.push(chess.Move.from_uci(uci))
            try:
                if board.is_checkmate():
                    wdl = 2
                elif self._child_is_fifty_draw(board) or uci in threefold:
                    wdl = 0
                else:
                    self.hits += 1
                    wdl = -self.probe_wdl(board)
            finally:
                board.pop()
            shown = wdl if self.rule50 else 2 * (wdl > 0) - 2 * (wdl < 0)
            out[uci] = (WDL_TO_RANK[wdl + 2], (-win, -2, 0, 2, win)[shown + 2])
        return out

    def _load_board(self, board):
        """Scratch ``(st, mb, mv, pos)`` for the compiled probers with ``board`` in row 0."""
        from .fen import parse_fen
        from .kernels import position as P
        from .kernels import state as SS
        if self._scratch is None:
            st, mb = P.new_stack(32)
            self._scratch = (st, mb, SS.new_move_buffers(), np.zeros(8, dtype=np.int64))
        st, mb, mv, pos = self._scratch
        parse_fen(board.fen(), st, mb, 0)
        return st, mb, mv, pos

    def probe_wdl(self, board):
        """WDL (int -2..2, side to move) of ``board`` (a ``chess.Board`` with no castling rights
        and at most the largest table's pieces) as if reached by a zeroing move, through the
        compiled prober (:func:`uci_engine.kernels.tbprobe.probe_wdl`; the same values as
        python-chess's ``probe_wdl``, tests/test_tbprobe.py). Raises ``KeyError`` when its
        table is missing or corrupt."""
        from .kernels import tbprobe as TP
        pair = self._pair                 # one reference: SyzygyPath may change meanwhile
        if pair is None:
            raise KeyError("no tables loaded")
        st, mb, mv, pos = self._load_board(board)
        v = int(TP.probe_wdl(pair[0].array, st, mb, np.int64(0), mv, np.int64(0), pos))
        if v == TP.TB_FAIL:
            raise KeyError(f"no usable WDL table for {board.fen()}")
        return v

    def probe_dtz(self, board):
        """DTZ (int, plies, side to move) of ``board`` as python-chess's ``probe_dtz`` gives it,
        through the compiled prober (:func:`uci_engine.kernels.tbdtz.probe_dtz`,
        tests/test_tbdtz.py). Raises ``KeyError`` when a WDL or DTZ table it needs is missing
        or corrupt."""
        from .kernels import tbdtz as TZ
        pair = self._pair
        if pair is None:
            raise KeyError("no tables loaded")
        st, mb, mv, pos = self._load_board(board)
        v = int(TZ.probe_dtz(pair[0].array, pair[1].array, st, mb, np.int64(0), mv,
                             np.int64(0), pos))
        if v == TZ.DTZ_FAIL:
            raise KeyError(f"no usable DTZ table for {board.fen()}")
        return v
