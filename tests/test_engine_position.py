"""Engine.set_position: the incremental path (a GUI resending the game plus one move) gives the
same rows as a fresh parse, and a bad new move leaves the position as it was."""
import random

import numpy as np
import pytest

from uci_engine.engine import Engine
from uci_engine.fen import STARTPOS
from uci_engine.kernels import position as P


def _game(seed, plies):
    e = Engine(1)
    rng = random.Random(seed)
    moves = []
    for _ in range(plies):
        legal = e.legal_moves()
        if not legal:
            break
        m = rng.choice(legal)
        moves.append(e.move_to_uci(m))
        e.set_position(STARTPOS, moves)
    return moves


def _rows(e):
    n = e.root + 1
    return e.st[:n].copy(), e.mb[:n].copy()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_equals_fresh_parse(seed):
    moves = _game(seed, 120)
    inc = Engine(1)
    for k in range(len(moves) + 1):
        inc.set_position(STARTPOS, moves[:k])          # one move more each time
        fresh = Engine(1)
        fresh.set_position(STARTPOS, moves[:k])
        a, b = _rows(inc), _rows(fresh)
        assert inc.root == fresh.root
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_bad_new_move_keeps_the_position():
    moves = _game(4, 30)
    e = Engine(1)
    e.set_position(STARTPOS, moves)
    before = _rows(e), e.root, e.fen()
    with pytest.raises(ValueError):
        e.set_position(STARTPOS, moves + ["a1a1"])
    with pytest.raises(ValueError):
        e.set_position(STARTPOS, moves + ["zz"])
    assert e.root == before[1] and e.fen() == before[2]
    assert np.array_equal(_rows(e)[0], before[0][0])
    e.set_position(STARTPOS, moves[:10])               # a shorter game: parsed afresh
    fresh = Engine(1)
    fresh.set_position(STARTPOS, moves[:10])
    assert e.fen() == fresh.fen() and e.root == fresh.root


def test_repetition_history_survives_the_incremental_path():
    e = Engine(1)
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for k in range(1, 9):
        e.set_position(STARTPOS, (cycle * 2)[:k])
    # the start position has occurred three times: the search must see the draw
    keys = [int(e.st[r, P.KEY]) for r in range(e.root + 1)]
    assert keys.count(keys[-1]) == 3
