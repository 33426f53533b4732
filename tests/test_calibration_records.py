"""The UCI_Elo calibration and the WDL fit: their records match the shipped default net, the
node-law fit recovers known constants, scripts/calibrate_elo.py runs end to end against fake
engines, and UCI_ShowWDL's estimates of clearly won, drawn and lost positions are sensible."""
import json
import math
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from uci_engine import provenance, strength, strength_params, wdl_params
from uci_engine.nnue_file import DEFAULT_NET, USE_NNUE_DEFAULT
from uci_engine.tools import stats

from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
FAKES = ROOT / "tests" / "fake_engines"


def _expected_evaluation():
    """(evaluation, net, sha256) the engine plays with by default."""
    if USE_NNUE_DEFAULT:
        return "nnue", DEFAULT_NET, provenance.net_sha256(DEFAULT_NET)
    return "hand-crafted", None, None


def _recorded_evaluation(record):
    return record["evaluation"], record["net"], record["net_sha256"]


def test_default_net_digest_is_known():
    evaluation, net, digest = _expected_evaluation()
    if evaluation == "nnue":
        assert digest is not None and len(digest) == 64, f"{net} not found"


def test_uci_elo_calibration_is_for_the_default_net():
    assert _recorded_evaluation(strength_params.RECORD) == _expected_evaluation(), (
        "uci_engine/strength_params.py was calibrated with another evaluation than the "
        "default: run scripts/calibrate_elo.py")


def test_wdl_model_is_fitted_for_the_default_net():
    assert _recorded_evaluation(wdl_params.RECORD) == _expected_evaluation(), (
        "uci_engine/wdl_params.py was fitted on another evaluation's scores than the default: "
        "run uci-engine datagen with the default net and scripts/fit_wdl.py")
    assert wdl_params.RECORD["positions"] > 0


@pytest.mark.parametrize("module", [strength_params, wdl_params], ids=["uci_elo", "wdl"])
def test_records_say_how_they_were_made(module):
    for field in ("evaluation", "net", "net_sha256", "date", "command"):
        assert field in module.RECORD
    assert "do not edit" in module.__doc__


def test_uci_elo_record_has_its_games():
    assert strength_params.RECORD["games_per_level"]
    assert strength_params.ELO_MIN < strength_params.ELO_MAX


def test_node_law_fit_recovers_known_constants():
    """Synthetic matches from a known law (anchor 1900 at 1000 nodes, 120 Elo per doubling):
    each match's pentanomial is drawn from the score that law predicts, its Elo taken as the
    script takes it; the weighted fit finds the law within its error, and the supported range
    lies inside the data."""
    cal = load_script("calibrate_elo")
    anchor, per_doubling = 1900.0, 120.0
    rng = np.random.default_rng(11)
    nodes, elos, errors = [], [], []
    for sf_elo, n in ((1320, 64), (1600, 250), (1900, 1000), (2200, 4000), (2500, 16000),
                      (2800, 64000), (3190, 512000)):
        true = anchor + per_doubling * math.log2(n / cal.NODES_AT_ANCHOR)
        p = stats.elo_to_score(true - sf_elo)
        # a pair is two games with a 30 % draw rate: results 0, 0.5, 1 per game
        games = rng.choice([0.0, 0.5, 1.0], size=(200, 2),
                           p=[(1 - p) - 0.15, 0.3, p - 0.15])
        penta = stats.pentanomial_from_pairs(games.sum(axis=1).tolist())
        diff, err, smoothed = cal.match_elo(penta)
        assert not smoothed
        nodes.append(n)
        elos.append(sf_elo + diff)
        errors.append(err)
    a, k, cov = cal.fit_node_law(nodes, elos, errors)
    assert abs(a - anchor) < 3 * math.sqrt(cov[0, 0]) + 1
    assert abs(k - per_doubling) < 3 * math.sqrt(cov[1, 1]) + 1
    assert a == pytest.approx(anchor, abs=40) and k == pytest.approx(per_doubling, abs=10)
    lo, hi = cal.supported_range(a, k, cov, elos)
    assert min(elos) <= lo < hi <= max(elos)
    assert lo % cal.ELO_ROUNDING == 0 and hi % cal.ELO_ROUNDING == 0
    # a law that does not rise with nodes supports nothing
    assert cal.supported_range(a, -1.0, cov, elos) is None


def test_noise_cost_fit_recovers_a_known_cost():
    """Synthetic verify matches of noisy levels under a true cost of 1.5 Elo per centipawn,
    played with compensations of 0 and 1 Elo per centipawn: each reads ``level - (1.5 -
    played) * noise`` plus its sampling error; the fit finds 1.5 within its error whatever the
    compensation the matches were played with."""
    cal = load_script("calibrate_elo")
    true, rng = 1.5, np.random.default_rng(5)
    levels, measured, errors, noise, played = [], [], [], [], []
    for level, width in ((1400, 50.0), (1500, 40.0), (1600, 30.0), (1700, 20.0), (1800, 10.0)):
        for c_played in (0.0, 1.0):
            sf_elo, reading = level, level - (true - c_played) * width
            p = stats.elo_to_score(reading - sf_elo)
            games = rng.choice([0.0, 0.5, 1.0], size=(300, 2),
                               p=[(1 - p) - 0.1, 0.2, p - 0.1])
            diff, err, _ = cal.match_elo(stats.pentanomial_from_pairs(games.sum(axis=1).tolist()))
            levels.append(level)
            measured.append(sf_elo + diff)
            errors.append(err)
            noise.append(width)
            played.append(c_played)
    c, se = cal.fit_noise_cost(levels, measured, errors, noise, played)
    assert 0 < se < 0.5 and abs(c - true) < 3 * se
    # read as if nothing had been compensated, the same matches say less
    c0, _ = cal.fit_noise_cost(levels, measured, errors, noise, [0.0] * len(noise))
    assert c0 < c - 0.3
    with pytest.raises(ValueError):
        cal.fit_noise_cost([2100], [2050], [80], [0.0], [0.0])


def test_degenerate_match_is_smoothed():
    cal = load_script("calibrate_elo")
    diff, err, smoothed = cal.match_elo([0, 0, 0, 0, 20])        # 40-0
    assert smoothed and diff > 0 and math.isfinite(err) and err > 0


def test_calibrate_elo_end_to_end_with_fake_engines(tmp_path, capsys, monkeypatch):
    """Small mode against a fake pair: a fake 'ours' whose expected score follows a known node
    law (1700 at 1000 nodes, 100 per doubling) and a random mover as 'Stockfish'. It plays,
    appends every match, writes an importable constants module with its record, skips the
    played matches on a rerun, and verifies levels."""
    cal = load_script("calibrate_elo")
    results, out = tmp_path / "res.jsonl", tmp_path / "strength_params.py"
    ours = f"{shlex.quote(sys.executable)} {FAKES / 'node_strength.py'} 1700 100"
    sf = f"{shlex.quote(sys.executable)} {FAKES / 'random_mover.py'}"
    argv = ["--small", "--plan", "1600:100,1800:400,2000:1600", "--games", "20",
            "--concurrency", "1", "--book", "", "--ours", ours, "--stockfish", sf,
            "--runner-args", "-resign movecount=1 score=900",
            "--results", str(results), "--out", str(out)]
    assert cal.main(argv) == 0
    lines = results.read_text().splitlines()
    assert len(lines) == 3
    ns = {}
    exec(out.read_text(), ns)
    rec = ns["RECORD"]
    assert "generated by scripts/calibrate_elo.py" in ns["__doc__"]
    assert rec["net_sha256"] == _expected_evaluation()[2]
    assert rec["games_per_level"] == {"1600:100": 20, "1800:400": 20, "2000:1600": 20}
    assert [m["nodes"] for m in rec["matches"]] == [100, 400, 1600]
    assert all(m["faults"] == {} for m in rec["matches"])
    assert 0 < ns["ELO_PER_NODE_DOUBLING"] and ns["ELO_MIN"] < ns["ELO_MAX"]
    assert rec["fit"]["supported"] == [ns["ELO_MIN"], ns["ELO_MAX"]]
    capsys.readouterr()
    # a rerun plays nothing new and fits the same matches
    assert cal.main(argv) == 0
    assert "skip (already played)" in capsys.readouterr().out
    assert results.read_text().splitlines() == lines
    # --dry-run lists the plan and touches nothing
    before = out.read_text()
    assert cal.main(argv + ["--dry-run"]) == 0
    assert "done" in capsys.readouterr().out and out.read_text() == before
    # --verify: the fake 'ours' at UCI_Elo levels (it ignores them and plays at 1000 nodes)
    assert cal.main(argv + ["--verify", "--levels", "1500,1700"]) == 0
    text = capsys.readouterr().out
    assert "UCI_Elo 1500:" in text and "of 2 levels within their 95 % interval" in text
    assert len(results.read_text().splitlines()) == 5
    # --seed plays a level again on other openings: a new match with that -srand, recorded
    # with its seed
    real, seen = cal.play_match, []
    monkeypatch.setattr(cal, "play_match", lambda a, **kw: seen.append(a) or real(a, **kw))
    assert cal.main(argv + ["--verify", "--levels", "1700", "--seed", "77"]) == 0
    assert len(seen) == 1 and seen[0][seen[0].index("-srand") + 1] == "77"
    text = capsys.readouterr().out
    assert "skip" not in text and text.count("UCI_Elo 1700:") == 2
    last = json.loads(results.read_text().splitlines()[-1])
    assert len(results.read_text().splitlines()) == 6 and last["seed"] == 77
    # a verify match records the law, the noise compensation and the noise width it was
    # played with
    assert last["law"] == [strength.NODES_AT_ANCHOR, strength.ELO_ANCHOR,
                           strength.ELO_PER_NODE_DOUBLING]
    assert last["noise_elo_per_cp"] == strength.NOISE_ELO_PER_CP
    assert last["noise_cp"] == round(strength.noise_for(1700), 2)
    # without --fit-noise the noise cost is carried over; --fit-noise fits it on the verify
    # matches of the noisy levels under the written law (refused when there are none)
    ns = {}
    exec(out.read_text(), ns)
    assert ns["RECORD"]["noise"] == strength_params.RECORD["noise"]
    assert ns["NOISE_ELO_PER_CP"] == strength.NOISE_ELO_PER_CP
    written_law = [cal.NODES_AT_ANCHOR, ns["ELO_ANCHOR"], ns["ELO_PER_NODE_DOUBLING"]]
    played = [json.loads(x) for x in results.read_text().splitlines()]
    assert not [r for r in played if r["mode"] == "verify" and r["law"] == written_law]
    assert cal.main(argv + ["--fit-only", "--fit-noise"]) == 1       # the shipped law's matches
    assert "not fitted" in capsys.readouterr().out
    # two verify matches of noisy levels under the written law, played with 0.5 Elo per
    # centipawn compensated: (level - measured + 0.5 * noise) / noise is 2.0 and 1.83, equal
    # weights, so the fit through the origin is (40 * 80 + 30 * 55) / (40^2 + 30^2) = 1.94
    for level, width, measured in ((1500, 40.0, 1440.0), (1600, 30.0, 1560.0)):
        cal.append_result(str(results), dict(
            last, sf_elo=level, uci_elo=level, law=written_law, noise_elo_per_cp=0.5,
            noise_cp=width,
            elo=measured, elo_diff=measured - level, elo_error=60.0, seed=78))
    assert cal.main(argv + ["--fit-only", "--fit-noise"]) == 0
    assert "noise cost: 1.94" in capsys.readouterr().out
    ns = {}
    exec(out.read_text(), ns)
    assert ns["NOISE_ELO_PER_CP"] == 1.94
    assert ns["RECORD"]["noise"]["fitted"] is True
    assert ns["RECORD"]["noise"]["levels"] == [1500, 1600]
    assert ns["RECORD"]["noise"]["law"] == written_law
    assert [v["uci_elo"] for v in ns["RECORD"]["verify"]] == [1500, 1600]
    assert [v["noise_elo_per_cp"] for v in ns["RECORD"]["verify"]] == [0.5, 0.5]


def test_calibrate_elo_help_states_the_plan(capsys):
    cal = load_script("calibrate_elo")
    with pytest.raises(SystemExit):
        cal.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "hours on 2 cores" in text and "tc=10+0.1" in text


# Positions for the WDL test, the side to move's view: Black has no queen (won for White),
# White has no queen (lost for White), bishops of opposite colours and no pawns (dead draw).
QUEEN_UP = "r1b1kbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 4"
QUEEN_DOWN = "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1B1KBNR w KQkq - 0 4"
DEAD_DRAW = "8/5k2/8/2b5/8/4B3/5K2/8 w - - 0 1"
#: nodes of the short search that scores each position
WDL_SEARCH_NODES = 20_000


@pytest.mark.parametrize("fen,expect", [(QUEEN_UP, "win"), (DEAD_DRAW, "draw"),
                                        (QUEEN_DOWN, "loss")])
def test_wdl_of_won_drawn_and_lost_positions(fen, expect):
    """UCI_ShowWDL's numbers for a short search of the default engine."""
    from uci_engine.engine import Engine
    from uci_engine.timeman import Limits
    from uci_engine.wdl import wdl
    e = Engine(16)
    e.set_position(fen, [])
    infos = []
    e.search(Limits(nodes=WDL_SEARCH_NODES), on_info=infos.append)
    last = [i for i in infos if i.get("score") is not None][-1]
    w, d, l = wdl(last["score"], e.material(), last["mate"])
    if expect == "win":
        assert w > 900, (last["score"], w, d, l)
    elif expect == "loss":
        assert l > 900, (last["score"], w, d, l)
    else:
        assert d > max(w, l) and d > 500, (last["score"], w, d, l)


def test_a_match_cut_short_is_not_recorded(tmp_path, monkeypatch):
    """Ctrl-C ends the runner's match early (``stopped``): the part played is not a result, so
    nothing is appended, no constants are written, and the exit status says so (130)."""
    cal = load_script("calibrate_elo")
    calls = []

    def cut_short(argv, log):
        calls.append(argv)
        return {"wins": 1, "losses": 5, "draws": 0, "penta": [2, 1, 0, 0, 0], "faults": {},
                "stopped": "interrupted"}
    monkeypatch.setattr(cal, "play_match", cut_short)
    results, out = tmp_path / "res.jsonl", tmp_path / "strength_params.py"
    sf = f"{shlex.quote(sys.executable)} {FAKES / 'random_mover.py'}"
    argv = ["--small", "--plan", "1600:100,1800:400", "--games", "20", "--concurrency", "1",
            "--book", "", "--ours", sf, "--stockfish", sf, "--results", str(results),
            "--out", str(out)]
    assert cal.main(argv) == 130
    assert len(calls) == 1                       # the run ends at the match cut short
    assert not results.exists() or results.read_text() == ""
    assert not out.exists()
