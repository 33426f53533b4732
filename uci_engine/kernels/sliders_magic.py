"""Rook and bishop attacks by fancy magic bitboards (chessprogramming wiki "Magic Bitboards").

For square ``sq`` and occupancy ``occ`` (uint64)::

    ROOK_TABLE[ROOK_OFFSET[sq] + (((occ & ROOK_MASK[sq]) * ROOK_MAGIC[sq]) >> ROOK_SHIFT[sq])]

in wrapping uint64 arithmetic; the bishop lookup is the same with the ``BISHOP_`` arrays. Every
square owns ``2**popcount(mask)`` consecutive slots of one flat table per piece (102,400 rook and
5,248 bishop entries, about 840 KiB). The magics come from the generated module
:mod:`.magics` (``scripts/find_magics.py``); the tables are built here at import time in plain
numpy (:func:`subset_attacks_np`, a vectorized ray scan from :mod:`.rays`), so a cold start
compiles no table builder; the compiled :func:`subset_attacks` stays as their oracle. All arrays are module globals, so Numba freezes them into every
compiled caller as constants (seeds 000, 003, 004 describe the technique).

:func:`subset_attacks_np` (in :mod:`.rays`, imported here) and the offsets are shared with
:mod:`.sliders_pext`, whose tables have the same layout but a different order inside each
square's block; :mod:`.sliders_black` builds from the same subsets.
"""
import numpy as np
from numba import njit

from .bitboard import U0, popcount
from .magics import BISHOP_MAGICS, BISHOP_SHIFTS, ROOK_MAGICS, ROOK_SHIFTS
from .rays import (BISHOP_MASKS, ROOK_MASKS, bishop_attacks_slow, rook_attacks_slow,
                   subset_attacks_np)


@njit(cache=True)
def subset_attacks(masks, bishop):
    """Ray-scan attack sets of every subset of every square's mask, in carry-rippler order.

    ``masks`` is uint64[64]. Returns ``(offsets, occs, atts)``: ``offsets`` uint64[65] with
    ``offsets[sq]`` the first slot of square ``sq`` (``offsets[64]`` the total size), and
    ``occs``/``atts`` uint64[total] holding, for each square's block, the subsets of its mask
    in carry-rippler order (chessprogramming wiki "Traversing Subsets of a Set") and the rook
    (or, if ``bishop``, bishop) attacks over each. The k-th subset in that order is the one whose
    PEXT over the mask equals k, so ``atts`` is already the PEXT table."""
    offsets = np.zeros(65, dtype=np.uint64)
    for sq in range(64):
        offsets[sq + 1] = offsets[sq] + (np.uint64(1) << np.uint64(popcount(masks[sq])))
    total = offsets[64]
    occs = np.empty(total, dtype=np.uint64)
    atts = np.empty(total, dtype=np.uint64)
    for sq in range(64):
        mask = masks[sq]
        sub = U0
        i = offsets[sq]
        while True:
            occs[i] = sub
            atts[i] = bishop_attacks_slow(sq, sub) if bishop else rook_attacks_slow(sq, sub)
            i += np.uint64(1)
            sub = (sub - mask) & mask
            if sub == U0:
                break
    return offsets, occs, atts


def _build(masks, magics, shifts, bishop):
    """(offsets uint64[65], table uint64[offsets[64]]): each attack set of
    :func:`subset_attacks_np` at its square's offset plus its magic index."""
    offsets, occs, atts = subset_attacks_np(masks, bishop)
    table = np.zeros(int(offsets[64]), dtype=np.uint64)
    for sq in range(64):
        lo, hi = int(offsets[sq]), int(offsets[sq + 1])
        idx = (occs[lo:hi] * magics[sq]) >> shifts[sq]       # wrapping uint64 multiply
        table[lo + idx.astype(np.int64)] = atts[lo:hi]
    return offsets, table


#: uint64[64]: relevant-occupancy masks (edges excluded), magics and right shifts per square.
ROOK_MASK, ROOK_MAGIC, ROOK_SHIFT = ROOK_MASKS, ROOK_MAGICS, ROOK_SHIFTS
BISHOP_MASK, BISHOP_MAGIC, BISHOP_SHIFT = BISHOP_MASKS, BISHOP_MAGICS, BISHOP_SHIFTS

_rook_offsets, ROOK_TABLE = _build(ROOK_MASK, ROOK_MAGIC, ROOK_SHIFT, False)
_bishop_offsets, BISHOP_TABLE = _build(BISHOP_MASK, BISHOP_MAGIC, BISHOP_SHIFT, True)
#: uint64[64]: first slot of each square's block in ``ROOK_TABLE`` / ``BISHOP_TABLE``.
ROOK_OFFSET = np.ascontiguousarray(_rook_offsets[:64])
BISHOP_OFFSET = np.ascontiguousarray(_bishop_offsets[:64])
#: ROOK_TABLE uint64[102400], BISHOP_TABLE uint64[5248]: attack sets at magic indices.
ROOK_TABLE_SIZE = int(_rook_offsets[64])
BISHOP_TABLE_SIZE = int(_bishop_offsets[64])


@njit(cache=True)
def rook_attacks(sq, occ):
    """Rook attacks (uint64) from ``sq`` (int, 0..63) over occupancy ``occ`` (uint64)."""
    idx = ((np.uint64(occ) & ROOK_MASK[sq]) * ROOK_MAGIC[sq]) >> ROOK_SHIFT[sq]
    return ROOK_TABLE[ROOK_OFFSET[sq] + idx]


@njit(cache=True)
def bishop_attacks(sq, occ):
    """Bishop attacks (uint64) from ``sq`` (int, 0..63) over occupancy ``occ`` (uint64)."""
    idx = ((np.uint64(occ) & BISHOP_MASK[sq]) * BISHOP_MAGIC[sq]) >> BISHOP_SHIFT[sq]
    return BISHOP_TABLE[BISHOP_OFFSET[sq] + idx]
