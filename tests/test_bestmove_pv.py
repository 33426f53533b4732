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
