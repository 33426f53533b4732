"""Statistics of the match runner against published worked examples.

Sources of the expected numbers:

* fastchess (Disservin/fastchess), ``app/tests/elo_test.cpp`` -- EloWDL / EloPentanomial
  cases (logistic Elo, normalized Elo and LOS with 95 % error bars), and
  ``app/tests/sprt_test.cpp`` -- "normalized/logistic trinomial/pentanomial" LLR cases.
  fastchess's ``Stats(ll, ld, wl, dd, wd, ww)`` constructor order is converted below into
  fishtest's pentanomial order ``[LL, LD, WL+DD, WD, WW]``; ``Stats(w, l, d)`` into ``[L, D, W]``.
  The fastchess tests use doctest ``Approx(x).epsilon(0.01)`` (1 % relative); the values
  below are matched to their printed two decimals where our exact computation allows.
* fishtest ``server/fishtest/stats/LLRcalc.py`` (Michel Van den Bergh): the LLR definitions
  (``LLR_logistic``, ``LLR_normalized``), ``nelo_divided_by_nt = 800/ln 10 = 347.4355855...``
  and Wald's bounds ``log(beta/(1-alpha))``, ``log((1-beta)/alpha)`` from ``stat_util.SPRT``.
* cutechess ``projects/lib/src/elo.cpp``: ``Elo::diff = -400 log10(1/mu - 1)`` and
  ``Elo::LOS = 50 (1 + erf((W-L)/sqrt(2(W+L))))`` (percent).
"""

from __future__ import annotations

import math

import pytest

from uci_engine.tools import stats


def penta(ll, ld, wl, dd, wd, ww):
    """fastchess Stats(ll, ld, wl, dd, wd, ww) -> fishtest [LL, LD, WL+DD, WD, WW]."""
    return [ll, ld, wl + dd, wd, ww]


def tri(w, l, d):  # noqa: E741 - fastchess Stats(wins, losses, draws) -> [L, D, W]
    return [l, d, w]


# ---------------------------------------------------------------- Elo, error bars, LOS

@pytest.mark.parametrize("w,l,d,nelo,nerr,los", [
    (76, 89, 123, -20.76, 40.13, 0.1553),     # fastchess "EloWDL 1"
    (136, 96, 111, 49.77, 36.77, 0.9960),     # fastchess "EloWDL 2"
    (34, 356, 0, -508.44, 34.48, None),       # fastchess "EloWDL 3"
])
def test_normalized_elo_trinomial_fastchess(w, l, d, nelo, nerr, los):  # noqa: E741
    e = stats.elo_trinomial(w, l, d)
    assert e.nelo == pytest.approx(nelo, abs=0.01)
    assert e.nelo_error == pytest.approx(nerr, abs=0.01)
    if los is not None:
        assert e.los == pytest.approx(los, abs=0.0001)


def test_logistic_elo_trinomial_fastchess():
    e = stats.elo_trinomial(136, 96, 111)       # fastchess "EloWDL 2"
    assert e.elo == pytest.approx(40.70, abs=0.01)
    assert e.error == pytest.approx(30.43, abs=0.01)
    # fastchess (older src/elo tests): Elo(859, 772, 1329) and Elo(1164, 1267, 3049)
    e = stats.elo_trinomial(859, 772, 1329)
    assert (e.elo, e.error) == (pytest.approx(10.21, abs=0.01), pytest.approx(9.28, rel=0.01))
    e = stats.elo_trinomial(1164, 1267, 3049)
    assert (e.elo, e.error) == (pytest.approx(-6.53, abs=0.01), pytest.approx(6.12, rel=0.01))
    e = stats.elo_trinomial(0, 36, 14)
    assert (e.elo, e.error) == (pytest.approx(-315.34, abs=0.01), pytest.approx(95.43, rel=0.01))


@pytest.mark.parametrize("counts,elo,err,nelo,nerr,los", [
    (penta(34, 54, 31, 32, 64, 75), 55.58, 27.65, 57.94, 28.28, 1.0000),        # "EloPentanomial 1"
    (penta(332, 433, 457, 41, 333, 334), -8.64, 10.33, -9.17, 10.96, 0.0505),  # "EloPentanomial 2"
    (penta(7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, -19.01, 2.65, None),  # "EloPentanomial 3"
])
def test_elo_pentanomial_fastchess(counts, elo, err, nelo, nerr, los):
    e = stats.elo_pentanomial(counts)
    assert e.elo == pytest.approx(elo, abs=0.01)
    assert e.error == pytest.approx(err, abs=0.01)
    assert e.nelo == pytest.approx(nelo, abs=0.01)
    assert e.nelo_error == pytest.approx(nerr, abs=0.01)
    if los is not None:
        assert e.los == pytest.approx(los, abs=0.0001)


def test_score_elo_roundtrip_and_cutechess_formulas():
    assert stats.score_to_elo(0.5) == 0.0
    assert stats.score_to_elo(0.75) == pytest.approx(190.85, abs=0.01)   # -400 log10(1/3)
    assert stats.elo_to_score(stats.score_to_elo(0.3)) == pytest.approx(0.3)
    assert stats.score_to_elo(1.0) == math.inf
    assert stats.los_cutechess(10, 10) == 50.0
    assert stats.los_cutechess(0, 0) == 50.0
    # 50 (1 + erf(40 / sqrt(464)))
    assert stats.los_cutechess(136, 96) == pytest.approx(50 * (1 + math.erf(40 / math.sqrt(464))))
    assert stats.los_cutechess(136, 96) + stats.los_cutechess(96, 136) == pytest.approx(100.0)


# ---------------------------------------------------------------- SPRT

def test_sprt_bounds_fishtest():
    lo, hi = stats.sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95))
    assert hi == pytest.approx(math.log(0.95 / 0.05))
    assert (round(lo, 2), round(hi, 2)) == (-2.94, 2.94)
    assert stats.NELO_DIVIDED_BY_NT == pytest.approx(347.43558552260146)
    with pytest.raises(ValueError):
        stats.sprt_bounds(0.6, 0.5)


@pytest.mark.parametrize("results,elo0,elo1,model,expected", [
    # fastchess app/tests/sprt_test.cpp
    (tri(36433, 36027, 68692), 0, 2, "normalized", 0.92),             # normalized trinomial 1
    (tri(10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),      # normalized trinomial 2
    (tri(21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),          # logistic trinomial 1
    (tri(57433, 57030, 106593), 0, 2, "logistic", -2.59),             # logistic trinomial 2
    (penta(365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),        # normalized pentanomial 1
    (penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),   # normalized pentanomial 2
    (penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),     # logistic pentanomial 1
    (penta(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),         # logistic pentanomial 2
])
def test_llr_fastchess_worked_examples(results, elo0, elo1, model, expected):
    assert stats.sprt_llr(elo0, elo1, results, model) == pytest.approx(expected, abs=0.01)


def test_llr_properties():
    # no games: LLR 0 and "continue"
    st = stats.sprt_status(0, 5, 0.05, 0.05, [0, 0, 0, 0, 0])
    assert st.llr == 0.0 and st.decision is None
    # symmetric data (mean score exactly 1/2) favours H0: elo = 0 over H1: elo = 5
    sym = [100, 400, 1000, 400, 100]
    assert stats.llr_normalized(0, 5, sym) < 0
    assert stats.llr_logistic(0, 5, sym) < 0
    # swapping the hypotheses flips the sign
    data = [120, 380, 1000, 420, 110]
    assert stats.llr_logistic(0, 5, data) == pytest.approx(-stats.llr_logistic(5, 0, data))
    assert stats.llr_normalized(0, 5, data) == pytest.approx(-stats.llr_normalized(5, 0, data))
    # a crushing result accepts H1, a crushed one H0
    assert stats.sprt_status(0, 5, 0.05, 0.05, [1, 10, 100, 300, 500]).decision == "H1"
    assert stats.sprt_status(0, 5, 0.05, 0.05, [500, 300, 100, 10, 1]).decision == "H0"
    with pytest.raises(ValueError):
        stats.sprt_llr(0, 5, [1, 2, 3], "bayes")


def test_pentanomial_from_pairs():
    assert stats.pentanomial_from_pairs([0, 0.5, 1, 1, 1.5, 2, 2]) == [1, 1, 2, 1, 2]
    with pytest.raises(ValueError):
        stats.pentanomial_from_pairs([2.5])
