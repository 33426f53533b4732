"""scripts/sprt_forecast.py: simulated continuations of an SPRT end where the pair
distribution says, and the same seed gives the same runs."""
import numpy as np
import pytest

from conftest import load_script
from uci_engine.tools import stats

sf = load_script("sprt_forecast")


def test_a_clearly_stronger_side_passes_and_a_level_one_fails():
    strong = np.array([0.02, 0.10, 0.48, 0.28, 0.12])   # about +60 Elo
    games, outcomes = sf.forecast([0, 0, 0, 0, 0], 0, 10, 0.05, 0.05, strong, runs=20, seed=3)
    assert outcomes == ["H1"] * 20
    level = np.array([0.02, 0.12, 0.72, 0.12, 0.02])
    games0, outcomes0 = sf.forecast([0, 0, 0, 0, 0], 0, 10, 0.05, 0.05, level, runs=20, seed=3)
    assert outcomes0.count("H0") >= 18
    assert np.median(games) < np.median(games0)   # a large gain decides sooner
    assert (games % 100 == 0).all() and (games > 0).all()   # steps of 50 pairs, 2 games each


def test_each_run_stops_at_the_first_step_past_a_bound():
    level = np.array([0.02, 0.12, 0.72, 0.12, 0.02])
    start = [10, 60, 360, 60, 10]
    games, outcomes = sf.forecast(start, 0, 10, 0.05, 0.05, level, runs=5, seed=7)
    lower, upper = stats.sprt_bounds(0.05, 0.05)
    rng = np.random.default_rng(7)          # replay the first run's draws
    counts = np.array(start)
    for k in range(games[0] // 100):
        counts += rng.multinomial(50, level)
        llr = stats.sprt_llr(0, 10, counts.tolist())
        assert (lower < llr < upper) == (k < games[0] // 100 - 1)
    assert outcomes[0] == ("H1" if llr >= upper else "H0")


def test_the_same_seed_gives_the_same_runs_and_max_games_caps_them():
    p = np.array([0.05, 0.25, 0.4, 0.25, 0.05])
    a = sf.forecast([5, 25, 40, 25, 5], 0, 10, 0.05, 0.05, p, runs=4, seed=11, max_games=400)
    b = sf.forecast([5, 25, 40, 25, 5], 0, 10, 0.05, 0.05, p, runs=4, seed=11, max_games=400)
    assert (a[0] == b[0]).all() and a[1] == b[1]
    assert (a[0] <= 400).all() and "none" in a[1]
    assert all(g == 400 for g, o in zip(*a) if o == "none")


@pytest.mark.parametrize("bad", [[1, 2, 3, 4], [1, 2, -3, 4, 5]])
def test_a_malformed_pentanomial_is_refused(bad):
    with pytest.raises(ValueError):
        sf.forecast(bad, 0, 10, 0.05, 0.05, np.full(5, 0.2), runs=1, seed=1)
