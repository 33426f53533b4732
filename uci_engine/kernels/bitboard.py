"""Bitboard primitives: uint64 constants, popcount, least-significant-bit scan.

Squares are numbered a1=0, b1=1, ..., h8=63 (little-endian rank-file mapping; chessprogramming
wiki "Square Mapping Considerations"). A bitboard is an ``np.uint64`` with bit ``sq`` set for
each member square. Never mix uint64 with int64 in kernels: use ``U0``/``U1`` and
``U1 << np.uint64(sq)``.
"""
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

U0 = np.uint64(0)
U1 = np.uint64(1)
FULL = np.uint64(0xFFFFFFFFFFFFFFFF)

FILE_A = np.uint64(0x0101010101010101)
FILE_H = np.uint64(0x8080808080808080)
RANK_1 = np.uint64(0x00000000000000FF)
RANK_2 = np.uint64(0x000000000000FF00)
RANK_3 = np.uint64(0x0000000000FF0000)
RANK_4 = np.uint64(0x00000000FF000000)
RANK_5 = np.uint64(0x000000FF00000000)
RANK_6 = np.uint64(0x0000FF0000000000)
RANK_7 = np.uint64(0x00FF000000000000)
RANK_8 = np.uint64(0xFF00000000000000)
NOT_FILE_A = ~FILE_A
NOT_FILE_H = ~FILE_H

WHITE = 0
BLACK = 1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5
NO_PIECE = 12
NO_SQ = 64


@intrinsic
def _ctpop64(typingctx, x):
    """Emit ``llvm.ctpop.i64`` (one ``popcnt`` on x86-64 with POPCNT)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz64(typingctx, x):
    """Emit ``llvm.cttz.i64`` (``tzcnt``/``bsf``); undefined for 0 is not requested."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@njit(cache=True)
def popcount(b):
    """Number of set bits of the uint64 bitboard ``b`` (int64)."""
    return np.int64(_ctpop64(np.uint64(b)))


@njit(cache=True)
def lsb(b):
    """Index (0..63, int64) of the least significant set bit of ``b``; 64 for an empty board."""
    return np.int64(_cttz64(np.uint64(b)))
