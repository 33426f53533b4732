"""Alpha-beta search kernels: PVS negamax, quiescence, SEE, move ordering, transposition table.

All mutable search state lives in numpy arrays the engine facade owns (no jitclass: cacheable):

* ``st``/``mb``: position rows (see position.py); the game history sits below ``root_row``.
* ``tt``: int64[2 * entries]: pairs (key XOR data, data), four-entry buckets. data packs move
  (bits 0-15), score + 32768 (16-31), static eval + 32768 (32-47), depth + 1 (48-54), bound
  (55-56), age (57-61). Mate scores are stored relative to the node (chessprogramming wiki
  "Transposition Table", "Mate Scores"). Storing the key XOR the data makes the table safe for
  Lazy SMP threads writing without locks: an entry torn by two concurrent writes no longer
  matches its key, so a probe never returns another position's data (Hyatt and Mann's
  lockless hashing, chessprogramming wiki "Shared Hash Table").
* ``heur``: int64[HEUR_LEN] control block and heuristics; offsets below. The UCI thread writes
  ``heur[STOP] = 1`` to stop a search; kernels are ``nogil`` so it is read while they run.
* ``mv``: int32[MAX_PLY + 8, MV_PLANES, 256] per-ply buffers: moves (MV_MOVES), their
  ordering scores (MV_SCORES), the quiet moves and the captures tried so far (MV_QUIETS,
  MV_CAPTURES).

Techniques (chessprogramming wiki pages of the same names): iterative deepening (driven from
Python), principal variation search, a staged move picker (TT move before generation, lazy
SEE), null-move pruning with a zugzwang guard (no null move unless the side to move has a rook,
a queen or two minor pieces), late move reductions (history-adjusted), reverse futility,
razoring, futility, late-move, history and SEE pruning, singular extensions (double and
negative ones, multi-cut; no check extension: in check, quiescence searches every evasion),
mate distance pruning, quiescence with SEE and delta pruning and TT stores, MVV plus capture
history, killer, butterfly and continuation history (with gravity) and countermove ordering, a
pawn-structure correction history of the static eval, repetition / fifty-move /
insufficient-material draws. The static evaluation is the hand-crafted one or an NNUE
(:mod:`.nnue`, copy-on-make accumulators), in two compiled specialisations of ``negamax``
chosen by the type of its ``acc`` argument (see :func:`static_eval`).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .bitboard import (U0, U1, lsb, popcount, NO_PIECE, WHITE, PAWN, KNIGHT, BISHOP, ROOK,
                       QUEEN, KING)
from .attacks import rook_attacks, bishop_attacks, PAWN_ATTACKS, KNIGHT_ATTACKS, KING_ATTACKS
from .position import (OCC, OCC_ALL, KEY, STM, HALFMOVE, LAST_MOVE, NULL_MOVE, CHECKED,
                       CHECK_UNKNOWN, FLAG_EP, FLAG_CASTLE, FLAG_PROMO, PIECE_TYPES,
                       WHITE_PAWN, WHITE_KNIGHT, WHITE_BISHOP, WHITE_ROOK, WHITE_QUEEN,
                       BLACK_PAWN, BLACK_KNIGHT, BLACK_BISHOP, BLACK_ROOK, BLACK_QUEEN,
                       EP, move_from, move_to, move_flag, piece_of, piece_type, piece_colour,
                       promo_type, make_move, make_null_move, attackers_to)
from .movegen import generate_legal, generate_noisy, generate_quiet
from .evaluate import evaluate
from .nnue import nnue_update, nnue_copy, nnue_refresh, nnue_evaluate
from .nnue_consts import ROW_B_FT, ROW_W_OUT
from ..numba_recursion import infer_return_once

MAX_PLY = 128
MATE = 32000
INF = 32500
MATE_BOUND = MATE - 2 * MAX_PLY     # |score| >= this is a mate score
VALUE_NONE = 32600

BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3

# heur layout
STOP = 0            # set to 1 by the controller to abort
NODES = 1           # nodes searched
NODE_LIMIT = 2      # stop when NODES reaches this (0 = none)
SELDEPTH = 3
ROOT_ROW = 4        # row index of the root position in st/mb
TT_MASK = 5         # number of buckets - 1
AGE = 6             # TT generation, 0..31
ROOT_N = 7          # root move filter length (0 = all legal moves)
BEST_MOVE = 8       # best root move of the current iteration (0 = none yet)
BEST_SCORE = 9
ROOT_DONE = 10      # root moves fully searched in the current iteration
SOFT_NODES = 11     # stop after a root move once NODES reaches this (0 = none)
SOFT_STOP = 12      # set to 1 by the controller's soft deadline: stop after the next root move
BEST_NODES = 13     # nodes spent on the root move that is best in the current root search
ITER_NODES = 14     # NODES when the current root search started
ROOT_MOVES = 16                                 # int[256]: allowed root moves
PV_LEN = ROOT_MOVES + 256                       # int[MAX_PLY]
PV = PV_LEN + MAX_PLY                           # int[MAX_PLY * MAX_PLY] triangular PV table
KILLERS = PV + MAX_PLY * MAX_PLY                # int[MAX_PLY * 2]
HISTORY = KILLERS + MAX_PLY * 2                 # int[2 * 64 * 64]
COUNTER = HISTORY + 2 * 64 * 64                 # int[12 * 64]
SEE_GAIN = COUNTER + 12 * 64                    # int[40] scratch
EVAL_STACK = SEE_GAIN + 40                      # int[MAX_PLY + 4]: static eval per ply
EXCLUDED = EVAL_STACK + MAX_PLY + 4             # int[MAX_PLY + 4]: singular search's excluded move
DOUBLE_EXT = EXCLUDED + MAX_PLY + 4             # int[MAX_PLY + 4]: double extensions on the line
CAPTURE_HISTORY = DOUBLE_EXT + MAX_PLY + 4      # int[12 * 64 * 6]: piece x to x captured type
CORR_HISTORY = CAPTURE_HISTORY + 12 * 64 * 6    # int[2 * CORR_SIZE]: side x pawn-structure hash
CORR_BITS = 14
CORR_SIZE = 1 << CORR_BITS
CONT_HISTORY = CORR_HISTORY + 2 * CORR_SIZE     # int[768 * 768]: (piece, to) x (piece, to)
NNUE_CHECK = CONT_HISTORY + 768 * 768           # 1: every NNUE eval also refreshes (test mode)
NNUE_EVALS = NNUE_CHECK + 1                     # NNUE evals checked against a refresh
NNUE_MISMATCHES = NNUE_CHECK + 2                # ... whose incremental accumulator differed
PICK = NNUE_CHECK + 3                           # int[MAX_PLY + 4, PICK_FIELDS]: picker state
# picker fields: stage, next index, noisy count, end of the list, TT move, first bad capture,
# ordering score of the move last returned, and the node's continuation-history keys one and
# two plies back (:func:`_piece_to` values, -1 = none)
(PICK_STAGE, PICK_NEXT, PICK_NOISY, PICK_END, PICK_TT, PICK_BAD, PICK_SCORE, PICK_PREV1,
 PICK_PREV2) = range(9)
PICK_FIELDS = 9
HEUR_LEN = PICK + (MAX_PLY + 4) * PICK_FIELDS

# piece values for SEE / MVV-LVA, by type P N B R Q K (centipawns)
SEE_VALUE = np.array([100, 320, 330, 500, 950, 20000, 0], dtype=np.int64)

# LMR reductions: round(0.75 + ln(depth) * ln(moves) / 2.25), plies
_lmr = np.zeros((64, 64), dtype=np.int64)
for _d in range(1, 64):
    for _m in range(1, 64):
        _lmr[_d, _m] = int(0.75 + np.log(_d) * np.log(_m) / 2.25)
LMR = _lmr
del _lmr

HISTORY_MAX = 16384     # history gravity bound: |entry| stays below it (Stockfish's stats)

# --- move ordering scores (mv[sply, MV_SCORES]): hand-set bands, far enough apart that no
# quiet's history sum (three terms, each |h| < HISTORY_MAX) or capture's value and capture
# history term crosses into another band.
ORDER_TT = 2000000              # TT move (at the root: the previous iteration's best move)
ORDER_GOOD_CAPTURE = 1000000    # + victim value * CAPTURE_MVV_SCALE + capture history: captures
                                # and queen promotions (queen value added) not losing by SEE
ORDER_KILLER1 = 900000          # killers (chessprogramming wiki "Killer Heuristic")
ORDER_KILLER2 = 899000
ORDER_COUNTER = 898000          # countermove (wiki "Countermove Heuristic"); the LMR test
                                # ``score >= ORDER_COUNTER`` marks killers and countermove
ORDER_BAD_CAPTURE = -1000000    # + the same terms: captures SEE shows losing, after every quiet
ORDER_UNDERPROMO_GAP = 100000   # under-promotions: below every capture (never SEE-tested)

# --- pruning and reduction parameters (depths in plies, margins in centipawns). Hand-set for
# this engine (not tuned yet); where the form follows an engine, it is named.
RFP_MAX_DEPTH = 7               # reverse futility: ev - RFP_MARGIN * depth >= beta
RFP_MARGIN = 80
NMP_MIN_DEPTH = 3               # null move: R = NMP_BASE_R + depth // NMP_DEPTH_DIV
NMP_BASE_R = 3                  #   + min(NMP_EVAL_MAX_R, (ev - beta) // NMP_EVAL_DIV)
NMP_DEPTH_DIV = 4               #   (the eval term as in Stockfish: min((eval - beta) / 200, 3))
NMP_EVAL_DIV = 200
NMP_EVAL_MAX_R = 3
IIR_MIN_DEPTH = 4               # internal iterative reduction without a TT move
LMP_MAX_DEPTH = 4               # late move pruning: quiets after LMP_BASE + depth^2 moves
LMP_BASE = 3                    #   (Stockfish's futility_move_count: (3 + d^2) / (2 - improving));
LMP_NOT_IMPROVING_NUM = 2       #   without improving, LMP_NOT_IMPROVING_NUM / LMP_NOT_IMPROVING_DEN
LMP_NOT_IMPROVING_DEN = 3       #   of that (milder than Stockfish's halving: our ordering is worse)
FUTILITY_MAX_DEPTH = 3          # futility pruning of quiets: ev + FUTILITY_BASE
FUTILITY_BASE = 120             #   + FUTILITY_MARGIN * depth <= alpha
FUTILITY_MARGIN = 100
SEE_PRUNE_MAX_DEPTH = 4         # losing captures with SEE < -SEE_PRUNE_MARGIN * depth
SEE_PRUNE_MARGIN = 100
DELTA_MARGIN = 200              # quiescence delta pruning (wiki "Delta Pruning": ~200 cp)
LMR_MIN_DEPTH = 3               # LMR of quiet moves from this depth, after LMR_MIN_MOVES
LMR_MIN_MOVES = 2               #   searched moves (LMR_MIN_MOVES_PV at PV nodes)
LMR_MIN_MOVES_PV = 3
LMR_HISTORY_DIV = 8000          # LMR: one ply less per LMR_HISTORY_DIV of history score (the sum of
                                #   butterfly and continuation histories, both ways)
HISTORY_BONUS_SCALE = 16        # history bonus: min(HISTORY_BONUS_SCALE * depth^2,
HISTORY_BONUS_MAX = 1600        #   HISTORY_BONUS_MAX), the malus the same negated
SEE_MAX_SWAPS = 30              # swap list depth bound (the SEE_GAIN scratch holds 40)
EXT_MARGIN = 8                  # no singular extension within 8 plies of MAX_PLY
# --- issue 10's techniques. Forms follow the engines named; values are first guesses scaled to
# this engine's depths (a 5+0.05 game reaches depth 8-12), judged as one group by SPRT
# (docs/strength.md), not tuned one by one.
CAPTURE_MVV_SCALE = 16          # capture order: victim value * 16 + capture history (Stockfish
                                # orders by 7 * value + capture history; values here are smaller)
HISTORY_PRUNE_MAX_DEPTH = 3     # quiets with history (butterfly + continuation) below
HISTORY_PRUNE_MARGIN = 3000     #   -HISTORY_PRUNE_MARGIN * depth are pruned (Stockfish's form)
RAZOR_MAX_DEPTH = 3             # razoring: ev + RAZOR_BASE + RAZOR_MARGIN * depth^2 < alpha
RAZOR_BASE = 490                #   drops to quiescence (Stockfish: eval < alpha - 494 - 290 d^2)
RAZOR_MARGIN = 290
SE_MIN_DEPTH = 6                # singular extensions (Stockfish, Ethereal, Weiss): the TT move,
SE_TT_DEPTH_SLACK = 3           #   stored at >= depth - 3 as a lower bound, is extended when
SE_BETA_MARGIN = 2              #   every other move fails low under tt - 2 * depth at half depth;
SE_DOUBLE_MARGIN = 20           #   by two plies when they fail low by 20 more (non-PV nodes),
SE_DOUBLE_MAX = 6               #   at most 6 double extensions on a line (Stockfish's limit)
CORR_GRAIN = 256                # correction history (Stockfish, Ethereal "pawn correction"):
CORR_WEIGHT_MAX = 16            #   entries in 1/256 cp, updated towards (score - eval) with
CORR_WEIGHT_SCALE = 256         #   weight min(depth + 1, 16) / 256, bounded by +-CORR_MAX cp
CORR_MAX = 64
PAWN_HASH_W = np.uint64(0x9E3779B97F4A7C15)   # multiplicative hashing of the two pawn boards
PAWN_HASH_B = np.uint64(0xC2B2AE3D27D4EB4F)   #   (golden ratio, and xxhash's PRIME64_2)
TT_KEEP_DEPTH = 4               # a same-key entry 4+ plies deeper and not exact is kept (Stockfish)
QS_TT_DEPTH = -1                # depth of quiescence TT entries: below every main-search depth

# mv buffer planes
MV_MOVES, MV_SCORES, MV_QUIETS, MV_CAPTURES = 0, 1, 2, 3
MV_PLANES = 4
# Staged move picker (Stockfish's MovePicker, Ethereal's movepicker.c): the TT move before any
# generation; captures and promotions by value and capture history, SEE-tested only when picked,
# losers deferred; quiets generated only when reached; the deferred losing captures last.
# STAGE_ALL: every move generated and scored at once (root, in check).
# STAGE_QUIET_CHECKS: after late move pruning, only the quiet moves left that give check, unsorted.
(STAGE_TT, STAGE_GEN_NOISY, STAGE_GOOD_NOISY, STAGE_GEN_QUIET, STAGE_QUIET, STAGE_BAD_NOISY,
 STAGE_ALL, STAGE_DONE, STAGE_QUIET_CHECKS) = range(9)
# Recursive kernels take only int64 scalars (never literals): a cached recursive function
# compiled for a literal type can crash when loaded from the cache (numba issue #6061).
ZERO = np.int64(0)
ONE = np.int64(1)
# The searches of one move in negamax's PVS loop, in the order they may run.
PVS_REDUCED = 0            # zero window at the LMR-reduced depth
PVS_ZERO_WINDOW = 1        # zero window at full depth, after a reduced search beat alpha
PVS_FULL = 2               # full window (first move, or a zero-window search inside the window)
QS_DEPTH = np.int64(-1)   # depth passed inside quiescence


def new_heur():
    """A zeroed control/heuristics block: int64[HEUR_LEN]."""
    return np.zeros(HEUR_LEN, dtype=np.int64)


def new_tt(mib):
    """A transposition table of ``mib`` MiB (int; 16 bytes an entry, 4 entries a bucket,
    the bucket count rounded down to a power of two). Returns (tt int64[2 * entries], mask).

    The array starts on a 64-byte boundary, so each 64-byte bucket is one cache line (numpy
    only promises 16-byte alignment: a bucket would straddle two lines, two misses a probe)."""
    buckets = max(1, (int(mib) << 20) // 64)
    buckets = 1 << (buckets.bit_length() - 1)
    raw = np.zeros(buckets * 8 + 8, dtype=np.int64)
    off = (-raw.ctypes.data % 64) // 8
    return raw[off:off + buckets * 8], buckets - 1


def new_move_buffers():
    """Per-ply buffers: int32[MAX_PLY + 8, MV_PLANES, 256] (moves, ordering scores, the quiet
    moves and the captures tried so far)."""
    return np.zeros((MAX_PLY + 8, MV_PLANES, 256), dtype=np.int32)


# --- transposition table ----------------------------------------------------------------------
@njit(cache=True)
def _tt_index(heur, key):
    return (np.int64(key) & heur[TT_MASK]) * 8


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Emit ``llvm.prefetch`` (read, keep in all cache levels) of ``arr[idx]``: x86
    ``prefetcht0``. Bounds are not checked; a prefetch never faults."""
    sig = types.void(arr, types.int64)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        # the name is mangled by the pointer type: "ptr" with opaque pointers (LLVM >= 15),
        # "i8*" before (numba 0.60's llvmlite)
        name = "llvm.prefetch.p0" if str(i8p.type) == "ptr" else "llvm.prefetch.p0i8"
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        builder.call(fn, [i8p, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def tt_prefetch(tt, heur, key):
    """Start loading the TT bucket of ``key`` into the cache (Stockfish prefetches it right
    after making a move, so the child's probe finds the bucket in cache)."""
    _prefetch(tt, _tt_index(heur, key))


@njit(cache=True)
def tt_probe(tt, heur, key):
    """The data word (int64) stored for ``key`` (uint64), or -1 when absent (lockless: the
    slot holds key XOR data)."""
    k = np.int64(key)
    base = _tt_index(heur, key)
    for e in range(4):
        d = tt[base + 2 * e + 1]
        if d != 0 and (tt[base + 2 * e] ^ d) == k:
            return d
    return np.int64(-1)


@njit(cache=True)
def tt_store(tt, heur, key, move, score, ev, depth, bound):
    """Store an entry, replacing the same key or the least valuable (shallow, old) slot."""
    k = np.int64(key)
    base = _tt_index(heur, key)
    age = heur[AGE]
    slot = base
    worst = np.int64(1 << 40)
    for e in range(4):
        i = base + 2 * e
        d = tt[i + 1]
        same = d != 0 and (tt[i] ^ d) == k
        if same or d == 0:
            slot = i
            if same:
                if bound != BOUND_EXACT and depth + TT_KEEP_DEPTH <= ((d >> 48) & 0x7F) - 1:
                    return                      # a much deeper entry of this position stays
                if move == 0:
                    move = d & 0xFFFF
            break
        edepth = (d >> 48) & 0x7F
        eage = (d >> 57) & 0x1F
        value = edepth - 8 * ((age - eage) & 0x1F)
        if value < worst:
            worst = value
            slot = i
    if depth < -1:
        depth = -1
    if depth > 125:
        depth = 125
    data = ((move & 0xFFFF) | ((score + 32768) << 16) | ((ev + 32768) << 32)
            | ((depth + 1) << 48) | (bound << 55) | (age << 57))
    tt[slot] = k ^ data
    tt[slot + 1] = data


@njit(cache=True)
def _tt_move(d):
    return d & 0xFFFF


@njit(cache=True)
def _tt_score(d):
    return ((d >> 16) & 0xFFFF) - 32768


@njit(cache=True)
def _tt_eval(d):
    return ((d >> 32) & 0xFFFF) - 32768


@njit(cache=True)
def _tt_depth(d):
    return ((d >> 48) & 0x7F) - 1


@njit(cache=True)
def _tt_bound(d):
    return (d >> 55) & 3


@njit(cache=True)
def score_to_tt(s, sply):
    if s >= MATE_BOUND:
        return s + sply
    if s <= -MATE_BOUND:
        return s - sply
    return s


@njit(cache=True)
def score_from_tt(s, sply):
    if s >= MATE_BOUND:
        return s - sply
    if s <= -MATE_BOUND:
        return s + sply
    return s


@njit(cache=True)
def _tt_cutoff(d, sply, alpha, beta):
    """The score (centipawns, relative to the node at ``sply``) of TT data word ``d`` when its
    bound settles the window (alpha, beta): exact, a lower bound >= beta or an upper bound
    <= alpha; else VALUE_NONE. The caller checks the stored depth."""
    ts = score_from_tt(_tt_score(d), sply)
    b = _tt_bound(d)
    if (b == BOUND_EXACT or (b == BOUND_LOWER and ts >= beta)
            or (b == BOUND_UPPER and ts <= alpha)):
        return ts
    return np.int64(VALUE_NONE)


@njit(cache=True)
def _tt_refine(d, sply, ev):
    """Static eval ``ev`` (centipawns) refined by TT data word ``d``: its score replaces ``ev``
    when the bound says the true value lies beyond ``ev`` on that side (a lower bound above
    it, an upper bound below it); mate scores are left out."""
    ts = score_from_tt(_tt_score(d), sply)
    b = _tt_bound(d)
    if abs(ts) < MATE_BOUND and (((b & BOUND_LOWER) != 0 and ts > ev)
                                 or ((b & BOUND_UPPER) != 0 and ts < ev)):
        return ts
    return ev


@njit(cache=True)
def hashfull(tt, heur):
    """Permille (0..1000) of the first 1000 entries written in the current search."""
    used = 0
    n = min(1000, tt.shape[0] // 2)
    age = heur[AGE]
    for i in range(n):
        d = tt[2 * i + 1]
        if d != 0 and ((d >> 57) & 0x1F) == age:
            used += 1
    return used * 1000 // max(n, 1)


# --- static exchange evaluation ---------------------------------------------------------------
@njit(cache=True)
def see(st, mb, heur, row, m):
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
        heur[g] = SEE_VALUE[PAWN]
        capsq = to - 8 if st[row, STM] == WHITE else to + 8
        occ ^= U1 << np.uint64(capsq)
    else:
        c = np.int64(mb[row, to])
        heur[g] = SEE_VALUE[piece_type(c)] if c != NO_PIECE else 0
    on_sq = SEE_VALUE[mover]
    if flag >= FLAG_PROMO:
        promo = SEE_VALUE[promo_type(flag)]
        heur[g] += promo - SEE_VALUE[PAWN]
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
        heur[g + d] = on_sq - heur[g + d - 1]
        if max(-heur[g + d - 1], heur[g + d]) < 0 or d >= SEE_MAX_SWAPS:
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
        heur[g + d - 1] = -max(-heur[g + d - 1], heur[g + d])
        d -= 1
    return heur[g]


# --- helpers -----------------------------------------------------------------------------------
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


@njit(cache=True)
def _is_quiet(mb, row, m):
    flag = move_flag(m)
    if flag == FLAG_EP or flag >= FLAG_PROMO:
        return False
    if flag == FLAG_CASTLE:
        return True
    return mb[row, move_to(m)] == NO_PIECE


@njit(cache=True)
def _piece_to(st, mb, row):
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
def _history_index(us, m):
    """Index in ``heur`` of the butterfly history entry of side ``us`` for move ``m``
    (from-square x to-square; chessprogramming wiki "History Heuristic")."""
    return HISTORY + (us * 64 + move_from(m)) * 64 + move_to(m)


@njit(cache=True)
def _cont_index(prev, mb, row, m):
    """Index in ``heur`` of the continuation-history entry of move ``m`` on row ``row`` after
    the earlier move ``prev`` (a :func:`_piece_to` value >= 0): (piece, to) x (piece, to), as
    Stockfish's continuationHistory (chessprogramming wiki "History Heuristic")."""
    return CONT_HISTORY + prev * 768 + np.int64(mb[row, move_from(m)]) * 64 + move_to(m)


@njit(cache=True)
def _capture_index(mb, row, m):
    """Index in ``heur`` of the capture-history entry of noisy move ``m`` on row ``row``:
    moving piece x to-square x captured type (a promotion without capture counts as PAWN)."""
    to = move_to(m)
    c = np.int64(mb[row, to])
    ct = piece_type(c) if c != NO_PIECE else PAWN
    return CAPTURE_HISTORY + (np.int64(mb[row, move_from(m)]) * 64 + to) * 6 + ct


@njit(cache=True)
def _quiet_score(heur, mb, row, us, m, prev1, prev2):
    """Ordering score of quiet move ``m``: butterfly history plus the continuation histories
    one and two plies back (``prev1``/``prev2``: :func:`_piece_to` values, -1 = none)."""
    s = heur[_history_index(us, m)]
    if prev1 >= 0:
        s += heur[_cont_index(prev1, mb, row, m)]
    if prev2 >= 0:
        s += heur[_cont_index(prev2, mb, row, m)]
    return s


@njit(cache=True)
def _quiet_order(heur, mb, row, us, m, k1, k2, cm, prev1, prev2):
    """Ordering score of quiet move ``m``: ORDER_KILLER1/2 for the killers ``k1``/``k2``,
    ORDER_COUNTER for the countermove ``cm``, else its history (:func:`_quiet_score`)."""
    if m == k1:
        return np.int64(ORDER_KILLER1)
    if m == k2:
        return np.int64(ORDER_KILLER2)
    if m == cm:
        return np.int64(ORDER_COUNTER)
    return _quiet_score(heur, mb, row, us, m, prev1, prev2)


@njit(cache=True)
def _update_quiet(heur, mb, row, us, m, prev1, prev2, bonus):
    """Apply ``bonus`` (negative: malus) to every history entry :func:`_quiet_score` reads."""
    _update_history(heur, _history_index(us, m), bonus)
    if prev1 >= 0:
        _update_history(heur, _cont_index(prev1, mb, row, m), bonus)
    if prev2 >= 0:
        _update_history(heur, _cont_index(prev2, mb, row, m), bonus)


@njit(cache=True)
def _corr_index(st, row, us):
    """Index in ``heur`` of the correction-history entry of row ``row``: side to move x a
    CORR_BITS-bit multiplicative hash of the two pawn bitboards."""
    h = (st[row, WHITE_PAWN] * PAWN_HASH_W) ^ (st[row, BLACK_PAWN] * PAWN_HASH_B)
    return CORR_HISTORY + us * CORR_SIZE + np.int64(h >> np.uint64(64 - CORR_BITS))


@njit(cache=True)
def corrected_eval(heur, st, row, us, raw):
    """Static eval ``raw`` (centipawns) plus the pawn-structure correction history (Stockfish's
    correction history, Ethereal's "pawn correction"), kept out of the mate range."""
    v = raw + heur[_corr_index(st, row, us)] // CORR_GRAIN
    return max(-MATE_BOUND + 1, min(MATE_BOUND - 1, v))


@njit(cache=True)
def _update_corr(heur, st, row, us, diff, depth):
    """Move the correction entry of row ``row`` towards ``diff`` (search score - static eval,
    centipawns) with weight min(depth + 1, CORR_WEIGHT_MAX) / CORR_WEIGHT_SCALE."""
    i = _corr_index(st, row, us)
    w = min(depth + 1, CORR_WEIGHT_MAX)
    e = (heur[i] * (CORR_WEIGHT_SCALE - w) + diff * CORR_GRAIN * w) // CORR_WEIGHT_SCALE
    lim = CORR_MAX * CORR_GRAIN
    heur[i] = max(-lim, min(lim, e))


@njit(cache=True)
def _score_moves(st, mb, heur, mv, row, sply, n, tt_move, prev1, prev2):
    """Ordering scores (mv[sply, MV_SCORES]) of the ``n`` moves in mv[sply, MV_MOVES]: the TT
    move; captures and promotions by victim value and capture history, below every quiet
    move when SEE shows them losing; killers; countermove; quiets by history (``prev1``,
    ``prev2``: the continuation-history keys of :func:`_quiet_score`; only quiet moves read
    them, so a list of noisy moves may pass -1)."""
    us = np.int64(st[row, STM])
    k1 = heur[KILLERS + 2 * sply]
    k2 = heur[KILLERS + 2 * sply + 1]
    cm = heur[COUNTER + prev1] if prev1 >= 0 else 0
    for i in range(n):
        m = np.int64(mv[sply, MV_MOVES, i])
        if m == tt_move:
            s = ORDER_TT
        elif not _is_quiet(mb, row, m):
            s = _noisy_order(st, mb, heur, row, m)
            if s >= 0 and _may_lose(mb, row, m) and see(st, mb, heur, row, m) < 0:
                s += ORDER_BAD_CAPTURE - ORDER_GOOD_CAPTURE
        else:
            s = _quiet_order(heur, mb, row, us, m, k1, k2, cm, prev1, prev2)
        mv[sply, MV_SCORES, i] = s


@njit(cache=True)
def _noisy_order(st, mb, heur, row, m):
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
    return ORDER_GOOD_CAPTURE + value * CAPTURE_MVV_SCALE + heur[_capture_index(mb, row, m)]


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
def _tt_move_ok(st, mb, row, m):
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
def _quiet_gives_check(st, mb, row, m):
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
def _pick(mv, sply, i, n):
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
def picker_init(st, mb, heur, mv, row, sply, tt_move, staged, prev1, prev2):
    """Start the move picker of ply ``sply`` (row ``row``). ``staged`` False generates and
    scores every legal move at once (:data:`STAGE_ALL`; the caller may filter the list before
    the first :func:`next_move`). ``prev1``/``prev2``: the node's continuation-history keys
    (:func:`_piece_to` of rows ``row`` and ``row - 1``), kept for ordering the quiets."""
    p = PICK + sply * PICK_FIELDS
    heur[p + PICK_TT] = tt_move
    heur[p + PICK_NEXT] = 0
    heur[p + PICK_PREV1] = prev1
    heur[p + PICK_PREV2] = prev2
    if staged:
        heur[p + PICK_STAGE] = STAGE_TT
        heur[p + PICK_END] = 0
    else:
        n = generate_legal(st, row, mv[sply, MV_MOVES])
        heur[p + PICK_STAGE] = STAGE_ALL
        heur[p + PICK_END] = n


@njit(cache=True)
def picker_skip_quiets(heur, sply):
    """Ply ``sply``'s staged picker, in its quiet stage, yields from now on only the quiet moves
    left that give check, unsorted (late move pruning: Stockfish's skipQuiets, checks spared),
    then the deferred losing captures."""
    heur[PICK + sply * PICK_FIELDS + PICK_STAGE] = STAGE_QUIET_CHECKS


@njit(cache=True)
def _pick_next(heur, mv, p, sply, end):
    """Selection step of the picker at ``heur[p:]`` over slots PICK_NEXT..``end`` - 1 (the
    caller checks that one is left): the best-scored move (int64) is returned, its score kept
    in PICK_SCORE, and PICK_NEXT advanced."""
    i = heur[p + PICK_NEXT]
    heur[p + PICK_SCORE] = _pick_range(mv, sply, i, end)
    heur[p + PICK_NEXT] = i + 1
    return np.int64(mv[sply, MV_MOVES, i])


@njit(cache=True)
def _to_bad_noisy(heur, p):
    """The quiets are done: the picker at ``heur[p:]`` goes on with the deferred losing
    captures."""
    heur[p + PICK_NEXT] = heur[p + PICK_BAD]
    heur[p + PICK_STAGE] = STAGE_BAD_NOISY


@njit(cache=True)
def next_move(st, mb, heur, mv, row, sply):
    """The next move (int64) of ply ``sply``'s picker, or 0 when none is left; its ordering
    score goes to ``heur[PICK + sply * PICK_FIELDS + PICK_SCORE]``. In the staged order the TT
    move comes first, ungenerated, and the stage is then STAGE_GEN_NOISY: the caller must
    check that it leaves no king in check (see :func:`_tt_move_ok`)."""
    p = PICK + sply * PICK_FIELDS
    while True:
        stage = heur[p + PICK_STAGE]
        if stage == STAGE_ALL:
            i = heur[p + PICK_NEXT]
            if i >= heur[p + PICK_END]:
                heur[p + PICK_STAGE] = STAGE_DONE
                return np.int64(0)
            if i == 0:
                _score_moves(st, mb, heur, mv, row, sply, heur[p + PICK_END], heur[p + PICK_TT],
                             heur[p + PICK_PREV1], heur[p + PICK_PREV2])
            return _pick_next(heur, mv, p, sply, heur[p + PICK_END])
        elif stage == STAGE_TT:
            heur[p + PICK_STAGE] = STAGE_GEN_NOISY
            m = heur[p + PICK_TT]
            if _tt_move_ok(st, mb, row, m):
                heur[p + PICK_SCORE] = ORDER_TT
                return m
            heur[p + PICK_TT] = 0
        elif stage == STAGE_GEN_NOISY:
            n = generate_noisy(st, row, mv[sply, MV_MOVES])
            if heur[p + PICK_TT] != 0:
                n = _drop_move(mv, sply, 0, n, heur[p + PICK_TT])
            for i in range(n):
                mv[sply, MV_SCORES, i] = _noisy_order(st, mb, heur, row,
                                                      np.int64(mv[sply, MV_MOVES, i]))
            heur[p + PICK_NOISY] = n
            heur[p + PICK_END] = n
            heur[p + PICK_NEXT] = 0
            heur[p + PICK_STAGE] = STAGE_GOOD_NOISY
        elif stage == STAGE_GOOD_NOISY:
            i = heur[p + PICK_NEXT]
            n = heur[p + PICK_NOISY]
            if i < n:
                sc = _pick_range(mv, sply, i, n)
                if sc >= ORDER_GOOD_CAPTURE - HISTORY_MAX:
                    m = np.int64(mv[sply, MV_MOVES, i])
                    if _may_lose(mb, row, m) and see(st, mb, heur, row, m) < 0:
                        mv[sply, MV_SCORES, i] = sc + ORDER_BAD_CAPTURE - ORDER_GOOD_CAPTURE
                        continue                    # deferred; pick again
                    heur[p + PICK_SCORE] = sc
                    heur[p + PICK_NEXT] = i + 1
                    return m
            heur[p + PICK_BAD] = i
            heur[p + PICK_STAGE] = STAGE_GEN_QUIET
        elif stage == STAGE_GEN_QUIET:
            lo = heur[p + PICK_NOISY]
            n = lo + generate_quiet(st, row, mv[sply, MV_MOVES, lo:])
            if heur[p + PICK_TT] != 0:
                n = _drop_move(mv, sply, lo, n, heur[p + PICK_TT])
            us = np.int64(st[row, STM])
            k1 = heur[KILLERS + 2 * sply]
            k2 = heur[KILLERS + 2 * sply + 1]
            prev1 = heur[p + PICK_PREV1]
            prev2 = heur[p + PICK_PREV2]
            cm = heur[COUNTER + prev1] if prev1 >= 0 else 0
            for i in range(lo, n):
                mv[sply, MV_SCORES, i] = _quiet_order(heur, mb, row, us,
                                                      np.int64(mv[sply, MV_MOVES, i]),
                                                      k1, k2, cm, prev1, prev2)
            heur[p + PICK_END] = n
            heur[p + PICK_NEXT] = lo
            heur[p + PICK_STAGE] = STAGE_QUIET
        elif stage == STAGE_QUIET:
            if heur[p + PICK_NEXT] < heur[p + PICK_END]:
                return _pick_next(heur, mv, p, sply, heur[p + PICK_END])
            _to_bad_noisy(heur, p)
        elif stage == STAGE_QUIET_CHECKS:
            i = heur[p + PICK_NEXT]
            end = heur[p + PICK_END]
            while i < end:
                m = np.int64(mv[sply, MV_MOVES, i])
                i += 1
                if _quiet_gives_check(st, mb, row, m):
                    heur[p + PICK_NEXT] = i
                    heur[p + PICK_SCORE] = mv[sply, MV_SCORES, i - 1]
                    return m
            _to_bad_noisy(heur, p)
        elif stage == STAGE_BAD_NOISY:
            if heur[p + PICK_NEXT] < heur[p + PICK_NOISY]:
                return _pick_next(heur, mv, p, sply, heur[p + PICK_NOISY])
            heur[p + PICK_STAGE] = STAGE_DONE
        else:
            return np.int64(0)


@njit(cache=True)
def _update_history(heur, idx, bonus):
    """History gravity: h += bonus - h * |bonus| / HISTORY_MAX keeps |h| < HISTORY_MAX."""
    h = heur[idx]
    heur[idx] = h + bonus - h * abs(bonus) // HISTORY_MAX


@njit(cache=True)
def _check_stop(heur):
    if heur[NODE_LIMIT] and heur[NODES] >= heur[NODE_LIMIT]:
        heur[STOP] = 1
    return heur[STOP] != 0


@njit(cache=True)
def _in_check(st, row, us):
    ksq = lsb(st[row, piece_of(us, KING)])
    return (attackers_to(st, row, ksq, st[row, OCC_ALL]) & st[row, OCC + 1 - us]) != U0


# --- static evaluation: hand-crafted or NNUE, chosen by the type of ``acc`` ---------------------
# negamax is compiled once per evaluation, like a C++ template: with ``acc`` an int16[rows, 2, H]
# accumulator stack the NNUE evaluates; with the one-dimensional placeholder HCE_ACC the
# hand-crafted evaluation does, and no NNUE code is compiled into that search (linking the NNUE
# kernels into negamax cost about 5 s of CPU at the first start, which the default
# hand-crafted engine should not pay). The two switches below are resolved while negamax is
# typed (numba.extending.overload, inlined), so neither costs a branch per node.
HCE_ACC = np.zeros(1, dtype=np.int16)     # the ``acc`` argument of a hand-crafted search


# _nrt=False as negamax: the views of ``net`` and ``acc`` taken here are not reference-counted.
@njit(cache=True, nogil=True, _nrt=False)
def nnue_static_eval(st, row, heur, acc, sply, net, params):
    """NNUE evaluation (int64 centipawns, side to move's view) of row ``row`` from accumulator
    row ``sply`` (:func:`.nnue.nnue_evaluate`). With ``heur[NNUE_CHECK]`` set (tests) the
    accumulator is also rebuilt from scratch in the stack's last row and compared (counts in
    ``heur[NNUE_EVALS]`` and ``heur[NNUE_MISMATCHES]``)."""
    if heur[NNUE_CHECK]:
        spare = acc.shape[0] - 1
        nnue_refresh(st, row, net, net[ROW_B_FT], acc, spare)
        heur[NNUE_EVALS] += 1
        same = True
        for persp in range(2):
            for i in range(acc.shape[2]):
                if acc[spare, persp, i] != acc[sply, persp, i]:
                    same = False
        if not same:
            heur[NNUE_MISMATCHES] += 1
    return nnue_evaluate(st, row, acc, sply, net[ROW_W_OUT:ROW_W_OUT + 2], params)


@njit(cache=True, nogil=True)
def nnue_push_move(st, mb, row, m, acc, sply, net):
    """Accumulator row ``sply + 1`` for the child of row ``row`` reached by move ``m`` (made
    already; NULL_MOVE: a copy of row ``sply``)."""
    if m == NULL_MOVE:
        nnue_copy(acc, sply)
    else:
        nnue_update(st, mb, row, m, acc, sply, net)


def static_eval(st, row, heur, acc, sply, net, params):
    """Static evaluation (int64 centipawns, side to move's view) of row ``row`` at search ply
    ``sply``: :func:`nnue_static_eval` when ``acc`` is an accumulator stack (3-D), the
    hand-crafted :func:`.evaluate.evaluate` for :data:`HCE_ACC`. Compiled code resolves the
    choice from the type (overload below)."""
    if acc.ndim == 3:
        return nnue_static_eval(st, row, heur, acc, sply, net, params)
    return evaluate(st, row)


def nnue_push(st, mb, row, m, acc, sply, net):
    """Before the child of row ``row`` reached by move ``m`` is searched: its accumulator
    (:func:`nnue_push_move`) when ``acc`` is an accumulator stack, nothing for
    :data:`HCE_ACC`. Called right before the child's search, so moves pruned after making them
    cost no update."""
    if acc.ndim == 3:
        nnue_push_move(st, mb, row, m, acc, sply, net)


@overload(static_eval, inline="always")
def _static_eval_typed(st, row, heur, acc, sply, net, params):
    if acc.ndim == 3:
        return lambda st, row, heur, acc, sply, net, params: nnue_static_eval(
            st, row, heur, acc, sply, net, params)
    return lambda st, row, heur, acc, sply, net, params: evaluate(st, row)


@overload(nnue_push, inline="always")
def _nnue_push_typed(st, mb, row, m, acc, sply, net):
    if acc.ndim == 3:
        return lambda st, mb, row, m, acc, sply, net: nnue_push_move(st, mb, row, m, acc, sply,
                                                                      net)
    return lambda st, mb, row, m, acc, sply, net: None


# --- main search -------------------------------------------------------------------------------
# _nrt=False: negamax allocates nothing, and without it every array handed to a callee (and
# every mv[sply, k] view) is increfed and decrefed atomically on each node: about +35% nps.
@infer_return_once
@njit(cache=True, nogil=True, _nrt=False)
def negamax(st, mb, tt, heur, mv, acc, net, params, row, depth, alpha, beta, cut_node):
    """Principal variation search to ``depth`` plies from row ``row``; returns the score in
    centipawns from the side to move (mate scores are MATE - plies to mate). ``cut_node`` is
    1 at expected cut nodes, else 0 (int64). With ``heur[EXCLUDED + ply]`` set, the node is a
    singular-extension verification search: that move is skipped, nothing is stored.

    ``acc``, ``net``, ``params``: the NNUE accumulator stack (int16[rows, 2, H], row = search
    ply; row 0 refreshed by the caller for the root), packed weights (int16[PACKED_ROWS, H])
    and run-time scalars (int64[PARAMS_LEN]) of :mod:`.nnue`; with ``acc`` = :data:`HCE_ACC`
    the search evaluates with the hand-crafted evaluation and ``net``/``params`` are not read
    (any arrays of those types)."""
    root_row = heur[ROOT_ROW]
    sply = row - root_row
    heur[PV_LEN + sply] = 0
    root = sply == 0
    pv_node = beta - alpha > 1
    us = np.int64(st[row, STM])
    # The parent has usually tested whether its move gives check (column CHECKED).
    checked = st[row, CHECKED]
    if root or checked == CHECK_UNKNOWN:
        in_check = _in_check(st, row, us)
    else:
        in_check = checked != U0
    if depth <= 0:
        # Quiescence search: captures and promotions (all evasions in check), stand pat,
        # delta and SEE pruning, TT probes and stores. Kept inside this one recursive kernel:
        # every separately compiled entry point re-optimizes the whole linked closure.
        heur[NODES] += 1
        if _check_stop(heur):
            return np.int64(0)
        if sply > heur[SELDEPTH]:
            heur[SELDEPTH] = sply
        if sply >= MAX_PLY - 1:
            return static_eval(st, row, heur, acc, sply, net, params)
        if is_draw(st, row, root_row):
            return np.int64(0)
        key = st[row, KEY]
        d = tt_probe(tt, heur, key)
        tt_move = 0
        raw = VALUE_NONE
        if d >= 0:
            tt_move = _tt_move(d)
            ts = _tt_cutoff(d, sply, alpha, beta)
            if ts != VALUE_NONE:
                return ts
            raw = _tt_eval(d)
        if in_check:
            best = -MATE + sply
            stand = -INF
            raw = VALUE_NONE
        else:
            if raw == VALUE_NONE:
                raw = static_eval(st, row, heur, acc, sply, net, params)
            stand = corrected_eval(heur, st, row, us, raw)
            if d >= 0:
                stand = _tt_refine(d, sply, stand)
            if stand >= beta:
                if d < 0:
                    tt_store(tt, heur, key, 0, score_to_tt(stand, sply), raw, QS_TT_DEPTH,
                             BOUND_LOWER)
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
        n = generate_noisy(st, row, mv[sply, MV_MOVES])
        if n == 0:
            return best
        if in_check:                                # the evasions include quiet moves
            _score_moves(st, mb, heur, mv, row, sply, n, tt_move, _piece_to(st, mb, row),
                         _piece_to(st, mb, row - 1))
        else:
            _score_moves(st, mb, heur, mv, row, sply, n, tt_move, -ONE, -ONE)
        best_move = 0
        for i in range(n):
            m = _pick(mv, sply, i, n)
            make_move(st, mb, row, m)
            tt_prefetch(tt, heur, st[row + 1, KEY])
            # Captures that give check are never pruned: a losing capture can still mate
            # (the null-move reply Rxa7# in kbK5/pp6/1P6/8/8/8/8/R7 w after 1.Ra6).
            if not in_check:
                gives_check = _in_check(st, row + 1, 1 - us)
                st[row + 1, CHECKED] = U1 if gives_check else U0
                if not gives_check:
                    if mv[sply, MV_SCORES, i] < 0:
                        continue                        # losing captures by SEE: pruned
                    if move_flag(m) < FLAG_PROMO:
                        c = np.int64(mb[row, move_to(m)])
                        gain = SEE_VALUE[piece_type(c)] if c != NO_PIECE else SEE_VALUE[PAWN]
                        if stand + gain + DELTA_MARGIN <= alpha:
                            continue                    # delta pruning
            nnue_push(st, mb, row, m, acc, sply, net)
            score = -negamax(st, mb, tt, heur, mv, acc, net, params, row + 1, QS_DEPTH, -beta,
                             -alpha, ZERO)
            if heur[STOP]:
                return np.int64(0)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    best_move = m
                    if score >= beta:
                        break
        tt_store(tt, heur, key, best_move, score_to_tt(best, sply), raw, QS_TT_DEPTH,
                 BOUND_LOWER if best >= beta else BOUND_UPPER)
        return best
    heur[NODES] += 1
    if _check_stop(heur):
        return np.int64(0)
    if sply > heur[SELDEPTH]:
        heur[SELDEPTH] = sply

    if not root:
        if is_draw(st, row, root_row):
            return np.int64(0)
        if sply >= MAX_PLY - 1:
            return static_eval(st, row, heur, acc, sply, net, params)
        # mate distance pruning
        if alpha < -MATE + sply:
            alpha = -MATE + sply
        if beta > MATE - sply - 1:
            beta = MATE - sply - 1
        if alpha >= beta:
            return alpha
    else:
        heur[DOUBLE_EXT] = 0
        heur[ITER_NODES] = heur[NODES] - 1
        heur[BEST_NODES] = 0

    excluded = heur[EXCLUDED + sply]
    key = st[row, KEY]
    d = tt_probe(tt, heur, key) if excluded == 0 else np.int64(-1)
    tt_move = 0
    raw = VALUE_NONE
    tt_score = VALUE_NONE
    tt_depth = -2
    tt_bound = 0
    if d >= 0:
        tt_move = _tt_move(d)
        raw = _tt_eval(d)
        tt_depth = _tt_depth(d)
        tt_bound = _tt_bound(d)
        tt_score = score_from_tt(_tt_score(d), sply)
        if not pv_node and tt_depth >= depth:
            ts = _tt_cutoff(d, sply, alpha, beta)
            if ts != VALUE_NONE:
                return ts
    if root and heur[BEST_MOVE] != 0:
        tt_move = heur[BEST_MOVE]

    # Static eval: corrected by the pawn-structure history, then refined by the TT score
    # where its bound allows (``ev``, used by the pruning); the plain static eval
    # (``static_ev``) is what ``improving`` and the correction history compare.
    improving = not in_check
    if in_check:
        ev = -INF
        static_ev = VALUE_NONE
        raw = VALUE_NONE
        heur[EVAL_STACK + sply] = VALUE_NONE
    elif excluded != 0:
        static_ev = heur[EVAL_STACK + sply]
        ev = static_ev
    else:
        if raw == VALUE_NONE:
            raw = static_eval(st, row, heur, acc, sply, net, params)
        static_ev = corrected_eval(heur, st, row, us, raw)
        heur[EVAL_STACK + sply] = static_ev
        ev = _tt_refine(d, sply, static_ev) if d >= 0 else static_ev
    if not in_check and sply >= 2:
        # improving (Stockfish): the static eval beats the one two plies earlier (four when
        # that side was in check; true when both were, and near the root)
        prev = heur[EVAL_STACK + sply - 2]
        if prev == VALUE_NONE and sply >= 4:
            prev = heur[EVAL_STACK + sply - 4]
        improving = prev == VALUE_NONE or static_ev > prev

    if not in_check and not pv_node and excluded == 0:
        # Reverse futility pruning (static null move).
        if (depth <= RFP_MAX_DEPTH and ev - RFP_MARGIN * (depth - improving) >= beta
                and ev < MATE_BOUND):
            return ev
        # Razoring: far below alpha at low depth, ask quiescence whether anything helps.
        if depth <= RAZOR_MAX_DEPTH and ev + RAZOR_BASE + RAZOR_MARGIN * depth * depth < alpha:
            score = negamax(st, mb, tt, heur, mv, acc, net, params, row, ZERO, alpha,
                            alpha + 1, ZERO)
            if heur[STOP]:
                return np.int64(0)
            if score <= alpha:
                return score
        # Null move pruning. Zugzwang guard: the side to move keeps a rook or queen, or at
        # least two minor pieces (with a lone minor, passing is often the only move that does
        # not lose: Morphy's kbK5/pp6/1P6/8/8/8/8/R7 w, 1. Ra6!).
        non_pawn = st[row, OCC + us] ^ st[row, piece_of(us, PAWN)] ^ st[row, piece_of(us, KING)]
        majors = st[row, piece_of(us, ROOK)] | st[row, piece_of(us, QUEEN)]
        if (depth >= NMP_MIN_DEPTH and ev >= beta
                and (majors != U0 or (non_pawn & (non_pawn - U1)) != U0)
                and st[row, LAST_MOVE] != NULL_MOVE and beta > -MATE_BOUND):
            r = (NMP_BASE_R + depth // NMP_DEPTH_DIV
                 + min(NMP_EVAL_MAX_R, (ev - beta) // NMP_EVAL_DIV))
            make_null_move(st, mb, row)
            tt_prefetch(tt, heur, st[row + 1, KEY])
            nnue_push(st, mb, row, np.int64(NULL_MOVE), acc, sply, net)
            score = -negamax(st, mb, tt, heur, mv, acc, net, params, row + 1, depth - 1 - r,
                             -beta, -beta + 1, 1 - cut_node)
            if heur[STOP]:
                return np.int64(0)
            if score >= beta:
                if score >= MATE_BOUND:
                    score = beta
                return score

    # Internal iterative reduction: no TT move at a deep node.
    if tt_move == 0 and depth >= IIR_MIN_DEPTH and (pv_node or cut_node):
        depth -= 1

    # Singular extension (Stockfish, Ethereal): verify, with the TT move excluded, that no
    # other move reaches tt_score - SE_BETA_MARGIN * depth at half depth. Done before this
    # node generates its moves: the verification search reuses this ply's move buffers.
    tt_ext = 0
    if (not root and excluded == 0 and tt_move != 0 and depth >= SE_MIN_DEPTH
            and tt_depth >= depth - SE_TT_DEPTH_SLACK and (tt_bound & BOUND_LOWER) != 0
            and abs(tt_score) < MATE_BOUND and sply < MAX_PLY - EXT_MARGIN):
        sbeta = tt_score - SE_BETA_MARGIN * depth
        heur[EXCLUDED + sply] = tt_move
        score = negamax(st, mb, tt, heur, mv, acc, net, params, row, (depth - 1) // 2,
                        sbeta - 1, sbeta, cut_node)
        heur[EXCLUDED + sply] = 0
        if heur[STOP]:
            return np.int64(0)
        if score < sbeta:
            tt_ext = 1
            if (not pv_node and score < sbeta - SE_DOUBLE_MARGIN
                    and heur[DOUBLE_EXT + sply] < SE_DOUBLE_MAX):
                tt_ext = 2                          # double extension
        elif sbeta >= beta:
            return sbeta                            # multi-cut: several moves beat beta
        elif tt_score >= beta or cut_node:
            tt_ext = -1                             # negative extension

    # Moves come from the staged picker; the root and check evasions are generated at once.
    prev1 = _piece_to(st, mb, row)
    prev2 = _piece_to(st, mb, row - 1)
    picker_init(st, mb, heur, mv, row, sply, tt_move, not (root or in_check), prev1, prev2)
    pk = PICK + sply * PICK_FIELDS
    if root and heur[ROOT_N] > 0:
        # keep only the allowed root moves (searchmoves / MultiPV exclusion)
        n = heur[pk + PICK_END]
        k = 0
        for i in range(n):
            m = mv[sply, MV_MOVES, i]
            for j in range(heur[ROOT_N]):
                if heur[ROOT_MOVES + j] == m:
                    mv[sply, MV_MOVES, k] = m
                    k += 1
                    break
        if n > 0 and k == 0:
            return -INF
        heur[pk + PICK_END] = k
    lmp_count = LMP_BASE + depth * depth
    if not improving:
        lmp_count = lmp_count * LMP_NOT_IMPROVING_NUM // LMP_NOT_IMPROVING_DEN

    best = -INF
    best_move = 0
    bound = BOUND_UPPER
    searched = 0
    legal = 0
    quiets = 0
    captures = 0
    while True:
        m = next_move(st, mb, heur, mv, row, sply)
        if m == 0:
            break
        unverified = heur[pk + PICK_STAGE] == STAGE_GEN_NOISY     # the ungenerated TT move
        order = heur[pk + PICK_SCORE]
        quiet = _is_quiet(mb, row, m)
        if (quiet and not root and not in_check and best > -MATE_BOUND
                and depth <= LMP_MAX_DEPTH and searched >= lmp_count):
            # late move pruning before the move is made: the picker yields only the quiet
            # checks left, unsorted (the pruning spares checks); this move, unless it checks,
            # is pruned unmade
            if heur[pk + PICK_STAGE] == STAGE_QUIET:
                picker_skip_quiets(heur, sply)
            if not _quiet_gives_check(st, mb, row, m):
                continue
        # Copy-make leaves row ``row`` intact, so the move is made first and a pruned move
        # costs nothing to take back; knowing whether it checks keeps checks unpruned (a
        # quiet check such as the pawn push in kbK5/pp6/1P6/8/8/8/8/R7 w, 1.Ra6 bxa6 2.b7#,
        # was lost to futility pruning).
        make_move(st, mb, row, m)
        child = row + 1
        them = 1 - us
        if unverified and _in_check(st, child, us):
            heur[pk + PICK_TT] = 0                  # illegal: the generator will not skip it
            continue
        legal += 1
        if m == excluded:
            continue
        tt_prefetch(tt, heur, st[child, KEY])
        gives_check = _in_check(st, child, them)
        st[child, CHECKED] = U1 if gives_check else U0
        if not root and best > -MATE_BOUND and not in_check and not gives_check:
            if quiet:
                # late move pruning, futility pruning and history pruning of quiet moves
                if depth <= LMP_MAX_DEPTH and searched >= lmp_count:
                    continue
                if (depth <= FUTILITY_MAX_DEPTH and searched > 0
                        and ev + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha):
                    continue
                if (depth <= HISTORY_PRUNE_MAX_DEPTH and searched > 0 and order < ORDER_COUNTER
                        and order < -HISTORY_PRUNE_MARGIN * depth):
                    continue
            elif (depth <= SEE_PRUNE_MAX_DEPTH and order < 0
                  and see(st, mb, heur, row, m) < -SEE_PRUNE_MARGIN * depth):
                continue                            # SEE pruning of losing captures
        nodes_before = heur[NODES]
        ext = tt_ext if m == tt_move else 0
        heur[DOUBLE_EXT + sply + 1] = heur[DOUBLE_EXT + sply] + (ext == 2)
        new_depth = depth - 1 + ext
        # The move's searches, in order: reduced zero window, full-depth zero window, full
        # window. All run through the one recursive call below: Numba types each recursive
        # call site by re-inferring the types of all of negamax (three passes per site), so
        # fewer sites mean a faster first start.
        nnue_push(st, mb, row, m, acc, sply, net)
        r = 0
        if searched == 0:
            phase = PVS_FULL
        else:
            phase = PVS_REDUCED
            if (depth >= LMR_MIN_DEPTH and quiet and not in_check and not gives_check
                    and searched >= (LMR_MIN_MOVES_PV if pv_node else LMR_MIN_MOVES)):
                r = LMR[min(depth, 63), min(searched, 63)]
                if pv_node:
                    r -= 1
                if cut_node:
                    r += 1
                if not improving:
                    r += 1
                if order >= ORDER_COUNTER:
                    r -= 1                          # killers and countermove
                else:
                    r -= order // LMR_HISTORY_DIV   # history, both ways
                if r < 0:
                    r = 0
                if r > new_depth - 1:
                    r = max(new_depth - 1, 0)
        while True:
            if phase == PVS_REDUCED:
                d, lo, cn = new_depth - r, -alpha - 1, ONE
            elif phase == PVS_ZERO_WINDOW:
                d, lo, cn = new_depth, -alpha - 1, 1 - cut_node
            else:
                d, lo, cn = new_depth, -beta, ZERO
            score = -negamax(st, mb, tt, heur, mv, acc, net, params, child, d, lo, -alpha, cn)
            if phase == PVS_REDUCED and score > alpha and r > 0:
                phase = PVS_ZERO_WINDOW
            elif phase != PVS_FULL and score > alpha and score < beta:
                phase = PVS_FULL
            else:
                break
        if heur[STOP]:
            return np.int64(0)
        searched += 1
        if root:
            heur[ROOT_DONE] = searched
        if score > best:
            best = score
            if score > alpha:
                best_move = m
                # update the triangular PV
                base = PV + sply * MAX_PLY
                cbase = PV + (sply + 1) * MAX_PLY
                heur[base] = m
                cl = heur[PV_LEN + sply + 1] if sply + 1 < MAX_PLY else 0
                for j in range(cl):
                    heur[base + 1 + j] = heur[cbase + j]
                heur[PV_LEN + sply] = cl + 1
                if root:
                    heur[BEST_MOVE] = m
                    heur[BEST_SCORE] = score
                    heur[BEST_NODES] = heur[NODES] - nodes_before
                if score >= beta:
                    bound = BOUND_LOWER
                    bonus = min(depth * depth * HISTORY_BONUS_SCALE, HISTORY_BONUS_MAX)
                    if quiet:
                        if heur[KILLERS + 2 * sply] != m:
                            heur[KILLERS + 2 * sply + 1] = heur[KILLERS + 2 * sply]
                            heur[KILLERS + 2 * sply] = m
                        _update_quiet(heur, mb, row, us, m, prev1, prev2, bonus)
                        for j in range(quiets):
                            q = np.int64(mv[sply, MV_QUIETS, j])
                            _update_quiet(heur, mb, row, us, q, prev1, prev2, -bonus)
                        if prev1 >= 0:
                            heur[COUNTER + prev1] = m
                    else:
                        _update_history(heur, _capture_index(mb, row, m), bonus)
                    for j in range(captures):
                        c = np.int64(mv[sply, MV_CAPTURES, j])
                        _update_history(heur, _capture_index(mb, row, c), -bonus)
                    break
                alpha = score
                bound = BOUND_EXACT
        if quiet:
            if quiets < 256:
                mv[sply, MV_QUIETS, quiets] = m
                quiets += 1
        elif captures < 256:
            mv[sply, MV_CAPTURES, captures] = m
            captures += 1
        if root and (heur[SOFT_STOP] or (heur[SOFT_NODES] and heur[NODES] >= heur[SOFT_NODES])):
            # soft time or node limit: end the search after a whole root move, keeping what
            # the finished root moves proved
            heur[STOP] = 1
            return best
    if legal == 0:
        return -MATE + sply if in_check else np.int64(0)
    if searched == 0:
        # every move was pruned or excluded (a filtered root, a singular verification): fail low
        return alpha
    if excluded == 0:
        if (not in_check and (best_move == 0 or _is_quiet(mb, row, best_move))
                and not (bound == BOUND_LOWER and best <= static_ev)
                and not (bound == BOUND_UPPER and best >= static_ev)
                and abs(best) < MATE_BOUND):
            _update_corr(heur, st, row, us, best - static_ev, depth)
        if not (root and heur[ROOT_N] > 0):
            tt_store(tt, heur, key, best_move, score_to_tt(best, sply), raw, depth, bound)
    return best
