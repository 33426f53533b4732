"""UCI_LimitStrength / UCI_Elo (uci_engine/strength.py and the engine's use of it)."""
import random

import pytest

from uci_engine import strength as K
from uci_engine.engine import Engine
from uci_engine.kernels import search as S
from uci_engine.timeman import Limits


def test_nodes_and_level_rise_smoothly_with_elo():
    elos = range(K.ELO_MIN, K.ELO_MAX + 1, 20)
    nodes = [K.nodes_for(e) for e in elos]
    levels = [K.level_for(e) for e in elos]
    assert nodes == sorted(nodes) and levels == sorted(levels)
    assert nodes[0] == K.NODES_AT_MIN and levels[0] == 0 and levels[-1] == K.SKILL_LEVEL_MAX
    # no jumps: neighbouring Elo steps change the node limit by less than 10 %
    assert all(b / a < 1.1 for a, b in zip(nodes, nodes[1:]))
    assert K.nodes_for(K.ELO_MIN - 500) == K.nodes_for(K.ELO_MIN)   # clamped


def test_pick_best_at_full_level_and_noise_below():
    scores = [50, 40, 0, -300]
    assert K.pick(scores, K.SKILL_LEVEL_MAX) == 0
    rng = random.Random(3)
    picks = [K.pick(scores, 0, rng) for _ in range(2000)]
    assert picks.count(0) > picks.count(2) > picks.count(3)       # better lines more often
    assert 0 < picks.count(0) < 2000
    rng = random.Random(3)
    high = [K.pick(scores, 15, rng) for _ in range(2000)]
    assert high.count(0) > picks.count(0)                          # stronger, less noise


def test_engine_limits_nodes_and_plays_legal_moves():
    e = Engine(4)
    e.limit_strength = True
    e.uci_elo = K.ELO_MIN
    e.skill_rng = random.Random(1)
    for _ in range(6):
        best, _ = e.search(Limits(depth=20))
        assert e.parse_move(best) is not None
        assert e.heur[S.NODE_LIMIT] == K.nodes_for(K.ELO_MIN)
        assert e.last_nodes <= K.nodes_for(K.ELO_MIN) + 64
        e.push(e.parse_move(best))


def test_weak_play_varies_and_full_strength_does_not():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    e = Engine(4)
    e.limit_strength = True
    e.uci_elo = K.ELO_MIN
    e.skill_rng = random.Random(7)
    weak = set()
    for _ in range(12):
        e.clear()
        e.set_position(fen, [])
        weak.add(e.search(Limits(depth=20))[0])
    assert len(weak) >= 2
    e.limit_strength = False
    strong = set()
    for _ in range(3):
        e.clear()
        e.set_position(fen, [])
        strong.add(e.search(Limits(nodes=20000))[0])
    assert len(strong) == 1
