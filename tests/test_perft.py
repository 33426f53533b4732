"""Perft counts of the move generator against tests/data/perft.epd and perft960.epd.

* perft.epd (89 positions): every listed depth whose expected count is at most ``NODE_BUDGET``
  (default 200,000,000; ``UCI_ENGINE_PERFT_MAX_NODES`` overrides it), always including startpos
  D6 and Kiwipete D5: about 3.0 billion nodes in all: some 17 s with pext or magic, 45 s with
  rayscan, on a 2-core EPYC VM. The full file (23.4 billion nodes) runs with
  ``python scripts/perft.py --epd tests/data/perft.epd``.
* perft960.epd (960 Chess960 positions, Shredder-FEN castling): depths 1 to 3, parsed in
  Chess960 mode.
* ``perft_engine`` (the search's own generator and make_move, not perft's lean board): every
  perft.epd depth up to ``ENGINE_BUDGET`` nodes (default 5,000,000) and all 960 Chess960
  positions to depth 3.
* :meth:`Engine.perft_divide`: per-move counts sum to perft, the root moves are exactly the
  legal moves (and python-chess's), and the engine's rows are left as they were.
* The backend of this process is fixed (tests/conftest.py), so ``--sliders black`` runs both
  suites in a subprocess of ``scripts/perft.py``: perft.epd within the same ``NODE_BUDGET``
  (startpos D6 and Kiwipete D5 included), perft960.epd up to ``BLACK_960_MAX_NODES`` per depth
  (depths 1 to 3 and the smaller depth-4 counts).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from uci_engine.fen import STARTPOS, parse_fen
from uci_engine.kernels import position as P
from uci_engine.kernels.perft import perft, perft_engine

DATA = os.path.join(os.path.dirname(__file__), "data")
NODE_BUDGET = int(os.environ.get("UCI_ENGINE_PERFT_MAX_NODES", 200_000_000))
EXTRA = {(1, 6), (2, 5)}   # (EPD line, depth) always run: startpos D6, Kiwipete D5
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def load_epd(name):
    """[(line_number, fen, [(depth, count), ...])] of an EPD perft file."""
    out = []
    with open(os.path.join(DATA, name)) as fh:
        for i, line in enumerate(fh, 1):
            parts = [p.strip() for p in line.split(";")]
            if not parts[0] or parts[0].startswith("#"):
                continue
            depths = []
            for p in parts[1:]:
                if p:
                    tag, value = p.split()
                    depths.append((int(tag[1:]), int(value)))
            out.append((i, parts[0], depths))
    return out


def is_960(fen):
    castling = fen.split()[2]
    return castling != "-" and any(c not in "KQkq" for c in castling)


PERFT = load_epd("perft.epd")
PERFT960 = load_epd("perft960.epd")


ENGINE_BUDGET = int(os.environ.get("UCI_ENGINE_PERFT_ENGINE_MAX_NODES", 5_000_000))


def _run(new_stack, fen, depths, chess960, walk=perft):
    st, mb = new_stack(16)
    parse_fen(fen, st, mb, 0, chess960=chess960)
    root = st[0].copy()
    bad = []
    for depth, want in depths:
        got = int(walk(st, mb, np.int64(0), np.int64(depth)))
        if got != want:
            bad.append(f"D{depth}: expected {want}, got {got}")
    assert not bad, f"{fen}: " + "; ".join(bad)
    assert np.array_equal(st[0], root), "perft changed the root row"


def test_data_files():
    assert len(PERFT) == 89 and len(PERFT960) == 960
    assert PERFT[0][1] == STARTPOS and PERFT[1][1] == KIWIPETE
    assert all(len(d) == 6 for _, _, d in PERFT960)
    assert dict(PERFT[0][2])[6] == 119_060_324 and dict(PERFT[1][2])[5] == 193_690_690


@pytest.mark.parametrize("line,fen,depths", PERFT, ids=[f"epd{n:02d}" for n, _, _ in PERFT])
def test_perft_epd(new_stack, line, fen, depths):
    run = [(d, c) for d, c in depths if c <= NODE_BUDGET or (line, d) in EXTRA]
    assert run, "no depth within the node budget"
    _run(new_stack, fen, run, is_960(fen))


@pytest.mark.parametrize("line,fen,depths", PERFT960,
                         ids=[f"960-{n:03d}" for n, _, _ in PERFT960])
def test_perft960_depth3(new_stack, line, fen, depths):
    assert is_960(fen) or fen.split()[2] == "-"
    _run(new_stack, fen, [(d, c) for d, c in depths if d <= 3], True)


@pytest.mark.parametrize("line,fen,depths", PERFT, ids=[f"engine-epd{n:02d}" for n, _, _ in PERFT])
def test_perft_engine_epd(new_stack, line, fen, depths):
    run = [(d, c) for d, c in depths if c <= ENGINE_BUDGET]
    assert run, "no depth within the node budget"
    _run(new_stack, fen, run, is_960(fen), walk=perft_engine)


def test_perft_engine_960_depth3(new_stack):
    for _, fen, depths in PERFT960:
        _run(new_stack, fen, [(d, c) for d, c in depths if d <= 3], True, walk=perft_engine)


BLACK_960_MAX_NODES = 200_000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
@pytest.mark.parametrize("epd,max_nodes,positions", [
    ("perft.epd", NODE_BUDGET, 89), ("perft960.epd", BLACK_960_MAX_NODES, 960)])
def test_perft_suites_black_subprocess(epd, max_nodes, positions):
    """Through ``--sliders black`` (the fixed-shift black magic backend), ``scripts/perft.py``
    finds the exact counts of every position of the suite within the node budget."""
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "perft.py"), "--sliders", "black",
         "--epd", os.path.join(DATA, epd), "--max-nodes", str(max_nodes), "--no-progress"],
        capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "sliders black (override --sliders)" in out
    assert f"{positions} positions" in out and "0 failing line(s)" in out
    assert out.count("ok   line ") == positions and "FAIL" not in out


def test_perft_depth0_is_one(new_stack):
    st, mb = new_stack(4)
    parse_fen(STARTPOS, st, mb, 0)
    assert perft(st, mb, np.int64(0), np.int64(0)) == 1


# --- perft_divide ------------------------------------------------------------------------------
DIVIDE_CASES = [(fen, 3, dict(d)[3]) for _, fen, d in PERFT] + [
    (STARTPOS, 5, 4_865_609), (KIWIPETE, 4, 4_085_603)] + [
    (fen, 4, dict(d)[4]) for _, fen, d in PERFT960[::120]]


@pytest.fixture(scope="module")
def engine():
    from uci_engine.engine import Engine
    return Engine(1)


@pytest.mark.parametrize("fen,depth,want", DIVIDE_CASES,
                         ids=[f"div{i:02d}-d{c[1]}" for i, c in enumerate(DIVIDE_CASES)])
def test_perft_divide_sums(engine, fen, depth, want):
    """Engine.perft_divide: per-move counts sum to perft, one entry per legal move, each
    entry the perft of its child, and the engine's rows are left as they were."""
    engine.chess960 = is_960(fen)
    engine.set_position(fen, [])
    before = engine.fen(), engine.root, engine.st.copy(), engine.mb.copy()
    div = engine.perft_divide(depth)
    assert (engine.fen(), engine.root) == before[:2]
    assert np.array_equal(engine.st, before[2]) and np.array_equal(engine.mb, before[3])
    total = sum(n for _, n in div)
    assert total == want == engine.perft(depth)
    legal = engine.legal_moves()
    assert sorted(mv for mv, _ in div) == sorted(engine.move_to_uci(m) for m in legal)
    assert len({mv for mv, _ in div}) == len(div)
    counts = dict(div)
    st, mb = engine.st.copy(), engine.mb.copy()
    for m in legal[:: max(1, len(legal) // 4)]:
        P.make_move(st, mb, engine.root, m)
        assert int(perft(st, mb, np.int64(engine.root + 1), np.int64(depth - 1))) \
            == counts[engine.move_to_uci(m)]


@pytest.mark.parametrize("fen,depth,chess960", [
    (STARTPOS, 4, False), (KIWIPETE, 3, False), (KIWIPETE, 3, True),
    (PERFT960[0][1], 3, True), (PERFT960[517][1], 3, True)])
def test_perft_divide_matches_python_chess(engine, fen, depth, chess960):
    """Root moves of the divide are python-chess's legal moves in the same notation (e1g1 in
    standard chess, king-takes-rook with UCI_Chess960), with the EPD total."""
    import chess

    engine.chess960 = chess960
    engine.set_position(fen, [])
    div = engine.perft_divide(depth)
    want = dict(next(d for _, f, d in PERFT + PERFT960 if f == fen))[depth]
    assert sum(n for _, n in div) == want
    board = chess.Board(fen, chess960=chess960)
    assert sorted(mv for mv, _ in div) == sorted(m.uci() for m in board.legal_moves)
