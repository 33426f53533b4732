"""NNUE evaluation kernels: feature indices, an int16 accumulator stack, incremental updates.

Network: ``(768 -> H) x 2 -> 1`` (chessprogramming wiki "NNUE"; the layout, activations and
quantisation follow bullet's "simple" example network, github.com/jw1912/bullet,
``examples/simple.rs``, the de-facto convention of many engines):

* inputs: 768 = colour x piece type x square. Each side sees the board from its own
  perspective ``p`` (0 white, 1 black): a piece of colour ``c``, type ``t`` on ``sq`` is feature
  ``384 * (c != p) + 64 * t + (sq ^ 56 * p)`` (:func:`feature_index`), so "own" pieces come first
  and black's board is mirrored vertically;
* first layer: ``w_ft`` int16[768, H] (one row of H weights per feature, contiguous) and ``b_ft``
  int16[H], quantised by QA (255): the accumulator of perspective p is
  ``b_ft + sum(w_ft[f] for the active features f of p)``, kept as int16[H];
* activation: SCReLU ``clamp(x, 0, QA)^2`` or CReLU ``clamp(x, 0, QA)``;
* output: ``w_out`` int16[2, H] quantised by QB (64); row 0 multiplies the side to move's
  accumulator, row 1 the other side's; bias quantised by QA * QB; the result is multiplied by
  the output scale (400) and divided by QA * QB (for SCReLU first by QA once more), giving
  centipawns from the side to move's view.

Accumulators live in ``acc``: int16[rows, 2, H], ``acc[a, p]`` = perspective p (white 0, black
1) of the position in accumulator row ``a``. The search is copy-make, so the accumulator is too
(copy-on-make): :func:`nnue_update` writes row ``a + 1`` from row ``a`` and the move just made in
one fused pass (child = parent + added rows - removed rows), never touching row ``a``. Rows of
``acc`` are *search plies* (``row - root_row``), not ``st`` rows, so the stack needs only
MAX_PLY + a few rows (:func:`new_accumulators`).

Run-time scalars of the loaded net travel in ``params`` int64[PARAMS_LEN] (output bias,
activation, QA, QB, scale), because the user can load another net (``EvalFile``): weights are
arguments, never module globals that Numba would freeze into compiled code.

Inner loops run over contiguous int16 rows so LLVM vectorises them (vpaddw/vpsubw for the
updates; vpmaxsw/vpminsw clamps, vpmullw and vpmaddwd pair products summed in int32 lanes for
the output; see scripts/bench_nnue.py --asm).
"""
import numpy as np
from numba import njit

from .bitboard import U1, lsb, NO_PIECE
from .position import (STM, MAX_PLY, CASTLE_KING_TO, CASTLE_ROOK_TO, FLAG_EP, FLAG_CASTLE,
                       FLAG_PROMO, PIECE_TYPES, KING, ROOK, PAWN, KNIGHT, move_from, move_to,
                       move_flag)

from .nnue_consts import (N_FEATURES, COLOUR_STRIDE, SQ_FLIP, MAX_ACTIVE,  # noqa: F401
                          ACT_CRELU, ACT_SCRELU, QA, QB, OUTPUT_SCALE, P_BIAS, P_ACT, P_QA,
                          P_QB, P_SCALE, PARAMS_LEN, ROW_B_FT, ROW_W_OUT, PACKED_ROWS)

ACC_ROWS = MAX_PLY + 8          # accumulator rows a search needs (plies 0 .. MAX_PLY + margin)


def new_accumulators(hidden, rows=ACC_ROWS):
    """A zeroed accumulator stack: int16[rows, 2, hidden] (rows = search plies)."""
    return np.zeros((rows, 2, hidden), dtype=np.int16)


@njit(cache=True, nogil=True, inline="always")
def feature_index(persp, piece, sq):
    """Input index (int64, 0..767) of ``piece`` (colour * 6 + type, 0..11) on ``sq`` (0..63)
    seen from perspective ``persp`` (0 white, 1 black): ``384 * (colour != persp) + 64 * type
    + (sq ^ 56 * persp)``. For white this is ``64 * piece + sq``; for black the colours swap and
    the board is mirrored."""
    if persp == 0:
        return piece * 64 + sq
    rel = piece + PIECE_TYPES if piece < PIECE_TYPES else piece - PIECE_TYPES
    return rel * 64 + (sq ^ SQ_FLIP)


@njit(cache=True, nogil=True)
def active_features(st, ply, persp, out):
    """Write the active input indices of row ``ply`` seen from ``persp`` into ``out`` (int64 or
    int16 array of at least 32 entries, pieces in bitboard order); return their count (int64)."""
    n = 0
    for p in range(12):
        b = st[ply, p]
        while b:
            out[n] = feature_index(persp, p, lsb(b))
            n += 1
            b &= b - U1
    return n


@njit(cache=True, nogil=True)
def nnue_refresh(st, ply, w_ft, b_ft, acc, aply):
    """Full refresh: ``acc[aply, p] = b_ft + sum of w_ft rows of the pieces of st row ply`` for
    both perspectives p. ``w_ft`` int16[768, H], ``b_ft`` int16[H], ``acc`` int16[rows, 2, H].
    The oracle for :func:`nnue_update`; the search calls it once at the root."""
    h = b_ft.shape[0]
    for persp in range(2):
        for i in range(h):
            acc[aply, persp, i] = b_ft[i]
    for p in range(12):
        b = st[ply, p]
        while b:
            sq = lsb(b)
            b &= b - U1
            for persp in range(2):
                f = feature_index(persp, p, sq)
                for i in range(h):
                    acc[aply, persp, i] += w_ft[f, i]


@njit(cache=True, nogil=True)
def nnue_update(st, mb, ply, m, acc, aply, w_ft):
    """Write accumulator row ``aply + 1`` (the position after move ``m``) from row ``aply`` (the
    position in st row ``ply``) by adding and subtracting ``w_ft`` rows: quiet move 1 add + 1
    sub per perspective, capture and en passant 1 add + 2 sub, castling 2 add + 2 sub (Chess960
    aware: a king or rook that stays put cancels out), promotion adds the new piece.

    Call it right after ``make_move(st, mb, ply, m)``: it reads the pre-move mailbox
    ``mb[ply]`` and side to move ``st[ply, STM]`` only (so calling it before make_move works
    too). Row ``aply`` is left unchanged (copy-on-make; chessprogramming wiki "NNUE",
    incremental updates). ``acc`` int16[rows, 2, H], ``w_ft`` int16[768, H] (or the packed
    int16[PACKED_ROWS, H] of ``Net.packed()``: only feature rows are read)."""
    # The add/sub loops are written out here rather than in inline helpers taking arrays:
    # Numba's IR inlining of array arguments leaves NRT incref/decref (atomic) calls in the
    # body, which cost more than the loops at H = 128.
    us = np.int64(st[ply, STM])
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    p = np.int64(mb[ply, frm])
    n = aply + 1
    h = w_ft.shape[1]
    if flag == FLAG_CASTLE:
        r = us * 2 + (0 if to > frm else 1)
        kp = us * PIECE_TYPES + KING
        rp = us * PIECE_TYPES + ROOK
        kto = CASTLE_KING_TO[r]
        rto = CASTLE_ROOK_TO[r]
        for persp in range(2):
            a1 = feature_index(persp, kp, kto)
            a2 = feature_index(persp, rp, rto)
            s1 = feature_index(persp, kp, frm)
            s2 = feature_index(persp, rp, to)
            for i in range(h):
                acc[n, persp, i] = (acc[aply, persp, i] + w_ft[a1, i] + w_ft[a2, i]
                                    - w_ft[s1, i] - w_ft[s2, i])
        return
    added = p
    if flag >= FLAG_PROMO:
        added = us * PIECE_TYPES + flag - FLAG_PROMO + KNIGHT
    if flag == FLAG_EP:
        capsq = to - 8 if us == 0 else to + 8
        captured = (1 - us) * PIECE_TYPES + PAWN
    else:
        capsq = to
        captured = np.int64(mb[ply, to])
    for persp in range(2):
        a1 = feature_index(persp, added, to)
        s1 = feature_index(persp, p, frm)
        if captured == NO_PIECE:
            for i in range(h):
                acc[n, persp, i] = acc[aply, persp, i] + w_ft[a1, i] - w_ft[s1, i]
        else:
            s2 = feature_index(persp, captured, capsq)
            for i in range(h):
                acc[n, persp, i] = acc[aply, persp, i] + w_ft[a1, i] - w_ft[s1, i] - w_ft[s2, i]


@njit(cache=True, nogil=True)
def nnue_copy(acc, aply):
    """Accumulator row ``aply + 1`` = row ``aply`` (after a null move: the pieces stay, only
    the side to move changes, which :func:`nnue_evaluate` reads from ``st``)."""
    for persp in range(2):
        for i in range(acc.shape[2]):
            acc[aply + 1, persp, i] = acc[aply, persp, i]


@njit(cache=True, nogil=True)
def nnue_evaluate(st, ply, acc, aply, w_out, params):
    """Evaluation (int64 centipawns, side to move's view) of st row ``ply`` from accumulator
    row ``aply``: the side to move's accumulator meets ``w_out[0]``, the other's ``w_out[1]``.

    ``w_out`` int16[2, H]; ``params`` int64[PARAMS_LEN] = (output bias, activation ACT_SCRELU
    or ACT_CRELU, QA, QB, scale). SCReLU: ``((sum clamp(x,0,QA)^2 w) // QA + bias) * scale //
    (QA * QB)``; CReLU: ``(sum clamp(x,0,QA) w + bias) * scale // (QA * QB)`` (bullet's
    examples/simple.rs; floor division)."""
    # SCReLU: clamp in int16 (QA <= 32767 is checked at load, so the cast is exact and LLVM
    # keeps 16-bit lanes: vpmaxsw/vpminsw); t = v * w fits int16 as QA * |w| <= 32767 (checked
    # at load); t * v summed in int32 is the int16 x int16 -> int32 pair sum LLVM emits as
    # vpmaddwd (Lizard's SCReLU trick). No int32 overflow: sum_i QA^2 |w_out[row, i]| < 2^31
    # per row is checked at load. Loops inline here: see nnue_update on helpers and NRT.
    stm = np.int64(st[ply, STM])
    qa = params[P_QA]
    q = np.int16(qa)
    z = np.int16(0)
    h = w_out.shape[1]
    total = np.int64(0)
    for row in range(2):
        persp = stm if row == 0 else 1 - stm
        s = np.int32(0)
        if params[P_ACT] == ACT_SCRELU:
            for i in range(h):
                x = acc[aply, persp, i]
                v = x if x > z else z
                v = v if v < q else q
                t = np.int16(v * w_out[row, i])
                s = np.int32(s + np.int32(t) * np.int32(v))
        else:
            for i in range(h):
                x = acc[aply, persp, i]
                v = x if x > z else z
                v = v if v < q else q
                s = np.int32(s + np.int32(v) * np.int32(w_out[row, i]))
        total += np.int64(s)
    if params[P_ACT] == ACT_SCRELU:
        total //= qa
    return (total + params[P_BIAS]) * params[P_SCALE] // (qa * params[P_QB])
