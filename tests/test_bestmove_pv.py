"""``bestmove`` is the first move of the last line the engine reported as multipv 1, however
the search ended: a node or time limit inside an iteration, the Lazy SMP vote, the UCI_Elo
skill pick. Otherwise fastchess warns "Bestmove does not match beginning of last PV" and a
GUI shows a line the engine did not play."""
import pytest

from uci_engine.bench import BENCH_FENS
from uci_engine.engine import Engine
from uci_engine.timeman import Limits

LIMITS = [Limits(nodes=700), Limits(nodes=2500), Limits(nodes=9000), Limits(movetime=30)]


@pytest.mark.parametrize("threads,limit_strength", [(1, False), (2, False), (1, True)])
def test_bestmove_is_the_last_reported_line(threads, limit_strength):
    e = Engine(4)
    e.set_threads(threads)
    e.limit_strength = limit_strength
    e.uci_elo = 1500
    mismatches = []
    for fen in BENCH_FENS[:12]:
        for limits in LIMITS:
            e.clear()
            e.set_position(fen, [])
            infos = []
            best, _ = e.search(limits, on_info=infos.append)
            lines = [i["pv"] for i in infos if i["multipv"] == 1 and i["pv"]]
            last = lines[-1][0] if lines else None      # no line at all counts too
            if last != best:
                mismatches.append((fen, limits, best, last))
    e.set_threads(1)
    assert not mismatches


def test_a_fail_high_root_move_is_played_when_its_re_search_is_stopped(monkeypatch):
    """The aspiration pass of depth 5 fails high on a new move and the search stops inside the
    wider re-search before any root move finished: the engine plays the move that failed high
    (Stockfish's rootMoves[0] after the fail-high sort), not the previous iteration's move,
    and reports it as its last line."""
    from uci_engine.kernels import search as S
    from uci_engine.kernels import state as SS
    e = Engine(4)
    e.set_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", [])
    old_move, new_move = e.legal_moves()[:2]
    passes = []

    def scripted_negamax(st, mb, tt, h, hist, ss, mv, acc, net, net_params, params, tb, row,
                         depth, alpha, beta, cn):
        passes.append((int(depth), int(alpha), int(beta)))
        h[SS.NODES] += 1
        if depth < 5 or (depth == 5 and len([p for p in passes if p[0] == 5]) == 1):
            move = old_move if depth < 5 else new_move
            score = 0 if depth < 5 else int(beta) + 50          # exact, then a fail high
            ss[SS.PV], ss[SS.PV_LEN], h[SS.BEST_MOVE], h[SS.BEST_SCORE] = move, 1, move, score
            h[SS.ROOT_DONE] = 1
            return score
        h[SS.STOP], h[SS.ROOT_DONE], ss[SS.PV_LEN] = 1, 0, 0     # stopped inside the re-search
        return 0

    monkeypatch.setattr(S, "negamax", scripted_negamax)
    infos = []
    best, _ = e.search(Limits(depth=8), on_info=infos.append)
    assert [p[0] for p in passes] == [1, 2, 3, 4, 5, 5]
    assert passes[5][2] > passes[4][2]                          # the re-search widened beta
    assert best == e.move_to_uci(new_move)
    assert infos[-1]["pv"][0] == best
