"""Transposition table kernels: entry packing, probe, store, prefetch, hashfull.

``tt``: int64[buckets, 8], buckets a power of two (the index mask is ``tt.shape[0] - 1``):
four entries a bucket, each a pair (key XOR data, data). data packs move
(bits 0-15), score + 32768 (16-31), static eval + 32768 (32-47), depth + 1 (48-54), bound
(55-56), age (57-61). Mate scores are stored relative to the node (chessprogramming wiki
"Transposition Table", "Mate Scores"). Storing the key XOR the data makes the table safe for
Lazy SMP threads writing without locks: an entry torn by two concurrent writes no longer
matches its key, so a probe never returns another position's data (Hyatt and Mann's
lockless hashing, chessprogramming wiki "Shared Hash Table").
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .state import MATE_BOUND, VALUE_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT

TT_KEEP_DEPTH = 4               # a same-key entry 4+ plies deeper and not exact is kept (Stockfish)


def new_tt(mib):
    """A transposition table of ``mib`` MiB (int; 16 bytes an entry, 4 entries a bucket,
    the bucket count rounded down to a power of two): int64[buckets, 8].

    The array starts on a 64-byte boundary, so each 64-byte bucket is one cache line (numpy
    only promises 16-byte alignment: a bucket would straddle two lines, two misses a probe)."""
    buckets = max(1, (int(mib) << 20) // 64)
    buckets = 1 << (buckets.bit_length() - 1)
    raw = np.zeros(buckets * 8 + 8, dtype=np.int64)
    off = (-raw.ctypes.data % 64) // 8
    return raw[off:off + buckets * 8].reshape(buckets, 8)


@njit(cache=True)
def _tt_bucket(tt, key):
    """The bucket (row of ``tt``) of ``key``: its low bits, as many as the table has rows."""
    return np.int64(key) & (tt.shape[0] - 1)


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Emit ``llvm.prefetch`` (read, keep in all cache levels) of the first item of row
    ``idx`` of ``arr`` (``arr[idx]`` for a 1-D array): x86 ``prefetcht0``. Bounds are not
    checked; a prefetch never faults."""
    sig = types.void(arr, types.int64)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary,
                                       [args[1]] + [zero] * (aryty.ndim - 1))
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
def tt_prefetch(tt, key):
    """Start loading the TT bucket of ``key`` into the cache (Stockfish prefetches it right
    after making a move, so the child's probe finds the bucket in cache)."""
    _prefetch(tt, _tt_bucket(tt, key))


@njit(cache=True)
def tt_probe(tt, key):
    """The data word (int64) stored for ``key`` (uint64), or -1 when absent (lockless: the
    slot holds key XOR data)."""
    k = np.int64(key)
    b = _tt_bucket(tt, key)
    for e in range(4):
        d = tt[b, 2 * e + 1]
        if d != 0 and (tt[b, 2 * e] ^ d) == k:
            return d
    return np.int64(-1)


@njit(cache=True)
def tt_store(tt, key, move, score, ev, depth, bound, age):
    """Store an entry of TT generation ``age`` (0..31), replacing the same key or the least
    valuable (shallow, old) slot."""
    k = np.int64(key)
    b = _tt_bucket(tt, key)
    slot = 0
    worst = np.int64(1 << 40)
    for e in range(4):
        i = 2 * e
        d = tt[b, i + 1]
        same = d != 0 and (tt[b, i] ^ d) == k
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
    tt[b, slot] = k ^ data
    tt[b, slot + 1] = data


@njit(cache=True)
def tt_move_of(d):
    return d & 0xFFFF


@njit(cache=True)
def tt_score_of(d):
    return ((d >> 16) & 0xFFFF) - 32768


@njit(cache=True)
def tt_eval_of(d):
    return ((d >> 32) & 0xFFFF) - 32768


@njit(cache=True)
def tt_depth_of(d):
    return ((d >> 48) & 0x7F) - 1


@njit(cache=True)
def tt_bound_of(d):
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
def tt_cutoff(d, sply, alpha, beta):
    """The score (centipawns, relative to the node at ``sply``) of TT data word ``d`` when its
    bound settles the window (alpha, beta): exact, a lower bound >= beta or an upper bound
    <= alpha; else VALUE_NONE. The caller checks the stored depth."""
    ts = score_from_tt(tt_score_of(d), sply)
    b = tt_bound_of(d)
    if (b == BOUND_EXACT or (b == BOUND_LOWER and ts >= beta)
            or (b == BOUND_UPPER and ts <= alpha)):
        return ts
    return np.int64(VALUE_NONE)


@njit(cache=True)
def tt_refine(d, sply, ev):
    """Static eval ``ev`` (centipawns) refined by TT data word ``d``: its score replaces ``ev``
    when the bound says the true value lies beyond ``ev`` on that side (a lower bound above
    it, an upper bound below it); mate scores are left out."""
    ts = score_from_tt(tt_score_of(d), sply)
    b = tt_bound_of(d)
    if abs(ts) < MATE_BOUND and (((b & BOUND_LOWER) != 0 and ts > ev)
                                 or ((b & BOUND_UPPER) != 0 and ts < ev)):
        return ts
    return ev


@njit(cache=True)
def hashfull(tt, age):
    """Permille (0..1000) of the first 1000 entries written in the current search (TT
    generation ``age``)."""
    used = 0
    n = min(1000, tt.shape[0] * 4)
    for i in range(n):
        d = tt[i >> 2, 2 * (i & 3) + 1]
        if d != 0 and ((d >> 57) & 0x1F) == age:
            used += 1
    return used * 1000 // max(n, 1)

