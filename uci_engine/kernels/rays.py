"""Reference attack generation by ray scanning, leaper tables, relevant masks, between/line.

The ray-scan slider functions are the slow oracle that the magic and PEXT tables are built from
and tested against (chessprogramming wiki "Classical Approach"; seeds 000 and 003). Leaper tables
and the between/line tables are fixed module-level uint64 arrays, frozen into compiled callers.
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1

ROOK_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


@njit(cache=True)
def _ray_scan(sq, occ, bishop):
    """Attacks (uint64) of a slider on ``sq`` (0..63) over ``occ`` by walking each ray."""
    result = U0
    f0 = sq % 8
    r0 = sq // 8
    for d in range(4):
        if bishop:
            df = 1 if d < 2 else -1
            dr = 1 if d % 2 == 0 else -1
        else:
            df = (1, -1, 0, 0)[d]
            dr = (0, 0, 1, -1)[d]
        f = f0 + df
        r = r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            b = U1 << np.uint64(r * 8 + f)
            result |= b
            if occ & b:
                break
            f += df
            r += dr
    return result


@njit(cache=True)
def rook_attacks_slow(sq, occ):
    """Rook attacks (uint64) from ``sq`` given occupancy ``occ`` (uint64), by ray scan."""
    return _ray_scan(sq, occ, False)


@njit(cache=True)
def bishop_attacks_slow(sq, occ):
    """Bishop attacks (uint64) from ``sq`` given occupancy ``occ`` (uint64), by ray scan."""
    return _ray_scan(sq, occ, True)


def ray_attacks_np(sq, occs, bishop):
    """Ray-scan attacks (uint64[n]) of a rook (or, if ``bishop``, a bishop) on ``sq`` over each
    occupancy of ``occs`` (uint64[n]), vectorized with numpy: what :func:`_ray_scan` computes,
    for building tables at import without compiling anything (a cold start compiles only what
    the search calls)."""
    occs = np.asarray(occs, dtype=np.uint64)
    out = np.zeros(occs.shape, dtype=np.uint64)
    f0, r0 = sq % 8, sq // 8
    for df, dr in (BISHOP_DIRS if bishop else ROOK_DIRS):
        open_ = np.ones(occs.shape, dtype=bool)
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            b = np.uint64(1 << (r * 8 + f))
            out[open_] |= b
            open_ &= (occs & b) == 0
            f, r = f + df, r + dr
    return out


def _py_ray(sq, dirs, occ=0, exclude_edges=False):
    """Plain-Python ray scan returning a Python int bitboard (table building only)."""
    out = 0
    f0, r0 = sq % 8, sq // 8
    for df, dr in dirs:
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            if exclude_edges:
                nf, nr = f + df, r + dr
                if not (0 <= nf < 8 and 0 <= nr < 8):
                    break
            out |= 1 << (r * 8 + f)
            if occ >> (r * 8 + f) & 1:
                break
            f += df
            r += dr
    return out


def _leaper(deltas):
    t = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        f0, r0 = sq % 8, sq // 8
        b = 0
        for df, dr in deltas:
            f, r = f0 + df, r0 + dr
            if 0 <= f < 8 and 0 <= r < 8:
                b |= 1 << (r * 8 + f)
        t[sq] = b
    return t


#: uint64[64]: knight attacks from each square.
KNIGHT_ATTACKS = _leaper(((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)))
#: uint64[64]: king attacks from each square.
KING_ATTACKS = _leaper(((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)))
#: uint64[2, 64]: squares attacked by a pawn of colour c (0 white, 1 black) on each square.
PAWN_ATTACKS = np.stack([_leaper(((1, 1), (-1, 1))), _leaper(((1, -1), (-1, -1)))])

#: uint64[64]: rook relevant occupancy masks (edge squares excluded).
ROOK_MASKS = np.array([_py_ray(s, ROOK_DIRS, exclude_edges=True) for s in range(64)], dtype=np.uint64)
#: uint64[64]: bishop relevant occupancy masks (edge squares excluded).
BISHOP_MASKS = np.array([_py_ray(s, BISHOP_DIRS, exclude_edges=True) for s in range(64)], dtype=np.uint64)


def _between_line():
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    for a in range(64):
        for dirs in (ROOK_DIRS, BISHOP_DIRS):
            empty_a = _py_ray(a, dirs)
            for b in range(64):
                if a == b or not (empty_a >> b & 1):
                    continue
                bbit = 1 << b
                between[a, b] = _py_ray(a, dirs, occ=bbit) & _py_ray(b, dirs, occ=1 << a)
                line[a, b] = (empty_a & _py_ray(b, dirs)) | (1 << a) | bbit
    return between, line


#: uint64[64, 64]: squares strictly between a and b on a shared rank, file or diagonal, else 0.
#: uint64[64, 64]: the whole line through a and b (edge to edge, both included), else 0.
BETWEEN, LINE = _between_line()


def carry_rippler_subsets(mask):
    """All subsets of ``mask`` (int) in carry-rippler order: 0, ..., mask (chessprogramming wiki
    "Traversing Subsets of a Set"). Returns a list of Python ints of length 2**popcount(mask)."""
    out = []
    sub = 0
    while True:
        out.append(sub)
        sub = (sub - mask) & mask
        if sub == 0:
            return out


def subset_attacks_np(masks, bishop):
    """:func:`uci_engine.kernels.sliders_magic.subset_attacks` in plain numpy (same arrays,
    same order): ``(offsets uint64[65], occs, atts)``, every subset of each square's mask in
    carry-rippler order and its ray-scan attack set; used by the slider modules to build their
    tables at import: a compiled builder would cost each cold start about 2 s of JIT
    compilation for code that runs once."""
    sizes = [1 << bin(int(m)).count("1") for m in masks]
    offsets = np.zeros(65, dtype=np.uint64)
    offsets[1:] = np.cumsum(sizes, dtype=np.uint64)
    occs = np.empty(int(offsets[64]), dtype=np.uint64)
    atts = np.empty(int(offsets[64]), dtype=np.uint64)
    for sq in range(64):
        lo, hi = int(offsets[sq]), int(offsets[sq + 1])
        occs[lo:hi] = carry_rippler_subsets(int(masks[sq]))
        atts[lo:hi] = ray_attacks_np(sq, occs[lo:hi], bishop)
    return offsets, occs, atts
