"""Move ordering and the staged move picker (Stockfish's MovePicker, Ethereal's movepicker.c).

Ordering scores go to ``mv[sply, MV_SCORES]``; the picker's state is ``ss[PICK + sply *
PICK_FIELDS + ...]`` (layout in :mod:`.state`).
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1, lsb, NO_PIECE, WHITE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING
from .attacks import rook_attacks, bishop_attacks, PAWN_ATTACKS, KNIGHT_ATTACKS, KING_ATTACKS
from .position import (OCC_ALL, STM, FLAG_EP, FLAG_CASTLE, FLAG_PROMO, EP, move_from, move_to,
                       move_flag, piece_of, piece_type, piece_colour, promo_type)
from .movegen import generate_legal, generate_noisy, generate_quiet
from .state import (KILLERS, COUNTER, PICK, PICK_FIELDS, PICK_STAGE, PICK_NEXT, PICK_NOISY,
                    PICK_END, PICK_TT, PICK_BAD, PICK_SCORE, PICK_PREV1, PICK_PREV2, MV_MOVES,
                    MV_SCORES)
from .see import SEE_VALUE, see
from .history import capture_index, quiet_score
from ..params import HISTORY_MAX_BOUND

# --- move ordering scores (mv[sply, MV_SCORES]): hand-set bands, far enough apart that no
# quiet's history sum (three terms, each |h| < 2^HISTORY_MAX_LOG2 <= HISTORY_MAX_BOUND) or
# capture's value and capture history term crosses into another band, whatever the search
# parameters.
ORDER_TT = 2000000              # TT move (at the root: the previous iteration's best move)
ORDER_GOOD_CAPTURE = 1000000    # + victim value * CAPTURE_MVV_SCALE + capture history: captures
                                # and queen promotions (queen value added) not losing by SEE
ORDER_KILLER1 = 900000          # killers (chessprogramming wiki "Killer Heuristic")
ORDER_KILLER2 = 899000
ORDER_COUNTER = 898000          # countermove (wiki "Countermove Heuristic"); the LMR test
                                # ``score >= ORDER_COUNTER`` marks killers and countermove
ORDER_BAD_CAPTURE = -1000000    # + the same terms: captures SEE shows losing, after every quiet
ORDER_UNDERPROMO_GAP = 100000   # under-promotions: below every capture (never SEE-tested)
CAPTURE_MVV_SCALE = 16          # capture order: victim value * 16 + capture history (Stockfish
                                # orders by 7 * value + capture history; values here are smaller)
#: every capture and queen promotion scores above this before SEE; under-promotions and the
#: captures SEE deferred below it
NOISY_FLOOR = ORDER_GOOD_CAPTURE - HISTORY_MAX_BOUND

# Staged move picker (Stockfish's MovePicker, Ethereal's movepicker.c): the TT move before any
# generation; captures and promotions by value and capture history, SEE-tested only when picked,
# losers deferred; quiets generated only when reached; the deferred losing captures last.
# STAGE_ALL: every move generated and scored at once (root, in check).
# STAGE_QUIET_CHECKS: after late move pruning, only the quiet moves left that give check, unsorted.
(STAGE_TT, STAGE_GEN_NOISY, STAGE_GOOD_NOISY, STAGE_GEN_QUIET, STAGE_QUIET, STAGE_BAD_NOISY,
 STAGE_ALL, STAGE_DONE, STAGE_QUIET_CHECKS) = range(9)


@njit(cache=True)
def is_quiet(mb, row, m):
    flag = move_flag(m)
    if flag == FLAG_EP or flag >= FLAG_PROMO:
        return False
    if flag == FLAG_CASTLE:
        return True
    return mb[row, move_to(m)] == NO_PIECE


@njit(cache=True)
def _quiet_order(hist, mb, row, us, m, k1, k2, cm, prev1, prev2):
    """Ordering score of quiet move ``m``: ORDER_KILLER1/2 for the killers ``k1``/``k2``,
    ORDER_COUNTER for the countermove ``cm``, else its history (:func:`quiet_score`)."""
    if m == k1:
        return np.int64(ORDER_KILLER1)
    if m == k2:
        return np.int64(ORDER_KILLER2)
    if m == cm:
        return np.int64(ORDER_COUNTER)
    return quiet_score(hist, mb, row, us, m, prev1, prev2)


@njit(cache=True)
def score_moves(st, mb, hist, ss, mv, row, sply, n, tt_move, prev1, prev2):
    """Ordering scores (mv[sply, MV_SCORES]) of the ``n`` moves in mv[sply, MV_MOVES]: the TT
    move; captures and promotions by victim value and capture history, below every quiet
    move when SEE shows them losing; killers; countermove; quiets by history (``prev1``,
    ``prev2``: the continuation-history keys of :func:`quiet_score`; only quiet moves read
    them, so a list of noisy moves may pass -1)."""
    us = np.int64(st[row, STM])
    k1 = ss[KILLERS + 2 * sply]
    k2 = ss[KILLERS + 2 * sply + 1]
    cm = hist[COUNTER + prev1] if prev1 >= 0 else 0
    for i in range(n):
        m = np.int64(mv[sply, MV_MOVES, i])
        if m == tt_move:
            s = ORDER_TT
        elif not is_quiet(mb, row, m):
            s = _noisy_order(st, mb, hist, row, m)
            if s >= 0 and _may_lose(mb, row, m) and see(st, mb, ss, row, m) < 0:
                s += ORDER_BAD_CAPTURE - ORDER_GOOD_CAPTURE
        else:
            s = _quiet_order(hist, mb, row, us, m, k1, k2, cm, prev1, prev2)
        mv[sply, MV_SCORES, i] = s


@njit(cache=True)
def _noisy_order(st, mb, hist, row, m):
    """Ordering score of noisy move ``m`` before SEE: ORDER_GOOD_CAPTURE + victim value (queen
    added for a queen promotion) * CAPTURE_MVV_SCALE + capture history; under-promotions below
    every capture."""
    flag = move_flag(m)
    if flag >= FLAG_PROMO and promo_type(flag) != QUEEN:
        return np.int64(ORDER_BAD_CAPTURE - ORDER_UNDERPROMO_GAP)
    c = np.int64(mb[row, move_to(m)])
    value = SEE_VALUE[piece_type(c)] if c != NO_PIECE else 0
    if flag == FLAG_EP:
        value = SEE_VALUE[PAWN]
    if flag >= FLAG_PROMO:
        value += SEE_VALUE[QUEEN]
    return ORDER_GOOD_CAPTURE + value * CAPTURE_MVV_SCALE + hist[capture_index(mb, row, m)]


@njit(cache=True)
def _may_lose(mb, row, m):
    """True when SEE of noisy move ``m`` can be negative: a promotion, or a capture of a piece
    worth less than the capturer (taking one worth at least the capturer never loses material:
    the capturer may simply stop the exchange)."""
    flag = move_flag(m)
    if flag >= FLAG_PROMO:
        return True
    if flag == FLAG_EP:
        return False
    c = np.int64(mb[row, move_to(m)])
    value = SEE_VALUE[piece_type(c)] if c != NO_PIECE else 0
    return value < SEE_VALUE[piece_type(np.int64(mb[row, move_from(m)]))]


@njit(cache=True)
def tt_move_ok(st, mb, row, m):
    """True when TT move ``m`` is pseudo-legal on row ``row`` (own piece on its from-square, a
    move that piece makes, no own piece or king on the target): what the picker checks before
    trying the TT move ungenerated. The caller then tests that the mover's king is not left in
    check. Castling is left to the generator (False)."""
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    us = np.int64(st[row, STM])
    p = np.int64(mb[row, frm])
    if m == 0 or p == NO_PIECE or piece_colour(p) != us or flag == FLAG_CASTLE or frm == to:
        return False
    c = np.int64(mb[row, to])
    if c != NO_PIECE and (piece_colour(c) == us or piece_type(c) == KING):
        return False
    pt = piece_type(p)
    tobb = U1 << np.uint64(to)
    if pt == PAWN:
        if flag == FLAG_EP:
            return to == np.int64(st[row, EP]) and (PAWN_ATTACKS[us, frm] & tobb) != U0
        if flag == 3:
            return False
        last = to >= 56 if us == WHITE else to < 8
        if last != (flag >= FLAG_PROMO):
            return False
        if c != NO_PIECE:
            return (PAWN_ATTACKS[us, frm] & tobb) != U0
        up = 8 if us == WHITE else -8
        if to == frm + up:
            return True
        start = (frm >> 3) == (1 if us == WHITE else 6)
        return start and to == frm + 2 * up and mb[row, frm + up] == NO_PIECE
    if flag != 0:
        return False
    occ = st[row, OCC_ALL]
    if pt == KNIGHT:
        att = KNIGHT_ATTACKS[frm]
    elif pt == BISHOP:
        att = bishop_attacks(frm, occ)
    elif pt == ROOK:
        att = rook_attacks(frm, occ)
    elif pt == QUEEN:
        att = bishop_attacks(frm, occ) | rook_attacks(frm, occ)
    else:
        att = KING_ATTACKS[frm]
    return (att & tobb) != U0


@njit(cache=True)
def quiet_gives_check(st, mb, row, m):
    """True when quiet move ``m`` (no capture, en passant or promotion) of row ``row`` checks
    the enemy king, directly or by discovery, without making it; castling counts as True (the
    caller makes it and tests). Equals make_move + in-check on every quiet move (tested)."""
    frm = move_from(m)
    to = move_to(m)
    if move_flag(m) == FLAG_CASTLE:
        return True
    us = np.int64(st[row, STM])
    ksq = lsb(st[row, piece_of(1 - us, KING)])
    kbb = U1 << np.uint64(ksq)
    occ = (st[row, OCC_ALL] ^ (U1 << np.uint64(frm))) | (U1 << np.uint64(to))
    pt = piece_type(np.int64(mb[row, frm]))
    if pt == PAWN:
        direct = PAWN_ATTACKS[us, to] & kbb
    elif pt == KNIGHT:
        direct = KNIGHT_ATTACKS[to] & kbb
    elif pt == BISHOP:
        direct = bishop_attacks(to, occ) & kbb
    elif pt == ROOK:
        direct = rook_attacks(to, occ) & kbb
    elif pt == QUEEN:
        direct = (bishop_attacks(to, occ) | rook_attacks(to, occ)) & kbb
    else:
        direct = U0
    if direct != U0:
        return True
    # discovered: a slider of ours sees the king through the vacated square (the moved
    # piece's old bit can stay in the masks: a ray from the king that reaches ``frm`` reached
    # it before the move, when that piece would have been giving check with us to move)
    rq = st[row, piece_of(us, ROOK)] | st[row, piece_of(us, QUEEN)]
    bq = st[row, piece_of(us, BISHOP)] | st[row, piece_of(us, QUEEN)]
    return ((rook_attacks(ksq, occ) & rq) | (bishop_attacks(ksq, occ) & bq)) != U0


@njit(cache=True)
def _pick_range(mv, sply, i, n):
    """Selection step over slots i..n-1: swap the best-scored into slot i, return its score."""
    best = i
    bs = mv[sply, MV_SCORES, i]
    for j in range(i + 1, n):
        if mv[sply, MV_SCORES, j] > bs:
            bs = mv[sply, MV_SCORES, j]
            best = j
    if best != i:
        t = mv[sply, MV_MOVES, i]
        mv[sply, MV_MOVES, i] = mv[sply, MV_MOVES, best]
        mv[sply, MV_MOVES, best] = t
        mv[sply, MV_SCORES, best] = mv[sply, MV_SCORES, i]
        mv[sply, MV_SCORES, i] = bs
    return np.int64(bs)


@njit(cache=True)
def pick(mv, sply, i, n):
    """Selection step: swap the best-scored remaining move into slot i and return it."""
    _pick_range(mv, sply, i, n)
    return np.int64(mv[sply, MV_MOVES, i])


@njit(cache=True)
def _drop_move(mv, sply, lo, n, m):
    """Remove move ``m`` from slots lo..n-1 (swap with the last); return the new count."""
    for j in range(lo, n):
        if mv[sply, MV_MOVES, j] == m:
            mv[sply, MV_MOVES, j] = mv[sply, MV_MOVES, n - 1]
            return n - 1
    return n


@njit(cache=True)
def picker_init(st, mb, ss, mv, row, sply, tt_move, staged, prev1, prev2):
    """Start the move picker of ply ``sply`` (row ``row``). ``staged`` False generates and
    scores every legal move at once (:data:`STAGE_ALL`; the caller may filter the list before
    the first :func:`next_move`). ``prev1``/``prev2``: the node's continuation-history keys
    (:func:`piece_to` of rows ``row`` and ``row - 1``), kept for ordering the quiets."""
    p = PICK + sply * PICK_FIELDS
    ss[p + PICK_TT] = tt_move
    ss[p + PICK_NEXT] = 0
    ss[p + PICK_PREV1] = prev1
    ss[p + PICK_PREV2] = prev2
    if staged:
        ss[p + PICK_STAGE] = STAGE_TT
        ss[p + PICK_END] = 0
    else:
        n = generate_legal(st, row, mv[sply, MV_MOVES])
        ss[p + PICK_STAGE] = STAGE_ALL
        ss[p + PICK_END] = n


@njit(cache=True)
def picker_skip_quiets(ss, sply):
    """Ply ``sply``'s staged picker, in its quiet stage, yields from now on only the quiet moves
    left that give check, unsorted (late move pruning: Stockfish's skipQuiets, checks spared),
    then the deferred losing captures."""
    ss[PICK + sply * PICK_FIELDS + PICK_STAGE] = STAGE_QUIET_CHECKS


@njit(cache=True)
def _pick_next(ss, mv, p, sply, end):
    """Selection step of the picker at ``ss[p:]`` over slots PICK_NEXT..``end`` - 1 (the
    caller checks that one is left): the best-scored move (int64) is returned, its score kept
    in PICK_SCORE, and PICK_NEXT advanced."""
    i = ss[p + PICK_NEXT]
    ss[p + PICK_SCORE] = _pick_range(mv, sply, i, end)
    ss[p + PICK_NEXT] = i + 1
    return np.int64(mv[sply, MV_MOVES, i])


@njit(cache=True)
def _to_bad_noisy(ss, p):
    """The quiets are done: the picker at ``ss[p:]`` goes on with the deferred losing
    captures."""
    ss[p + PICK_NEXT] = ss[p + PICK_BAD]
    ss[p + PICK_STAGE] = STAGE_BAD_NOISY


@njit(cache=True)
def next_move(st, mb, hist, ss, mv, row, sply):
    """The next move (int64) of ply ``sply``'s picker, or 0 when none is left; its ordering
    score goes to ``ss[PICK + sply * PICK_FIELDS + PICK_SCORE]``. In the staged order the TT
    move comes first, ungenerated, and the stage is then STAGE_GEN_NOISY: the caller must
    check that it leaves no king in check (see :func:`tt_move_ok`)."""
    p = PICK + sply * PICK_FIELDS
    while True:
        stage = ss[p + PICK_STAGE]
        if stage == STAGE_ALL:
            i = ss[p + PICK_NEXT]
            if i >= ss[p + PICK_END]:
                ss[p + PICK_STAGE] = STAGE_DONE
                return np.int64(0)
            if i == 0:
                score_moves(st, mb, hist, ss, mv, row, sply, ss[p + PICK_END], ss[p + PICK_TT],
                             ss[p + PICK_PREV1], ss[p + PICK_PREV2])
            return _pick_next(ss, mv, p, sply, ss[p + PICK_END])
        elif stage == STAGE_TT:
            ss[p + PICK_STAGE] = STAGE_GEN_NOISY
            m = ss[p + PICK_TT]
            if tt_move_ok(st, mb, row, m):
                ss[p + PICK_SCORE] = ORDER_TT
                return m
            ss[p + PICK_TT] = 0
        elif stage == STAGE_GEN_NOISY:
            n = generate_noisy(st, row, mv[sply, MV_MOVES])
            if ss[p + PICK_TT] != 0:
                n = _drop_move(mv, sply, 0, n, ss[p + PICK_TT])
            for i in range(n):
                mv[sply, MV_SCORES, i] = _noisy_order(st, mb, hist, row,
                                                      np.int64(mv[sply, MV_MOVES, i]))
            ss[p + PICK_NOISY] = n
            ss[p + PICK_END] = n
            ss[p + PICK_NEXT] = 0
            ss[p + PICK_STAGE] = STAGE_GOOD_NOISY
        elif stage == STAGE_GOOD_NOISY:
            i = ss[p + PICK_NEXT]
            n = ss[p + PICK_NOISY]
            if i < n:
                sc = _pick_range(mv, sply, i, n)
                if sc >= NOISY_FLOOR:
                    m = np.int64(mv[sply, MV_MOVES, i])
                    if _may_lose(mb, row, m) and see(st, mb, ss, row, m) < 0:
                        mv[sply, MV_SCORES, i] = sc + ORDER_BAD_CAPTURE - ORDER_GOOD_CAPTURE
                        continue                    # deferred; pick again
                    ss[p + PICK_SCORE] = sc
                    ss[p + PICK_NEXT] = i + 1
                    return m
            ss[p + PICK_BAD] = i
            ss[p + PICK_STAGE] = STAGE_GEN_QUIET
        elif stage == STAGE_GEN_QUIET:
            lo = ss[p + PICK_NOISY]
            n = lo + generate_quiet(st, row, mv[sply, MV_MOVES, lo:])
            if ss[p + PICK_TT] != 0:
                n = _drop_move(mv, sply, lo, n, ss[p + PICK_TT])
            us = np.int64(st[row, STM])
            k1 = ss[KILLERS + 2 * sply]
            k2 = ss[KILLERS + 2 * sply + 1]
            prev1 = ss[p + PICK_PREV1]
            prev2 = ss[p + PICK_PREV2]
            cm = hist[COUNTER + prev1] if prev1 >= 0 else 0
            for i in range(lo, n):
                mv[sply, MV_SCORES, i] = _quiet_order(hist, mb, row, us,
                                                      np.int64(mv[sply, MV_MOVES, i]),
                                                      k1, k2, cm, prev1, prev2)
            ss[p + PICK_END] = n
            ss[p + PICK_NEXT] = lo
            ss[p + PICK_STAGE] = STAGE_QUIET
        elif stage == STAGE_QUIET:
            if ss[p + PICK_NEXT] < ss[p + PICK_END]:
                return _pick_next(ss, mv, p, sply, ss[p + PICK_END])
            _to_bad_noisy(ss, p)
        elif stage == STAGE_QUIET_CHECKS:
            i = ss[p + PICK_NEXT]
            end = ss[p + PICK_END]
            while i < end:
                m = np.int64(mv[sply, MV_MOVES, i])
                i += 1
                if quiet_gives_check(st, mb, row, m):
                    ss[p + PICK_NEXT] = i
                    ss[p + PICK_SCORE] = mv[sply, MV_SCORES, i - 1]
                    return m
            _to_bad_noisy(ss, p)
        elif stage == STAGE_BAD_NOISY:
            if ss[p + PICK_NEXT] < ss[p + PICK_NOISY]:
                return _pick_next(ss, mv, p, sply, ss[p + PICK_NOISY])
            ss[p + PICK_STAGE] = STAGE_DONE
        else:
            return np.int64(0)

