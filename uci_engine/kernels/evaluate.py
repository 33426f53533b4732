"""Static evaluation: tapered PeSTO material + piece-square tables plus a few classical terms.

:func:`evaluate` returns centipawns (int64) from the side to move's point of view. It sums, as
white-minus-black (mg, eg) pairs:

* material + piece-square tables: Ronald Friederich's PeSTO tables (chessprogramming wiki
  "PeSTO's Evaluation Function", https://www.chessprogramming.org/PeSTO%27s_Evaluation_Function).
  The wiki lists each table a8..h1 as seen by white, so with our a1=0 squares a white piece on
  ``sq`` reads entry ``sq ^ 56`` and a black piece reads entry ``sq`` (its mirrored square);
* mobility of knights, bishops, rooks and queens: attacked squares that hold no own piece and are
  not attacked by an enemy pawn, a table by piece type and count;
* pawn structure: doubled and isolated pawns (by file) and passed pawns (by relative rank);
* king safety (middlegame only): attack units of enemy pieces hitting the king zone (king square
  plus its neighbours) index a table by number of attackers and units (chessprogramming wiki
  "King Safety", attacking king zone), plus a pawn-shield bonus;
* bishop pair (bishops on both square colours);
* rooks on open and semi-open files;
* tempo for the side to move (middlegame only).

All weights (centipawns) come from the generated module :mod:`.eval_weights` (written by
scripts/tune_eval.py, Texel's tuning method; its header names the data and the command).

The evaluation is linear in those weights, and it says so itself: :func:`evaluate_traced` with
a ``trace`` array adds, next to each term's score, that term's coefficient (white-minus-black
count) to ``trace[weight index]`` in the layout :data:`WEIGHT_SPEC`, as Ethereal's ``TRACE``
build does (Andrew Grant, Ethereal src/evaluate.c, ``if (TRACE) T.xxx[US]++``). With ``trace``
None every ``if trace is not None`` branch is pruned when Numba compiles that specialisation
(it types the argument as NoneType), so :func:`evaluate`, the engine's entry point, is the
untraced evaluation with no cost. For every position::

    evaluate(st, ply) == taper(trace . w over middlegame weights, ... over endgame weights)

exactly (integer arithmetic, tests/test_eval_trace.py), which is the linear form Texel's tuning
method fits (chessprogramming wiki "Texel's Tuning Method"); :func:`trace_batch` gives it for
many rows as a sparse matrix. Linear as written: material, piece-square tables, mobility (a
table by piece type and safe-square count), pawn structure, pawn shield, bishop pair, rook files,
tempo. King danger is a table indexed by (attacking pieces, attack units) whose entries are the
weights (a one-hot coefficient per side); the attack units per attacker type (:data:`KS_UNIT`)
and the game-phase weights are structural (they choose an index, they are not multiplied).

The phase is ``N + B + 2 R + 4 Q`` over both sides, capped at 24 (PeSTO). The pairs are turned
to the side to move's view *before* the taper ``(mg * phase + eg * (24 - phase)) // 24``, so a
position and its colour-flipped mirror evaluate identically (no floor-division asymmetry).

:func:`eval_terms` fills ``out[N_TERMS, 2]`` with the white-view (mg, eg) of each term for the
UCI ``eval`` breakdown, and :func:`format_eval` renders it (plain Python). Both share
:func:`_terms` with :func:`evaluate`, so the totals agree by construction.
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1, NOT_FILE_A, NOT_FILE_H, PAWN, KNIGHT, QUEEN, KING, lsb, popcount
from .attacks import KNIGHT_ATTACKS, KING_ATTACKS, bishop_attacks, rook_attacks
from .position import (OCC, OCC_ALL, STM, WHITE_PAWN, BLACK_PAWN, PIECE_TYPES,
                       piece_of)
from . import eval_weights as W

# ---------------------------------------------------------------------------------------------
# Structure (fixed). Every weight is in the generated module eval_weights (W), which
# scripts/tune_eval.py writes (Texel tuning); its first version holds the PeSTO tables and the
# former hand-set values.
# ---------------------------------------------------------------------------------------------
PHASE_WEIGHT = (0, 1, 1, 2, 4, 0)   # game-phase contribution per piece type P N B R Q K
PHASE_MAX = 24                      # phase of the starting position; more is capped

# king safety (middlegame only): each enemy N/B/R/Q adds KS_UNIT[type] per king-zone square it
# attacks; W.KING_DANGER_MG[attacking pieces][units] is the penalty (chessprogramming wiki
# "King Safety", attacking king zone)
KS_UNIT = (0, 2, 2, 3, 5)           # attack units per zone square by attacker type N B R Q
KS_TABLE_LEN = 64                   # units beyond this saturate (W.KING_DANGER_MG columns)
KS_MAX_ATTACKERS = 7                # attacker counts beyond this saturate (rows)
MOB_MAX = 29                        # safe-square counts 0..28 (a queen reaches at most 27)

# evaluation terms (rows of eval_terms' output)
T_PST, T_MOBILITY, T_PAWNS, T_KING, T_BISHOP_PAIR, T_ROOKS, T_TEMPO = range(7)
N_TERMS = 7
TERM_NAMES = ("Material+PST", "Mobility", "Pawns", "King safety", "Bishop pair", "Rooks",
              "Tempo")

# ---------------------------------------------------------------------------------------------
# The weight vector: every array of eval_weights flattened in C order, in WEIGHT_SPEC order
# ---------------------------------------------------------------------------------------------
#: Phase of a weight: middlegame (enters ``mg``) or endgame (enters ``eg``).
MG, EG = 0, 1

#: (name in eval_weights, shape, phase) in vector order. Shapes: MATERIAL by piece type
#: P N B R Q K; PST by piece type and wiki square index (a8 = 0 .. h1 = 63, white's view);
#: MOBILITY by piece type N B R Q and safe-square count 0..28; DOUBLED/ISOLATED by file a..h;
#: PASSED by relative rank 0..7; KING_DANGER by attacking-piece count 0..7 (7 = 7 or more)
#: and attack units 0..63 (63 = 63 or more).
WEIGHT_SPEC = (
    ("MATERIAL_MG", (6,), MG), ("MATERIAL_EG", (6,), EG),
    ("PST_MG", (6, 64), MG), ("PST_EG", (6, 64), EG),
    ("MOBILITY_MG", (4, MOB_MAX), MG), ("MOBILITY_EG", (4, MOB_MAX), EG),
    ("DOUBLED_MG", (8,), MG), ("DOUBLED_EG", (8,), EG),
    ("ISOLATED_MG", (8,), MG), ("ISOLATED_EG", (8,), EG),
    ("PASSED_MG", (8,), MG), ("PASSED_EG", (8,), EG),
    ("KING_DANGER_MG", (KS_MAX_ATTACKERS + 1, KS_TABLE_LEN), MG),
    ("SHIELD1_MG", (), MG), ("SHIELD2_MG", (), MG),
    ("BISHOP_PAIR_MG", (), MG), ("BISHOP_PAIR_EG", (), EG),
    ("ROOK_OPEN_MG", (), MG), ("ROOK_OPEN_EG", (), EG),
    ("ROOK_SEMIOPEN_MG", (), MG), ("ROOK_SEMIOPEN_EG", (), EG),
    ("TEMPO_MG", (), MG),
)


def _layout():
    offsets = {}
    n = 0
    for name, shape, _ in WEIGHT_SPEC:
        offsets[name] = n
        n += int(np.prod(shape, dtype=np.int64))
    return offsets, n


#: dict name -> first index in the weight vector; the vector's length.
OFFSETS, N_WEIGHTS = _layout()
#: bool[N_WEIGHTS]: True for endgame weights, False for middlegame ones.
IS_EG = np.zeros(N_WEIGHTS, dtype=np.bool_)
for _name, _shape, _phase in WEIGHT_SPEC:
    IS_EG[OFFSETS[_name]:OFFSETS[_name] + int(np.prod(_shape, dtype=np.int64))] = _phase == EG

# first index of each array (Numba freezes these ints into the compiled trace)
O_MATERIAL_MG, O_MATERIAL_EG = OFFSETS["MATERIAL_MG"], OFFSETS["MATERIAL_EG"]
O_PST_MG, O_PST_EG = OFFSETS["PST_MG"], OFFSETS["PST_EG"]
O_MOBILITY_MG, O_MOBILITY_EG = OFFSETS["MOBILITY_MG"], OFFSETS["MOBILITY_EG"]
O_DOUBLED_MG, O_DOUBLED_EG = OFFSETS["DOUBLED_MG"], OFFSETS["DOUBLED_EG"]
O_ISOLATED_MG, O_ISOLATED_EG = OFFSETS["ISOLATED_MG"], OFFSETS["ISOLATED_EG"]
O_PASSED_MG, O_PASSED_EG = OFFSETS["PASSED_MG"], OFFSETS["PASSED_EG"]
O_KING_DANGER_MG = OFFSETS["KING_DANGER_MG"]
O_SHIELD1_MG, O_SHIELD2_MG = OFFSETS["SHIELD1_MG"], OFFSETS["SHIELD2_MG"]
O_BISHOP_PAIR_MG, O_BISHOP_PAIR_EG = OFFSETS["BISHOP_PAIR_MG"], OFFSETS["BISHOP_PAIR_EG"]
O_ROOK_OPEN_MG, O_ROOK_OPEN_EG = OFFSETS["ROOK_OPEN_MG"], OFFSETS["ROOK_OPEN_EG"]
O_ROOK_SEMIOPEN_MG = OFFSETS["ROOK_SEMIOPEN_MG"]
O_ROOK_SEMIOPEN_EG = OFFSETS["ROOK_SEMIOPEN_EG"]
O_TEMPO_MG = OFFSETS["TEMPO_MG"]
#: First guess of nonzero coefficients per position for :func:`trace_batch`'s buffers (a
#: middlegame position has some 150; the buffers grow when needed).
TYPICAL_ROW_NONZEROS = 128


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
            mg[t, sq] = W.MATERIAL_MG[t] + W.PST_MG[t][sq ^ 56]
            eg[t, sq] = W.MATERIAL_EG[t] + W.PST_EG[t][sq ^ 56]
            mg[6 + t, sq] = -(W.MATERIAL_MG[t] + W.PST_MG[t][sq])
            eg[6 + t, sq] = -(W.MATERIAL_EG[t] + W.PST_EG[t][sq])
    return mg, eg


#: int64[12, 64]: material + PST per piece and square, white-positive (black entries negated).
PST_MG, PST_EG = _pst_tables()


def _mob_tables():
    mg = np.zeros((5, MOB_MAX), dtype=np.int64)
    eg = np.zeros((5, MOB_MAX), dtype=np.int64)
    mg[1:] = np.array(W.MOBILITY_MG, dtype=np.int64)
    eg[1:] = np.array(W.MOBILITY_EG, dtype=np.int64)
    return mg, eg


#: int64[5, 29]: mobility score by piece type (P unused) and safe-square count.
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

#: int64[8, 64]: king-danger penalty by attacking pieces (7+) and attack units (63+).
KING_DANGER = np.array(W.KING_DANGER_MG, dtype=np.int64)
_KS_UNIT = np.array(KS_UNIT, dtype=np.int64)
#: int64[8]: pawn-structure weights by file (doubled, isolated) or relative rank (passed).
_DOUBLED_MG = np.array(W.DOUBLED_MG, dtype=np.int64)
_DOUBLED_EG = np.array(W.DOUBLED_EG, dtype=np.int64)
_ISOLATED_MG = np.array(W.ISOLATED_MG, dtype=np.int64)
_ISOLATED_EG = np.array(W.ISOLATED_EG, dtype=np.int64)
_PASSED_MG = np.array(W.PASSED_MG, dtype=np.int64)
_PASSED_EG = np.array(W.PASSED_EG, dtype=np.int64)
SHIELD1_MG = W.SHIELD1_MG
SHIELD2_MG = W.SHIELD2_MG
BISHOP_PAIR_MG, BISHOP_PAIR_EG = W.BISHOP_PAIR_MG, W.BISHOP_PAIR_EG
ROOK_OPEN_MG, ROOK_OPEN_EG = W.ROOK_OPEN_MG, W.ROOK_OPEN_EG
ROOK_SEMIOPEN_MG, ROOK_SEMIOPEN_EG = W.ROOK_SEMIOPEN_MG, W.ROOK_SEMIOPEN_EG
TEMPO_MG = W.TEMPO_MG

_S7 = np.uint64(7)
_S9 = np.uint64(9)
_NFA = NOT_FILE_A
_NFH = NOT_FILE_H


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def game_phase(st, ply):
    """PeSTO's game phase of row ``ply`` (int64, 0..PHASE_MAX): PHASE_WEIGHT summed over the
    knights, bishops, rooks and queens of both sides, capped at PHASE_MAX."""
    phase = 0
    for t in range(KNIGHT, QUEEN + 1):
        phase += PHASE_WEIGHT[t] * popcount(st[ply, t] | st[ply, PIECE_TYPES + t])
    return min(phase, PHASE_MAX)


@njit(cache=True, nogil=True)
def _trace_pair(trace, mg_index, eg_index, count):
    """Add ``count`` to the coefficients of a middlegame and an endgame weight."""
    trace[mg_index] += count
    trace[eg_index] += count


@njit(cache=True, nogil=True)
def _trace_piece(trace, p, sq):
    """Coefficients of piece ``p`` (0..11) on ``sq``: material and the PST entry it reads
    (the wiki layout: a white piece reads ``sq ^ 56``, a black one ``sq``), +1 white, -1 black."""
    c = p // PIECE_TYPES
    t = p - PIECE_TYPES * c
    wiki_sq = (sq ^ 56) if c == 0 else sq
    _trace_pair(trace, O_MATERIAL_MG + t, O_MATERIAL_EG + t, 1 - 2 * c)
    _trace_pair(trace, O_PST_MG + 64 * t + wiki_sq, O_PST_EG + 64 * t + wiki_sq, 1 - 2 * c)


@njit(cache=True, nogil=True)
def _trace_mobility(trace, t, n, sign):
    """Coefficient of the mobility entry of piece type ``t`` (N..Q) with ``n`` safe squares."""
    k = (t - KNIGHT) * MOB_MAX + n
    _trace_pair(trace, O_MOBILITY_MG + k, O_MOBILITY_EG + k, sign)


@njit(cache=True, nogil=True)
def _terms(st, ply, trace):
    """All terms of row ``ply``, white-minus-black: (phase, pst mg, pst eg, mobility mg, eg,
    pawns mg, eg, king mg, eg, bishop pair mg, eg, rooks mg, eg, tempo mg, eg), int64.

    ``trace``: None, or int64[N_WEIGHTS] to which each term adds its white-minus-black
    coefficients (see :func:`evaluate_traced`)."""
    wp = st[ply, WHITE_PAWN]
    bp = st[ply, BLACK_PAWN]
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
            if trace is not None:
                _trace_piece(trace, p, sq)
            b &= b - U1

    phase = game_phase(st, ply)

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
        base = piece_of(c, PAWN)                 # column of type t: base + t
        own = st[ply, OCC + c]
        own_p = st[ply, base]
        enemy_p = st[ply, piece_of(them, PAWN)]
        if c == 0:
            area = ~(own | b_patt)
        else:
            area = ~(own | w_patt)
        ezone = KING_ZONE[lsb(st[ply, piece_of(them, KING)])]
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
            if trace is not None:
                _trace_mobility(trace, 1, n, sign)
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
            if trace is not None:
                _trace_mobility(trace, 2, n, sign)
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
            if trace is not None:
                _trace_mobility(trace, 3, n, sign)
            z = a & ezone
            if z:
                n_att += 1
                units += _KS_UNIT[3] * popcount(z)
            fm = FILE_MASKS[sq & 7]
            if (all_pawns & fm) == U0:
                r_mg += ROOK_OPEN_MG
                r_eg += ROOK_OPEN_EG
                if trace is not None:
                    _trace_pair(trace, O_ROOK_OPEN_MG, O_ROOK_OPEN_EG, sign)
            elif (own_p & fm) == U0:
                r_mg += ROOK_SEMIOPEN_MG
                r_eg += ROOK_SEMIOPEN_EG
                if trace is not None:
                    _trace_pair(trace, O_ROOK_SEMIOPEN_MG, O_ROOK_SEMIOPEN_EG, sign)
        # queens
        b = st[ply, base + 4]
        while b:
            sq = lsb(b)
            b &= b - U1
            a = rook_attacks(sq, occ) | bishop_attacks(sq, occ)
            n = popcount(a & area)
            m_mg += MOB_MG[4, n]
            m_eg += MOB_EG[4, n]
            if trace is not None:
                _trace_mobility(trace, 4, n, sign)
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
                p_mg += _DOUBLED_MG[sq & 7]
                p_eg += _DOUBLED_EG[sq & 7]
                if trace is not None:
                    _trace_pair(trace, O_DOUBLED_MG + (sq & 7), O_DOUBLED_EG + (sq & 7), sign)
            elif (enemy_p & PASSED_MASKS[c, sq]) == U0:
                rr = (sq >> 3) if c == 0 else 7 - (sq >> 3)
                p_mg += _PASSED_MG[rr]
                p_eg += _PASSED_EG[rr]
                if trace is not None:
                    _trace_pair(trace, O_PASSED_MG + rr, O_PASSED_EG + rr, sign)
            if (own_p & ADJ_FILE_MASKS[sq & 7]) == U0:
                p_mg += _ISOLATED_MG[sq & 7]
                p_eg += _ISOLATED_EG[sq & 7]
                if trace is not None:
                    _trace_pair(trace, O_ISOLATED_MG + (sq & 7), O_ISOLATED_EG + (sq & 7), sign)

        # king danger we inflict on the enemy king, minus our own pawn shield deficit
        if units >= KS_TABLE_LEN:
            units = KS_TABLE_LEN - 1
        if n_att > KS_MAX_ATTACKERS:
            n_att = KS_MAX_ATTACKERS
        k_mg = KING_DANGER[n_att, units]
        ksq = lsb(st[ply, base + 5])
        shield1 = popcount(own_p & SHIELD1_MASKS[c, ksq])
        shield2 = popcount(own_p & SHIELD2_MASKS[c, ksq])
        k_mg += SHIELD1_MG * shield1 + SHIELD2_MG * shield2
        if trace is not None:
            trace[O_KING_DANGER_MG + n_att * KS_TABLE_LEN + units] += sign
            trace[O_SHIELD1_MG] += sign * shield1
            trace[O_SHIELD2_MG] += sign * shield2

        # bishop pair
        if (bish & LIGHT_SQUARES) != U0 and (bish & DARK_SQUARES) != U0:
            bp_mg += sign * BISHOP_PAIR_MG
            bp_eg += sign * BISHOP_PAIR_EG
            if trace is not None:
                _trace_pair(trace, O_BISHOP_PAIR_MG, O_BISHOP_PAIR_EG, sign)

        mob_mg += sign * m_mg
        mob_eg += sign * m_eg
        pawn_mg += sign * p_mg
        pawn_eg += sign * p_eg
        ks_mg += sign * k_mg
        rook_mg += sign * r_mg
        rook_eg += sign * r_eg

    tempo_mg = TEMPO_MG if st[ply, STM] == U0 else -TEMPO_MG
    if trace is not None:
        trace[O_TEMPO_MG] += 1 if st[ply, STM] == U0 else -1
    return (phase, pst_mg, pst_eg, mob_mg, mob_eg, pawn_mg, pawn_eg, ks_mg, 0,
            bp_mg, bp_eg, rook_mg, rook_eg, tempo_mg, 0)


@njit(cache=True, nogil=True)
def _taper(mg, eg, phase, black_to_move):
    """Tapered score (int64) from the side to move's view of white-view totals ``mg``/``eg``."""
    if black_to_move:
        mg = -mg
        eg = -eg
    return (mg * phase + eg * (PHASE_MAX - phase)) // PHASE_MAX


@njit(cache=True, nogil=True, inline="always")
def evaluate_traced(st, ply, trace):
    """Static evaluation (int64 centipawns) of row ``ply`` of ``st`` from the side to move's view,
    tracing its coefficients into ``trace`` unless it is None.

    Tapered PeSTO material/PST (chessprogramming wiki "PeSTO's Evaluation Function") plus
    mobility, pawn structure, king safety, bishop pair, rook files and tempo.

    ``trace``: None (the engine's evaluation: Numba compiles a specialisation without any trace
    code) or int64[N_WEIGHTS], to which every term adds its white-minus-black coefficient at
    its weight's index (:data:`OFFSETS`), Ethereal's ``TRACE``. With ``w`` the weight vector
    (uci_engine.tuning.weights_vector), ``mg``/``eg`` the sums of ``trace * w`` over the
    middlegame/endgame weights (:data:`IS_EG`) of a zeroed trace and ``phase`` =
    :func:`game_phase`, the result equals ``_taper(mg, eg, phase, black to move)`` exactly."""
    t = _terms(st, ply, trace)
    mg = t[1] + t[3] + t[5] + t[7] + t[9] + t[11] + t[13]
    eg = t[2] + t[4] + t[6] + t[8] + t[10] + t[12] + t[14]
    return _taper(mg, eg, t[0], st[ply, STM] != U0)


@njit(cache=True, nogil=True)
def evaluate(st, ply):
    """Static evaluation (int64 centipawns) of row ``ply`` of ``st`` from the side to move's view:
    :func:`evaluate_traced` without a trace (the engine's entry point)."""
    return evaluate_traced(st, ply, None)


@njit(cache=True, nogil=True)
def trace_batch(st, n_rows):
    """Traced coefficients of rows ``0 .. n_rows - 1`` of ``st`` (uint64[N, STATE_LEN]) as CSR
    arrays, for the Texel tuner (scripts/tune_eval.py).

    Returns ``(indptr, indices, values, phases)``: int64[n_rows + 1], int32[nnz], int16[nnz],
    int8[n_rows]; row ``r``'s nonzero coefficients (see :func:`evaluate_traced`) are
    ``values[indptr[r]:indptr[r + 1]]`` at weight indices ``indices[...]`` (ascending), its
    game phase ``phases[r]`` (0..24)."""
    trace = np.zeros(N_WEIGHTS, dtype=np.int64)
    cap = max(n_rows * TYPICAL_ROW_NONZEROS, N_WEIGHTS)
    indices = np.empty(cap, dtype=np.int32)
    values = np.empty(cap, dtype=np.int16)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    phases = np.zeros(n_rows, dtype=np.int8)
    nnz = 0
    for r in range(n_rows):
        evaluate_traced(st, r, trace)
        if nnz + N_WEIGHTS > cap:                  # room for a row whatever its size
            cap = 2 * cap + N_WEIGHTS
            grown_i = np.empty(cap, dtype=np.int32)
            grown_v = np.empty(cap, dtype=np.int16)
            grown_i[:nnz] = indices[:nnz]
            grown_v[:nnz] = values[:nnz]
            indices = grown_i
            values = grown_v
        for k in range(N_WEIGHTS):
            if trace[k] != 0:
                indices[nnz] = k
                values[nnz] = trace[k]
                nnz += 1
                trace[k] = 0
        indptr[r + 1] = nnz
        phases[r] = game_phase(st, r)
    return indptr, indices[:nnz].copy(), values[:nnz].copy(), phases


@njit(cache=True, nogil=True)
def eval_terms(st, ply, out):
    """Fill ``out[N_TERMS, 2]`` (int64 or float64) with the white-minus-black (mg, eg) of each
    term (rows T_PST .. T_TEMPO) and return the game phase (int64, 0..24).

    ``evaluate(st, ply) == eval_total(out, phase, stm)`` for the filled ``out``."""
    t = _terms(st, ply, None)
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
