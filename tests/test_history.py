"""Correction history (uci_engine/kernels/history.py: ``corrected_eval``, ``update_corr``): an
empty table leaves the static eval alone, repeated updates converge on the search's error,
the entries stay within CORR_MAX centipawns, and an unrelated position (other pawns and other
pieces) keeps its own entries."""
import numpy as np

from uci_engine.fen import parse_fen
from uci_engine.kernels import history as H
from uci_engine.kernels import position as P
from uci_engine.kernels import state as SS

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#: other pawns and other pieces than START (a rook and a knight each, the pawns advanced)
OTHER = "4k2r/1n3ppp/8/3p4/3P4/8/5PPP/4K1NR w - - 0 1"
WEIGHT_MAX = 16         # the CORR_WEIGHT_MAX and CORR_MAX defaults (uci_engine/params.py)
CORR_MAX = 64


def _st(fen):
    st, mb = P.new_stack(4)
    parse_fen(fen, st, mb, 0)
    return st


def _eval(hist, st, raw):
    return int(H.corrected_eval(hist, st, 0, int(st[0, P.STM]), np.int64(raw)))


def _learn(hist, st, diff, times, depth=20):
    for _ in range(times):
        H.update_corr(hist, st, 0, int(st[0, P.STM]), np.int64(diff), np.int64(depth),
                      np.int64(WEIGHT_MAX), np.int64(CORR_MAX))


def test_an_empty_table_leaves_the_eval():
    hist = SS.new_histories()
    st = _st(START)
    for raw in (-300, -1, 0, 1, 57, 900):
        assert _eval(hist, st, raw) == raw


def test_updates_converge_on_the_error_and_stay_bounded():
    hist = SS.new_histories()
    st = _st(START)
    _learn(hist, st, 40, 400)
    assert abs(_eval(hist, st, 100) - 140) <= 1
    _learn(hist, st, -25, 400)
    assert abs(_eval(hist, st, 100) - 75) <= 1
    _learn(hist, st, 10_000, 400)                       # far beyond the bound
    assert 100 + CORR_MAX - 1 <= _eval(hist, st, 100) <= 100 + CORR_MAX
    assert np.abs(hist).max() <= CORR_MAX * H.CORR_GRAIN


def test_one_update_moves_part_of_the_way():
    hist = SS.new_histories()
    st = _st(START)
    _learn(hist, st, 64, 1, depth=3)                    # weight 4 / 256 of 64 cp: 1 cp
    assert _eval(hist, st, 0) == 1


def test_an_unrelated_position_keeps_its_own_entries():
    hist = SS.new_histories()
    st, other = _st(START), _st(OTHER)
    _learn(hist, st, 50, 400)
    assert _eval(hist, other, 20) == 20
    black = _st(START.replace(" w ", " b "))            # the other side to move: its own entries
    assert _eval(hist, black, 20) == 20
