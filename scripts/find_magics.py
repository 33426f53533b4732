"""Search for magic multipliers and write ``uci_engine/kernels/magics.py`` (fancy magics) or
``black_magics.py`` (fixed-shift black magics in one overlapping table); or check them.

Usage::

    python scripts/find_magics.py --seed 1          # search, then write magics.py
    python scripts/find_magics.py --check           # verify the stored magics; exit 1 on failure
    python scripts/find_magics.py --black           # verify the published black magics, write
                                                    # black_magics.py, print the table's KiB
    python scripts/find_magics.py --black --search --seed 1 --out F   # our own, packed first fit
    python scripts/find_magics.py --black --check   # re-verify black_magics.py exhaustively

The search follows the chessprogramming wiki "Looking for Magics" (Tord Romstad's approach, also
seeds 000 and 004): for each square, draw sparse candidates (the AND of three random uint64s),
reject those whose product with the relevant mask puts fewer than 6 bits in the top byte, then
hash every subset of the mask and accept the first candidate without a destructive collision.
Constructive collisions (two occupancies with the same attack set sharing a slot) are accepted.
Instead of clearing the trial table for each candidate, each slot carries an age stamp
("epoch"): a slot counts as empty unless its stamp equals the current attempt number.

The shift is always ``64 - popcount(mask)`` (no shrunken tables), so the flat tables keep the
standard sizes: 102,400 rook and 5,248 bishop entries. The random stream is a splitmix64
generator seeded from ``--seed`` and the square, so every square's magic is reproducible on its
own. The engine never runs this search: it only reads the generated constants.

Black magics (``--black``; chessprogramming wiki "Magic Bitboards", section Black Magic Bitboards,
Volker Annuss): the index is ``((occ | ~mask) * magic) >> shift`` with one shift for every square
(rook 12 bits, bishop 9). OR-ing in the negated mask lets a magic place a square's used slots
anywhere in its 4,096 (512) entries, so the squares' tables can overlap in one array that rooks
and bishops share, each square at an offset where its used slots fall into the gaps of the
others (or onto an equal attack set). The written module holds the published set
(:data:`PUBLISHED_ROOK`, :data:`PUBLISHED_BISHOP`, credited there): 87,988 entries, 687.4 KiB,
against 107,648 entries and 841.0 KiB for the fancy magics. :func:`check_black` verifies every
number exhaustively before anything is written. ``--search`` finds magics of its own (of 64
valid candidates per square, the narrowest span) and packs them first fit
(:func:`pack_black`), but reaches only 183,179 entries (seed 1): the published set is the
product of a far longer search and a better packing (our first fit packs the published magics
into 100,281 entries), so the engine uses it.
"""
import argparse
import os
import sys
import time

import numpy as np
from numba import njit

from uci_engine.kernels.bitboard import U0, popcount
from uci_engine.kernels.rays import (BISHOP_MASKS, ROOK_MASKS, bishop_attacks_slow,
                                     rook_attacks_slow)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OUT_PATH = os.path.join(ROOT, "uci_engine", "kernels", "magics.py")
DEFAULT_SEED = 1
MAX_TRIES = 100_000_000


@njit(cache=True)
def _splitmix64(state):
    """Next uint64 of the splitmix64 stream whose state is ``state[0]`` (uint64[1], updated)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def subset_attacks(sq, mask, bishop):
    """Every subset of ``mask`` (uint64) in carry-rippler order and its ray-scan attack set.

    Returns ``(occs, atts)``, two uint64 arrays of length ``2**popcount(mask)``; ``atts[i]`` is
    the rook (or, if ``bishop``, bishop) attack set from ``sq`` over occupancy ``occs[i]``."""
    n = 1 << popcount(mask)
    occs = np.empty(n, dtype=np.uint64)
    atts = np.empty(n, dtype=np.uint64)
    sub = U0
    for i in range(n):
        occs[i] = sub
        atts[i] = bishop_attacks_slow(sq, sub) if bishop else rook_attacks_slow(sq, sub)
        sub = (sub - mask) & mask
    return occs, atts


@njit(cache=True)
def _magic_works(occs, atts, magic, shift, used, epoch, stamp):
    """True if ``magic`` maps every ``occs[i]`` to a slot whose attack set is ``atts[i]``.

    ``used``/``epoch`` (uint64/int64 arrays of size ``2**(64 - shift)``) are the trial table and
    its age stamps; a slot is live only when ``epoch[slot] == stamp``."""
    for i in range(occs.size):
        idx = (occs[i] * magic) >> shift
        if epoch[idx] != stamp:
            epoch[idx] = stamp
            used[idx] = atts[i]
        elif used[idx] != atts[i]:
            return False
    return True


@njit(cache=True)
def _find_magic(occs, atts, mask, shift, seed, max_tries):
    """First sparse random magic for one square that hashes ``occs`` without a destructive
    collision. Returns ``(magic, tries)``; ``magic`` is 0 if ``max_tries`` ran out."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    size = 1 << (64 - np.int64(shift))
    used = np.zeros(size, dtype=np.uint64)
    epoch = np.zeros(size, dtype=np.int64)
    for attempt in range(1, max_tries + 1):
        magic = _splitmix64(state) & _splitmix64(state) & _splitmix64(state)
        if popcount((mask * magic) >> np.uint64(56)) < 6:
            continue
        if _magic_works(occs, atts, magic, shift, used, epoch, attempt):
            return magic, attempt
    return U0, max_tries


def square_seed(seed, bishop, sq):
    """Initial splitmix64 state (np.uint64) for one square: independent of the other squares."""
    s = np.empty(1, dtype=np.uint64)
    s[0] = np.uint64((seed * 1_000_003 + (64 if bishop else 0) + sq) & 0xFFFFFFFFFFFFFFFF)
    return np.uint64(_splitmix64(s))


def shifts_for(masks):
    """uint64[64]: ``64 - popcount(mask)`` per square."""
    return np.array([64 - bin(int(m)).count("1") for m in masks], dtype=np.uint64)


def search(seed, progress=True):
    """Find rook and bishop magics. Returns ``(rook_magics, bishop_magics, total_tries)`` with
    uint64[64] arrays."""
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is a tools/test extra; run without a bar if absent
        tqdm = None
    jobs = [(False, sq) for sq in range(64)] + [(True, sq) for sq in range(64)]
    bar = tqdm(jobs, desc="magics", unit="sq", disable=not progress) if tqdm else jobs
    out = {False: np.zeros(64, dtype=np.uint64), True: np.zeros(64, dtype=np.uint64)}
    total = 0
    for bishop, sq in bar:
        masks = BISHOP_MASKS if bishop else ROOK_MASKS
        mask = masks[sq]
        shift = np.uint64(64 - bin(int(mask)).count("1"))
        occs, atts = subset_attacks(sq, mask, bishop)
        magic, tries = _find_magic(occs, atts, mask, shift, square_seed(seed, bishop, sq),
                                   MAX_TRIES)
        if magic == 0:
            raise RuntimeError(f"no magic for {'bishop' if bishop else 'rook'} square {sq}")
        out[bishop][sq] = magic
        total += tries
    return out[False], out[True], total


def check(rook_magics, bishop_magics, rook_shifts=None, bishop_shifts=None):
    """Verify magics against the ray scan for every subset of every relevant mask.

    Returns a list of failure messages (empty when every square hashes without a destructive
    collision and every shift equals ``64 - popcount(mask)``)."""
    failures = []
    for name, masks, magics, shifts, bishop in (
            ("rook", ROOK_MASKS, rook_magics, rook_shifts, False),
            ("bishop", BISHOP_MASKS, bishop_magics, bishop_shifts, True)):
        want = shifts_for(masks)
        if len(magics) != 64:
            failures.append(f"{name}: {len(magics)} magics, expected 64")
            continue
        if shifts is not None and not np.array_equal(np.asarray(shifts, dtype=np.uint64), want):
            failures.append(f"{name}: shifts differ from 64 - popcount(mask)")
        for sq in range(64):
            occs, atts = subset_attacks(sq, masks[sq], bishop)
            size = 1 << (64 - int(want[sq]))
            used = np.zeros(size, dtype=np.uint64)
            epoch = np.zeros(size, dtype=np.int64)
            if not _magic_works(occs, atts, np.uint64(magics[sq]), want[sq], used, epoch, 1):
                failures.append(f"{name} square {sq}: magic {int(magics[sq]):#018x} collides")
    return failures


def _array_literal(name, values, comment, per_line=4):
    lines = [f"#: {comment}", f"{name} = np.array(["]
    for i in range(0, 64, per_line):
        lines.append("    " + " ".join(f"0x{int(v):016X}," for v in values[i:i + per_line]))
    lines.append("], dtype=np.uint64)")
    return "\n".join(lines)


def render(seed, rook_magics, bishop_magics, command):
    """Source text of ``magics.py`` for the given magics (uint64[64] each)."""
    rs, bs = shifts_for(ROOK_MASKS), shifts_for(BISHOP_MASKS)

    def shifts(name, values):
        rows = ["    " + " ".join(f"{int(v)}," for v in values[i:i + 16]) for i in range(0, 64, 16)]
        return "\n".join([f"#: uint64[64]: 64 - popcount({name.split('_')[0]}_MASKS[sq]).",
                          f"{name} = np.array(["] + rows + ["], dtype=np.uint64)"])

    return "\n".join([
        '"""Fancy magic multipliers for rook and bishop attack lookup (GENERATED: do not edit).',
        "",
        f"Generated by ``{command}`` (seed {seed}); verify with",
        "``python scripts/find_magics.py --check``. Index for square ``sq`` and occupancy ``occ``:",
        "``((occ & MASK[sq]) * MAGIC[sq]) >> SHIFT[sq]`` in wrapping uint64 arithmetic",
        '(chessprogramming wiki "Magic Bitboards"; seeds 000, 003, 004).',
        '"""',
        "import numpy as np",
        "",
        f"SEED = {seed}",
        "",
        _array_literal("ROOK_MAGICS", rook_magics, "uint64[64]: rook magic multipliers."),
        "",
        _array_literal("BISHOP_MAGICS", bishop_magics, "uint64[64]: bishop magic multipliers."),
        "",
        shifts("ROOK_SHIFTS", rs),
        "",
        shifts("BISHOP_SHIFTS", bs),
        "",
    ])


# --- fixed-shift black magics with overlapping tables -------------------------------------------
BLACK_OUT_PATH = os.path.join(ROOT, "uci_engine", "kernels", "black_magics.py")
#: One right shift per piece for every square: 12 index bits for rooks, 9 for bishops.
ROOK_BLACK_SHIFT = 64 - 12
BISHOP_BLACK_SHIFT = 64 - 9
#: Attempts per square in ``--black --search``, and valid magics kept before the best is chosen.
BLACK_MAX_TRIES = 20_000_000
BLACK_KEEP = 64

#: Published fixed-shift black magics with their offsets into one table shared by rooks and
#: bishops, as ``(magic, offset)`` per square a1..h8: the numbers are Volker Annuss's (Talkchess
#: CCC, "Black magic bitboards", 2017, topic 64790; chessprogramming wiki "Magic Bitboards",
#: section Black Magic Bitboards), with the offsets repacked by Niklas Fiekas (the set used by
#: cozy-chess and other engines). Facts, verified by :func:`check_black` before use.
PUBLISHED_ROOK = (
    (0x80280013FF84FFFF, 10890), (0x5FFBFEFDFEF67FFF, 50579), (0xFFEFFAFFEFFDFFFF, 62020),
    (0x003000900300008A, 67322), (0x0050028010500023, 80251), (0x0020012120A00020, 58503),
    (0x0030006000C00030, 51175), (0x0058005806B00002, 83130), (0x7FBFF7FBFBEAFFFC, 50430),
    (0x0000140081050002, 21613), (0x0000180043800048, 72625), (0x7FFFE800021FFFB8, 80755),
    (0xFFFFCFFE7FCFFFAF, 69753), (0x00001800C0180060, 26973), (0x4F8018005FD00018, 84972),
    (0x0000180030620018, 31958), (0x00300018010C0003, 69272), (0x0003000C0085FFFF, 48372),
    (0xFFFDFFF7FBFEFFF7, 65477), (0x7FC1FFDFFC001FFF, 43972), (0xFFFEFFDFFDFFDFFF, 57154),
    (0x7C108007BEFFF81F, 53521), (0x20408007BFE00810, 30534), (0x0400800558604100, 16548),
    (0x0040200010080008, 46407), (0x0010020008040004, 11841), (0xFFFDFEFFF7FBFFF7, 21112),
    (0xFEBF7DFFF8FEFFF9, 44214), (0xC00000FFE001FFE0, 57925), (0x4AF01F00078007C3, 29574),
    (0xBFFBFAFFFB683F7F, 17309), (0x0807F67FFA102040, 40143), (0x200008E800300030, 64659),
    (0x0000008780180018, 70469), (0x0000010300180018, 62917), (0x4000008180180018, 60997),
    (0x008080310005FFFA, 18554), (0x4000188100060006, 14385), (0xFFFFFF7FFFBFBFFF,     0),
    (0x0000802000200040, 38091), (0x20000202EC002800, 25122), (0xFFFFF9FF7CFFF3FF, 60083),
    (0x000000404B801800, 72209), (0x2000002FE03FD000, 67875), (0xFFFFFF6FFE7FCFFD, 56290),
    (0xBFF7EFFFBFC00FFF, 43807), (0x000000100800A804, 73365), (0x6054000A58005805, 76398),
    (0x0829000101150028, 20024), (0x00000085008A0014,  9513), (0x8000002B00408028, 24324),
    (0x4000002040790028, 22996), (0x7800002010288028, 23213), (0x0000001800E08018, 56002),
    (0xA3A80003F3A40048, 22809), (0x2003D80000500028, 44545), (0xFFFFF37EEFEFDFBE, 36072),
    (0x40000280090013C1,  4750), (0xBF7FFEFFBFFAF71F,  6014), (0xFFFDFFFF777B7D6E, 36054),
    (0x48300007E8080C02, 78538), (0xAFE0000FFF780402, 28745), (0xEE73FFFBFFBB77FE,  8555),
    (0x0002000308482882,  1009),
)
PUBLISHED_BISHOP = (
    (0xA7020080601803D8, 60984), (0x13802040400801F1, 66046), (0x0A0080181001F60C, 32910),
    (0x1840802004238008, 16369), (0xC03FE00100000000, 42115), (0x24C00BFFFF400000,   835),
    (0x0808101F40007F04, 18910), (0x100808201EC00080, 25911), (0xFFA2FEFFBFEFB7FF, 63301),
    (0x083E3EE040080801, 16063), (0xC0800080181001F8, 17481), (0x0440007FE0031000, 59361),
    (0x2010007FFC000000, 18735), (0x1079FFE000FF8000, 61249), (0x3C0708101F400080, 68938),
    (0x080614080FA00040, 61791), (0x7FFE7FFF817FCFF9, 21893), (0x7FFEBFFFA01027FD, 62068),
    (0x53018080C00F4001, 19829), (0x407E0001000FFB8A, 26091), (0x201FE000FFF80010, 15815),
    (0xFFDFEFFFDE39FFEF, 16419), (0xCC8808000FBF8002, 59777), (0x7FF7FBFFF8203FFF, 16288),
    (0x8800013E8300C030, 33235), (0x0420009701806018, 15459), (0x7FFEFF7F7F01F7FD, 15863),
    (0x8700303010C0C006, 75555), (0xC800181810606000, 79445), (0x20002038001C8010, 15917),
    (0x087FF038000FC001,  8512), (0x00080C0C00083007, 73069), (0x00000080FC82C040, 16078),
    (0x000000407E416020, 19168), (0x00600203F8008020, 11056), (0xD003FEFE04404080, 62544),
    (0xA00020C018003088, 80477), (0x7FBFFE700BFFE800, 75049), (0x107FF00FE4000F90, 32947),
    (0x7F8FFFCFF1D007F8, 59172), (0x0000004100F88080, 55845), (0x00000020807C4040, 61806),
    (0x00000041018700C0, 73601), (0x0010000080FC4080, 15546), (0x1000003C80180030, 45243),
    (0xC10000DF80280050, 20333), (0xFFFFFFBFEFF80FDC, 33402), (0x000000101003F812, 25917),
    (0x0800001F40808200, 32875), (0x084000101F3FD208,  4639), (0x080000000F808081, 17077),
    (0x0004000008003F80, 62324), (0x08000001001FE040, 18159), (0x72DD000040900A00, 61436),
    (0xFFFFFEFFBFEFF81D, 57073), (0xCD8000200FEBF209, 61025), (0x100000101EC10082, 81259),
    (0x7FBAFFFFEFE0C02F, 64083), (0x7F83FFFFFFF07F7F, 56114), (0xFFF1FFFFFFF7FFC1, 57058),
    (0x0878040000FFE01F, 58912), (0x945E388000801012, 22194), (0x0840800080200FDA, 70880),
    (0x100000C05F582008, 11140),
)


@njit(cache=True)
def black_indices(occs, mask, magic, shift):
    """int64[n]: the black magic index ``((occ | ~mask) * magic) >> shift`` (wrapping uint64
    arithmetic) of every occupancy in ``occs`` (uint64[n])."""
    notmask = ~mask
    out = np.empty(occs.size, dtype=np.int64)
    for i in range(occs.size):
        out[i] = np.int64(((occs[i] | notmask) * magic) >> shift)
    return out


@njit(cache=True)
def _black_works(occs, atts, notmask, magic, shift, used, epoch, stamp):
    """``(ok, slots, lo, hi)``: whether ``magic`` maps every ``occs[i] | notmask`` to a slot
    whose attack set is ``atts[i]`` (collisions only between equal attack sets), how many
    distinct slots it uses, and the lowest and highest. ``used``/``epoch`` are the trial table
    and its age stamps, as in :func:`_magic_works`."""
    lo = np.int64(1) << np.int64(62)
    hi = np.int64(-1)
    slots = 0
    for i in range(occs.size):
        idx = np.int64(((occs[i] | notmask) * magic) >> shift)
        if epoch[idx] != stamp:
            epoch[idx] = stamp
            used[idx] = atts[i]
            slots += 1
        elif used[idx] != atts[i]:
            return False, slots, lo, hi
        lo = min(lo, idx)
        hi = max(hi, idx)
    return True, slots, lo, hi


@njit(cache=True)
def _find_black(occs, atts, mask, shift, seed, max_tries, keep):
    """Random black magic for one square: of the first ``keep`` valid candidates (within
    ``max_tries`` draws), the one whose used slots span the fewest entries, ties to the fewer
    distinct slots (the most constructive collisions, so the most gaps for other squares; the
    narrowest span did better than the fewest slots under :func:`pack_black`). Candidates
    alternate between sparse numbers (the AND of three draws) and their complements, the dense
    numbers most published black magics are. Returns ``(magic, slots, tries)``; ``magic`` is 0
    if none was found."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    size = 1 << (64 - np.int64(shift))
    used = np.zeros(size, dtype=np.uint64)
    epoch = np.zeros(size, dtype=np.int64)
    notmask = ~mask
    best, best_slots, best_span = U0, size + 1, size + 1
    found = 0
    for attempt in range(1, max_tries + 1):
        magic = _splitmix64(state) & _splitmix64(state) & _splitmix64(state)
        if attempt & 1:
            magic = ~magic
        ok, slots, lo, hi = _black_works(occs, atts, notmask, magic, shift, used, epoch,
                                         attempt)
        if not ok:
            continue
        if hi - lo < best_span or (hi - lo == best_span and slots < best_slots):
            best, best_slots, best_span = magic, slots, hi - lo
        found += 1
        if found >= keep:
            return best, best_slots, attempt
    return best, best_slots, max_tries


def search_black(seed, progress=True, max_tries=BLACK_MAX_TRIES, keep=BLACK_KEEP):
    """Find fixed-shift black magics. Returns ``(rook_magics, bishop_magics, total_tries)``
    (uint64[64] each); offsets come from :func:`pack_black`."""
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    jobs = [(False, sq) for sq in range(64)] + [(True, sq) for sq in range(64)]
    bar = tqdm(jobs, desc="black magics", unit="sq", disable=not progress) if tqdm else jobs
    out = {False: np.zeros(64, dtype=np.uint64), True: np.zeros(64, dtype=np.uint64)}
    total = 0
    for bishop, sq in bar:
        mask = (BISHOP_MASKS if bishop else ROOK_MASKS)[sq]
        shift = np.uint64(BISHOP_BLACK_SHIFT if bishop else ROOK_BLACK_SHIFT)
        occs, atts = subset_attacks(sq, mask, bishop)
        magic, _, tries = _find_black(occs, atts, mask, shift,
                                         square_seed(seed, bishop, sq) ^ np.uint64(0xB1AC),
                                         max_tries, keep)
        if magic == 0:
            raise RuntimeError(f"no black magic for {'bishop' if bishop else 'rook'} square {sq}")
        out[bishop][sq] = magic
        total += tries
    return out[False], out[True], total


def _square_slots(sq, bishop, magic):
    """``(slots, values)`` of one square: the distinct indices (int64, sorted) its occupancies
    reach with ``magic`` and the attack set (uint64) at each; None on a destructive collision."""
    mask = (BISHOP_MASKS if bishop else ROOK_MASKS)[sq]
    shift = np.uint64(BISHOP_BLACK_SHIFT if bishop else ROOK_BLACK_SHIFT)
    occs, atts = subset_attacks(sq, mask, bishop)
    idx = black_indices(occs, mask, np.uint64(magic), shift)
    slots, first = np.unique(idx, return_index=True)
    values = atts[first]
    # every occupancy must find its own attack set in its slot
    if not np.array_equal(values[np.searchsorted(slots, idx)], atts):
        return None
    return slots, values


@njit(cache=True)
def _place(table, filled, slots, values, start):
    """Lowest offset ``>= start`` at which every ``table[offset + slots[j]]`` is empty or already
    holds ``values[j]``; writes the square there and returns the offset (-1 if none fits)."""
    limit = table.size - slots[-1]
    for off in range(start, limit):
        fits = True
        for j in range(slots.size):
            k = off + slots[j]
            if filled[k] and table[k] != values[j]:
                fits = False
                break
        if fits:
            for j in range(slots.size):
                table[off + slots[j]] = values[j]
                filled[off + slots[j]] = True
            return off
    return -1


def pack_black(rook_magics, bishop_magics):
    """Pack every square's used slots into one overlapping table, first fit: the squares are
    placed in order of decreasing used-slot count, each at the lowest offset where its slots
    fall into the gaps of those placed before (or onto equal attack sets). Returns
    ``(rook_offsets, bishop_offsets, size)``: uint64[64] each and the table length (int)."""
    squares = []
    for bishop, magics in ((False, rook_magics), (True, bishop_magics)):
        for sq in range(64):
            got = _square_slots(sq, bishop, magics[sq])
            if got is None:
                raise ValueError(f"{'bishop' if bishop else 'rook'} square {sq}: magic collides")
            squares.append((bishop, sq, got[0], got[1]))
    squares.sort(key=lambda t: (-t[2].size, t[0], t[1]))
    cap = sum(1 << (64 - (BISHOP_BLACK_SHIFT if b else ROOK_BLACK_SHIFT)) for b, _, _, _ in squares)
    table = np.zeros(cap, dtype=np.uint64)
    filled = np.zeros(cap, dtype=np.bool_)
    offsets = {False: np.zeros(64, dtype=np.uint64), True: np.zeros(64, dtype=np.uint64)}
    size = 0
    for bishop, sq, slots, values in squares:
        off = _place(table, filled, slots, values, 0)
        offsets[bishop][sq] = off
        size = max(size, off + int(slots[-1]) + 1)
    return offsets[False], offsets[True], size


def check_black(rook_magics, rook_offsets, bishop_magics, bishop_offsets, table_size=None):
    """Verify fixed-shift black magics and their offsets into one shared table, exhaustively.

    For every square and every subset of its relevant mask, the slot ``offset + index`` must
    hold the ray-scan attack set of that subset: two subsets (of one square, or of any two
    squares, rook or bishop) that share a slot must share the attack set. Returns
    ``(failures, size)``: a list of messages (empty when all is well) and the table length the
    offsets need (highest slot + 1); ``table_size``, when given, must equal that length."""
    failures = []
    placed = []
    for name, magics, offsets, bishop in (("rook", rook_magics, rook_offsets, False),
                                          ("bishop", bishop_magics, bishop_offsets, True)):
        if len(magics) != 64 or len(offsets) != 64:
            failures.append(f"{name}: {len(magics)} magics and {len(offsets)} offsets, "
                            "expected 64")
            continue
        for sq in range(64):
            got = _square_slots(sq, bishop, magics[sq])
            if got is None:
                failures.append(f"{name} square {sq}: magic {int(magics[sq]):#018x} collides")
                continue
            placed.append((name, sq, int(offsets[sq]) + got[0], got[1]))
    if not placed:
        return failures, 0
    size = max(int(p[2][-1]) for p in placed) + 1
    table = np.zeros(size, dtype=np.uint64)
    owner = np.full(size, -1, dtype=np.int64)
    for n, (name, sq, slots, values) in enumerate(placed):
        clash = (owner[slots] >= 0) & (table[slots] != values)
        if clash.any():
            k = int(slots[np.argmax(clash)])
            other = placed[int(owner[k])]
            failures.append(f"{name} square {sq} overwrites {other[0]} square {other[1]} "
                            f"at slot {k}")
        free = owner[slots] < 0
        table[slots[free]] = values[free]
        owner[slots[free]] = n
    if table_size is not None and int(table_size) != size:
        failures.append(f"table size {int(table_size)}, but the offsets need {size}")
    return failures, size


def published_black():
    """``(rook_magics, rook_offsets, bishop_magics, bishop_offsets)`` of the published set
    (:data:`PUBLISHED_ROOK`, :data:`PUBLISHED_BISHOP`), uint64[64] each."""
    def arrays(pairs):
        return (np.array([m for m, _ in pairs], dtype=np.uint64),
                np.array([o for _, o in pairs], dtype=np.uint64))
    return arrays(PUBLISHED_ROOK) + arrays(PUBLISHED_BISHOP)


def _offsets_literal(name, values, comment, per_line=8):
    lines = [f"#: {comment}", f"{name} = np.array(["]
    for i in range(0, 64, per_line):
        lines.append("    " + " ".join(f"{int(v):5d}," for v in values[i:i + per_line]))
    lines.append("], dtype=np.uint64)")
    return "\n".join(lines)


def render_black(rook, rook_off, bishop, bishop_off, size, source, command):
    """Source text of ``black_magics.py``: the magics and offsets (uint64[64] each), the two
    shifts and the shared table's length ``size``; ``source`` says where the numbers come from."""
    return "\n".join([
        '"""Fixed-shift black magics for rook and bishop lookup, with offsets into one shared',
        "table (GENERATED: do not edit).",
        "",
        f"Generated by ``{command}``; verify with",
        "``python scripts/find_magics.py --black --check``.",
        "Index for square ``sq`` and occupancy ``occ``, in wrapping uint64 arithmetic::",
        "",
        "    OFFSETS[sq] + (((occ | ~MASK[sq]) * MAGICS[sq]) >> SHIFT)",
        "",
        "with one shift per piece (rook 12 index bits, bishop 9) and one table of ``TABLE_SIZE``",
        "entries that rooks and bishops share: each square's used slots fall into the gaps of the",
        "others' or onto equal attack sets (chessprogramming wiki \"Magic Bitboards\", section",
        "Black Magic Bitboards; seeds 000 and 004).",
        "",
        *source.splitlines(),
        '"""',
        "import numpy as np",
        "",
        "#: Right shifts: 64 - 12 for rooks, 64 - 9 for bishops, the same for every square.",
        f"ROOK_SHIFT = {ROOK_BLACK_SHIFT}",
        f"BISHOP_SHIFT = {BISHOP_BLACK_SHIFT}",
        "#: Entries (uint64 attack sets) of the shared table: highest slot used + 1.",
        f"TABLE_SIZE = {size}",
        "",
        _array_literal("ROOK_MAGICS", rook, "uint64[64]: rook black magic multipliers."),
        "",
        _offsets_literal("ROOK_OFFSETS", rook_off,
                         "uint64[64]: first slot of each rook square in the shared table."),
        "",
        _array_literal("BISHOP_MAGICS", bishop, "uint64[64]: bishop black magic multipliers."),
        "",
        _offsets_literal("BISHOP_OFFSETS", bishop_off,
                         "uint64[64]: first slot of each bishop square in the shared table."),
        "",
    ])


PUBLISHED_SOURCE = """Source: the published set (``PUBLISHED_ROOK``, ``PUBLISHED_BISHOP`` in the
finder): magic numbers by Volker Annuss (Talkchess CCC, "Black magic bitboards", 2017), offsets
repacked by Niklas Fiekas, as listed on the chessprogramming wiki and used by cozy-chess and
other engines; every one re-verified by the finder against the ray scan."""


def black_main(args):
    """``--black``: verify (``--check``) the generated module, or write it from the published
    set (default) or from a seeded search (``--search``), packed by :func:`pack_black`."""
    if args.check:
        from uci_engine.kernels import black_magics as bm
        failures, size = check_black(bm.ROOK_MAGICS, bm.ROOK_OFFSETS, bm.BISHOP_MAGICS,
                                     bm.BISHOP_OFFSETS, bm.TABLE_SIZE)
        if bm.ROOK_SHIFT != ROOK_BLACK_SHIFT or bm.BISHOP_SHIFT != BISHOP_BLACK_SHIFT:
            failures.append("shifts differ from 64 - 12 and 64 - 9")
        for f in failures:
            print("FAIL", f, file=sys.stderr)
        print(f"black magics ok: one table of {size} entries, {size * 8 / 1024:.1f} KiB"
              if not failures else f"{len(failures)} failures")
        return 1 if failures else 0

    t0 = time.perf_counter()
    if args.search:
        rook, bishop, tries = search_black(args.seed, progress=not args.no_progress)
        source = (f"Source: a seeded search of this finder (seed {args.seed}, {tries} candidates "
                  "tried), packed first fit.")
        command = f"python scripts/find_magics.py --black --search --seed {args.seed}"
        rook_off, bishop_off, size = pack_black(rook, bishop)
        print(f"searched {tries} candidates in {time.perf_counter() - t0:.1f} s")
    else:
        rook, rook_off, bishop, bishop_off = published_black()
        source, command = PUBLISHED_SOURCE, "python scripts/find_magics.py --black"
        failures, size = check_black(rook, rook_off, bishop, bishop_off)
        if failures:
            print("\n".join(failures), file=sys.stderr)
            return 1
        print(f"published offsets: one table of {size} entries, {size * 8 / 1024:.1f} KiB")
        _, _, packed = pack_black(rook, bishop)
        print(f"(this finder's own first-fit packing of the same magics: {packed} entries, "
              f"{packed * 8 / 1024:.1f} KiB)")
    failures, size = check_black(rook, rook_off, bishop, bishop_off)
    if failures:  # never write constants that fail the exhaustive check
        print("\n".join(failures), file=sys.stderr)
        return 1
    magic_size = sum(1 << bin(int(m)).count("1") for m in (*ROOK_MASKS, *BISHOP_MASKS))
    print(f"black: one table of {size} entries = {size * 8} bytes = {size * 8 / 1024:.1f} KiB "
          f"(fancy magics: {magic_size} entries = {magic_size * 8 / 1024:.1f} KiB)")
    out = args.out or BLACK_OUT_PATH
    with open(out, "w") as fh:
        fh.write(render_black(rook, rook_off, bishop, bishop_off, size, source, command))
    print(f"wrote {out}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default 1)")
    ap.add_argument("--check", action="store_true", help="verify the stored magics and exit")
    ap.add_argument("--out", default=None,
                    help="output file (default: the engine's magics.py, or black_magics.py)")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ap.add_argument("--black", action="store_true",
                    help="fixed-shift black magics in one overlapping table (black_magics.py)")
    ap.add_argument("--search", action="store_true",
                    help="with --black: search magics (seeded) instead of the published set")
    args = ap.parse_args(argv)
    if args.black:
        return black_main(args)

    if args.check:
        from uci_engine.kernels import magics
        failures = check(magics.ROOK_MAGICS, magics.BISHOP_MAGICS,
                         magics.ROOK_SHIFTS, magics.BISHOP_SHIFTS)
        for f in failures:
            print("FAIL", f, file=sys.stderr)
        print("magics ok" if not failures else f"{len(failures)} failures")
        return 1 if failures else 0

    t0 = time.perf_counter()
    rook, bishop, tries = search(args.seed, progress=not args.no_progress)
    elapsed = time.perf_counter() - t0
    failures = check(rook, bishop)
    if failures:  # cannot happen unless the search is broken; never write bad constants
        print("\n".join(failures), file=sys.stderr)
        return 1
    command = f"python scripts/find_magics.py --seed {args.seed}"
    out = args.out or OUT_PATH
    with open(out, "w") as fh:
        fh.write(render(args.seed, rook, bishop, command))
    print(f"wrote {out}: seed {args.seed}, {tries} candidates tried, {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
