"""Syzygy DTZ probing compiled for the search: the distance to the next zeroing move (capture or
pawn move) of a position, from the ``.rtbz`` tables, as python-chess's
``chess.syzygy.Tablebase.probe_dtz`` returns it.

The DTZ tables come from :class:`uci_engine.tbfiles.DtzTables`, packed like the WDL tables
(layout in :mod:`.tbformat`); a DTZ probe needs both arrays, ``tb`` (WDL) and ``tbz`` (DTZ),
because it first settles the WDL and reads the DTZ only where the tables store it. The index
computation and decompression are those of :mod:`.tbprobe`; what DTZ adds follows
python-chess's ``chess/syzygy.py`` (``DtzTable._probe_dtz_table``, ``Tablebase.probe_dtz_no_ep``,
``probe_dtz``) and Stockfish's ``src/syzygy/tbprobe.cpp`` (``map_score``, ``probe_dtz``):

* a DTZ file stores one side to move (per pawn file, the ``DTZ_STM`` flag); a position of
  the other side is answered by a one-ply search over the moves that keep the material
  (winning side: the quiet piece moves, DTZ of the best + 1; losing side: every move, a
  zeroing move counting 1 ply);
* the stored number indexes a value map of the position's WDL class (``DTZ_MAPPED``), and
  counts moves rather than plies unless the ``DTZ_WIN_PLIES`` / ``DTZ_LOSS_PLIES`` flag says
  otherwise (cursed and blessed values always count moves);
* the tables hold no position whose best move zeroes: where a capture (or, for the winner, a
  pawn move) keeps the WDL, the DTZ is that of the zeroing move itself (1, or 101 when the
  fifty-move rule spoils the win), and en passant, which the tables ignore, is resolved last.

Results are DTZ50'' plies for the side to move: 1..100 a win, over 100 a cursed win, -1..-100
a loss, under -100 a blessed loss, 0 a draw; off by one ply at most where python-chess says so.
:data:`~.tbformat.DTZ_FAIL` when a WDL or DTZ table is missing or a read fails; a corrupt
table is switched off in its array (``T_ENABLED``) and counted (``H_ERRORS``), as for WDL.
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1, NO_PIECE, NO_SQ, PAWN
from .movegen import generate_noisy, generate_legal, count_legal
from .position import (OCC, STM, EP, HALFMOVE, FLAG_EP, move_from, move_to, move_flag, make_move,
                       in_check)
from .tbformat import (TB_FAIL, DTZ_FAIL, T_ADDR, T_SIZE, T_HAS_PAWNS, T_SYMMETRIC, E_FLAGS,
                       E_MAP, E_MAPLEN, DTZ_STM, DTZ_MAPPED, DTZ_WIDE, WDL_TO_MAP, PA_FLAGS,
                       WDL_TO_DTZ)
from .tbprobe import (_locate, _decompress, _corrupt, _u8, _u16, _probe_ab, ep_wdl,
                      only_ep_legal, probe_table, probe_wdl)

#: probe_dtz_table: the table stores the other side to move (python-chess success -1)
OTHER_SIDE = np.int64(-1)
#: nested one-ply searches a probe may make: python-chess needs one (the moves of a position
#: whose side the table does not store reach positions whose side it does); more means a
#: corrupt table
MAX_DEPTH = 3
#: rows of ``st``/``mb`` and plies of ``mv`` a probe may use above its own: MAX_DEPTH nested
#: moves, a pawn move and its en-passant reply, and the capture search below them (one row per
#: capture of a 7-piece position)
DTZ_ROWS = 16
#: the one-ply search's "no move found yet" (python-chess 0xffff)
NO_DTZ = np.int64(0xFFFF)


@njit(cache=True, nogil=True)
def dtz_before_zeroing(wdl):
    """DTZ (int64) of a position whose best move zeroes, by its WDL ``wdl``: +-1 a win or
    loss, +-101 cursed or blessed, 0 a draw (python-chess dtz_before_zeroing)."""
    if wdl == 0:
        return np.int64(0)
    mag = np.int64(1) if wdl == 2 or wdl == -2 else np.int64(101)
    return mag if wdl > 0 else -mag


@njit(cache=True, nogil=True)
def probe_dtz_table(tbz, st, row, wdl, pos):
    """DTZ (plies, int64 >= 0, unsigned) stored for row ``row`` whose WDL is ``wdl`` (-2..2,
    not 0), or OTHER_SIDE when its table stores the other side to move, TB_FAIL when the table
    is missing, switched off or corrupt (python-chess DtzTable._probe_dtz_table).
    ``pos``: int64 scratch of at least 8."""
    r, e, bside, idx = _locate(tbz, st, row, pos, True)
    if r < 0:
        return TB_FAIL
    flags = tbz[e + E_FLAGS]
    # python-chess skips the side test for symmetric pawnless tables only
    if (flags & DTZ_STM) != bside and (tbz[r + T_HAS_PAWNS] or not tbz[r + T_SYMMETRIC]):
        return OTHER_SIDE
    if idx < 0:
        return _corrupt(tbz, r)
    addr = tbz[r + T_ADDR]
    size = tbz[r + T_SIZE]
    res = _decompress(tbz, addr, size, e, idx)
    if res < 0:
        return _corrupt(tbz, r)
    if flags & DTZ_MAPPED:
        m = WDL_TO_MAP[wdl + 2]
        if res >= tbz[e + E_MAPLEN + m]:
            return _corrupt(tbz, r)
        if flags & DTZ_WIDE:
            res = _u16(addr, size, tbz[e + E_MAP + m] + 2 * res)
        else:
            res = _u8(addr, size, tbz[e + E_MAP + m] + res)
        if res < 0:
            return _corrupt(tbz, r)
    if (flags & PA_FLAGS[wdl + 2]) == 0 or (wdl & 1):
        res *= 2                                # stored in moves
    return res


@njit(cache=True, nogil=True)
def _is_mate(st, row, moves):
    """True when the side to move of row ``row`` is checkmated (``moves``: int32[>= 256])."""
    return in_check(st, row) and count_legal(st, row, moves) == 0


@njit(cache=True, nogil=True)
def _probe_dtz(tb, tbz, st, mb, row, mv, ply, pos, depth):
    """probe_dtz of row ``row`` after ``depth`` (int64) nested one-ply searches."""
    moves = mv[ply, 0]
    us = np.int64(st[row, STM])
    them = st[row, OCC + 1 - us]
    # Step 1. WDL with the captures resolved (python-chess probe_ab at the root), noting
    # whether a capture decides it ("success == 2": the DTZ is the capture's, 1 ply).
    n = generate_noisy(st, row, moves)
    alpha = np.int64(-2)
    cut = False
    for i in range(n):
        m = np.int64(moves[i])
        if move_flag(m) == FLAG_EP or (them >> np.uint64(move_to(m))) & U1 == U0:
            continue
        make_move(st, mb, row, m)
        v = _probe_ab(tb, st, mb, row + 1, mv, ply + 1, pos, np.int64(-2), -alpha)
        if v == TB_FAIL:
            return DTZ_FAIL
        v = -v
        if v > alpha:
            alpha = v
            if v >= 2:
                cut = True
                break
    if cut:
        wdl = alpha
        zeroing = True
    else:
        vt = probe_table(tb, st, row, pos)
        if vt == TB_FAIL:
            return DTZ_FAIL
        if alpha >= vt:
            wdl = alpha
            zeroing = alpha > 0
        else:
            wdl = vt
            zeroing = False

    # Step 2. DTZ without en passant (python-chess probe_dtz_no_ep).
    if wdl == 0:
        dtz = np.int64(0)
    elif zeroing:
        dtz = dtz_before_zeroing(wdl)
    else:
        dtz = NO_DTZ
        n = generate_legal(st, row, moves)
        if wdl > 0:
            # a pawn move (not a capture) that keeps the win: the DTZ is 1 ply
            pawns = st[row, us * 6 + PAWN]
            for i in range(n):
                m = np.int64(moves[i])
                frm = move_from(m)
                if ((pawns >> np.uint64(frm)) & U1 == U0 or move_flag(m) == FLAG_EP
                        or mb[row, move_to(m)] != NO_PIECE):
                    continue
                make_move(st, mb, row, m)
                v = probe_wdl(tb, st, mb, row + 1, mv, ply + 1, pos)
                if v == TB_FAIL:
                    return DTZ_FAIL
                if -v == wdl:
                    dtz = np.int64(1) if wdl == 2 else np.int64(101)
                    break
        if dtz == NO_DTZ:
            res = probe_dtz_table(tbz, st, row, wdl, pos)
            if res == TB_FAIL:
                return DTZ_FAIL
            if res >= 0:
                dtz = dtz_before_zeroing(wdl) + (res if wdl > 0 else -res)
            elif depth >= MAX_DEPTH:
                return DTZ_FAIL
            elif wdl > 0:
                # the table stores the other side: the best quiet piece move, + 1 ply
                best = NO_DTZ
                for i in range(n):
                    m = np.int64(moves[i])
                    frm = move_from(m)
                    if mb[row, frm] == us * 6 + PAWN or mb[row, move_to(m)] != NO_PIECE:
                        continue
                    make_move(st, mb, row, m)
                    c = _probe_dtz(tb, tbz, st, mb, row + 1, mv, ply + 1, pos, depth + 1)
                    if c == DTZ_FAIL:
                        return DTZ_FAIL
                    v = -c
                    if v == 1 and _is_mate(st, row + 1, mv[ply + 1, 0]):
                        best = np.int64(1)
                    elif v > 0 and v + 1 < best:
                        best = v + 1
                dtz = best
            else:
                # ... the longest resistance over every move; a zeroing move ends the phase
                best = np.int64(-1)
                for i in range(n):
                    m = np.int64(moves[i])
                    make_move(st, mb, row, m)
                    if st[row + 1, HALFMOVE] == U0:
                        if wdl == -2:
                            v = np.int64(-1)
                        else:
                            v = _probe_ab(tb, st, mb, row + 1, mv, ply + 1, pos, np.int64(1),
                                          np.int64(2))
                            if v == TB_FAIL:
                                return DTZ_FAIL
                            v = np.int64(0) if v == 2 else np.int64(-101)
                    else:
                        c = _probe_dtz(tb, tbz, st, mb, row + 1, mv, ply + 1, pos, depth + 1)
                        if c == DTZ_FAIL:
                            return DTZ_FAIL
                        v = -c - 1
                    if v < best:
                        best = v
                dtz = best

    # Step 3. En passant, which the tables do not store (python-chess probe_dtz).
    if np.int64(st[row, EP]) == NO_SQ:
        return dtz
    v1 = ep_wdl(tb, st, mb, row, mv, ply, pos)
    if v1 == TB_FAIL:
        return DTZ_FAIL
    if v1 == -3:
        return dtz
    v1 = WDL_TO_DTZ[v1 + 2]
    if dtz < -100:
        if v1 >= 0:
            dtz = v1
    elif dtz < 0:
        if v1 >= 0 or v1 < -100:
            dtz = v1
    elif dtz > 100:
        if v1 > 0:
            dtz = v1
    elif dtz > 0:
        if v1 == 1:
            dtz = v1
    elif v1 >= 0 or only_ep_legal(st, row, moves):
        dtz = v1                # ... or a draw whose only legal moves lose by en passant
    return dtz


@njit(cache=True, nogil=True)
def probe_dtz(tb, tbz, st, mb, row, mv, ply, pos):
    """DTZ (int64 plies, side to move) of row ``row`` as python-chess Tablebase.probe_dtz
    returns it, or DTZ_FAIL (tbprobe.cpp probe_dtz). ``tb``: the WDL array
    (:class:`~uci_engine.tbfiles.WdlTables`), ``tbz``: the DTZ array of the same tables
    (:class:`~uci_engine.tbfiles.DtzTables`). The position must have no castling rights and
    at most the largest table's pieces. Scratch: rows ``row + 1 .. row + DTZ_ROWS`` of
    ``st``/``mb``, ``mv[ply:ply + DTZ_ROWS]`` (int32[rows, planes, 256]) and ``pos``
    (int64[>= 8])."""
    return _probe_dtz(tb, tbz, st, mb, row, mv, ply, pos, np.int64(0))


@njit(cache=True, nogil=True)
def probe_dtz_many(tb, tbz, st, mb, rows, mv, pos, out):
    """probe_dtz of each row in ``rows`` (int64[n]) of ``st``/``mb`` into ``out`` (int64[n]);
    the rows need DTZ_ROWS + 1 free rows after the last (tests and the speed script)."""
    scratch = st.shape[0] - DTZ_ROWS - 1
    for k in range(rows.shape[0]):
        r = rows[k]
        for i in range(st.shape[1]):
            st[scratch, i] = st[r, i]
        for i in range(64):
            mb[scratch, i] = mb[r, i]
        out[k] = probe_dtz(tb, tbz, st, mb, scratch, mv, np.int64(0), pos)
