"""Slider attack backends against the ray-scan oracle, exhaustively over every relevant subset.

``sliders_magic``, ``sliders_black`` and ``sliders_pext`` do not depend on the process-wide
backend choice, so they are imported directly; the PEXT checks skip themselves without BMI2.
The comparisons run inside ``@njit`` loops: 107,648 (square, subset) cases per piece pair, each
also with random bits outside the mask, which the lookups must ignore.
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from uci_engine.kernels import black_magics as bm
from uci_engine.kernels import sliders_black as sb
from uci_engine.kernels import sliders_magic as sm
from uci_engine.kernels.bitboard import FILE_A, FILE_H, RANK_1, RANK_8, U0
from uci_engine.kernels.rays import (BISHOP_MASKS, ROOK_MASKS, bishop_attacks_slow,
                                     carry_rippler_subsets, rook_attacks_slow)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_CASES = 102_400 + 5_248


def _load_find_magics():
    spec = importlib.util.spec_from_file_location(
        "find_magics", os.path.join(ROOT, "scripts", "find_magics.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # numba's cache locates functions by module name
    spec.loader.exec_module(mod)
    return mod


def _pext_module():
    try:
        from uci_engine.kernels import sliders_pext
    except ImportError as exc:
        pytest.skip(f"no BMI2: {exc}")
    return sliders_pext


def _make_checker(fast, slow):
    """njit loop: for every square and subset of ``masks[sq]``, count ``fast != slow`` both on
    the bare subset and with ``noise`` bits outside the mask. Returns (cases, mismatches)."""
    @njit
    def run(masks, noise):
        cases = 0
        bad = 0
        for sq in range(64):
            mask = masks[sq]
            sub = U0
            while True:
                occ = sub | (noise[cases % noise.size] & ~mask)
                want = slow(sq, sub)
                if fast(sq, sub) != want or fast(sq, occ) != want or slow(sq, occ) != want:
                    bad += 1
                cases += 1
                sub = (sub - mask) & mask
                if sub == U0:
                    break
        return cases, bad
    return run


@pytest.fixture(scope="module")
def noise():
    return np.random.default_rng(7).integers(0, 2**64 - 1, size=4099, dtype=np.uint64,
                                             endpoint=True)


def _exhaustive(mod, noise):
    r_cases, r_bad = _make_checker(mod.rook_attacks, rook_attacks_slow)(ROOK_MASKS, noise)
    b_cases, b_bad = _make_checker(mod.bishop_attacks, bishop_attacks_slow)(BISHOP_MASKS, noise)
    assert (r_cases, b_cases) == (102_400, 5_248)
    assert r_cases + b_cases == N_CASES
    assert (r_bad, b_bad) == (0, 0)


def test_magic_exhaustive(noise):
    _exhaustive(sm, noise)


def test_pext_exhaustive(noise):
    _exhaustive(_pext_module(), noise)


def test_black_exhaustive(noise):
    _exhaustive(sb, noise)


def test_black_table_is_one_smaller_table():
    """One table of TABLE_SIZE entries shared by rooks and bishops, smaller than magic's two,
    and fixed shifts (12 and 9 index bits)."""
    assert (bm.ROOK_SHIFT, bm.BISHOP_SHIFT) == (64 - 12, 64 - 9)
    assert bm.TABLE_SIZE == 87_988
    assert sb.BLACK_TABLE.shape == (bm.TABLE_SIZE,) and sb.BLACK_TABLE.dtype == np.uint64
    assert sb.BLACK_TABLE.nbytes == 703_904
    assert sb.BLACK_TABLE.nbytes < sm.ROOK_TABLE.nbytes + sm.BISHOP_TABLE.nbytes == 861_184
    for arr in (bm.ROOK_MAGICS, bm.ROOK_OFFSETS, bm.BISHOP_MAGICS, bm.BISHOP_OFFSETS,
                sb.ROOK_NOT_MASK, sb.BISHOP_NOT_MASK):
        assert arr.shape == (64,) and arr.dtype == np.uint64
    assert np.array_equal(sb.ROOK_NOT_MASK, ~ROOK_MASKS)
    assert np.array_equal(sb.BISHOP_NOT_MASK, ~BISHOP_MASKS)


def test_black_lookup_is_the_documented_formula():
    """The compiled lookup is TABLE[OFFSET + (((occ | ~MASK) * MAGIC) >> SHIFT)], wrapping."""
    rng = np.random.default_rng(5)
    occs = rng.integers(0, 2**64 - 1, size=64, dtype=np.uint64, endpoint=True)
    for sq, occ in enumerate(occs):
        for mask, magic, off, shift, fn in (
                (ROOK_MASKS, bm.ROOK_MAGICS, bm.ROOK_OFFSETS, bm.ROOK_SHIFT, sb.rook_attacks),
                (BISHOP_MASKS, bm.BISHOP_MAGICS, bm.BISHOP_OFFSETS, bm.BISHOP_SHIFT,
                 sb.bishop_attacks)):
            idx = ((int(occ) | (~int(mask[sq]) & (2**64 - 1))) * int(magic[sq]) % 2**64) >> shift
            assert fn(sq, occ) == sb.BLACK_TABLE[int(off[sq]) + idx]


def test_magic_equals_pext_random():
    sp = _pext_module()

    @njit
    def run(occs):
        bad = 0
        for occ in occs:
            for sq in range(64):
                if (sm.rook_attacks(sq, occ) != sp.rook_attacks(sq, occ)
                        or sm.bishop_attacks(sq, occ) != sp.bishop_attacks(sq, occ)):
                    bad += 1
        return bad

    rng = np.random.default_rng(3)
    dense = rng.integers(0, 2**64 - 1, size=2000, dtype=np.uint64, endpoint=True)
    sparse = dense & rng.integers(0, 2**64 - 1, size=2000, dtype=np.uint64, endpoint=True)
    assert run(np.concatenate([dense, sparse])) == 0


def test_known_positions():
    d4, a1, h8 = 27, 0, 63
    # rook d4 blocked on d5: d1-d3, the whole 4th rank but d4, and d5
    assert int(sm.rook_attacks(d4, np.uint64(1 << 35))) == 0x00000008F7080808
    assert int(sm.rook_attacks(a1, np.uint64(0))) == 0x01010101010101FE
    assert int(sm.bishop_attacks(h8, np.uint64(0))) == 0x0040201008040201
    assert int(sm.bishop_attacks(d4, np.uint64(0xFFFFFFFFFFFFFFFF))) == 0x0000001400140000


def _edges_outside(sq, rook):
    rank = RANK_1 << np.uint64(8 * (sq // 8))
    file = FILE_A << np.uint64(sq % 8)
    if not rook:
        return RANK_1 | RANK_8 | FILE_A | FILE_H
    return ((RANK_1 | RANK_8) & ~rank) | ((FILE_A | FILE_H) & ~file)


def test_masks_exclude_edges_and_square():
    for sq in range(64):
        for masks, slow, rook in ((ROOK_MASKS, rook_attacks_slow, True),
                                  (BISHOP_MASKS, bishop_attacks_slow, False)):
            want = slow(sq, U0) & ~_edges_outside(sq, rook)
            assert masks[sq] == want
            assert not masks[sq] >> np.uint64(sq) & np.uint64(1)
    bits = lambda m: bin(int(m)).count("1")  # noqa: E731
    assert [bits(ROOK_MASKS[s]) for s in (0, 7, 27, 63)] == [12, 12, 10, 12]
    assert [bits(BISHOP_MASKS[s]) for s in (0, 27, 28, 63)] == [6, 9, 9, 6]


def test_subset_counts():
    for masks in (ROOK_MASKS, BISHOP_MASKS):
        for sq in (0, 9, 27, 63):
            m = int(masks[sq])
            subs = carry_rippler_subsets(m)
            assert len(subs) == 2 ** bin(m).count("1")
            assert len(set(subs)) == len(subs) and all(s & ~m == 0 for s in subs)


def test_table_sizes_and_offsets():
    assert sm.ROOK_TABLE.shape == (102_400,) and sm.ROOK_TABLE.dtype == np.uint64
    assert sm.BISHOP_TABLE.shape == (5_248,) and sm.BISHOP_TABLE.dtype == np.uint64
    assert (sm.ROOK_TABLE_SIZE, sm.BISHOP_TABLE_SIZE) == (102_400, 5_248)
    for masks, offset, shift in ((ROOK_MASKS, sm.ROOK_OFFSET, sm.ROOK_SHIFT),
                                 (BISHOP_MASKS, sm.BISHOP_OFFSET, sm.BISHOP_SHIFT)):
        assert offset.dtype == np.uint64 and shift.dtype == np.uint64
        sizes = [2 ** bin(int(m)).count("1") for m in masks]
        assert list(offset) == list(np.cumsum([0] + sizes[:-1]))
        assert list(shift) == [64 - bin(int(m)).count("1") for m in masks]


def test_pext_tables_follow_carry_rippler_order():
    sp = _pext_module()
    assert sp.ROOK_PEXT_TABLE.shape == (102_400,) and sp.BISHOP_PEXT_TABLE.shape == (5_248,)
    for masks, table, bishop in ((ROOK_MASKS, sp.ROOK_PEXT_TABLE, False),
                                 (BISHOP_MASKS, sp.BISHOP_PEXT_TABLE, True)):
        offsets, occs, atts = sm.subset_attacks(masks, bishop)
        assert np.array_equal(table, atts)
        sq = 27
        for k in range(0, int(offsets[sq + 1] - offsets[sq]), 37):
            assert sp.pext_soft(occs[offsets[sq] + k], masks[sq]) == k


def test_pext_soft_matches_hardware():
    sp = _pext_module()
    rng = np.random.default_rng(11)
    xs = rng.integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)
    ms = rng.integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)
    for x, m in zip(xs, ms):
        assert sp.pext(x, m) == sp.pext_soft(x, m)
    assert sp.pext_soft(np.uint64(0b101101), np.uint64(0b111100)) == 0b1011


def test_find_magics_check_passes_on_stored_constants():
    fm = _load_find_magics()
    from uci_engine.kernels import magics
    assert fm.check(magics.ROOK_MAGICS, magics.BISHOP_MAGICS,
                    magics.ROOK_SHIFTS, magics.BISHOP_SHIFTS) == []
    broken = magics.ROOK_MAGICS.copy()
    broken[27] = np.uint64(0)
    assert fm.check(broken, magics.BISHOP_MAGICS) == [f"rook square 27: magic {0:#018x} collides"]


def test_find_magics_reproduces_stored_seed():
    fm = _load_find_magics()
    from uci_engine.kernels import magics
    rook, bishop, _ = fm.search(magics.SEED, progress=False)
    assert np.array_equal(rook, magics.ROOK_MAGICS)
    assert np.array_equal(bishop, magics.BISHOP_MAGICS)


def test_find_magics_black_check_passes_on_stored_constants():
    """The committed black_magics.py passes the finder's exhaustive check, which finds a broken
    magic, an offset that lands one square on another's slots, and a wrong table size."""
    fm = _load_find_magics()
    args = (bm.ROOK_MAGICS, bm.ROOK_OFFSETS, bm.BISHOP_MAGICS, bm.BISHOP_OFFSETS)
    assert fm.check_black(*args, bm.TABLE_SIZE) == ([], 87_988)
    broken = bm.ROOK_MAGICS.copy()
    broken[27] = np.uint64(0)
    failures, _ = fm.check_black(broken, *args[1:])
    assert failures == [f"rook square 27: magic {0:#018x} collides"]
    moved = bm.BISHOP_OFFSETS.copy()
    moved[9] = bm.ROOK_OFFSETS[0]
    failures, _ = fm.check_black(*args[:3], moved)
    assert len(failures) == 1 and failures[0].startswith("bishop square 9 overwrites rook square")
    assert fm.check_black(*args, 88_000)[0] == ["table size 88000, but the offsets need 87988"]


def test_find_magics_black_rewrites_committed_module(tmp_path):
    """``find_magics.py --black`` verifies the published set and writes black_magics.py exactly
    as committed."""
    fm = _load_find_magics()
    out = tmp_path / "black_magics.py"
    assert fm.main(["--black", "--out", str(out)]) == 0
    with open(os.path.join(ROOT, "uci_engine", "kernels", "black_magics.py")) as fh:
        assert out.read_text() == fh.read()


def test_find_magics_pack_black_packs_without_clashes():
    """The finder's own first-fit packing of the published magics passes the check and
    overlaps the squares (smaller than their 64 * (4096 + 512) slots side by side)."""
    fm = _load_find_magics()
    rook, _, bishop, _ = fm.published_black()
    rook_off, bishop_off, size = fm.pack_black(rook, bishop)
    assert fm.check_black(rook, rook_off, bishop, bishop_off, size) == ([], size)
    assert size < 64 * (4096 + 512) // 2


def test_pext_guard_refuses_without_bmi2():
    env = dict(os.environ, NUMBA_CPU_FEATURES="+64bit,+sse2,-bmi2")
    proc = subprocess.run([sys.executable, "-c", "import uci_engine.kernels.sliders_pext"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "ImportError" in proc.stderr and "BMI2" in proc.stderr
