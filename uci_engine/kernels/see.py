"""Static exchange evaluation (SEE) kernel and the piece values it and move ordering use."""
import numpy as np
from numba import njit

from .bitboard import U0, U1, NO_PIECE, WHITE, PAWN, KING
from .attacks import rook_attacks, bishop_attacks
from .position import (OCC, OCC_ALL, STM, FLAG_EP, FLAG_CASTLE, FLAG_PROMO, PIECE_TYPES,
                       WHITE_BISHOP, WHITE_ROOK, WHITE_QUEEN, BLACK_BISHOP, BLACK_ROOK,
                       BLACK_QUEEN, move_from, move_to, move_flag, piece_of, piece_type,
                       promo_type, attackers_to)
from .state import SEE_GAIN

# piece values for SEE / MVV-LVA, by type P N B R Q K (centipawns)
SEE_VALUE = np.array([100, 320, 330, 500, 950, 20000, 0], dtype=np.int64)
SEE_MAX_SWAPS = 30              # swap list depth bound (the SEE_GAIN scratch holds 40)


@njit(cache=True)
def see(st, mb, ss, row, m):
    """Static exchange evaluation (centipawns) of move ``m`` on row ``row``: the material the
    mover expects to win on the target square with best recaptures (swap algorithm,
    chessprogramming wiki "SEE - The Swap Algorithm")."""
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    if flag == FLAG_CASTLE:
        return np.int64(0)
    g = SEE_GAIN
    occ = st[row, OCC_ALL] ^ (U1 << np.uint64(frm))
    mover = piece_type(np.int64(mb[row, frm]))
    if flag == FLAG_EP:
        ss[g] = SEE_VALUE[PAWN]
        capsq = to - 8 if st[row, STM] == WHITE else to + 8
        occ ^= U1 << np.uint64(capsq)
    else:
        c = np.int64(mb[row, to])
        ss[g] = SEE_VALUE[piece_type(c)] if c != NO_PIECE else 0
    on_sq = SEE_VALUE[mover]
    if flag >= FLAG_PROMO:
        promo = SEE_VALUE[promo_type(flag)]
        ss[g] += promo - SEE_VALUE[PAWN]
        on_sq = promo
    rq = st[row, WHITE_ROOK] | st[row, WHITE_QUEEN] | st[row, BLACK_ROOK] | st[row, BLACK_QUEEN]
    bq = (st[row, WHITE_BISHOP] | st[row, WHITE_QUEEN] | st[row, BLACK_BISHOP]
          | st[row, BLACK_QUEEN])
    att = attackers_to(st, row, to, occ) & occ
    side = 1 - np.int64(st[row, STM])
    d = 0
    while True:
        mine = att & st[row, OCC + side]
        if not mine:
            break
        lva = 0
        b = U0
        for t in range(PIECE_TYPES):
            b = mine & st[row, piece_of(side, t)]
            if b:
                lva = t
                break
        d += 1
        ss[g + d] = on_sq - ss[g + d - 1]
        if max(-ss[g + d - 1], ss[g + d]) < 0 or d >= SEE_MAX_SWAPS:
            break
        if lva == KING and (att & st[row, OCC + 1 - side] & occ & ~(b & (U0 - b))):
            # the king cannot capture into a defended square
            d -= 1
            break
        occ ^= b & (U0 - b)
        att |= (rook_attacks(to, occ) & rq) | (bishop_attacks(to, occ) & bq)
        att &= occ
        on_sq = SEE_VALUE[lva]
        side = 1 - side
    while d > 0:
        ss[g + d - 1] = -max(-ss[g + d - 1], ss[g + d])
        d -= 1
    return ss[g]

