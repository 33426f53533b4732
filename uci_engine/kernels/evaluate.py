"""Static evaluation: tapered PeSTO material + piece-square tables plus a few classical terms.

:func:`evaluate` returns centipawns (int64) from the side to move's point of view. It sums, as
white-minus-black (mg, eg) pairs:

* material + piece-square tables: Ronald Friederich's PeSTO tables (chessprogramming wiki
  "PeSTO's Evaluation Function", https://www.chessprogramming.org/PeSTO%27s_Evaluation_Function).
  The wiki lists each table a8..h1 as seen by white, so with our a1=0 squares a white piece on
  ``sq`` reads entry ``sq ^ 56`` and a black piece reads entry ``sq`` (its mirrored square);
* mobility of knights, bishops, rooks and queens: attacked squares that hold no own piece and are
  not attacked by an enemy pawn, linear in the count around a typical value;
* pawn structure: doubled, isolated and passed pawns (passed bonus by relative rank);
* king safety (middlegame only): attack units of enemy pieces hitting the king zone (king square
  plus its neighbours), through a quadratic table scaled by the number of attackers
  (chessprogramming wiki "King Safety", attacking king zone), plus a pawn-shield bonus;
* bishop pair (bishops on both square colours);
* rooks on open and semi-open files;
* tempo for the side to move (middlegame only).

The phase is ``N + B + 2 R + 4 Q`` over both sides, capped at 24 (PeSTO). The pairs are turned
to the side to move's view *before* the taper ``(mg * phase + eg * (24 - phase)) // 24``, so a
position and its colour-flipped mirror evaluate identically (no floor-division asymmetry).

:func:`eval_terms` fills ``out[N_TERMS, 2]`` with the white-view (mg, eg) of each term for the
UCI ``eval`` breakdown, and :func:`format_eval` renders it (plain Python). Both share
:func:`_terms` with :func:`evaluate`, so the totals agree by construction.
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1, NOT_FILE_A, NOT_FILE_H, lsb, popcount
from .attacks import KNIGHT_ATTACKS, KING_ATTACKS, bishop_attacks, rook_attacks
from .position import OCC, OCC_ALL, STM

# ---------------------------------------------------------------------------------------------
# PeSTO material and piece-square tables (values as on the wiki, layout a8..h1, white's view)
# ---------------------------------------------------------------------------------------------
PESTO_MG_VALUE = (82, 337, 365, 477, 1025, 0)   # P N B R Q K middlegame material
PESTO_EG_VALUE = (94, 281, 297, 512, 936, 0)    # P N B R Q K endgame material

_MG_PAWN = (
      0,   0,   0,   0,   0,   0,  0,   0,
     98, 134,  61,  95,  68, 126, 34, -11,
     -6,   7,  26,  31,  65,  56, 25, -20,
    -14,  13,   6,  21,  23,  12, 17, -23,
    -27,  -2,  -5,  12,  17,   6, 10, -25,
    -26,  -4,  -4, -10,   3,   3, 33, -12,
    -35,  -1, -20, -23, -15,  24, 38, -22,
      0,   0,   0,   0,   0,   0,  0,   0)
_EG_PAWN = (
      0,   0,   0,   0,   0,   0,   0,   0,
    178, 173, 158, 134, 147, 132, 165, 187,
     94, 100,  85,  67,  56,  53,  82,  84,
     32,  24,  13,   5,  -2,   4,  17,  17,
     13,   9,  -3,  -7,  -7,  -8,   3,  -1,
      4,   7,  -6,   1,   0,  -5,  -1,  -8,
     13,   8,   8,  10,  13,   0,   2,  -7,
      0,   0,   0,   0,   0,   0,   0,   0)
_MG_KNIGHT = (
    -167, -89, -34, -49,  61, -97, -15, -107,
     -73, -41,  72,  36,  23,  62,   7,  -17,
     -47,  60,  37,  65,  84, 129,  73,   44,
      -9,  17,  19,  53,  37,  69,  18,   22,
     -13,   4,  16,  13,  28,  19,  21,   -8,
     -23,  -9,  12,  10,  19,  17,  25,  -16,
     -29, -53, -12,  -3,  -1,  18, -14,  -19,
    -105, -21, -58, -33, -17, -28, -19,  -23)
_EG_KNIGHT = (
    -58, -38, -13, -28, -31, -27, -63, -99,
    -25,  -8, -25,  -2,  -9, -25, -24, -52,
    -24, -20,  10,   9,  -1,  -9, -19, -41,
    -17,   3,  22,  22,  22,  11,   8, -18,
    -18,  -6,  16,  25,  16,  17,   4, -18,
    -23,  -3,  -1,  15,  10,  -3, -20, -22,
    -42, -20, -10,  -5,  -2, -20, -23, -44,
    -29, -51, -23, -15, -22, -18, -50, -64)
_MG_BISHOP = (
    -29,   4, -82, -37, -25, -42,   7,  -8,
    -26,  16, -18, -13,  30,  59,  18, -47,
    -16,  37,  43,  40,  35,  50,  37,  -2,
     -4,   5,  19,  50,  37,  37,   7,  -2,
     -6,  13,  13,  26,  34,  12,  10,   4,
      0,  15,  15,  15,  14,  27,  18,  10,
      4,  15,  16,   0,   7,  21,  33,   1,
    -33,  -3, -14, -21, -13, -12, -39, -21)
_EG_BISHOP = (
    -14, -21, -11,  -8, -7,  -9, -17, -24,
     -8,  -4,   7, -12, -3, -13,  -4, -14,
      2,  -8,   0,  -1, -2,   6,   0,   4,
     -3,   9,  12,   9, 14,  10,   3,   2,
     -6,   3,  13,  19,  7,  10,  -3,  -9,
    -12,  -3,   8,  10, 13,   3,  -7, -15,
    -14, -18,  -7,  -1,  4,  -9, -15, -27,
    -23,  -9, -23,  -5, -9, -16,  -5, -17)
_MG_ROOK = (
     32,  42,  32,  51, 63,  9,  31,  43,
     27,  32,  58,  62, 80, 67,  26,  44,
     -5,  19,  26,  36, 17, 45,  61,  16,
    -24, -11,   7,  26, 24, 35,  -8, -20,
    -36, -26, -12,  -1,  9, -7,   6, -23,
    -45, -25, -16, -17,  3,  0,  -5, -33,
    -44, -16, -20,  -9, -1, 11,  -6, -71,
    -19, -13,   1,  17, 16,  7, -37, -26)
_EG_ROOK = (
    13, 10, 18, 15, 12,  12,   8,   5,
    11, 13, 13, 11, -3,   3,   8,   3,
     7,  7,  7,  5,  4,  -3,  -5,  -3,
     4,  3, 13,  1,  2,   1,  -1,   2,
     3,  5,  8,  4, -5,  -6,  -8, -11,
    -4,  0, -5, -1, -7, -12,  -8, -16,
    -6, -6,  0,  2, -9,  -9, -11,  -3,
    -9,  2,  3, -1, -5, -13,   4, -20)
_MG_QUEEN = (
    -28,   0,  29,  12,  59,  44,  43,  45,
    -24, -39,  -5,   1, -16,  57,  28,  54,
    -13, -17,   7,   8,  29,  56,  47,  57,
    -27, -27, -16, -16,  -1,  17,  -2,   1,
     -9, -26,  -9, -10,  -2,  -4,   3,  -3,
    -14,   2, -11,  -2,  -5,   2,  14,   5,
    -35,  -8,  11,   2,   8,  15,  -3,   1,
     -1, -18,  -9,  10, -15, -25, -31, -50)
_EG_QUEEN = (
     -9,  22,  22,  27,  27,  19,  10,  20,
    -17,  20,  32,  41,  58,  25,  30,   0,
    -20,   6,   9,  49,  47,  35,  19,   9,
      3,  22,  24,  45,  57,  40,  57,  36,
    -18,  28,  19,  47,  31,  34,  39,  23,
    -16, -27,  15,   6,   9,  17,  10,   5,
    -22, -23, -30, -16, -16, -23, -36, -32,
    -33, -28, -22, -43,  -5, -32, -20, -41)
_MG_KING = (
    -65,  23,  16, -15, -56, -34,   2,  13,
     29,  -1, -20,  -7,  -8,  -4, -38, -29,
     -9,  24,   2, -16, -20,   6,  22, -22,
    -17, -20, -12, -27, -30, -25, -14, -36,
    -49,  -1, -27, -39, -46, -44, -33, -51,
    -14, -14, -22, -46, -44, -30, -15, -27,
      1,   7,  -8, -64, -43, -16,   9,   8,
    -15,  36,  12, -54,   8, -28,  24,  14)
_EG_KING = (
    -74, -35, -18, -18, -11,  15,   4, -17,
    -12,  17,  14,  17,  17,  38,  23,  11,
     10,  17,  23,  15,  20,  45,  44,  13,
     -8,  22,  24,  27,  26,  33,  26,   3,
    -18,  -4,  21,  24,  27,  23,   9, -11,
    -19,  -3,  11,  21,  23,  16,   7,  -9,
    -27, -11,   4,  13,  14,   4,  -5, -17,
    -53, -34, -21, -11, -28, -14, -24, -43)

#: (6, 64) tuples per phase, wiki layout (index 0 = a8, 63 = h1, white's view).
PESTO_MG_TABLES = (_MG_PAWN, _MG_KNIGHT, _MG_BISHOP, _MG_ROOK, _MG_QUEEN, _MG_KING)
PESTO_EG_TABLES = (_EG_PAWN, _EG_KNIGHT, _EG_BISHOP, _EG_ROOK, _EG_QUEEN, _EG_KING)

# ---------------------------------------------------------------------------------------------
# Weights (centipawns; *_MG middlegame, *_EG endgame; all from the owner's point of view)
# ---------------------------------------------------------------------------------------------
PHASE_WEIGHT = (0, 1, 1, 2, 4, 0)   # game-phase contribution per piece type P N B R Q K
PHASE_MAX = 24                      # phase of the starting position; more is capped

TEMPO_MG = 15                       # bonus for the side to move (middlegame only)

# mobility: weight * (safe squares - base); base ~ a typical count so the term centres near 0
MOB_WEIGHT_MG = (0, 4, 5, 2, 1)     # per safe square, by piece type (P unused) N B R Q
MOB_WEIGHT_EG = (0, 4, 5, 4, 2)
MOB_BASE = (0, 4, 6, 7, 13)         # typical safe-square count per piece type N B R Q

DOUBLED_MG, DOUBLED_EG = -10, -20   # per pawn with an own pawn ahead of it on its file
ISOLATED_MG, ISOLATED_EG = -10, -15  # per pawn with no own pawn on an adjacent file
# passed pawn (no enemy pawn ahead on its or an adjacent file, frontmost of its file),
# indexed by relative rank 0..7 (rank 2 = index 1, rank 7 = index 6)
PASSED_MG = (0, 2, 5, 10, 20, 35, 55, 0)
PASSED_EG = (0, 5, 10, 20, 35, 60, 90, 0)

BISHOP_PAIR_MG, BISHOP_PAIR_EG = 30, 50        # bishops on both square colours
ROOK_OPEN_MG, ROOK_OPEN_EG = 25, 10            # rook on a file without pawns
ROOK_SEMIOPEN_MG, ROOK_SEMIOPEN_EG = 12, 6     # rook on a file without own pawns

# king safety (middlegame only): each enemy N/B/R/Q adds KS_UNIT[type] per king-zone square it
# attacks; the units index KS_TABLE (quadratic: units^2 / 4 + units, capped), scaled by
# KS_COUNT_SCALE[number of attacking pieces] / 128 (one lone attacker counts little)
KS_UNIT = (0, 2, 2, 3, 5)           # attack units per zone square by attacker type N B R Q
KS_TABLE_LEN = 64                   # units beyond this saturate
KS_CAP = 500                        # largest king-danger penalty
KS_COUNT_SCALE = (0, 16, 64, 96, 112, 120, 124, 128)  # x/128 by attacker count (7+ = last)
SHIELD1_MG = 12                     # own pawn on the 3 squares right in front of the king
SHIELD2_MG = 6                      # own pawn on the 3 squares two ranks in front of the king

# evaluation terms (rows of eval_terms' output)
T_PST, T_MOBILITY, T_PAWNS, T_KING, T_BISHOP_PAIR, T_ROOKS, T_TEMPO = range(7)
N_TERMS = 7
TERM_NAMES = ("Material+PST", "Mobility", "Pawns", "King safety", "Bishop pair", "Rooks",
              "Tempo")


# ---------------------------------------------------------------------------------------------
# Derived tables (module-level numpy arrays: Numba freezes them into compiled callers)
# ---------------------------------------------------------------------------------------------
def _pst_tables():
    mg = np.zeros((12, 64), dtype=np.int64)
    eg = np.zeros((12, 64), dtype=np.int64)
    for t in range(6):
        for sq in range(64):
            # white reads the wiki entry of its square seen from the top (sq ^ 56); black the
            # entry of its square as is (the mirror of its square seen from white's side)
            mg[t, sq] = PESTO_MG_VALUE[t] + PESTO_MG_TABLES[t][sq ^ 56]
            eg[t, sq] = PESTO_EG_VALUE[t] + PESTO_EG_TABLES[t][sq ^ 56]
            mg[6 + t, sq] = -(PESTO_MG_VALUE[t] + PESTO_MG_TABLES[t][sq])
            eg[6 + t, sq] = -(PESTO_EG_VALUE[t] + PESTO_EG_TABLES[t][sq])
    return mg, eg


#: int64[12, 64]: material + PST per piece and square, white-positive (black entries negated).
PST_MG, PST_EG = _pst_tables()


def _mob_tables():
    mg = np.zeros((5, 29), dtype=np.int64)
    eg = np.zeros((5, 29), dtype=np.int64)
    for t in range(1, 5):
        for n in range(29):
            mg[t, n] = MOB_WEIGHT_MG[t] * (n - MOB_BASE[t])
            eg[t, n] = MOB_WEIGHT_EG[t] * (n - MOB_BASE[t])
    return mg, eg


#: int64[5, 29]: mobility score by piece type and safe-square count.
MOB_MG, MOB_EG = _mob_tables()


def _bb(squares):
    b = 0
    for s in squares:
        b |= 1 << s
    return b


#: uint64[8]: every square of file f.
FILE_MASKS = np.array([0x0101010101010101 << f for f in range(8)], dtype=np.uint64)
#: uint64[8]: the files next to file f.
ADJ_FILE_MASKS = np.array([(0x0101010101010101 << (f - 1) if f > 0 else 0)
                           | (0x0101010101010101 << (f + 1) if f < 7 else 0)
                           for f in range(8)], dtype=np.uint64)
#: uint64[2, 64]: squares ahead of sq on its file, from colour c's point of view.
FRONT_SPAN = np.array([[_bb(s for s in range(64) if s & 7 == sq & 7
                            and (s >> 3 > sq >> 3 if c == 0 else s >> 3 < sq >> 3))
                        for sq in range(64)] for c in range(2)], dtype=np.uint64)
#: uint64[2, 64]: squares ahead of sq on its file and the adjacent files (passed-pawn mask).
PASSED_MASKS = np.array([[_bb(s for s in range(64) if abs((s & 7) - (sq & 7)) <= 1
                              and (s >> 3 > sq >> 3 if c == 0 else s >> 3 < sq >> 3))
                          for sq in range(64)] for c in range(2)], dtype=np.uint64)
#: uint64[64]: king zone: the king square and its neighbours.
KING_ZONE = np.array([int(KING_ATTACKS[s]) | (1 << s) for s in range(64)], dtype=np.uint64)


def _shield(c, dist):
    out = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        r = (sq >> 3) + (dist if c == 0 else -dist)
        if 0 <= r < 8:
            out[sq] = _bb(r * 8 + f for f in range(8) if abs(f - (sq & 7)) <= 1)
    return out


#: uint64[2, 64]: the (up to) 3 squares one rank in front of a king of colour c on sq.
SHIELD1_MASKS = np.stack([_shield(0, 1), _shield(1, 1)])
#: uint64[2, 64]: the (up to) 3 squares two ranks in front of a king of colour c on sq.
SHIELD2_MASKS = np.stack([_shield(0, 2), _shield(1, 2)])
#: uint64: the light squares (b1, a2, ...); a1 is dark.
LIGHT_SQUARES = np.uint64(0x55AA55AA55AA55AA)
DARK_SQUARES = ~LIGHT_SQUARES

#: int64[KS_TABLE_LEN]: king-danger penalty by attack units (before the attacker-count scale).
KS_TABLE = np.array([min(KS_CAP, u * u // 4 + u) for u in range(KS_TABLE_LEN)], dtype=np.int64)
_KS_COUNT = np.array(KS_COUNT_SCALE, dtype=np.int64)
_KS_UNIT = np.array(KS_UNIT, dtype=np.int64)
_PASSED_MG = np.array(PASSED_MG, dtype=np.int64)
_PASSED_EG = np.array(PASSED_EG, dtype=np.int64)

_S7 = np.uint64(7)
_S9 = np.uint64(9)
_NFA = NOT_FILE_A
_NFH = NOT_FILE_H


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _terms(st, ply):
    """All terms of row ``ply``, white-minus-black: (phase, pst mg, pst eg, mobility mg, eg,
    pawns mg, eg, king mg, eg, bishop pair mg, eg, rooks mg, eg, tempo mg, eg), int64."""
    wp = st[ply, 0]
    bp = st[ply, 6]
    all_pawns = wp | bp
    occ = st[ply, OCC_ALL]
    w_patt = ((wp << _S9) & _NFA) | ((wp << _S7) & _NFH)
    b_patt = ((bp >> _S7) & _NFA) | ((bp >> _S9) & _NFH)

    # material + piece-square tables
    pst_mg = 0
    pst_eg = 0
    for p in range(12):
        b = st[ply, p]
        while b:
            sq = lsb(b)
            pst_mg += PST_MG[p, sq]
            pst_eg += PST_EG[p, sq]
            b &= b - U1

    phase = (popcount(st[ply, 1] | st[ply, 7]) + popcount(st[ply, 2] | st[ply, 8])
             + 2 * popcount(st[ply, 3] | st[ply, 9]) + 4 * popcount(st[ply, 4] | st[ply, 10]))
    if phase > PHASE_MAX:
        phase = PHASE_MAX

    mob_mg = 0
    mob_eg = 0
    pawn_mg = 0
    pawn_eg = 0
    ks_mg = 0
    bp_mg = 0
    bp_eg = 0
    rook_mg = 0
    rook_eg = 0
    for c in range(2):
        sign = 1 - 2 * c
        them = 1 - c
        base = c * 6
        own = st[ply, OCC + c]
        own_p = st[ply, base]
        enemy_p = st[ply, them * 6]
        if c == 0:
            area = ~(own | b_patt)
        else:
            area = ~(own | w_patt)
        ezone = KING_ZONE[lsb(st[ply, them * 6 + 5])]
        n_att = 0
        units = 0
        m_mg = 0
        m_eg = 0

        # knights
        b = st[ply, base + 1]
        while b:
            sq = lsb(b)
            b &= b - U1
            a = KNIGHT_ATTACKS[sq]
            n = popcount(a & area)
            m_mg += MOB_MG[1, n]
            m_eg += MOB_EG[1, n]
            z = a & ezone
            if z:
                n_att += 1
                units += _KS_UNIT[1] * popcount(z)
        # bishops
        bish = st[ply, base + 2]
        b = bish
        while b:
            sq = lsb(b)
            b &= b - U1
            a = bishop_attacks(sq, occ)
            n = popcount(a & area)
            m_mg += MOB_MG[2, n]
            m_eg += MOB_EG[2, n]
            z = a & ezone
            if z:
                n_att += 1
                units += _KS_UNIT[2] * popcount(z)
        # rooks (+ open / semi-open files)
        r_mg = 0
        r_eg = 0
        b = st[ply, base + 3]
        while b:
            sq = lsb(b)
            b &= b - U1
            a = rook_attacks(sq, occ)
            n = popcount(a & area)
            m_mg += MOB_MG[3, n]
            m_eg += MOB_EG[3, n]
            z = a & ezone
            if z:
                n_att += 1
                units += _KS_UNIT[3] * popcount(z)
            fm = FILE_MASKS[sq & 7]
            if (all_pawns & fm) == U0:
                r_mg += ROOK_OPEN_MG
                r_eg += ROOK_OPEN_EG
            elif (own_p & fm) == U0:
                r_mg += ROOK_SEMIOPEN_MG
                r_eg += ROOK_SEMIOPEN_EG
        # queens
        b = st[ply, base + 4]
        while b:
            sq = lsb(b)
            b &= b - U1
            a = rook_attacks(sq, occ) | bishop_attacks(sq, occ)
            n = popcount(a & area)
            m_mg += MOB_MG[4, n]
            m_eg += MOB_EG[4, n]
            z = a & ezone
            if z:
                n_att += 1
                units += _KS_UNIT[4] * popcount(z)

        # pawn structure
        p_mg = 0
        p_eg = 0
        b = own_p
        while b:
            sq = lsb(b)
            b &= b - U1
            if own_p & FRONT_SPAN[c, sq]:
                p_mg += DOUBLED_MG
                p_eg += DOUBLED_EG
            elif (enemy_p & PASSED_MASKS[c, sq]) == U0:
                rr = (sq >> 3) if c == 0 else 7 - (sq >> 3)
                p_mg += _PASSED_MG[rr]
                p_eg += _PASSED_EG[rr]
            if (own_p & ADJ_FILE_MASKS[sq & 7]) == U0:
                p_mg += ISOLATED_MG
                p_eg += ISOLATED_EG

        # king danger we inflict on the enemy king, minus our own pawn shield deficit
        if units >= KS_TABLE_LEN:
            units = KS_TABLE_LEN - 1
        if n_att > 7:
            n_att = 7
        k_mg = (KS_TABLE[units] * _KS_COUNT[n_att]) >> 7
        ksq = lsb(st[ply, base + 5])
        k_mg += (SHIELD1_MG * popcount(own_p & SHIELD1_MASKS[c, ksq])
                 + SHIELD2_MG * popcount(own_p & SHIELD2_MASKS[c, ksq]))

        # bishop pair
        if (bish & LIGHT_SQUARES) != U0 and (bish & DARK_SQUARES) != U0:
            bp_mg += sign * BISHOP_PAIR_MG
            bp_eg += sign * BISHOP_PAIR_EG

        mob_mg += sign * m_mg
        mob_eg += sign * m_eg
        pawn_mg += sign * p_mg
        pawn_eg += sign * p_eg
        ks_mg += sign * k_mg
        rook_mg += sign * r_mg
        rook_eg += sign * r_eg

    tempo_mg = TEMPO_MG if st[ply, STM] == U0 else -TEMPO_MG
    return (phase, pst_mg, pst_eg, mob_mg, mob_eg, pawn_mg, pawn_eg, ks_mg, 0,
            bp_mg, bp_eg, rook_mg, rook_eg, tempo_mg, 0)


@njit(cache=True, nogil=True)
def _taper(mg, eg, phase, black_to_move):
    """Tapered score (int64) from the side to move's view of white-view totals ``mg``/``eg``."""
    if black_to_move:
        mg = -mg
        eg = -eg
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


@njit(cache=True, nogil=True)
def evaluate(st, ply):
    """Static evaluation (int64 centipawns) of row ``ply`` of ``st`` from the side to move's view.

    Tapered PeSTO material/PST (chessprogramming wiki "PeSTO's Evaluation Function") plus
    mobility, pawn structure, king safety, bishop pair, rook files and tempo."""
    t = _terms(st, ply)
    mg = t[1] + t[3] + t[5] + t[7] + t[9] + t[11] + t[13]
    eg = t[2] + t[4] + t[6] + t[8] + t[10] + t[12] + t[14]
    return _taper(mg, eg, t[0], st[ply, STM] != U0)


@njit(cache=True, nogil=True)
def eval_terms(st, ply, out):
    """Fill ``out[N_TERMS, 2]`` (int64 or float64) with the white-minus-black (mg, eg) of each
    term (rows T_PST .. T_TEMPO) and return the game phase (int64, 0..24).

    ``evaluate(st, ply) == eval_total(out, phase, stm)`` for the filled ``out``."""
    t = _terms(st, ply)
    for i in range(N_TERMS):
        out[i, 0] = t[1 + 2 * i]
        out[i, 1] = t[2 + 2 * i]
    return t[0]


def eval_total(out, phase, stm):
    """Total (int, side to move's view) of an ``eval_terms`` output, exactly as ``evaluate``."""
    mg = int(sum(int(out[i, 0]) for i in range(N_TERMS)))
    eg = int(sum(int(out[i, 1]) for i in range(N_TERMS)))
    if stm:
        mg, eg = -mg, -eg
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


def format_eval(st, ply=0):
    """Human-readable breakdown (str) of the evaluation of row ``ply``: per term the white-view
    middlegame, endgame and phase-tapered centipawns, the total, and the final evaluation from
    the side to move's view (equal to :func:`evaluate`)."""
    out = np.zeros((N_TERMS, 2), dtype=np.int64)
    phase = int(eval_terms(st, ply, out))
    stm = int(st[ply, STM])
    lines = ["Term          |     MG |     EG |  Total   (white view, cp)",
             "--------------+--------+--------+--------"]
    mg_sum = eg_sum = 0
    for i, name in enumerate(TERM_NAMES):
        mg, eg = int(out[i, 0]), int(out[i, 1])
        mg_sum += mg
        eg_sum += eg
        tap = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX
        lines.append(f"{name:<13} | {mg:6d} | {eg:6d} | {tap:7.1f}")
    tap = (mg_sum * phase + eg_sum * (PHASE_MAX - phase)) / PHASE_MAX
    lines.append("--------------+--------+--------+--------")
    lines.append(f"{'Total':<13} | {mg_sum:6d} | {eg_sum:6d} | {tap:7.1f}")
    final = eval_total(out, phase, stm)
    lines.append(f"Phase {phase}/{PHASE_MAX} (24 = middlegame)")
    lines.append(f"Final evaluation: {final:+d} cp from {'black' if stm else 'white'}'s view"
                 f" ({final if stm == 0 else -final:+d} cp white view)")
    return "\n".join(lines)
