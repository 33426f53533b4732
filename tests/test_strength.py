"""UCI_LimitStrength / UCI_Elo (uci_engine/strength.py and the engine's use of it)."""
import math
import random

import pytest

from uci_engine import strength as K
from uci_engine.engine import Engine
from uci_engine.kernels import state as SS
from uci_engine.timeman import Limits


def test_nodes_and_noise_change_smoothly_with_elo():
    elos = range(K.ELO_MIN, K.ELO_MAX + 1, 10)
    lines = [K.multipv_for(e) for e in elos]
    # the effort per line: the node limit without the extra for searching several lines
    per_line = [K.nodes_for(e) / (K.MULTIPV_NODE_FACTOR if n > 1 else 1)
                for e, n in zip(elos, lines)]
    noise = [K.noise_for(e) for e in elos]
    assert per_line == sorted(per_line) and noise == sorted(noise, reverse=True)
    # no jumps: neighbouring Elo steps change the effort by less than 10 %
    assert all(b / a < 1.1 for a, b in zip(per_line, per_line[1:]))
    assert noise[0] == K.NOISE_AT_MIN and noise[-1] == 0
    assert lines[0] == K.SKILL_MULTIPV and lines[-1] == 1
    assert all((n > 1) == (z > 0) for n, z in zip(lines, noise))
    assert K.nodes_for(K.ELO_MIN - 500) == K.nodes_for(K.ELO_MIN)   # clamped
    extra = (K.MULTIPV_NODE_FACTOR * K.noise_node_factor(K.ELO_ANCHOR)
             if K.multipv_for(K.ELO_ANCHOR) > 1 else 1)
    assert K.nodes_for(K.ELO_ANCHOR) == round(K.NODES_AT_ANCHOR * extra)


def test_noise_compensation_buys_back_its_cost_and_ends_with_the_noise():
    """The extra nodes of a noisy level are worth NOISE_ELO_PER_CP Elo per centipawn of its
    noise on the node law, none where the noise ends, and never fewer than none."""
    assert K.NOISE_ELO_PER_CP >= 0
    for elo in range(K.ELO_MIN, K.ELO_MAX + 1, 10):
        f = K.noise_node_factor(elo)
        bought = K.ELO_PER_NODE_DOUBLING * math.log2(f)
        assert bought == pytest.approx(K.NOISE_ELO_PER_CP * K.noise_for(elo), abs=1e-9)
        assert f >= 1 and (f == 1) == (K.noise_for(elo) == 0 or K.NOISE_ELO_PER_CP == 0)
    # a chosen cost: 2 Elo per centipawn at ELO_MIN's full noise buys 2 * NOISE_AT_MIN Elo
    f = K.noise_node_factor(K.ELO_MIN, elo_per_cp=2.0)
    assert f == pytest.approx(2 ** (2.0 * K.NOISE_AT_MIN / K.ELO_PER_NODE_DOUBLING))
    assert K.noise_node_factor(K.NOISE_END, elo_per_cp=2.0) == 1


def test_pick_stays_within_the_noise():
    scores = [50, 40, 0, -300]
    assert K.pick(scores, 0) == 0
    rng = random.Random(3)
    picks = [K.pick(scores, 60, rng) for _ in range(4000)]
    assert picks.count(0) > picks.count(1) > picks.count(2) > 0   # better lines more often
    assert picks.count(3) == 0                  # 350 cp worse: beyond 60 cp of noise
    rng = random.Random(3)
    calmer = [K.pick(scores, 20, rng) for _ in range(4000)]
    assert calmer.count(0) > picks.count(0) and calmer.count(2) == 0


def test_weak_pick_comes_from_one_finished_iteration():
    """The played line is one of the lines of the last iteration that finished all of them:
    an iteration cut by the node limit mixes depths (and scores out of order)."""
    fens = ["rnbqkb1r/pp1ppppp/2p2n2/8/8/1P2P3/P1PP1PPP/RNBQKBNR w KQkq - 0 3",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"]
    e = Engine(16)
    e.limit_strength = True
    e.skill_rng = random.Random(5)
    checked = 0
    for elo in (K.ELO_MIN, 1600, 1900):
        e.uci_elo = elo
        for fen in fens:
            e.clear()
            e.set_position(fen, [])
            infos = []
            best, _ = e.search(Limits(depth=40), on_info=infos.append)
            # an iteration's report: lines 1 .. SKILL_MULTIPV in a row at one depth (the played
            # line is reported once more after them, as multipv 1)
            exact = [i for i in infos if i["bound"] is None]
            groups = [exact[j:j + K.SKILL_MULTIPV] for j in range(len(exact))
                      if [i["multipv"] for i in exact[j:j + K.SKILL_MULTIPV]]
                      == list(range(1, K.SKILL_MULTIPV + 1))
                      and len({i["depth"] for i in exact[j:j + K.SKILL_MULTIPV]}) == 1]
            if not groups:
                # no iteration finished all lines within the node limit: no pick, best line
                assert best == infos[-1]["pv"][0]
                continue
            assert (e.last_score, best) in [(i["score"], i["pv"][0]) for i in groups[-1]]
            checked += 1
    assert checked >= 7


def test_engine_limits_nodes_and_plays_legal_moves():
    e = Engine(4)
    e.limit_strength = True
    e.uci_elo = K.ELO_MIN
    e.skill_rng = random.Random(1)
    for _ in range(6):
        best, _ = e.search(Limits(depth=20))
        assert e.parse_move(best) is not None
        assert e.ctl[SS.NODE_LIMIT] == K.nodes_for(K.ELO_MIN)
        assert e.last_nodes <= K.nodes_for(K.ELO_MIN) + 64
        e.push(e.parse_move(best))


def test_weak_play_varies_and_full_strength_does_not():
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"   # close first moves
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
