"""scripts/play.py on the match tools: its command line, exit codes and summary.

Stockfish and Fairy-Max need not be installed: the summary tests swap the opponent table for
the fake engines of tests/fake_engines (plain Python, no Numba), with one as "our" engine.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script

pytest.importorskip("chess")

ROOT = Path(__file__).resolve().parents[1]
PLAY = ROOT / "scripts" / "play.py"
FAKE = Path(__file__).parent / "fake_engines"
PY = sys.executable


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(PLAY), *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_help_exits_0_and_lists_options():
    r = _script("--help")
    assert r.returncode == 0, r.stderr
    for opt in ("--games", "--tc", "--concurrency", "--opponents", "--seed", "--pgn",
                "--snapshot", "--stall"):
        assert opt in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--games", "x"], "--games"),
    (["--games", "0"], "--games"),
    (["--concurrency", "0"], "--concurrency"),
    (["--tc", "10+"], "--tc"),
    (["--opponents", "gnuchess"], "unknown opponent 'gnuchess'"),
    (["--engine", "/nonexistent/engine", "--opponents", "fairymax"], "/nonexistent/engine"),
])
def test_bad_command_line_exits_2_before_any_game(args, message):
    r = _script(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert message in r.stderr
    assert "Finished game" not in r.stdout


@pytest.fixture
def play(monkeypatch):
    """The play.py module with one opponent, ``random``: tests/fake_engines/random_mover.py."""
    mod = load_script("play")
    monkeypatch.setattr(mod, "OPPONENTS", {"random": (f"{PY} {FAKE / 'random_mover.py'}", "uci", {})})
    return mod


def _main(play, capfd, ours: str, *args: str) -> tuple[int, str]:
    rc = play.main(["--engine", f"{PY} {FAKE / ours}", "--opponents", "random", "--games", "2",
                    "--tc", "5+0.05", "--stall", "2", *args])
    return rc, capfd.readouterr().out


def test_clean_games_exit_0_with_score_and_clock(play, capfd, tmp_path):
    pgn = tmp_path / "games.pgn"
    rc, out = _main(play, capfd, "random_mover.py", "--pgn", str(pgn))
    assert rc == 0, out
    assert len(re.findall(r"^\[random\] Finished game \d", out, flags=re.M)) == 2, out
    m = re.search(r"^Score of uci_engine vs random : (\d+) - (\d+) - (\d+)  \[([\d.]+)/2\]$", out,
                  flags=re.M)
    assert m, out
    w, l_, d = map(int, m.groups()[:3])
    assert w + l_ + d == 2 and float(m.group(4)) == w + 0.5 * d
    low = re.search(r"uci_engine lowest clock left: (-?[\d.]+) s, average move ([\d.]+) s", out)
    assert low, out
    assert 0 < float(low.group(1)) <= 5.0 and 0 < float(low.group(2)) < 1.0
    assert "Illegal moves / time losses / crashes by uci_engine: 0" in out
    assert pgn.read_text().count("[Event \"uci_engine play.py\"]") == 2


def test_illegal_move_by_us_exits_1(play, capfd):
    rc, out = _main(play, capfd, "illegal_mover.py")
    assert rc == 1, out
    assert "Score of uci_engine vs random : 0 - 2 - 0  [0/2]" in out
    assert "    illegal move by uci_engine: 2" in out
    assert out.count("    FAULT: ") == 2
    assert "Illegal moves / time losses / crashes by uci_engine: 2" in out
