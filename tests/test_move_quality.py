"""scripts/move_quality.py measures moves against an oracle: its losses checked against an
independent computation with a fake oracle whose choices are known
(tests/fake_engines/material_oracle.py)."""
import importlib.util
import re
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

from conftest import load_script

FAKE = Path(__file__).parent / "fake_engines" / "material_oracle.py"
ORACLE = f"{sys.executable} {FAKE}"
#: a game with captures on offer at many plies
MOVES = "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 Nf6 Nf3 Bg4 Be2 e6 O-O Nc6 Be3 Bb4 a3 Bxc3 bxc3 Qxc3"


def _fake():
    spec = importlib.util.spec_from_file_location("material_oracle", FAKE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pgn(tmp_path):
    g = chess.pgn.Game()
    node = g
    board = chess.Board()
    for san in MOVES.split():
        move = board.parse_san(san)
        node = node.add_variation(move)
        board.push(move)
    path = tmp_path / "g.pgn"
    path.write_text(str(g) + "\n")
    return path


def _rows(out):
    """{(engine, effort): (n, loss, same)} from the script's first table."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(-?\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)$", line)
        if m:
            rows[m.group(1), int(m.group(2))] = (int(m.group(3)), float(m.group(4)),
                                                  float(m.group(6)))
    return rows


def test_losses_match_an_independent_computation(tmp_path, capsys, monkeypatch):
    mq = load_script("move_quality")
    fake = _fake()
    pgn = _pgn(tmp_path)
    log = tmp_path / "searches.log"
    monkeypatch.setenv("MATERIAL_ORACLE_LOG", str(log))
    args = [str(pgn), "--engine", f"name=same cmd='{ORACLE}'",
            "--engine", f"name=first cmd='{ORACLE} first'", "--oracle", ORACLE,
            "--nodes", "100,200", "--positions", "6", "--plies", "2-19", "--per-game", "8",
            "--max-cp", "100000", "--jobs", "2", "--cache", str(tmp_path / "cache.json")]
    assert mq.main(args) == 0
    rows = _rows(capsys.readouterr().out)

    # the positions the script drew, by its own sampler with the same seed
    fens = mq.sample_positions([str(pgn)], (2, 19), 8, 1)[:6]
    assert len(fens) == 6
    losses, sames = [], []
    for fen in fens:
        board = chess.Board(fen)
        moves = list(board.legal_moves)
        scored = [fake.score_move(board, m) for m in moves]
        best = max(range(len(moves)), key=lambda k: (scored[k], -k))

        def e(cp):
            return chess.engine.Cp(cp).wdl(model=mq.WDL_MODEL, ply=board.ply()).expectation()
        losses.append(0.0 if best == 0 else max(0.0, e(scored[best]) - e(scored[0])))
        sames.append(best == 0)
    want = 100 * sum(losses) / len(losses)
    for effort in (100, 200):
        assert rows["same", effort] == (6, 0.0, 100.0)     # the oracle agrees with itself
        n, loss, same = rows["first", effort]
        assert n == 6 and loss == pytest.approx(want, abs=5e-4)
        assert same == pytest.approx(100 * sum(sames) / 6, abs=0.05)
    assert want > 0                                       # the test can tell the two apart

    # a second run finds every oracle search in the cache: only the engines search again
    before = len(log.read_text().splitlines())
    assert mq.main(args) == 0
    assert len(log.read_text().splitlines()) - before == 2 * 2 * 6


def test_bad_arguments_exit_with_a_message(tmp_path, capsys):
    mq = load_script("move_quality")
    pgn = _pgn(tmp_path)
    for bad in (["--engine", "name=x", "--nodes", "10"],
                ["--engine", f"cmd='{ORACLE}' depth=3", "--nodes", "10"],
                ["--engine", f"cmd='{ORACLE}' tc=5+0.05", "--nodes", "10"],
                ["--engine", "cmd=surely-not-an-engine-xyz", "--nodes", "10"],
                ["--engine", "cmd='unclosed", "--nodes", "10"],
                ["--engine", f"cmd='{ORACLE}'", "--nodes", "10,x"],
                ["--engine", f"cmd='{ORACLE}'", "--nodes", "0"]):
        with pytest.raises(SystemExit) as exc:
            mq.main([str(pgn)] + bad)
        assert exc.value.code == 2
        assert "error:" in capsys.readouterr().err


def test_engine_specs_use_the_runners_parser():
    mq = load_script("move_quality")
    name, argv, options = mq.parse_engine(f"name=x cmd='{ORACLE}' arg=first option.Hash=16")
    assert (name, argv, options) == ("x", [sys.executable, str(FAKE), "first"], {"Hash": "16"})
    # without name=, the runner's display name: the command's basename
    assert mq.parse_engine(f"cmd='{ORACLE}'")[0] == Path(sys.executable).name
