"""First start: the prebuilt cache and its fingerprint, the compile lock, a UCI loop that answers
at once while the kernels compile (and says so once) and plays a legal move meanwhile, and the
tables built at import need no compiled builder (they equal the compiled oracle's)."""
import contextlib
import io
import json
import threading
import time

import chess
import numpy as np

from uci_engine import numba_cache, startup, warmup
from uci_engine import uci as uci_mod
from uci_engine.kernels import rays
from uci_engine.kernels import sliders_magic as sm
from uci_engine.numba_cache import fingerprint

from conftest import gated_uci_session


def test_is_cold_follows_the_marker(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert numba_cache.is_cold()
    numba_cache.mark_warm()
    assert not numba_cache.is_cold()
    other = dict(fingerprint(), cpu_name="another-cpu")    # a home shared with another machine
    (tmp_path / numba_cache.MARKER).write_text(json.dumps(other))
    assert numba_cache.is_cold()
    (tmp_path / numba_cache.MARKER).write_text("ok\n")          # a marker from before fingerprints
    assert numba_cache.is_cold()
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert not numba_cache.is_cold()           # no cache directory chosen: nothing to announce


def _prebuilt(root, marker):
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "search.negamax-1.py311.nbi").write_bytes(b"index")
    (root / "kernels" / "search.negamax-1.py311.1.nbc").write_bytes(b"code")
    (root / numba_cache.MARKER).write_text(json.dumps(marker))


def test_seed_copies_a_fitting_prebuilt_cache(tmp_path):
    _prebuilt(tmp_path / "pre", fingerprint())
    user = tmp_path / "user"
    assert numba_cache.seed_from_prebuilt(str(tmp_path / "pre"), str(user))
    assert (user / "kernels" / "search.negamax-1.py311.1.nbc").read_bytes() == b"code"
    assert (user / "kernels" / "search.negamax-1.py311.nbi").read_bytes() == b"index"
    assert json.loads((user / numba_cache.MARKER).read_text()) == fingerprint()
    assert not [p for p in user.rglob("*") if p.name.startswith(".tmp")]
    assert not numba_cache.seed_from_prebuilt(str(tmp_path / "pre"), str(user))   # warm already


def test_seed_skips_a_prebuilt_cache_of_another_machine(tmp_path):
    _prebuilt(tmp_path / "pre", dict(fingerprint(), numba="0.0.1"))
    user = tmp_path / "user"
    assert not numba_cache.seed_from_prebuilt(str(tmp_path / "pre"), str(user))
    assert not user.exists()
    assert not numba_cache.seed_from_prebuilt(str(tmp_path / "none"), str(user))


def test_compile_lock_admits_one_process_at_a_time(tmp_path, monkeypatch):
    """Separate opens of the lock file exclude each other as two processes do (flock)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    order = []

    def second():
        with numba_cache.compile_lock():
            order.append("second")
    with numba_cache.compile_lock():
        t = threading.Thread(target=second)
        t.start()
        t.join(0.3)
        assert t.is_alive()               # waits while the first holds the lock
        order.append("first")
    t.join(10)
    assert order == ["first", "second"]


def test_cache_survives_a_copy_of_the_package(tmp_path):
    """A kernel compiled by one copy of the package loads, without compiling, in another copy
    at another path (the prebuilt cache of a wheel built in build/lib, installed elsewhere)."""
    import os
    import shutil
    import subprocess
    import sys
    import uci_engine
    src = os.path.dirname(uci_engine.__file__)
    ignore = shutil.ignore_patterns("__pycache__", "prebuilt", "nets")
    for copy in ("a", "b"):
        shutil.copytree(src, tmp_path / copy / "uci_engine", ignore=ignore)
    env = dict(os.environ, UCI_ENGINE_USER_NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_DEBUG_CACHE="1", UCI_ENGINE_SLIDERS="magic")
    env.pop("NUMBA_CACHE_DIR", None)
    code = ("from uci_engine import backend; backend.select('magic'); "
            "import numpy as np; from uci_engine.kernels.bitboard import popcount; "
            "print(popcount(np.uint64(7)))")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=tmp_path / copy, env=env,
                           capture_output=True, text=True, timeout=300) for copy in ("a", "b")]
    assert [r.stdout.splitlines()[-1] for r in runs] == ["3", "3"], runs
    assert "data saved" in runs[0].stdout
    assert "data loaded" in runs[1].stdout and "data saved" not in runs[1].stdout


def _timed_isready(u):
    t = time.monotonic()
    u.handle("isready")
    return time.monotonic() - t


def _board(*moves):
    board = chess.Board()
    for mv in moves:
        board.push_uci(mv)
    return board


def _legal_bestmove(out, *moves, timeout=30):
    """The move of the next ``bestmove`` line, checked legal after ``moves`` from the start."""
    best = _wait_for(out, "bestmove", timeout).split()[1]
    assert chess.Move.from_uci(best) in _board(*moves).legal_moves, best
    return best


def _wait_for(out, prefix, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [ln for ln in out.getvalue().splitlines() if ln.startswith(prefix)]
        if found:
            return found[-1]
        time.sleep(0.01)
    raise AssertionError(f"no {prefix!r} in {out.getvalue().splitlines()}")


def test_cold_start_answers_isready_at_once_and_announces_once(monkeypatch):
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=True)
    assert arrived.wait(60)
    assert _timed_isready(u) < 1.0                  # while the kernels are still compiling
    msg = f"info string {startup.COLD_START_TEXT}"
    assert out.getvalue().splitlines() == [msg, "readyok"]
    gate.set()
    assert u.ready.wait(60)
    u.handle("isready")
    lines = out.getvalue().splitlines()
    assert lines.count(msg) == 1 and lines.count("readyok") == 2


def test_warm_start_waits_for_the_load_and_is_quiet(monkeypatch):
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=False)
    assert arrived.wait(60)
    threading.Timer(0.3, gate.set).start()
    assert 0.2 < _timed_isready(u) < startup.READY_PATIENCE_S + 0.5
    lines = out.getvalue().splitlines()
    assert lines[-1] == "readyok" and u.engine is not None
    assert not any("compiling" in ln or "loading" in ln for ln in lines)


def test_slow_load_answers_isready_after_the_patience(monkeypatch):
    """A warm cache that still loads slowly (a cache Numba refuses) never leaves the client
    without an answer for longer than READY_PATIENCE_S."""
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=False)
    assert arrived.wait(60)
    took = _timed_isready(u)
    assert startup.READY_PATIENCE_S - 0.1 < took < startup.READY_PATIENCE_S + 1.0
    assert out.getvalue().splitlines() == [f"info string {startup.LOADING_TEXT}", "readyok"]
    gate.set()


def test_go_while_compiling_plays_a_legal_fallback_move_and_says_so(monkeypatch):
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=True)
    assert arrived.wait(60)
    u.handle("position startpos moves e2e4 e7e5 g1f3")
    u.handle("go wtime 1000 btime 1000")
    _legal_bestmove(out, "e2e4", "e7e5", "g1f3")
    assert f"info string {startup.FALLBACK_TEXT}" in out.getvalue().splitlines()
    gate.set()
    assert u.ready.wait(60)
    assert u.engine.fen() == _board("e2e4", "e7e5", "g1f3").fen()   # the position reached it


def test_go_waits_for_kernels_that_get_ready_in_time(monkeypatch):
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=True)
    assert arrived.wait(60)
    u.handle("position startpos moves d2d4")
    u.handle("go movetime 20000")                   # may wait 10 s for the kernels
    threading.Timer(0.2, gate.set).start()
    assert u.ready.wait(60)
    _wait_for(out, "info depth")
    u.handle("stop")
    _legal_bestmove(out, "d2d4")
    assert f"info string {startup.FALLBACK_TEXT}" not in out.getvalue().splitlines()
    assert any(ln.startswith("info depth") and " nps " in ln
               for ln in out.getvalue().splitlines())      # the engine's own search


def test_stop_ends_a_waiting_infinite_go(monkeypatch):
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=True)
    assert arrived.wait(60)
    u.handle("go infinite")
    time.sleep(0.2)
    assert "bestmove" not in out.getvalue()
    u.handle("stop")
    _legal_bestmove(out, timeout=5)
    gate.set()


def test_bad_position_while_loading_keeps_the_previous_one(monkeypatch):
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=True)
    assert arrived.wait(60)
    u.handle("position startpos moves e2e4")
    u.handle("position startpos moves e2e5")
    u.handle("position fen 8/8/8/8/8/8/8/8 w - - 0 1")
    errors = [ln for ln in out.getvalue().splitlines() if ln.startswith("info string error:")]
    assert len(errors) == 2
    gate.set()
    assert u.ready.wait(60)
    assert u.engine.fen() == _board("e2e4").fen()


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
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=False)
    assert arrived.wait(60)                          # the loader waits at the gate
    default_bytes = 16 << 20
    u.handle("setoption name Hash value 2")
    gate.set()
    assert u.ready.wait(60)
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


def test_go_after_a_failed_load_still_answers_a_legal_move(monkeypatch):
    """Kernels that fail to load leave an engine that reports the error and keeps playing
    legal moves (the fallback search), instead of a GUI waiting forever for ``bestmove``."""
    def broken(engine, perft=True):
        raise RuntimeError("simulated compile failure")
    monkeypatch.setattr(numba_cache, "is_cold", lambda: True)
    monkeypatch.setattr(warmup, "start_leaf_compiler", lambda: None)
    monkeypatch.setattr(numba_cache, "compile_lock", contextlib.nullcontext)
    monkeypatch.setattr(warmup, "warm_up", broken)
    out = io.StringIO()
    u = uci_mod.UCI(out=out)
    assert u.ready.wait(60) and u.engine is None
    u.handle("isready")
    assert any("engine failed to load" in ln for ln in out.getvalue().splitlines())
    u.handle("position startpos moves g1f3")
    u.handle("go movetime 100")
    _legal_bestmove(out, "g1f3")


# Commands a client sends before the kernels have loaded; each is answered without them.
COMMANDS_WHILE_LOADING = [
    "uci", "debug on", "setoption name Hash value 32", "setoption name MultiPV value 2",
    "setoption name EvalFile value gen2_h128.nnue", "setoption name Use NNUE value false",
    "setoption name UCI_ShowWDL value true", "ucinewgame", "position startpos",
    "position startpos moves e2e4 e7e5", "position fen 8/5k2/8/2b5/8/4B3/5K2/8 w - - 0 1",
    "position fen 8/5k2/8/2b5/8/4B3/5K2/8 w - - 0 1 moves e3d4", "position bad",
    "go movetime 100",
]


def test_commands_while_loading_do_not_import_numba():
    """The loader thread imports numba while the session answers the client; a command that
    imported it too (``position`` once imported uci_engine.fen) got a partly initialised module
    (ImportError) and lost the position. Here no loader runs: after every command a client
    sends while loading, numba is still not imported."""
    import subprocess
    import sys
    code = f"""
import io, sys, time
from uci_engine import uci
uci.UCI._load = lambda self, sliders: None          # the kernels never arrive
out = io.StringIO()
u = uci.UCI(out=out)
u.loader.join()
for line in {COMMANDS_WHILE_LOADING!r}:
    u.handle(line)
    assert "numba" not in sys.modules, line
deadline = time.monotonic() + 30
while "bestmove" not in out.getvalue() and time.monotonic() < deadline:
    time.sleep(0.05)
print(out.getvalue())
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "uciok" in lines
    assert [ln for ln in lines if ln.startswith("info string error:")] == [
        "info string error: position expects 'startpos' or 'fen <FEN>', got 'bad'"]
    best = [ln for ln in lines if ln.startswith("bestmove")]
    board = chess.Board("8/5k2/8/2b5/8/4B3/5K2/8 w - - 0 1")
    board.push_uci("e3d4")
    assert len(best) == 1 and chess.Move.from_uci(best[0].split()[1]) in board.legal_moves
