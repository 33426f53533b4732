"""Lazy SMP (Engine.set_threads): helpers search, share the TT, sum their nodes, stop on time
and on request, and never make the engine answer with an illegal or unsearched move."""
import threading
import time

import pytest

from uci_engine.engine import Engine, MAX_THREADS
from uci_engine.kernels import state as SS
from uci_engine.timeman import Limits

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10"


@pytest.fixture(scope="module")
def engine():
    e = Engine(8)
    e.set_threads(2)
    return e


def test_threads_range():
    e = Engine(1)
    for bad in (0, MAX_THREADS + 1):
        with pytest.raises(ValueError):
            e.set_threads(bad)
    assert e.threads == 1
    e.set_threads(3)
    assert e.threads == 3 and len(e.helpers) == 2
    e.set_threads(1)
    assert e.threads == 1 and e.helpers == []


def test_helpers_search_and_nodes_add_up(engine):
    engine.clear()
    engine.set_position(KIWIPETE, [])
    best, _ = engine.search(Limits(movetime=400))
    assert engine.parse_move(best) is not None
    main = int(engine.ctl[SS.NODES])
    helper = int(engine.helpers[0].ctl[SS.NODES])
    assert helper > 0 and main > 0
    assert engine.last_nodes == main + helper
    assert engine.helpers[0].completed is not None        # finished at least one iteration
    assert all(w.thread is None for w in engine.helpers)  # joined


def test_stop_ends_every_thread(engine):
    engine.set_position(KIWIPETE, [])
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", engine.search(Limits(infinite=True))))
    t.start()
    time.sleep(0.3)
    engine.request_stop()
    t.join(timeout=10)
    assert not t.is_alive()
    assert engine.parse_move(out["r"][0]) is not None
    assert not any(th.name.startswith("lazy-smp") for th in threading.enumerate())


@pytest.mark.parametrize("fen,first", [
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"),               # mate in 1
    ("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "f3f7"),
])
def test_two_threads_find_the_mate(engine, fen, first):
    engine.clear()
    engine.set_position(fen, [])
    best, _ = engine.search(Limits(movetime=300))
    assert best == first
    assert engine.last_score >= SS.MATE_BOUND


def test_vote_prefers_the_move_most_threads_back():
    e = Engine(1)
    e.set_threads(3)
    a, b = 100, 200
    e.helpers[0].completed = (10, 30, [b, 1])
    e.helpers[1].completed = (10, 28, [b, 2])
    assert e._vote(10, 31, [a, 3])[1][0] == b               # two deep votes beat one
    e.helpers[1].completed = (10, SS.MATE - 5, [a, 4])        # a helper proved a mate
    assert e._vote(10, 31, [b, 3]) == (SS.MATE - 5, [a, 4])
