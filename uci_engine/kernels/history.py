"""History heuristics: index and update helpers of the butterfly, continuation, capture and
pawn-structure correction histories kept in ``hist`` (offsets in :mod:`.state`)."""
import numpy as np
from numba import njit

from .bitboard import NO_PIECE, PAWN
from .position import (LAST_MOVE, NULL_MOVE, WHITE_PAWN, BLACK_PAWN, move_from, move_to,
                       piece_type)
from .state import (MATE_BOUND, HISTORY, CONT_HISTORY, CAPTURE_HISTORY, CORR_HISTORY, CORR_BITS,
                    CORR_SIZE)

# The bounds, bonus and weights are search parameters (uci_engine/params.py: HISTORY_MAX_LOG2,
# HISTORY_BONUS_*, CORR_WEIGHT_MAX, CORR_MAX), passed in by the search.
CORR_GRAIN = 256                # correction history (Stockfish, Ethereal "pawn correction"):
CORR_WEIGHT_SCALE = 256         #   entries in 1/256 cp, updated towards (score - eval) with
                                #   weight min(depth + 1, CORR_WEIGHT_MAX) / 256
PAWN_HASH_W = np.uint64(0x9E3779B97F4A7C15)   # multiplicative hashing of the two pawn boards
PAWN_HASH_B = np.uint64(0xC2B2AE3D27D4EB4F)   #   (golden ratio, and xxhash's PRIME64_2)


@njit(cache=True)
def piece_to(st, mb, row):
    """piece * 64 + to-square (0..767) of the move that led to row ``row``, or -1 after a null
    move, at the first row of a game, or after castling (encoded king-takes-rook: the rook's old
    square may be empty). Indexes the countermove and continuation-history tables."""
    if row < 0:
        return np.int64(-1)
    last = np.int64(st[row, LAST_MOVE])
    if last == 0 or last == NULL_MOVE:
        return np.int64(-1)
    lto = move_to(last)
    p = np.int64(mb[row, lto])
    if p == NO_PIECE:
        return np.int64(-1)
    return p * 64 + lto


@njit(cache=True)
def history_index(us, m):
    """Index in ``hist`` of the butterfly history entry of side ``us`` for move ``m``
    (from-square x to-square; chessprogramming wiki "History Heuristic")."""
    return HISTORY + (us * 64 + move_from(m)) * 64 + move_to(m)


@njit(cache=True)
def cont_index(prev, mb, row, m):
    """Index in ``hist`` of the continuation-history entry of move ``m`` on row ``row`` after
    the earlier move ``prev`` (a :func:`piece_to` value >= 0): (piece, to) x (piece, to), as
    Stockfish's continuationHistory (chessprogramming wiki "History Heuristic")."""
    return CONT_HISTORY + prev * 768 + np.int64(mb[row, move_from(m)]) * 64 + move_to(m)


@njit(cache=True)
def capture_index(mb, row, m):
    """Index in ``hist`` of the capture-history entry of noisy move ``m`` on row ``row``:
    moving piece x to-square x captured type (a promotion without capture counts as PAWN)."""
    to = move_to(m)
    c = np.int64(mb[row, to])
    ct = piece_type(c) if c != NO_PIECE else PAWN
    return CAPTURE_HISTORY + (np.int64(mb[row, move_from(m)]) * 64 + to) * 6 + ct


@njit(cache=True)
def quiet_score(hist, mb, row, us, m, prev1, prev2):
    """Ordering score of quiet move ``m``: butterfly history plus the continuation histories
    one and two plies back (``prev1``/``prev2``: :func:`piece_to` values, -1 = none)."""
    s = hist[history_index(us, m)]
    if prev1 >= 0:
        s += hist[cont_index(prev1, mb, row, m)]
    if prev2 >= 0:
        s += hist[cont_index(prev2, mb, row, m)]
    return s


@njit(cache=True)
def update_quiet(hist, mb, row, us, m, prev1, prev2, bonus, bound_log2):
    """Apply ``bonus`` (negative: malus) to every history entry :func:`quiet_score` reads,
    with gravity bound 2^``bound_log2`` (:func:`update_history`)."""
    update_history(hist, history_index(us, m), bonus, bound_log2)
    if prev1 >= 0:
        update_history(hist, cont_index(prev1, mb, row, m), bonus, bound_log2)
    if prev2 >= 0:
        update_history(hist, cont_index(prev2, mb, row, m), bonus, bound_log2)


@njit(cache=True)
def _corr_index(st, row, us):
    """Index in ``hist`` of the correction-history entry of row ``row``: side to move x a
    CORR_BITS-bit multiplicative hash of the two pawn bitboards."""
    h = (st[row, WHITE_PAWN] * PAWN_HASH_W) ^ (st[row, BLACK_PAWN] * PAWN_HASH_B)
    return CORR_HISTORY + us * CORR_SIZE + np.int64(h >> np.uint64(64 - CORR_BITS))


@njit(cache=True)
def corrected_eval(hist, st, row, us, raw):
    """Static eval ``raw`` (centipawns) plus the pawn-structure correction history (Stockfish's
    correction history, Ethereal's "pawn correction"), kept out of the mate range."""
    v = raw + hist[_corr_index(st, row, us)] // CORR_GRAIN
    return max(-MATE_BOUND + 1, min(MATE_BOUND - 1, v))


@njit(cache=True)
def update_corr(hist, st, row, us, diff, depth, weight_max, corr_max):
    """Move the correction entry of row ``row`` towards ``diff`` (search score - static eval,
    centipawns) with weight min(depth + 1, ``weight_max``) / CORR_WEIGHT_SCALE, keeping it
    within +-``corr_max`` centipawns."""
    i = _corr_index(st, row, us)
    w = min(depth + 1, weight_max)
    e = (hist[i] * (CORR_WEIGHT_SCALE - w) + diff * CORR_GRAIN * w) // CORR_WEIGHT_SCALE
    lim = corr_max * CORR_GRAIN
    hist[i] = max(-lim, min(lim, e))


@njit(cache=True)
def update_history(hist, idx, bonus, bound_log2):
    """History gravity (Stockfish's stats): h += bonus - h * |bonus| / 2^``bound_log2`` keeps
    |h| < 2^``bound_log2`` (the HISTORY_MAX_LOG2 search parameter; a power of two, so the
    division is a shift: a division by a run-time value per update cost several % of speed)."""
    h = hist[idx]
    hist[idx] = h + bonus - ((h * abs(bonus)) >> bound_log2)

