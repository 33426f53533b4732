"""scripts/wac.py: node-limited runs and its command-line errors."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("chess")

ROOT = Path(__file__).resolve().parents[1]
WAC = ROOT / "scripts" / "wac.py"
ENGINE = f"{shlex.quote(sys.executable)} -m uci_engine -o 'Use NNUE=false'"


def _wac(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(WAC), "--engine", ENGINE, *args],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def _without_time(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith("Time:")]


def test_a_node_limited_run_gives_the_same_answers_twice():
    first, second = _wac("--nodes", "3000", "--limit", "4"), _wac("--nodes", "3000", "--limit", "4")
    assert first.returncode == 0, first.stderr
    assert re.search(r"^Solved: \d/4$", first.stdout, re.M), first.stdout
    assert _without_time(first.stdout) == _without_time(second.stdout)


@pytest.mark.parametrize("nodes", ["0", "-5"])
def test_a_node_count_below_one_is_refused(nodes):
    r = _wac("--nodes", nodes, "--limit", "1")
    assert r.returncode == 2
    assert "--nodes wants a positive count" in r.stderr
