"""Rook and bishop attacks indexed by BMI2 PEXT (chessprogramming wiki "BMI2#PEXT Bitboards").

For square ``sq`` and occupancy ``occ`` (uint64)::

    ROOK_PEXT_TABLE[ROOK_OFFSET[sq] + pext(occ, ROOK_MASK[sq])]

``pext`` gathers the bits of ``occ`` selected by the mask into the low bits, so the index is
dense and needs no magic. Same flat layout and offsets as :mod:`.sliders_magic` (102,400 rook
and 5,248 bishop entries), but a different order inside each square's block, hence separate
``*_PEXT_TABLE`` arrays. The tables are built in numpy at import (carry-rippler order is PEXT
order; :func:`pext_soft` checks it in the tests); only the lookups use the hardware instruction, emitted as ``llvm.x86.bmi.pext.64`` (seeds 000 and 003 cover the method).

Import this module only after BMI2 has been confirmed (:mod:`uci_engine.cpu`): compiling the
intrinsic for a CPU without BMI2 aborts the whole process, which no ``try`` can catch. The guard
below therefore raises ImportError first when LLVM's view of the host, or the target Numba
would compile for (:func:`uci_engine.cpu.host_has_bmi2`), lacks BMI2.
"""
from ..cpu import host_has_bmi2

if not host_has_bmi2():
    raise ImportError("sliders_pext needs BMI2 (PEXT), which this CPU or Numba's target "
                      "(NUMBA_CPU_NAME / NUMBA_CPU_FEATURES) lacks")

import numpy as np  # noqa: E402
from llvmlite import ir  # noqa: E402
from numba import njit, types  # noqa: E402
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402

from .bitboard import U0, U1  # noqa: E402
from .sliders_magic import (BISHOP_MASK, BISHOP_OFFSET, ROOK_MASK, ROOK_OFFSET,  # noqa: E402
                            subset_attacks_np)


@intrinsic
def _pext64(typingctx, x, mask):
    """Emit ``llvm.x86.bmi.pext.64(x, mask)``: one ``pext`` instruction (uint64, uint64)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]),
                                            "llvm.x86.bmi.pext.64")
        return builder.call(fn, args)

    return sig, codegen


@njit(cache=True)
def pext(x, mask):
    """Hardware parallel bit extract: the bits of ``x`` at ``mask``'s set bits, packed low."""
    return _pext64(np.uint64(x), np.uint64(mask))


@njit(cache=True)
def pext_soft(x, mask):
    """Software PEXT (uint64): same result as :func:`pext`, one loop step per mask bit."""
    out = U0
    bit = U1
    m = np.uint64(mask)
    while m:
        low = m & (U0 - m)
        if np.uint64(x) & low:
            out |= bit
        bit <<= U1
        m &= m - U1
    return out


def _build(masks, bishop):
    """The PEXT table (uint64[total]): the k-th subset of a square's mask in carry-rippler
    order is the one whose PEXT over the mask is k, so the attack sets of
    :func:`.sliders_magic.subset_attacks_np` are already in PEXT order (tested against
    :func:`pext_soft` in tests/test_sliders.py)."""
    return subset_attacks_np(masks, bishop)[2]


#: uint64[102400], uint64[5248]: attack sets at PEXT indices (layout of ROOK_OFFSET etc.).
ROOK_PEXT_TABLE = _build(ROOK_MASK, False)
BISHOP_PEXT_TABLE = _build(BISHOP_MASK, True)


@njit(cache=True)
def rook_attacks(sq, occ):
    """Rook attacks (uint64) from ``sq`` (int, 0..63) over occupancy ``occ`` (uint64)."""
    return ROOK_PEXT_TABLE[ROOK_OFFSET[sq] + _pext64(np.uint64(occ), ROOK_MASK[sq])]


@njit(cache=True)
def bishop_attacks(sq, occ):
    """Bishop attacks (uint64) from ``sq`` (int, 0..63) over occupancy ``occ`` (uint64)."""
    return BISHOP_PEXT_TABLE[BISHOP_OFFSET[sq] + _pext64(np.uint64(occ), BISHOP_MASK[sq])]
