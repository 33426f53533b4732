"""Search for fancy magic multipliers and write ``uci_engine/kernels/magics.py``; or check them.

Usage::

    python scripts/find_magics.py --seed 1          # search, then write magics.py
    python scripts/find_magics.py --check           # verify the stored magics; exit 1 on failure

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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default 1)")
    ap.add_argument("--check", action="store_true", help="verify the stored magics and exit")
    ap.add_argument("--out", default=OUT_PATH, help="output file (default: the engine's magics.py)")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = ap.parse_args(argv)

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
    with open(args.out, "w") as fh:
        fh.write(render(args.seed, rook, bishop, command))
    print(f"wrote {args.out}: seed {args.seed}, {tries} candidates tried, {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
