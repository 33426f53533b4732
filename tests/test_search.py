"""Tests for the transposition table (uci_engine.kernels.tt: layout, store/probe, prefetch) and
the move picker's move tests (uci_engine.kernels.movepick).

The search itself is tested through the protocol in tests/test_uci.py (mates, draws, bench)."""
import numpy as np
import pytest
from numba import njit

from uci_engine.kernels import movepick as MP
from uci_engine.kernels import search as S
from uci_engine.kernels import state as SS
from uci_engine.kernels import tt as TT


AGE = 0        # the TT generation of these tests' stores


@pytest.mark.parametrize("mib", [1, 3, 16])
def test_tt_layout(mib):
    tt = TT.new_tt(mib)
    buckets = tt.shape[0]
    assert buckets & (buckets - 1) == 0                 # a power of two: the mask is buckets - 1
    assert buckets * 64 <= mib << 20 < buckets * 128    # rounded down, not below half
    assert tt.dtype == np.int64 and tt.shape == (buckets, 8) and tt.flags.c_contiguous
    assert tt.ctypes.data % 64 == 0                     # one bucket = one cache line
    assert not tt.any()


def test_tt_store_probe_same_bucket():
    tt = TT.new_tt(1)
    mask = tt.shape[0] - 1
    # five keys in one bucket of four: the shallowest entry gives way to the fifth
    keys = [np.uint64((i << 40) | 12345) for i in range(1, 6)]
    assert len({int(k) & mask for k in keys}) == 1
    for depth, key in enumerate(keys[:4], start=3):
        TT.tt_store(tt, key, 100 + depth, 10 * depth, 5, depth, SS.BOUND_EXACT, AGE)
    for depth, key in enumerate(keys[:4], start=3):
        d = TT.tt_probe(tt, key)
        assert d >= 0
        assert TT.tt_move_of(d) == 100 + depth and TT.tt_score_of(d) == 10 * depth
        assert TT.tt_depth_of(d) == depth and TT.tt_bound_of(d) == SS.BOUND_EXACT
    TT.tt_store(tt, keys[4], 7, -50, 0, 9, SS.BOUND_LOWER, AGE)
    assert TT.tt_probe(tt, keys[0]) == -1          # depth 3 was replaced
    d = TT.tt_probe(tt, keys[4])
    assert TT.tt_move_of(d) == 7 and TT.tt_score_of(d) == -50
    assert TT.tt_bound_of(d) == SS.BOUND_LOWER
    assert TT.tt_probe(tt, np.uint64(999)) == -1


@njit
def _prefetch_all(tt, keys):
    for k in keys:
        TT.tt_prefetch(tt, k)
    return TT.tt_probe(tt, keys[0])


def test_tt_prefetch_changes_nothing():
    tt = TT.new_tt(1)
    TT.tt_store(tt, np.uint64(42), 5, 1, 0, 4, SS.BOUND_UPPER, AGE)
    before = tt.copy()
    keys = np.array([42, 0, 2**64 - 1, tt.shape[0] - 1], dtype=np.uint64)
    d = _prefetch_all(tt, keys)                         # last bucket included
    assert TT.tt_move_of(d) == 5
    assert np.array_equal(tt, before)


def test_tt_torn_entry_matches_no_key():
    """Lockless hashing: a slot whose key word comes from one write and whose data word from
    another (two Lazy SMP threads storing at once) is a miss for both keys."""
    tt = TT.new_tt(1)
    a, b = np.uint64(1 << 40 | 77), np.uint64(2 << 40 | 77)
    TT.tt_store(tt, a, 11, 100, 0, 5, SS.BOUND_EXACT, AGE)
    flat = tt.reshape(-1)                                     # a view
    i = int(np.flatnonzero(flat)[0])
    key_word_a = flat[i]
    TT.tt_store(tt, a, 22, -300, 0, 9, SS.BOUND_LOWER, AGE)   # same slot, new data
    data_b = flat[i + 1]
    flat[i] = key_word_a                                      # torn: old key word, new data
    assert flat[i + 1] == data_b
    assert TT.tt_probe(tt, a) == -1
    assert TT.tt_probe(tt, b) == -1


def test_tt_move_check_accepts_exactly_the_legal_moves():
    """The staged picker tries the TT move before generating: _tt_move_ok (pseudo-legality)
    followed by the king-in-check test after the move must accept exactly the generated legal
    moves other than castling (left to the generator), over every from/to/flag on positions
    of the perft suites."""
    import os
    from uci_engine.fen import parse_fen
    from uci_engine.kernels import position as P
    from uci_engine.kernels.movegen import generate_legal
    data = os.path.join(os.path.dirname(__file__), "data")
    fens = []
    for name in ("perft.epd", "perft960.epd"):
        fens += [(ln.split(";")[0].strip(), name == "perft960.epd")
                 for ln in open(os.path.join(data, name)) if ln.strip()][:20]
    buf = np.zeros(256, dtype=np.int32)
    for fen, c960 in fens:
        st, mb = P.new_stack(4)
        parse_fen(fen, st, mb, 0, chess960=c960)
        us = int(st[0, P.STM])
        legal = {int(m) for m in buf[:generate_legal(st, 0, buf)]
                 if P.move_flag(np.int64(m)) != P.FLAG_CASTLE}
        accepted = set()
        for frm in range(64):
            for to in range(64):
                for flag in (0, P.FLAG_EP, 4, 5, 6, 7):
                    m = np.int64(frm | (to << 6) | (flag << 12))
                    if MP.tt_move_ok(st, mb, np.int64(0), m):
                        P.make_move(st, mb, 0, m)
                        if not S.in_check_of(st, np.int64(1), np.int64(us)):
                            accepted.add(int(m))
        assert accepted == legal, fen


def test_quiet_gives_check_equals_make_and_test():
    """Late move pruning asks quiet_gives_check before making a quiet move: it must equal
    make_move + the in-check test on every quiet move (castling always True) of the perft
    suites' positions and of positions reached by random quiet moves from them."""
    import os
    import random
    from uci_engine.fen import parse_fen
    from uci_engine.kernels import position as P
    from uci_engine.kernels.movegen import generate_quiet
    data = os.path.join(os.path.dirname(__file__), "data")
    rng = random.Random(3)
    buf = np.zeros(256, dtype=np.int32)
    checks = tested = 0
    for name in ("perft.epd", "perft960.epd"):
        for ln in open(os.path.join(data, name)).readlines()[:60]:
            st, mb = P.new_stack(40)
            parse_fen(ln.split(";")[0].strip(), st, mb, 0, chess960=name == "perft960.epd")
            for row in range(30):
                if P.in_check(st, row):
                    break
                n = generate_quiet(st, row, buf)
                if n == 0:
                    break
                us = int(st[row, P.STM])
                for m in buf[:n]:
                    m = np.int64(m)
                    fast = MP.quiet_gives_check(st, mb, np.int64(row), m)
                    P.make_move(st, mb, row, m)
                    slow = bool(S.in_check_of(st, np.int64(row + 1), np.int64(1 - us)))
                    if P.move_flag(m) == P.FLAG_CASTLE:
                        assert fast
                    else:
                        assert fast == slow, (ln, row, int(m))
                        checks += slow
                        tested += 1
                P.make_move(st, mb, row, np.int64(buf[rng.randrange(n)]))
    assert tested > 10000 and checks > 100
