"""NNUE evaluation kernels: feature indices, an int16 accumulator stack, incremental updates.

Network: ``(768 * K -> H) x 2 -> B`` (chessprogramming wiki "NNUE"; the layout, activations
and quantisation follow bullet's "simple" example network, github.com/jw1912/bullet,
``examples/simple.rs``, the de-facto convention of many engines; K king buckets and B output
buckets as in bullet's ``ChessBucketsMirrored`` and ``MaterialCount`` examples):

* inputs: 768 = colour x piece type x square. Each side sees the board from its own
  perspective ``p`` (0 white, 1 black): a piece of colour ``c``, type ``t`` on ``sq`` is feature
  ``384 * (c != p) + 64 * t + (sq ^ 56 * p)`` (:func:`feature_index`), so "own" pieces come first
  and black's board is mirrored vertically. With king buckets (``LAYOUT_KING_MIRRORED``) the
  perspective's own king square picks one of K blocks of 768 (``768 * bucket + ...``, bucket from
  the net's 64-entry king map) and, while that king stands on files e-h, every square is
  also mirrored a<->h (``sq ^ 7``): :func:`orientation` gives the block and the square flip;
* first layer: ``w_ft`` int16[768 * K, H] (one row of H weights per feature, contiguous) and
  ``b_ft`` int16[H], quantised by QA (255): the accumulator of perspective p is
  ``b_ft + sum(w_ft[f] for the active features f of p)``, kept as int16[H];
* activation: SCReLU ``clamp(x, 0, QA)^2`` or CReLU ``clamp(x, 0, QA)``;
* output: bucket ``b = (pieces - 2) // ceil(32 / B)`` by the number of pieces on the board;
  ``w_out`` int16[2 * B, H] quantised by QB (64); row ``2b`` multiplies the side to move's
  accumulator, row ``2b + 1`` the other side's; bias ``b`` quantised by QA * QB; the result is
  multiplied by the output scale (400) and divided by QA * QB (for SCReLU first by QA once
  more), giving centipawns from the side to move's view.

The kernels take the net as one packed int16[768 * K + 1 + 2 * B, H] array (``Net.packed()``:
``w_ft`` rows, the ``b_ft`` row, the ``w_out`` rows; :func:`bias_row` finds the ``b_ft`` row).

Accumulators live in ``acc``: int16[rows, 2, H], ``acc[a, p]`` = perspective p (white 0, black
1) of the position in accumulator row ``a``. The search is copy-make, so the accumulator is too
(copy-on-make): :func:`nnue_update` writes row ``a + 1`` from row ``a`` and the move just made in
one fused pass (child = parent + added rows - removed rows), never touching row ``a``. Rows of
``acc`` are *search plies* (``row - root_row``), not ``st`` rows, so the stack needs only
MAX_PLY + a few rows (:func:`new_accumulators`).

A king move that changes its own perspective's king bucket (or a<->h mirror) cannot be updated
incrementally; that perspective is rebuilt from a *Finny table* (an idea of Koivisto's, in
Stockfish as ``AccumulatorCaches``, src/nnue/nnue_accumulator.h): one accumulator per
perspective and orientation (king bucket, mirrored or not), with the piece bitboards it holds.
The rebuild adds and subtracts only the pieces that differ between the table entry and the
position, then copies the entry (:func:`nnue_refresh_cached`), instead of adding every piece to
``b_ft`` (:func:`nnue_refresh`, the oracle). The table belongs to one search thread and stays
valid across searches and positions: each entry names the pieces it holds.

Run-time scalars of the loaded net travel in ``params`` int64[PARAMS_LEN] (activation, QA,
QB, scale, output buckets, input layout, output biases, king map; ``Net.params``), because the
user can load another net (``EvalFile``): weights are arguments, never module globals that
Numba would freeze into compiled code.

Inner loops run over contiguous int16 rows so LLVM vectorises them (vpaddw/vpsubw for the
updates; vpmaxsw/vpminsw clamps, vpmullw and vpmaddwd pair products summed in int32 lanes for
the output; see scripts/bench_nnue.py --asm).
"""
import numpy as np
from numba import njit

from .bitboard import U1, lsb, popcount, NO_PIECE
from .position import (STM, MAX_PLY, CASTLE_KING_TO, CASTLE_ROOK_TO, FLAG_EP, FLAG_CASTLE,
                       FLAG_PROMO, PIECE_TYPES, KING, ROOK, PAWN, KNIGHT, move_from, move_to,
                       move_flag, OCC_ALL)

from .nnue_consts import (N_FEATURES, COLOUR_STRIDE, SQ_FLIP, FILE_FLIP,  # noqa: F401
                          MAX_ACTIVE, ACT_CRELU, ACT_SCRELU, QA, QB, OUTPUT_SCALE, P_ACT, P_QA,
                          P_QB, P_SCALE, P_OUT_BUCKETS, P_LAYOUT, P_BIASES, P_KING_MAP,
                          PARAMS_LEN, PACKED_ROWS, LAYOUT_PLAIN, LAYOUT_KING_MIRRORED,
                          ALL_PIECES)

ACC_ROWS = MAX_PLY + 8          # accumulator rows a search needs (plies 0 .. MAX_PLY + margin)


def new_accumulators(hidden, rows=ACC_ROWS):
    """A zeroed accumulator stack: int16[rows, 2, hidden] (rows = search plies)."""
    return np.zeros((rows, 2, hidden), dtype=np.int16)


def king_buckets_of(net):
    """Number of king buckets K (int) of the packed ``net`` int16[768 * K + 1 + 2 * B, H] whose
    params give B (:data:`P_OUT_BUCKETS`); ``net.shape[0] - 1`` is ``768 * K + 2 * B`` and
    ``2 * B <= 16 < 768``."""
    return (net.shape[0] - 1) // N_FEATURES


def new_finny_table(net):
    """An empty Finny table for the packed ``net`` int16[768 * K + 1 + 2 * B, H]: ``(cache,
    pieces)`` with ``cache`` int16[2 * K, 2, H], every entry the ``b_ft`` row (the accumulator
    of an empty board), and ``pieces`` uint64[2 * K, 2, 12], all zero (no piece). Entry ``2 *
    bucket + mirrored`` of perspective ``p`` is ``cache[e, p]`` with the bitboards
    ``pieces[e, p]`` (:func:`finny_entry`, :func:`nnue_refresh_cached`)."""
    k = king_buckets_of(net)
    h = net.shape[1]
    cache = np.empty((2 * k, 2, h), dtype=np.int16)
    cache[:, :] = net[N_FEATURES * k]            # the b_ft row follows the k feature blocks
    return cache, np.zeros((2 * k, 2, PIECE_TYPES * 2), dtype=np.uint64)


#: ``pending[a]`` of a row whose accumulator is up to date (no move waits to be applied)
ACC_CLEAN = -1


def new_pending(rows=ACC_ROWS):
    """The lazy-update marks of an accumulator stack: int64[rows], all :data:`ACC_CLEAN`.
    ``pending[a]`` is the move (or NULL_MOVE) that leads from row ``a - 1`` to row ``a`` while
    row ``a`` is not yet computed (:func:`uci_engine.kernels.static_eval.nnue_materialize`)."""
    return np.full(rows, ACC_CLEAN, dtype=np.int64)


def new_search_accumulators(net, rows=ACC_ROWS):
    """What one search thread's NNUE needs for the packed ``net`` (int16[768 * K + 1 + 2 * B,
    H]): the tuple ``(stack, cache, pieces, pending)`` of the accumulator stack
    (:func:`new_accumulators`, ``rows`` plies), an empty Finny table (:func:`new_finny_table`)
    and the stack's lazy-update marks (:func:`new_pending`). This tuple is the ``acc`` argument
    of the NNUE search."""
    return ((new_accumulators(net.shape[1], rows),) + new_finny_table(net)
            + (new_pending(rows),))


@njit(cache=True, nogil=True, inline="always")
def feature_index(persp, piece, sq):
    """Input index (int64, 0..767) of ``piece`` (colour * 6 + type, 0..11) on ``sq`` (0..63)
    seen from perspective ``persp`` (0 white, 1 black) in the plain layout: ``384 * (colour !=
    persp) + 64 * type + (sq ^ 56 * persp)``. For white this is ``64 * piece + sq``; for black
    the colours swap and the board is mirrored. :func:`oriented_index` is the general form."""
    if persp == 0:
        return piece * 64 + sq
    rel = piece + PIECE_TYPES if piece < PIECE_TYPES else piece - PIECE_TYPES
    return rel * 64 + (sq ^ SQ_FLIP)


@njit(cache=True, nogil=True, inline="always")
def oriented_index(persp, piece, sq, base, flip):
    """Input index (int64) of ``piece`` on ``sq`` from perspective ``persp`` whose
    :func:`orientation` is ``(base, flip)``: ``base + 384 * (colour != persp) + 64 * type +
    (sq ^ flip)``."""
    rel = piece
    if persp != 0:
        rel = piece + PIECE_TYPES if piece < PIECE_TYPES else piece - PIECE_TYPES
    return base + rel * 64 + (sq ^ flip)


@njit(cache=True, nogil=True, inline="always")
def orientation(st, ply, persp, params):
    """``(base, flip)`` (int64, int64) of perspective ``persp`` in st row ``ply``: feature rows
    start at ``base`` (768 * king bucket) and squares are XORed with ``flip`` (56 for black's
    vertical mirror, plus 7 for the a<->h mirror while the own king stands on files e-h). The
    plain layout gives ``(0, 56 * persp)``."""
    flip = np.int64(SQ_FLIP) * persp
    if params[P_LAYOUT] == LAYOUT_PLAIN:
        return np.int64(0), flip
    ksq = lsb(st[ply, persp * PIECE_TYPES + KING]) ^ flip
    if (ksq & 7) >= 4:
        flip ^= FILE_FLIP
    return params[P_KING_MAP + ksq] * N_FEATURES, flip


@njit(cache=True, nogil=True, inline="always")
def bias_row(net, params):
    """Row (int64) of ``b_ft`` in the packed ``net``; the output rows follow it."""
    return np.int64(net.shape[0]) - 1 - 2 * params[P_OUT_BUCKETS]


@njit(cache=True, nogil=True)
def active_features(st, ply, persp, out):
    """Write the active input indices of row ``ply`` seen from ``persp`` into ``out`` (int64 or
    int16 array of at least 32 entries, pieces in bitboard order) in the plain layout; return
    their count (int64)."""
    n = 0
    for p in range(12):
        b = st[ply, p]
        while b:
            out[n] = feature_index(persp, p, lsb(b))
            n += 1
            b &= b - U1
    return n


@njit(cache=True, nogil=True)
def nnue_refresh_persp(st, ply, net, acc, aply, persp, params):
    """Perspective ``persp`` of accumulator row ``aply`` from scratch: ``b_ft`` plus the
    ``w_ft`` rows of the pieces of st row ``ply`` in that perspective's :func:`orientation`."""
    h = net.shape[1]
    b_row = bias_row(net, params)
    base, flip = orientation(st, ply, persp, params)
    for i in range(h):
        acc[aply, persp, i] = net[b_row, i]
    for p in range(12):
        b = st[ply, p]
        while b:
            f = oriented_index(persp, p, lsb(b), base, flip)
            b &= b - U1
            for i in range(h):
                acc[aply, persp, i] += net[f, i]


@njit(cache=True, nogil=True, inline="always")
def finny_entry(base, flip):
    """Finny table entry (int64) of the orientation ``(base, flip)`` (:func:`orientation`):
    ``2 * bucket + mirrored``, with ``bucket = base // 768`` and mirrored when ``flip``
    holds the a<->h flip (7)."""
    return base // N_FEATURES * 2 + ((flip & FILE_FLIP) != 0)


@njit(cache=True, nogil=True, _nrt=False)
def nnue_refresh_cached(st, ply, net, acc, aply, persp, params, cache, pieces):
    """Perspective ``persp`` of accumulator row ``aply`` for st row ``ply`` from the Finny table
    ``(cache, pieces)`` (:func:`new_finny_table`): the entry of the perspective's
    :func:`orientation` gets the ``w_ft`` rows of the pieces the position has and the entry lacks,
    loses those of the pieces it has and the position lacks, takes the position's bitboards,
    and is copied into ``acc``. Equal to :func:`nnue_refresh_persp` (int16 sums wrap the same
    in any order); the cost is the pieces that changed since the entry was last used, not all
    of them."""
    h = net.shape[1]
    base, flip = orientation(st, ply, persp, params)
    e = finny_entry(base, flip)
    for p in range(12):
        now = st[ply, p]
        was = pieces[e, persp, p]
        b = now & ~was
        while b:
            f = oriented_index(persp, p, lsb(b), base, flip)
            b &= b - U1
            for i in range(h):
                cache[e, persp, i] += net[f, i]
        b = was & ~now
        while b:
            f = oriented_index(persp, p, lsb(b), base, flip)
            b &= b - U1
            for i in range(h):
                cache[e, persp, i] -= net[f, i]
        pieces[e, persp, p] = now
    for i in range(h):
        acc[aply, persp, i] = cache[e, persp, i]


@njit(cache=True, nogil=True)
def nnue_refresh(st, ply, net, acc, aply, params):
    """Full refresh of accumulator row ``aply`` (both perspectives) for st row ``ply``: ``b_ft +
    sum of the w_ft rows of its pieces``. ``net`` the packed int16[768 * K + 1 + 2 * B, H],
    ``acc`` int16[rows, 2, H], ``params`` int64[PARAMS_LEN]. The oracle for
    :func:`nnue_update`; the search calls it at the root."""
    for persp in range(2):
        nnue_refresh_persp(st, ply, net, acc, aply, persp, params)


@njit(cache=True, nogil=True)
def nnue_update(st, mb, ply, m, acc, aply, net, params, cache, pieces):
    """Write accumulator row ``aply + 1`` (the position after move ``m``) from row ``aply`` (the
    position in st row ``ply``) by adding and subtracting ``w_ft`` rows: quiet move 1 add + 1
    sub per perspective, capture and en passant 1 add + 2 sub, castling 2 add + 2 sub (Chess960
    aware: a king or rook that stays put cancels out), promotion adds the new piece. A king
    move that changes its own perspective's :func:`orientation` (king bucket or a<->h mirror)
    rebuilds that perspective for st row ``ply + 1`` instead (Stockfish's and bullet's rule),
    from the Finny table ``(cache, pieces)`` (:func:`nnue_refresh_cached`).

    Call it right after ``make_move(st, mb, ply, m)``: it reads the pre-move mailbox
    ``mb[ply]``, side to move ``st[ply, STM]`` and, for a king move with king buckets, st row
    ``ply + 1``. Row ``aply`` is left unchanged (copy-on-make; chessprogramming wiki "NNUE",
    incremental updates). ``acc`` int16[rows, 2, H], ``net`` the packed weights (only feature
    rows are read), ``params`` int64[PARAMS_LEN], ``cache`` int16[2 * K, 2, H] and ``pieces``
    uint64[2 * K, 2, 12] the thread's Finny table (:func:`new_finny_table`), written on a
    rebuild."""
    # The add/sub loops are written out here rather than in inline helpers taking arrays:
    # Numba's IR inlining of array arguments leaves NRT incref/decref (atomic) calls in the
    # body, which cost more than the loops at H = 128.
    us = np.int64(st[ply, STM])
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    p = np.int64(mb[ply, frm])
    n = aply + 1
    h = net.shape[1]
    # the mover's perspective is rebuilt when its king move (castling too) changes that
    # perspective's orientation; the other perspective, and every other move, is incremental
    rebuilt = np.int64(-1)
    if p == us * PIECE_TYPES + KING and params[P_LAYOUT] != LAYOUT_PLAIN:
        base, flip = orientation(st, ply, us, params)
        nbase, nflip = orientation(st, ply + 1, us, params)
        if nbase != base or nflip != flip:
            nnue_refresh_cached(st, ply + 1, net, acc, n, us, params, cache, pieces)
            rebuilt = us
    if flag == FLAG_CASTLE:
        r = us * 2 + (0 if to > frm else 1)
        kp = us * PIECE_TYPES + KING
        rp = us * PIECE_TYPES + ROOK
        kto = CASTLE_KING_TO[r]
        rto = CASTLE_ROOK_TO[r]
        for persp in range(2):
            if persp == rebuilt:
                continue
            base, flip = orientation(st, ply, persp, params)
            a1 = oriented_index(persp, kp, kto, base, flip)
            a2 = oriented_index(persp, rp, rto, base, flip)
            s1 = oriented_index(persp, kp, frm, base, flip)
            s2 = oriented_index(persp, rp, to, base, flip)
            for i in range(h):
                acc[n, persp, i] = (acc[aply, persp, i] + net[a1, i] + net[a2, i]
                                    - net[s1, i] - net[s2, i])
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
        if persp == rebuilt:
            continue
        base, flip = orientation(st, ply, persp, params)
        a1 = oriented_index(persp, added, to, base, flip)
        s1 = oriented_index(persp, p, frm, base, flip)
        if captured == NO_PIECE:
            for i in range(h):
                acc[n, persp, i] = acc[aply, persp, i] + net[a1, i] - net[s1, i]
        else:
            s2 = oriented_index(persp, captured, capsq, base, flip)
            for i in range(h):
                acc[n, persp, i] = acc[aply, persp, i] + net[a1, i] - net[s1, i] - net[s2, i]


@njit(cache=True, nogil=True)
def nnue_copy(acc, aply):
    """Accumulator row ``aply + 1`` = row ``aply`` (after a null move: the pieces stay, only
    the side to move changes, which :func:`nnue_evaluate` reads from ``st``)."""
    for persp in range(2):
        for i in range(acc.shape[2]):
            acc[aply + 1, persp, i] = acc[aply, persp, i]


@njit(cache=True, nogil=True, inline="always")
def output_bucket(st, ply, params):
    """Output bucket (int64, 0..B-1) of st row ``ply``: ``(pieces - 2) // ceil(32 / B)``
    (bullet's ``MaterialCount``), 0 for a net with one output."""
    nb = params[P_OUT_BUCKETS]
    if nb == 1:
        return np.int64(0)
    b = (popcount(st[ply, OCC_ALL]) - 2) // ((ALL_PIECES + nb - 1) // nb)
    return min(max(b, np.int64(0)), nb - 1)


@njit(cache=True, nogil=True)
def nnue_evaluate(st, ply, acc, aply, net, params):
    """Evaluation (int64 centipawns, side to move's view) of st row ``ply`` from accumulator
    row ``aply``: the side to move's accumulator meets output row ``2b``, the other's row
    ``2b + 1`` of the position's :func:`output_bucket` ``b``.

    ``net`` the packed weights (the output rows follow the ``b_ft`` row, :func:`bias_row`);
    ``params`` int64[PARAMS_LEN] (activation ACT_SCRELU or ACT_CRELU, QA, QB, scale, output
    buckets, output biases). SCReLU: ``((sum clamp(x,0,QA)^2 w) // QA + bias) * scale //
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
    h = net.shape[1]
    bucket = output_bucket(st, ply, params)
    first = bias_row(net, params) + 1 + 2 * bucket
    total = np.int64(0)
    for row in range(2):
        persp = stm if row == 0 else 1 - stm
        w = first + row
        s = np.int32(0)
        if params[P_ACT] == ACT_SCRELU:
            for i in range(h):
                x = acc[aply, persp, i]
                v = x if x > z else z
                v = v if v < q else q
                t = np.int16(v * net[w, i])
                s = np.int32(s + np.int32(t) * np.int32(v))
        else:
            for i in range(h):
                x = acc[aply, persp, i]
                v = x if x > z else z
                v = v if v < q else q
                s = np.int32(s + np.int32(v) * np.int32(net[w, i]))
        total += np.int64(s)
    if params[P_ACT] == ACT_SCRELU:
        total //= qa
    return (total + params[P_BIASES + bucket]) * params[P_SCALE] // (qa * params[P_QB])
