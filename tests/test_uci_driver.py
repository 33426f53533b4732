"""uci_engine/tools/uci_driver.py against the fake engines of tests/fake_engines (plain Python,
no Numba): replies, the stdout log, timeouts, an engine that exits, one that hangs."""
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

from uci_engine.tools.uci_driver import UciPipe

FAKE = Path(__file__).parent / "fake_engines"


def _fake(script, *args):
    return UciPipe([sys.executable, str(FAKE / script), *args])


def test_start_search_and_quit():
    p = _fake("random_mover.py").start()
    assert p.log[0] == "id name Fake-random" and p.log[-2:] == ["uciok", "readyok"]
    assert p.sync() == []
    p.send("position startpos", "go movetime 10")
    lines = p.expect("bestmove")
    assert lines[0] == "info depth 1 score cp 0"
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    assert p.drain(0.2) == []
    assert p.log[-2:] == lines
    assert p.quit() == 0
    with pytest.raises(EOFError, match=r"engine exited \(rc=0\)"):
        p.readline(1)
    assert list(p.lines()) == []                   # the end stays visible to every read


def test_an_engine_that_exits_raises_eof_with_its_last_lines():
    p = _fake("crasher.py", "0").start()
    p.send("position startpos", "go movetime 10")
    with pytest.raises(EOFError, match=r"engine exited \(rc=3\); last lines .*'readyok'"):
        p.expect("bestmove")


def test_a_hung_engine_times_out_and_is_killed():
    p = _fake("staller.py", "0")
    p.send("uci")
    p.expect("uciok")
    t = time.monotonic()
    with pytest.raises(TimeoutError, match=r"^no 'readyok' within 0.5 s; got so far: .*'uciok'"):
        p.sync(0.5)
    assert 0.4 < time.monotonic() - t < 5
    assert p.quit(timeout=0.5) == -9               # it never reads quit: killed (SIGKILL)


def test_stderr_is_collected_or_left_alone():
    code = "import sys; print('to stderr', file=sys.stderr, flush=True); print('uciok')"
    p = UciPipe([sys.executable, "-c", code])
    assert p.readline() == "uciok"
    assert list(p.lines()) == []
    deadline = time.monotonic() + 10               # the stderr reader thread may lag stdout's
    while not p.stderr and time.monotonic() < deadline:
        time.sleep(0.01)
    assert p.stderr == ["to stderr\n"]
    q = UciPipe([sys.executable, "-c", code], stderr=subprocess.DEVNULL)
    assert q.readline() == "uciok" and list(q.lines()) == [] and q.stderr == []

