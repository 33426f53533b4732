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
    """A UCI session whose kernel loading waits for the returned ``gate`` event; ``arrived``
    is set once the loader has built the engine object and waits there."""
    gate, arrived = threading.Event(), threading.Event()
    real = warmup.warm_up

    def slow_warm_up(engine, perft=True):
        arrived.set()
        assert gate.wait(60)
        real(engine, perft)
    monkeypatch.setattr(warmup, "is_cold", lambda: cold)
    monkeypatch.setattr(warmup, "start_leaf_compiler", lambda: None)
    monkeypatch.setattr(warmup, "warm_up", slow_warm_up)
    out = io.StringIO()
    return uci_mod.UCI(out=out), out, gate, arrived


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
    u, out, gate, _ = _session(monkeypatch, cold=True)
    early, lines = _isready_twice(u, out, gate)
    msg = f"info string {uci_mod.COLD_START_TEXT}"
    assert early == [msg]                          # before the wait, not after it
    assert lines.count(msg) == 1 and lines.count("readyok") == 2
    assert lines.index(msg) < lines.index("readyok")


def test_warm_start_is_quiet(monkeypatch):
    u, out, gate, _ = _session(monkeypatch, cold=False)
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


def test_hash_set_while_loading_is_applied(monkeypatch):
    """`setoption name Hash` sent before the kernels finish loading (clients send options
    right after `uciok`) sizes the TT the search uses, and one sent after it too."""
    u, out, gate, arrived = _session(monkeypatch, cold=False)
    assert arrived.wait(60)                          # the loader waits at the gate
    default_bytes = 16 << 20
    u.handle("setoption name Hash value 2")
    gate.set()
    u.handle("isready")
    assert out.getvalue().splitlines()[-1] == "readyok"
    assert u.engine.tt.nbytes == 2 << 20 != default_bytes
    u.handle("setoption name Hash value 4")
    assert u.engine.tt.nbytes == 4 << 20


def test_leaf_compiler_imports_this_package(tmp_path):
    """The helper process imports the package it was started from, even when the engine runs
    in a directory holding another `uci_engine` tree (a source checkout of another version)."""
    import subprocess
    import sys
    (tmp_path / "uci_engine").mkdir()
    (tmp_path / "uci_engine" / "__init__.py").write_text("")
    argv, cwd = warmup.helper_command()
    assert argv[:3] == [sys.executable, "-m", "uci_engine.warmup"]
    probe = [sys.executable, "-c", "import uci_engine; print(uci_engine.__file__)"]
    here = subprocess.run(probe, cwd=cwd, capture_output=True, text=True, check=True).stdout
    assert here.strip() == uci_mod.__file__.replace("uci.py", "__init__.py")
    other = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert other.strip() == str(tmp_path / "uci_engine" / "__init__.py")  # what cwd would do
