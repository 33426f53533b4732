"""The NNUE inside the search: incremental accumulators against full refreshes at every
evaluated node, the switch between the two evaluations, and the ``EvalFile`` / ``Use NNUE``
options over UCI (chessprogramming wiki "NNUE").

The kernel-level identities (update = refresh after random move sequences, quantised = float)
are in tests/test_nnue.py; here the search's own make / null-move / pruning paths are checked:
with ``ctl[NNUE_CHECK]`` set, every NNUE evaluation also rebuilds the accumulator from scratch
and counts a mismatch if the incremental one differs.
"""
import re
import shutil
import subprocess
from pathlib import Path

import chess
import numpy as np
import pytest

from uci_engine.engine import Engine
from uci_engine.kernels import nnue as N
from uci_engine.kernels import state as SS
from uci_engine.nnue_file import (DEFAULT_NET, NETS_DIR, USE_NNUE_DEFAULT, load_net, random_net,
                                  save_net)
from uci_engine.timeman import Limits

from test_uci import Raw, bestmove_of, engine_cmd, warm_cache  # noqa: F401 (fixture)

DATA = Path(__file__).parent / "data"


def _fens(name, step):
    with open(DATA / name) as f:
        return [line.split(";")[0].strip() for line in f if line.strip()][::step]


#: one net of every architecture the engine runs: the plain layout with one output (gen0-gen2),
#: with 8 output buckets (gen3), and king buckets with 8 output buckets. Larger
#: first-layer weights than the shipped test net, so accumulators move far from the bias and a
#: wrong add or subtract changes them visibly
ARCHITECTURES = {"plain": dict(),
                 "output-buckets": dict(output_buckets=8),
                 "king-buckets": dict(output_buckets=8, king_map="wing8")}


@pytest.fixture(scope="module", params=sorted(ARCHITECTURES))
def nnue_engine(request):
    e = Engine(4)
    e.set_net(random_net(16, seed=11, ft_range=4.0, **ARCHITECTURES[request.param]))
    e.set_use_nnue(True)
    return e


def _architecture(net):
    """What the kernels' code paths depend on: everything but the hidden size and weights."""
    return net.layout, tuple(net.king_map), net.output_buckets, net.activation


def test_every_shipped_architecture_is_checked():
    """Every net shipped in uci_engine/nets has an architecture the search-level check below
    runs (``ARCHITECTURES``), so a new kind of net cannot ship unchecked."""
    shipped = {p.name: _architecture(load_net(str(p))) for p in Path(NETS_DIR).glob("*.nnue")}
    checked = {_architecture(random_net(16, 11, **kw)) for kw in ARCHITECTURES.values()}
    assert shipped and DEFAULT_NET in shipped
    missing = sorted(name for name, arch in shipped.items() if arch not in checked)
    assert not missing, f"shipped nets of an architecture no search test checks: {missing}"


def _checked_search(e, fen, chess960=False, depth=6):
    e.chess960 = chess960
    e.set_position(fen, [])
    e.clear()
    e.ctl[SS.NNUE_CHECK] = 1
    e.search(Limits(depth=depth))
    return int(e.ctl[SS.NNUE_EVALS]), int(e.ctl[SS.NNUE_MISMATCHES])


@pytest.mark.parametrize("suite,chess960,step", [("perft.epd", False, 3),
                                                 ("perft960.epd", True, 64)])
def test_search_accumulators_equal_refresh(nnue_engine, suite, chess960, step):
    """Every static eval of an NNUE search (captures, castling in both notations, en passant,
    promotions, null moves and quiescence) reads an accumulator equal to a refresh."""
    evals = 0
    for fen in _fens(suite, step):
        n, bad = _checked_search(nnue_engine, fen, chess960)
        assert bad == 0, f"incremental accumulator differs from a refresh in {fen}"
        evals += n
    assert evals > 1000, "the check must have run on many nodes"


def test_eval_switch():
    """``Use NNUE`` off: the hand-crafted evaluation and the searched tree are those of a fresh
    engine; on: the static eval is the net's, and the search differs."""
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    ref, e = Engine(4), Engine(4)
    e.set_net(random_net(16, seed=3))
    for x in (ref, e):
        x.set_use_nnue(False)
        x.set_position(fen, [])
    assert e.static_eval() == ref.static_eval()
    ref.search(Limits(depth=6))
    e.search(Limits(depth=6))
    assert (e.last_nodes, e.last_score) == (ref.last_nodes, ref.last_score)

    e.set_use_nnue(True)
    acc = N.new_accumulators(16, 2)
    pk = e.net_packed
    N.nnue_refresh(e.st, np.int64(e.root), pk, acc, np.int64(0), e.net_params)
    want = int(N.nnue_evaluate(e.st, np.int64(e.root), acc, np.int64(0), pk, e.net_params))
    assert e.static_eval() == want != ref.static_eval()
    e.search(Limits(depth=6))
    assert (e.last_nodes, e.last_score) != (ref.last_nodes, ref.last_score)
    assert e.move_to_uci(e.last_move) in {m.uci() for m in chess.Board(fen).legal_moves}

    e.set_use_nnue(False)
    e.search(Limits(depth=6))
    assert (e.last_nodes, e.last_score) == (ref.last_nodes, ref.last_score)


def test_fresh_engine_evaluates_with_the_shipped_net():
    """A new Engine (and so ``bench``) evaluates with :data:`DEFAULT_NET` when
    ``USE_NNUE_DEFAULT`` is set: its static eval is the shipped net's, not the hand-crafted."""
    e, hce = Engine(4), Engine(4)
    hce.set_use_nnue(False)
    assert e.use_nnue is USE_NNUE_DEFAULT and e.default_net_error is None
    shipped = Engine(4)
    shipped.set_net(load_net(str(Path(NETS_DIR) / DEFAULT_NET)))
    shipped.set_use_nnue(True)
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    for x in (e, hce, shipped):
        x.set_position(fen, [])
    assert e.static_eval() == shipped.static_eval() != hce.static_eval()


def test_missing_shipped_net_falls_back_to_hand_crafted(monkeypatch):
    """Without a loadable shipped net the engine evaluates with the hand-crafted evaluation,
    says why, and a UCI session reports it and turns ``Use NNUE`` off."""
    import io
    import time
    import uci_engine.engine as engine_mod
    monkeypatch.setattr(engine_mod, "DEFAULT_NET", "no-such-net.nnue")
    e = Engine(4)
    assert not e.use_nnue and "no-such-net.nnue" in e.default_net_error
    from uci_engine.uci import UCI
    out = io.StringIO()
    u = UCI(out=out)
    u.handle("isready")
    deadline = time.monotonic() + 120
    while "readyok" not in out.getvalue():
        assert time.monotonic() < deadline, out.getvalue()
        time.sleep(0.01)
    text = out.getvalue()
    assert "info string error: EvalFile no-such-net.nnue" in text
    assert u.options["use nnue"].value is False and not u.engine.use_nnue
    u.handle("eval")
    assert "NNUE evaluation" not in out.getvalue()


def test_nnue_with_helper_threads():
    """Lazy SMP helpers get accumulators and a Finny table of the net's size and search with
    it."""
    e = Engine(4)
    e.set_net(random_net(24, seed=5))
    e.set_use_nnue(True)
    e.set_threads(2)
    assert e.helpers[0].acc[0].shape[2] == 24 and e.helpers[0].acc[1].shape == (2, 2, 24)
    assert e.helpers[0].acc[1] is not e.acc[1], "each thread has its own Finny table"
    e.set_position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [])
    best, _ = e.search(Limits(depth=7))
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    assert chess.Move.from_uci(best) in board.legal_moves
    e.set_net(random_net(8, seed=6))
    assert e.acc[0].shape[2] == 8 and e.helpers[0].acc[0].shape[2] == 8
    assert e.acc[1].shape[2] == 8 and e.helpers[0].acc[1].shape[2] == 8


# --- over UCI ---------------------------------------------------------------------------------

def _option_lines(r):
    r.send("uci")
    return {ln.split(" type ")[0][len("option name "):]: ln
            for ln in r.expect("uciok") if ln.startswith("option name ")}


def test_uci_evalfile_and_use_nnue(tmp_path, warm_cache):
    good = tmp_path / "copy.nnue"
    shutil.copy(Path(NETS_DIR) / DEFAULT_NET, good)
    truncated = tmp_path / "truncated.nnue"
    truncated.write_bytes(good.read_bytes()[:100])
    foreign = tmp_path / "foreign.nnue"
    foreign.write_bytes(b"this is not a net at all" * 10)
    future = tmp_path / "future.nnue"           # an input layout this build cannot run
    save_net(future, random_net(8, 1))
    future.write_bytes(future.read_bytes()[:32] + b"\x07\0\0\0" + future.read_bytes()[36:])
    r = Raw().start()
    try:
        opts = _option_lines(r)
        assert opts["EvalFile"] == f"option name EvalFile type string default {DEFAULT_NET}"
        assert opts["Use NNUE"] == "option name Use NNUE type check default true"
        for bad in (tmp_path / "missing.nnue", truncated, foreign, future):
            r.send(f"setoption name EvalFile value {bad}")
            lines = r.sync(30)
            errors = [ln for ln in lines if ln.startswith("info string error:")]
            assert len(errors) == 1 and f"keeping EvalFile {DEFAULT_NET}" in errors[0], lines
            if bad == future:
                assert "input layout 7 is not one this build can run" in errors[0], lines
        r.send(f"setoption name EvalFile value {good}")
        arch = load_net(str(good)).architecture()
        assert re.fullmatch(r"\(768(x\d+)? -> \d+\)x2 -> \d+, SCReLU", arch), arch
        assert any(ln.startswith("info string NNUE net") and arch in ln for ln in r.sync(30))
        r.send("setoption name Use NNUE value true", "position startpos moves e2e4", "eval")
        lines = r.sync(60)
        assert any(ln.startswith("NNUE evaluation ") for ln in lines), lines
        r.send("setoption name Threads value 2", "go depth 6")
        board = chess.Board()
        board.push_uci("e2e4")
        best = bestmove_of(r.expect("bestmove", 60)[-1])
        assert chess.Move.from_uci(best) in board.legal_moves
        r.send(f"setoption name EvalFile value {truncated}")
        lines = r.sync(30)
        assert any(f"keeping EvalFile {good}" in ln for ln in lines), lines
        r.send("setoption name Use NNUE value maybe")
        assert any(ln.startswith("info string error:") for ln in r.sync(30))
        r.send("setoption name Use NNUE value false", "eval")
        assert not any(ln.startswith("NNUE evaluation ") for ln in r.sync(30))
    finally:
        assert r.quit() == 0


def test_shipped_net_loads():
    net = load_net(str(Path(NETS_DIR) / DEFAULT_NET))
    assert net.hidden > 0


def test_uci_eval_command_default_is_nnue(warm_cache):
    """``eval`` reports the shipped net by default and the hand-crafted breakdown with
    ``Use NNUE`` off."""
    out = subprocess.run(engine_cmd(), input="position startpos\neval\nquit\n",
                         capture_output=True, text=True, timeout=120).stdout
    assert f"net {DEFAULT_NET}" in out and "NNUE evaluation" in out and "Material+PST" not in out
    out = subprocess.run(engine_cmd(), input="setoption name Use NNUE value false\n"
                         "position startpos\neval\nquit\n",
                         capture_output=True, text=True, timeout=120).stdout
    assert "NNUE evaluation" not in out and "Material+PST" in out
