"""Linear form of the evaluation: the weight vector layout and a compiled coefficient extractor.

Every number :mod:`uci_engine.kernels.evaluate` adds up lives in the generated module
:mod:`uci_engine.kernels.eval_weights`; flattened in the order of :data:`WEIGHT_SPEC` they form the
weight vector ``w`` (int64[N_WEIGHTS], centipawns). :func:`eval_coeffs` gives, for one position,
the sparse white-view coefficient vector ``c`` (integer counts, white minus black) with

    mg = sum(c[i] * w[i] for middlegame weights i),  eg = the same over endgame weights,
    evaluate(st, ply) == taper(mg, eg, phase, stm)    (exactly, integer arithmetic)

where ``taper`` is evaluate.py's floor taper ``(mg * phase + eg * (24 - phase)) // 24`` after
negating both for black to move. This is the linearisation Texel's tuning method needs
(chessprogramming wiki "Texel's Tuning Method"); see scripts/tune_eval.py.

Which terms are linear, and how:

* material, piece-square tables, mobility, pawn structure (doubled/isolated by file, passed by
  relative rank), pawn shield, bishop pair, rook open/semi-open file, tempo: linear as written
  (each weight is multiplied by a count of pieces/pawns/squares);
* mobility: a table by piece type and safe-square count whose entries are the weights (a linear
  reformulation of the former ``weight * (count - base)``);
* king danger: ``(table[units] * scale[attackers]) >> 7`` is not linear in its two tables, so the
  weights are the entries of the product table ``KING_DANGER_MG[attackers][units]`` indexed
  directly (a linear reformulation: the coefficient is a one-hot +-1 per side). The attack units
  per attacker type (``KS_UNIT`` in evaluate.py) and the game-phase weights are structural and
  stay fixed (they choose an index, they are not multiplied).

Nothing is a surrogate: the identity above is exact for every legal position.
"""
import numpy as np

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
    ("MOBILITY_MG", (4, 29), MG), ("MOBILITY_EG", (4, 29), EG),
    ("DOUBLED_MG", (8,), MG), ("DOUBLED_EG", (8,), EG),
    ("ISOLATED_MG", (8,), MG), ("ISOLATED_EG", (8,), EG),
    ("PASSED_MG", (8,), MG), ("PASSED_EG", (8,), EG),
    ("KING_DANGER_MG", (8, 64), MG),
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


#: dict name -> first index in the weight vector; total length.
OFFSETS, N_WEIGHTS = _layout()
#: bool[N_WEIGHTS]: True for endgame weights, False for middlegame ones.
IS_EG = np.zeros(N_WEIGHTS, dtype=np.bool_)
for _name, _shape, _phase in WEIGHT_SPEC:
    IS_EG[OFFSETS[_name]:OFFSETS[_name] + int(np.prod(_shape, dtype=np.int64))] = _phase == EG

# ---------------------------------------------------------------------------------------------
# Compiled extractor. Imports below the layout so plain-Python users of WEIGHT_SPEC see it first.
# ---------------------------------------------------------------------------------------------
from numba import njit  # noqa: E402

from .attacks import KNIGHT_ATTACKS, bishop_attacks, rook_attacks  # noqa: E402
from .bitboard import U0, U1, NOT_FILE_A, NOT_FILE_H, PAWN, KING, lsb, popcount  # noqa: E402
from .evaluate import (ADJ_FILE_MASKS, DARK_SQUARES, FILE_MASKS, FRONT_SPAN,  # noqa: E402
                       KING_ZONE, KS_MAX_ATTACKERS, KS_TABLE_LEN, KS_UNIT, LIGHT_SQUARES,
                       MOB_MAX, PASSED_MASKS, SHIELD1_MASKS, SHIELD2_MASKS, game_phase)
from .position import (OCC, OCC_ALL, STM, WHITE_PAWN, BLACK_PAWN,  # noqa: E402
                       piece_of)

O_MATERIAL_MG = OFFSETS["MATERIAL_MG"]
O_MATERIAL_EG = OFFSETS["MATERIAL_EG"]
O_PST_MG = OFFSETS["PST_MG"]
O_PST_EG = OFFSETS["PST_EG"]
O_MOBILITY_MG = OFFSETS["MOBILITY_MG"]
O_MOBILITY_EG = OFFSETS["MOBILITY_EG"]
O_DOUBLED_MG = OFFSETS["DOUBLED_MG"]
O_DOUBLED_EG = OFFSETS["DOUBLED_EG"]
O_ISOLATED_MG = OFFSETS["ISOLATED_MG"]
O_ISOLATED_EG = OFFSETS["ISOLATED_EG"]
O_PASSED_MG = OFFSETS["PASSED_MG"]
O_PASSED_EG = OFFSETS["PASSED_EG"]
O_KING_DANGER_MG = OFFSETS["KING_DANGER_MG"]
O_SHIELD1_MG = OFFSETS["SHIELD1_MG"]
O_SHIELD2_MG = OFFSETS["SHIELD2_MG"]
O_BISHOP_PAIR_MG = OFFSETS["BISHOP_PAIR_MG"]
O_BISHOP_PAIR_EG = OFFSETS["BISHOP_PAIR_EG"]
O_ROOK_OPEN_MG = OFFSETS["ROOK_OPEN_MG"]
O_ROOK_OPEN_EG = OFFSETS["ROOK_OPEN_EG"]
O_ROOK_SEMIOPEN_MG = OFFSETS["ROOK_SEMIOPEN_MG"]
O_ROOK_SEMIOPEN_EG = OFFSETS["ROOK_SEMIOPEN_EG"]
O_TEMPO_MG = OFFSETS["TEMPO_MG"]

#: Capacity of the per-position scratch lists: more than the additions one legal position makes
#: (4 per piece for material + PST, 2 per N/B/R/Q for mobility, up to 6 per pawn, ~20 others).
MAX_COEFFS = 1024

_KS_UNIT = np.array(KS_UNIT, dtype=np.int64)
_S7 = np.uint64(7)
_S9 = np.uint64(9)


@njit(cache=True, nogil=True)
def _add(acc, touched, nt, k, v):
    acc[k] += v
    touched[nt] = k
    return nt + 1


@njit(cache=True, nogil=True)
def new_scratch():
    """Scratch arrays for :func:`eval_coeffs`: ``acc`` int64[N_WEIGHTS] (all zero) and
    ``touched`` int64[MAX_COEFFS]."""
    return np.zeros(N_WEIGHTS, dtype=np.int64), np.zeros(MAX_COEFFS, dtype=np.int64)


@njit(cache=True, nogil=True)
def eval_coeffs(st, ply, acc, touched, idx, val):
    """Sparse white-view coefficients of row ``ply`` of ``st`` (uint64[N, STATE_LEN]).

    Writes weight indices into ``idx`` and their integer coefficients (white minus black
    counts) into ``val`` (int64[MAX_COEFFS] each, in order of first use, zero coefficients
    dropped) and returns ``(n, phase)``: the number written and the game phase (0..24, int64).
    ``acc``/``touched`` come from :func:`new_scratch` and are left as found (``acc`` zero).

    With ``w`` the weight vector and ``mg``/``eg`` the sums of ``val * w[idx]`` over the middle-
    and endgame weights (:data:`IS_EG`), ``evaluate(st, ply) == _taper(mg, eg, phase, stm)``
    exactly. Mirrors ``evaluate._terms`` term by term; tests/test_eval_coeffs.py checks the
    identity."""
    nt = 0
    wp = st[ply, WHITE_PAWN]
    bp = st[ply, BLACK_PAWN]
    all_pawns = wp | bp
    occ = st[ply, OCC_ALL]
    w_patt = ((wp << _S9) & NOT_FILE_A) | ((wp << _S7) & NOT_FILE_H)
    b_patt = ((bp >> _S7) & NOT_FILE_A) | ((bp >> _S9) & NOT_FILE_H)

    # material + piece-square tables (wiki layout: white reads sq ^ 56, black sq)
    for p in range(12):
        c = p // 6
        t = p - 6 * c
        sign = 1 - 2 * c
        b = st[ply, p]
        while b:
            sq = lsb(b)
            b &= b - U1
            wsq = (sq ^ 56) if c == 0 else sq
            nt = _add(acc, touched, nt, O_MATERIAL_MG + t, sign)
            nt = _add(acc, touched, nt, O_MATERIAL_EG + t, sign)
            nt = _add(acc, touched, nt, O_PST_MG + t * 64 + wsq, sign)
            nt = _add(acc, touched, nt, O_PST_EG + t * 64 + wsq, sign)

    phase = game_phase(st, ply)

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
        for t in range(1, 5):
            b = st[ply, base + t]
            while b:
                sq = lsb(b)
                b &= b - U1
                if t == 1:
                    a = KNIGHT_ATTACKS[sq]
                elif t == 2:
                    a = bishop_attacks(sq, occ)
                elif t == 3:
                    a = rook_attacks(sq, occ)
                else:
                    a = rook_attacks(sq, occ) | bishop_attacks(sq, occ)
                n = popcount(a & area)
                nt = _add(acc, touched, nt, O_MOBILITY_MG + (t - 1) * MOB_MAX + n, sign)
                nt = _add(acc, touched, nt, O_MOBILITY_EG + (t - 1) * MOB_MAX + n, sign)
                z = a & ezone
                if z:
                    n_att += 1
                    units += _KS_UNIT[t] * popcount(z)
                if t == 3:
                    fm = FILE_MASKS[sq & 7]
                    if (all_pawns & fm) == U0:
                        nt = _add(acc, touched, nt, O_ROOK_OPEN_MG, sign)
                        nt = _add(acc, touched, nt, O_ROOK_OPEN_EG, sign)
                    elif (own_p & fm) == U0:
                        nt = _add(acc, touched, nt, O_ROOK_SEMIOPEN_MG, sign)
                        nt = _add(acc, touched, nt, O_ROOK_SEMIOPEN_EG, sign)

        # pawn structure
        b = own_p
        while b:
            sq = lsb(b)
            b &= b - U1
            f = sq & 7
            if own_p & FRONT_SPAN[c, sq]:
                nt = _add(acc, touched, nt, O_DOUBLED_MG + f, sign)
                nt = _add(acc, touched, nt, O_DOUBLED_EG + f, sign)
            elif (enemy_p & PASSED_MASKS[c, sq]) == U0:
                rr = (sq >> 3) if c == 0 else 7 - (sq >> 3)
                nt = _add(acc, touched, nt, O_PASSED_MG + rr, sign)
                nt = _add(acc, touched, nt, O_PASSED_EG + rr, sign)
            if (own_p & ADJ_FILE_MASKS[f]) == U0:
                nt = _add(acc, touched, nt, O_ISOLATED_MG + f, sign)
                nt = _add(acc, touched, nt, O_ISOLATED_EG + f, sign)

        # king danger inflicted on the enemy king (one-hot table entry), own pawn shield
        if units >= KS_TABLE_LEN:
            units = KS_TABLE_LEN - 1
        if n_att > KS_MAX_ATTACKERS:
            n_att = KS_MAX_ATTACKERS
        nt = _add(acc, touched, nt, O_KING_DANGER_MG + n_att * KS_TABLE_LEN + units, sign)
        ksq = lsb(st[ply, base + 5])
        s1 = popcount(own_p & SHIELD1_MASKS[c, ksq])
        s2 = popcount(own_p & SHIELD2_MASKS[c, ksq])
        if s1:
            nt = _add(acc, touched, nt, O_SHIELD1_MG, sign * s1)
        if s2:
            nt = _add(acc, touched, nt, O_SHIELD2_MG, sign * s2)

        bish = st[ply, base + 2]
        if (bish & LIGHT_SQUARES) != U0 and (bish & DARK_SQUARES) != U0:
            nt = _add(acc, touched, nt, O_BISHOP_PAIR_MG, sign)
            nt = _add(acc, touched, nt, O_BISHOP_PAIR_EG, sign)

    nt = _add(acc, touched, nt, O_TEMPO_MG, 1 if st[ply, STM] == U0 else -1)

    n = 0
    for i in range(nt):
        k = touched[i]
        v = acc[k]
        if v != 0:
            idx[n] = k
            val[n] = v
            n += 1
            acc[k] = 0
    return n, phase


@njit(cache=True, nogil=True)
def coeffs_batch(st, n_rows):
    """Coefficients of rows ``0 .. n_rows - 1`` of ``st`` as CSR arrays.

    Returns ``(indptr, indices, values, phases)``: int64[n_rows + 1], int32[nnz], int16[nnz],
    int8[n_rows]; row ``r``'s coefficients are ``indices/values[indptr[r]:indptr[r + 1]]``
    (see :func:`eval_coeffs`)."""
    acc, touched = new_scratch()
    idx = np.zeros(MAX_COEFFS, dtype=np.int64)
    val = np.zeros(MAX_COEFFS, dtype=np.int64)
    cap = max(n_rows * 128, MAX_COEFFS)
    indices = np.empty(cap, dtype=np.int32)
    values = np.empty(cap, dtype=np.int16)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    phases = np.zeros(n_rows, dtype=np.int8)
    nnz = 0
    for r in range(n_rows):
        n, phase = eval_coeffs(st, r, acc, touched, idx, val)
        if nnz + n > cap:
            cap = 2 * cap + n
            grown_i = np.empty(cap, dtype=np.int32)
            grown_v = np.empty(cap, dtype=np.int16)
            grown_i[:nnz] = indices[:nnz]
            grown_v[:nnz] = values[:nnz]
            indices = grown_i
            values = grown_v
        for j in range(n):
            indices[nnz + j] = idx[j]
            values[nnz + j] = val[j]
        nnz += n
        indptr[r + 1] = nnz
        phases[r] = phase
    return indptr, indices[:nnz].copy(), values[:nnz].copy(), phases
