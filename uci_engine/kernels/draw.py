"""Draw rules of the search: fifty moves, repetition, insufficient material."""
import numpy as np
from numba import njit

from .bitboard import U0, popcount
from .position import (KEY, HALFMOVE, WHITE_PAWN, WHITE_KNIGHT, WHITE_BISHOP, WHITE_ROOK,
                       WHITE_QUEEN, BLACK_PAWN, BLACK_KNIGHT, BLACK_BISHOP, BLACK_ROOK,
                       BLACK_QUEEN)


@njit(cache=True)
def is_draw(st, row, root_row):
    """Fifty-move rule, repetition (once inside the tree, twice including game history) or
    insufficient material (K v K, K+minor v K)."""
    half = np.int64(st[row, HALFMOVE])
    if half >= 100:
        return True
    key = st[row, KEY]
    reps = 0
    i = row - 4
    stop = row - half
    while i >= stop and i >= 0:
        if st[i, KEY] == key:
            if i >= root_row:
                return True
            reps += 1
            if reps >= 2:
                return True
        i -= 2
    # insufficient material
    if (st[row, WHITE_PAWN] | st[row, BLACK_PAWN] | st[row, WHITE_ROOK] | st[row, BLACK_ROOK]
            | st[row, WHITE_QUEEN] | st[row, BLACK_QUEEN]) == U0:
        minors = (st[row, WHITE_KNIGHT] | st[row, WHITE_BISHOP] | st[row, BLACK_KNIGHT]
                  | st[row, BLACK_BISHOP])
        if popcount(minors) <= 1:
            return True
    return False
