"""Tests for uci_engine.timeman.budget: fixed limits, and the clock it leaves when a game lives
on the increment."""
import pytest

from uci_engine.timeman import LOW_CLOCK_INCREMENTS, Limits, budget, low_clock_reserve


def test_movetime_and_untimed():
    assert budget(Limits(movetime=500), True, 10) == (490, 490)
    assert budget(Limits(movetime=5), True, 10) == (1, 1)
    assert budget(Limits(infinite=True, wtime=1000), True) == (None, None)
    assert budget(Limits(depth=5), True) == (None, None)
    assert budget(Limits(btime=1000), True) == (None, None)      # white to move, no wtime


def test_side_to_move_clock_is_used():
    lim = Limits(wtime=60_000, btime=1_000, winc=0, binc=0)
    assert budget(lim, True)[0] > 10 * budget(lim, False)[0]


@pytest.mark.parametrize("left,inc,mtg", [(60_000, 0, None), (1_000, 30, None), (100, 10, None),
                                          (5_000, 100, 2), (5_000, 100, 1), (20, 0, None)])
def test_limits_are_ordered_and_within_the_clock(left, inc, mtg):
    soft, hard = budget(Limits(wtime=left, winc=inc, movestogo=mtg), True, 10)
    assert 1 <= soft <= hard
    assert hard <= max(1, 0.8 * left - 10)


def _settled_clock(inc, overhead, lost, start=3_000, moves=300):
    """Lowest clock over ``moves`` moves when every move runs to its hard limit and ``lost``
    milliseconds more go to the position command, I/O and the GUI (about 4 ms measured with
    ``uci-engine`` on a 200-ply game; Move Overhead ``overhead`` is the user's bound on it)."""
    left, low = float(start), float(start)
    for ply in range(moves):
        _, hard = budget(Limits(wtime=int(left), winc=inc), True, overhead)
        left = left - hard - lost
        assert left > 0, f"flagged at move {ply}"
        left += inc
        low = min(low, left)
    return low


def test_low_clock_reserve():
    # 20 increments at bullet speed, capped at 500 ms or 5 increments for longer controls
    assert low_clock_reserve(10) == 20 * 10                 # 1+0.01: 200 ms
    assert low_clock_reserve(50) == 500                     # 5+0.05: 10 increments
    assert low_clock_reserve(100) == 500                    # 10+0.1: 5 increments
    assert low_clock_reserve(600) == 5 * 600                # 60+0.6: 3 s
    assert LOW_CLOCK_INCREMENTS == 20


@pytest.mark.parametrize("inc", [10, 30, 50, 100, 600])
def test_living_on_increment_keeps_a_reserve(inc):
    # At a 50% cap the clock settled near two increments (60 ms at +0.03); at 30% near three
    # (22 of 211 games at 5+0.05 on a loaded machine were still lost on time). A low clock
    # now spends less than the increment, so the clock climbs back to about the reserve
    # (low_clock_reserve) and stays near there, from a start below it or above it.
    reserve = low_clock_reserve(inc)
    # Above the reserve one move may run to its hard limit; below, a move gains back part of
    # its increment. So the clock never falls further below the reserve than what one
    # hard-limited move at the reserve takes beyond its increment.
    _, hard_at_reserve = budget(Limits(wtime=reserve, winc=inc), True, 10)
    floor = reserve - (hard_at_reserve - inc + 5) - 1
    for start in (reserve // 2, 3 * reserve):
        low = _settled_clock(inc, 10, 5, start=start, moves=600)
        assert low >= min(start, floor)
        left = start
        for ply in range(300):
            _, hard = budget(Limits(wtime=int(left), winc=inc), True, 10)
            left += inc - hard - 5
            if ply >= 200:
                assert left >= floor
    assert floor >= 0.5 * reserve


@pytest.mark.parametrize("inc,lost,stall", [(10, 5, 30), (50, 15, 60), (100, 20, 150)])
def test_stalls_on_a_loaded_machine_never_flag(inc, lost, stall):
    # 1+0.01, 5+0.05 and 10+0.1: every move loses `lost` ms outside the search (4 ms
    # measured on an idle machine) and every 20th move stalls `stall` ms more
    left = 600.0 * inc
    for ply in range(600):
        _, hard = budget(Limits(wtime=int(left), winc=inc), True, 10)
        left -= hard + lost + (stall if ply % 20 == 19 else 0)
        assert left > 0, f"flagged at move {ply}"
        left += inc


def test_scaled_soft_limit_follows_stability_score_drop_and_node_share():
    from uci_engine.timeman import (NODE_FACTOR_BASE, NODE_FACTOR_SLOPE, SOFT_SCALE,
                                    STABILITY_FACTORS, scale_soft)
    base = scale_soft(100, 10_000, 2, 0, 0.5)
    # an unsettled best move gets more time, a settled one less
    assert scale_soft(100, 10_000, 0, 0, 0.5) > base > scale_soft(100, 10_000, 9, 0, 0.5)
    assert scale_soft(100, 10_000, 0, 0, 0.5) / base == pytest.approx(
        STABILITY_FACTORS[0] / STABILITY_FACTORS[2])
    # a falling score gets more time, a rising one less, within bounds
    assert scale_soft(100, 10_000, 2, 100, 0.5) > base > scale_soft(100, 10_000, 2, -100, 0.5)
    assert scale_soft(100, 10_000, 2, 10_000, 0.5) == scale_soft(100, 10_000, 2, 300, 0.5)
    # a best move that took most of the nodes is settled
    assert scale_soft(100, 10_000, 2, 0, 0.95) < base < scale_soft(100, 10_000, 2, 0, 0.1)
    # never beyond the hard limit
    assert scale_soft(100, 150, 0, 500, 0.0) == 150
    # the product of the three factors, scaled by SOFT_SCALE
    assert base == pytest.approx(100 * SOFT_SCALE * STABILITY_FACTORS[2]
                                 * (NODE_FACTOR_SLOPE * 0.5 + NODE_FACTOR_BASE))


def test_soft_stop_ends_the_search_after_one_root_move():
    """SOFT_STOP set before the search: the root stops once its first move is searched, keeping
    that move as the best (the soft deadline's timer sets the flag the same way)."""
    from conftest import search_node
    from uci_engine.engine import Engine
    from uci_engine.kernels import state as SS
    e = Engine(1)
    e.set_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNB1KB1R w KQkq - 2 3", [])
    h = e.ctl
    h[SS.SOFT_STOP] = 1
    score = search_node(e, 6)
    assert h[SS.STOP] == 1 and h[SS.ROOT_DONE] == 1
    assert h[SS.BEST_MOVE] != 0 and score == h[SS.BEST_SCORE]
    # one move searched: every node but the root itself was spent on it
    assert h[SS.BEST_NODES] == h[SS.NODES] - h[SS.ITER_NODES] - 1


def test_movetime_is_spent_whole():
    """``go movetime`` is a fixed budget, as in Stockfish (no time management): a settled best
    move does not end the search early, however stable (the scaled soft limit is for clocks)."""
    import time
    from uci_engine.engine import Engine
    e = Engine(16)
    e.search(Limits(depth=2))                                    # compiled before the clock
    e.set_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", [])
    t0 = time.monotonic()
    e.search(Limits(movetime=400), move_overhead=10)
    assert time.monotonic() - t0 >= 0.39
