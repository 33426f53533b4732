"""Rook and bishop attacks by fixed-shift black magics in one overlapping table.

For square ``sq`` and occupancy ``occ`` (uint64)::

    BLACK_TABLE[ROOK_OFFSET[sq] + (((occ | ~ROOK_MASK[sq]) * ROOK_MAGIC[sq]) >> ROOK_SHIFT)]

in wrapping uint64 arithmetic (``~ROOK_MASK`` is stored as ``ROOK_NOT_MASK``); the bishop lookup
is the same with the ``BISHOP_`` arrays and the same table. OR-ing in the negated mask instead
of AND-ing the mask lets a magic move each square's used slots away from index 0, so the
squares' sparse blocks can overlap: every rook (12 index bits, shift 52) and bishop (9 bits,
shift 55) shares one table of ``TABLE_SIZE`` entries (87,988, about 687 KiB, against 107,648
and 841 KiB for :mod:`.sliders_magic`). The shifts are the same for every square, so they are
constants in the compiled code.

The technique is Volker Annuss's black magic bitboards (chessprogramming wiki "Magic
Bitboards", section Black Magic Bitboards; seeds 000 and 004). The magics and offsets come from
the generated module :mod:`.black_magics` (``scripts/find_magics.py --black``, which verifies
every published number against the ray scan); the table is built here at import in plain numpy
from the subsets and ray-scan attacks of :func:`.rays.subset_attacks_np`, as the fancy magic
tables are. All arrays are module globals, frozen into every compiled caller as constants.
"""
import numpy as np
from numba import njit

from .black_magics import (BISHOP_MAGICS, BISHOP_OFFSETS, BISHOP_SHIFT, ROOK_MAGICS,
                           ROOK_OFFSETS, ROOK_SHIFT, TABLE_SIZE)
from .rays import BISHOP_MASKS, ROOK_MASKS, subset_attacks_np

#: uint64[64]: relevant-occupancy masks (edges excluded) and their complements.
ROOK_MASK, BISHOP_MASK = ROOK_MASKS, BISHOP_MASKS
ROOK_NOT_MASK = ~ROOK_MASKS
BISHOP_NOT_MASK = ~BISHOP_MASKS
#: uint64[64]: black magic multipliers and first slots of each square in ``BLACK_TABLE``.
ROOK_MAGIC, BISHOP_MAGIC = ROOK_MAGICS, BISHOP_MAGICS
ROOK_OFFSET, BISHOP_OFFSET = ROOK_OFFSETS, BISHOP_OFFSETS
#: The fixed right shifts (np.uint64): 64 - 12 for rooks, 64 - 9 for bishops.
ROOK_SHIFT_U = np.uint64(ROOK_SHIFT)
BISHOP_SHIFT_U = np.uint64(BISHOP_SHIFT)


def black_index_np(occs, not_mask, magic, shift):
    """int64[n]: ``((occs | not_mask) * magic) >> shift`` for uint64[n] ``occs``, wrapping."""
    prod = (np.asarray(occs, dtype=np.uint64) | np.uint64(not_mask)) * np.uint64(magic)
    return (prod >> np.uint64(shift)).astype(np.int64)


def _build():
    """The shared table (uint64[TABLE_SIZE]): each subset's ray-scan attack set at its square's
    offset plus its black magic index. Slots no subset reaches stay 0. Raises ValueError if two
    subsets with different attack sets land on one slot (the generated constants are verified
    by the finder and by tests/test_sliders.py, so this would mean a corrupted module)."""
    table = np.zeros(TABLE_SIZE, dtype=np.uint64)
    filled = np.zeros(TABLE_SIZE, dtype=np.bool_)
    for masks, not_masks, magics, offsets, shift, bishop in (
            (ROOK_MASK, ROOK_NOT_MASK, ROOK_MAGIC, ROOK_OFFSET, ROOK_SHIFT, False),
            (BISHOP_MASK, BISHOP_NOT_MASK, BISHOP_MAGIC, BISHOP_OFFSET, BISHOP_SHIFT, True)):
        bounds, all_occs, all_atts = subset_attacks_np(masks, bishop)
        for sq in range(64):
            lo, hi = int(bounds[sq]), int(bounds[sq + 1])
            occs, atts = all_occs[lo:hi], all_atts[lo:hi]
            slots = int(offsets[sq]) + black_index_np(occs, not_masks[sq], magics[sq], shift)
            if np.any(filled[slots] & (table[slots] != atts)):
                raise ValueError(f"black magic collision, {'bishop' if bishop else 'rook'} "
                                 f"square {sq}")
            table[slots] = atts
            filled[slots] = True
            if np.any(table[slots] != atts):       # two subsets of this square on one slot
                raise ValueError(f"black magic collision within square {sq}")
    return table


#: uint64[TABLE_SIZE]: attack sets of every rook and bishop square at black magic indices.
BLACK_TABLE = _build()
#: Bytes of every array the lookups read (table, magics, offsets, negated masks).
TABLE_BYTES = int(BLACK_TABLE.nbytes + ROOK_MAGIC.nbytes + BISHOP_MAGIC.nbytes
                  + ROOK_OFFSET.nbytes + BISHOP_OFFSET.nbytes + ROOK_NOT_MASK.nbytes
                  + BISHOP_NOT_MASK.nbytes)


@njit(cache=True)
def rook_attacks(sq, occ):
    """Rook attacks (uint64) from ``sq`` (int, 0..63) over occupancy ``occ`` (uint64)."""
    idx = ((np.uint64(occ) | ROOK_NOT_MASK[sq]) * ROOK_MAGIC[sq]) >> ROOK_SHIFT_U
    return BLACK_TABLE[ROOK_OFFSET[sq] + idx]


@njit(cache=True)
def bishop_attacks(sq, occ):
    """Bishop attacks (uint64) from ``sq`` (int, 0..63) over occupancy ``occ`` (uint64)."""
    idx = ((np.uint64(occ) | BISHOP_NOT_MASK[sq]) * BISHOP_MAGIC[sq]) >> BISHOP_SHIFT_U
    return BLACK_TABLE[BISHOP_OFFSET[sq] + idx]
