"""First start: the UCI loop says once that it is compiling, only on a cold Numba cache, and the
tables built at import need no compiled builder (they equal the compiled oracle's)."""
import io
import threading

import numpy as np

from uci_engine import uci as uci_mod
from uci_engine import warmup
from uci_engine.kernels import rays
from uci_engine.kernels import sliders_magic as sm


def test_is_cold_follows_the_marker(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert warmup.is_cold()
    (tmp_path / warmup.MARKER).write_text("ok\n")
    assert not warmup.is_cold()
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert not warmup.is_cold()           # no cache directory chosen: nothing to announce


def _session(monkeypatch, cold):
    """A UCI session whose kernel loading waits for the returned event."""
    gate = threading.Event()
    real = warmup.warm_up

    def slow_warm_up(engine, perft=True):
        assert gate.wait(60)
        real(engine, perft)
    monkeypatch.setattr(warmup, "is_cold", lambda: cold)
    monkeypatch.setattr(warmup, "start_leaf_compiler", lambda: None)
    monkeypatch.setattr(warmup, "warm_up", slow_warm_up)
    out = io.StringIO()
    return uci_mod.UCI(out=out), out, gate


def _isready_twice(u, out, gate):
    t = threading.Thread(target=u.handle, args=("isready",))
    t.start()
    t.join(0.5)
    early = out.getvalue().splitlines()
    gate.set()
    t.join(60)
    u.handle("isready")
    return early, out.getvalue().splitlines()


def test_cold_start_announces_once(monkeypatch):
    u, out, gate = _session(monkeypatch, cold=True)
    early, lines = _isready_twice(u, out, gate)
    msg = f"info string {uci_mod.COLD_START_TEXT}"
    assert early == [msg]                          # before the wait, not after it
    assert lines.count(msg) == 1 and lines.count("readyok") == 2
    assert lines.index(msg) < lines.index("readyok")


def test_warm_start_is_quiet(monkeypatch):
    u, out, gate = _session(monkeypatch, cold=False)
    early, lines = _isready_twice(u, out, gate)
    assert early == [] and lines.count("readyok") == 2
    assert not any("compiling" in ln for ln in lines)


def test_numpy_table_builder_matches_the_compiled_oracle():
    for masks, bishop in ((sm.ROOK_MASK, False), (sm.BISHOP_MASK, True)):
        want = sm.subset_attacks(masks, bishop)
        got = sm.subset_attacks_np(masks, bishop)
        for a, b in zip(want, got):
            assert a.dtype == b.dtype == np.uint64 and np.array_equal(a, b)
    occs = np.random.default_rng(5).integers(0, 2**64 - 1, size=200, dtype=np.uint64,
                                             endpoint=True)
    for sq in (0, 27, 63):
        for bishop, slow in ((False, rays.rook_attacks_slow), (True, rays.bishop_attacks_slow)):
            got = rays.ray_attacks_np(sq, occs, bishop)
            assert [int(x) for x in got] == [int(slow(sq, o)) for o in occs]
