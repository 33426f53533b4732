"""fishtest's SPSA (uci_engine/tools/spsa.py) and its driver scripts/tune_search.py: the
schedules, a known optimum found on a simulated match (steps one after another, and in flight
side by side finishing out of order), resuming that replays the same steps, and the script end
to end with fake engines (stopped after one step, then resumed, one worker and two)."""
import json
import math
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from uci_engine import params as SP
from uci_engine.tools import spsa

from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
FAKES = ROOT / "tests" / "fake_engines"


def _rows():
    return [spsa.Row("X", 20, 0, 100, 4, 0.002), spsa.Row("Y", 70, 0, 100, 4, 0.002)]


#: the simulated engine's optimum and Elo loss per squared unit away from it
OPTIMUM = {"X": 50, "Y": 40}
ELO_PER_UNIT2 = 0.5


def _elo(values):
    return -ELO_PER_UNIT2 * sum((values[n] - OPTIMUM[n]) ** 2 for n in values)


def _simulated_pairs(step, pairs, rng):
    """wins - losses of the plus side over ``pairs`` game pairs, games drawn from the
    logistic expected score of the Elo difference (no draws)."""
    diff = _elo(step.plus) - _elo(step.minus)
    p = 1 / (1 + 10 ** (-diff / 400))
    wins = rng.binomial(2 * pairs, p)
    return int(wins - (2 * pairs - wins))


def _run(run, rng, steps=None, pairs=2):
    n = 0
    while not run.done and (steps is None or n < steps):
        step = run.issue(pairs)
        run.update(step, _simulated_pairs(step, step.pairs, rng))
        n += 1
    return run


def test_schedules_are_fishtests():
    """c_k ends at c_end on the last pair; a_k / c_k^2 is r_end there (the learning rate)."""
    run = spsa.Spsa(_rows(), num_games=2000)
    run.issued = run.num_iter - 1
    step = run.issue()
    assert step.k == run.num_iter - 1 and step.pairs == 1
    assert step.c == pytest.approx([4, 4])
    assert step.a / step.c ** 2 == pytest.approx([0.002, 0.002])
    assert run.issue() is None                             # every pair of the run issued
    run = spsa.Spsa(_rows(), num_games=2000)
    first = run.issue()
    assert first.c == pytest.approx(4 * 1000 ** spsa.GAMMA)
    assert set(first.flip.tolist()) <= {-1, 1}
    # the plus and minus engines differ by 2 c_k along the flips, rounded
    for i, r in enumerate(run.rows):
        assert first.plus[r.name] - first.minus[r.name] == pytest.approx(
            2 * first.c[i] * first.flip[i], abs=1)


def test_spsa_finds_a_known_optimum():
    """20,000 simulated games (issue 31's budget) from 30 units away end within 2 of it."""
    run = _run(spsa.Spsa(_rows(), num_games=20000, seed=3), np.random.default_rng(5))
    for name, t in zip(["X", "Y"], run.theta):
        assert abs(t - OPTIMUM[name]) < 2, run.theta


def test_values_are_rounded_and_clipped_to_the_range():
    run = spsa.Spsa([spsa.Row("X", 99, 0, 100, 30)], num_games=10)
    step = run.issue()
    assert set(step.plus.values()) | set(step.minus.values()) <= set(range(0, 101))
    assert 100 in (step.plus["X"], step.minus["X"])        # 99 + 30 clipped


def test_steps_in_flight_side_by_side_find_the_optimum():
    """Eight steps in flight at once, finishing in random order (fishtest's workers): each is
    issued at its own pair index with theta's values of its time, and the run still ends
    within 2 of the optimum after 20,000 simulated games."""
    run = spsa.Spsa(_rows(), num_games=20000, seed=3)
    rng = np.random.default_rng(5)
    flight = [run.issue(2) for _ in range(8)]
    assert [s.k for s in flight] == list(range(0, 16, 2))
    while flight:
        step = flight.pop(int(rng.integers(len(flight))))
        run.update(step, _simulated_pairs(step, step.pairs, rng))
        nxt = run.issue(2)
        if nxt is not None:
            flight.append(nxt)
    assert run.done and run.k == run.num_iter and run.issued == run.num_iter
    for name, t in zip(["X", "Y"], run.theta):
        assert abs(t - OPTIMUM[name]) < 2, run.theta


def test_resume_replays_the_same_steps():
    """A run saved to JSON after 7 steps and restored ends where an uninterrupted run does."""
    whole = _run(spsa.Spsa(_rows(), num_games=60, seed=9), np.random.default_rng(1))
    rng = np.random.default_rng(1)
    first = _run(spsa.Spsa(_rows(), num_games=60, seed=9), rng, steps=7)
    saved = json.loads(json.dumps(first.state()))
    again = spsa.Spsa(_rows(), num_games=60, seed=9)
    again.restore(saved)
    assert again.k == 14 and again.issue().flip.tolist() == first.issue().flip.tolist()
    again = spsa.Spsa.from_state(saved)           # rebuilt from the state alone
    assert again.config() == first.config() and again.k == 14
    _run(again, rng)
    assert again.theta.tolist() == whole.theta.tolist()
    with pytest.raises(KeyError):
        spsa.Spsa.from_state({"k": 0})


def test_steps_in_flight_are_saved_and_played_first_after_a_restore():
    """Steps 0 and 2 in flight, step 4 reported: the saved state holds 0 and 2, and a restored
    run issues them first with their own pair counts and flips, then the next free index."""
    run = spsa.Spsa(_rows(), num_games=60, seed=9)
    a, b, c = run.issue(2), run.issue(2), run.issue(3)
    assert (a.k, b.k, c.k, c.pairs) == (0, 2, 4, 3)
    run.update(c, 1)
    saved = json.loads(json.dumps(run.state()))
    assert saved["k"] == 3 and saved["issued"] == 7 and saved["pending"] == [[0, 2], [2, 2]]
    again = spsa.Spsa(_rows(), num_games=60, seed=9)
    again.restore(saved)
    assert again.theta.tolist() == run.theta.tolist()
    r1, r2, r3 = again.issue(5), again.issue(5), again.issue(5)
    assert [(s.k, s.pairs) for s in (r1, r2, r3)] == [(0, 2), (2, 2), (7, 5)]
    assert r1.flip.tolist() == a.flip.tolist() and r2.flip.tolist() == b.flip.tolist()
    # a step given back unplayed comes next again, the same step
    again.abandon(r3)
    r4 = again.issue(1)
    assert (r4.k, r4.pairs, r4.flip.tolist()) == (7, 5, r3.flip.tolist())


def test_bad_runs_and_stale_steps_are_refused():
    run = spsa.Spsa(_rows(), num_games=60, seed=9)
    other = spsa.Spsa(_rows(), num_games=60, seed=10)
    with pytest.raises(ValueError, match="another run"):
        run.restore(other.state())
    step = run.issue(2)
    run.update(step, 1)
    with pytest.raises(ValueError, match="pair 0 is not in flight"):
        run.update(step, 1)                                 # reported twice
    with pytest.raises(ValueError, match="not in flight"):
        run.abandon(step)
    with pytest.raises(ValueError, match="at least one"):
        run.issue(0)
    timed = spsa.Spsa(_rows(), num_games=60, seed=9, extra={"tc": "5+0.05"})
    with pytest.raises(ValueError, match="time control"):
        spsa.Spsa(_rows(), num_games=60, seed=9, extra={"tc": "2+0.02"}).restore(timed.state())
    with pytest.raises(ValueError, match="outside"):
        spsa.Spsa([spsa.Row("X", 200, 0, 100, 4)], num_games=10)
    with pytest.raises(ValueError, match="game pair"):
        spsa.Spsa(_rows(), num_games=1)


def test_tune_search_runs_resumes_and_prints_the_sprt(tmp_path, capsys, monkeypatch):
    """The script against fake engines (random movers, draws at -maxmoves): stopped after one
    step, the same command resumes at the next pair and finishes the run; the log has one line
    per step with the values played; the SPRT command names only moved parameters."""
    tune = load_script("tune_search")
    engine = f"{shlex.quote(sys.executable)} {FAKES / 'random_mover.py'}"
    state, log = tmp_path / "state.json", tmp_path / "log.jsonl"
    argv = ["--games", "8", "--pairs", "2", "--tc", "1+0.01", "--maxmoves", "6",
            "--concurrency", "1", "--params", "RFP_MARGIN,NMP_EVAL_DIV", "--engine", engine,
            "--book", "", "--state", str(state), "--log", str(log)]
    assert tune.main(argv + ["--steps", "1"]) == 0
    assert json.loads(state.read_text())["k"] == 2
    assert tune.main(argv) == 0
    steps = [json.loads(line) for line in log.read_text().splitlines()]
    assert [s["k"] for s in steps] == [0, 2]
    assert json.loads(state.read_text())["k"] == 4
    for s in steps:
        assert s["result"] == 0 and s["faults"] == {}        # every game a -maxmoves draw
        assert set(s["plus"]) == {"RFP_MARGIN", "NMP_EVAL_DIV"}
        for name, flip in zip(["RFP_MARGIN", "NMP_EVAL_DIV"], s["flip"]):
            assert (s["plus"][name] - s["minus"][name]) * flip > 0
    out = capsys.readouterr().out
    assert "pairs 4 of 4 (8 games)" in out and "uci-engine-match" in out
    # draws only: theta stays at the defaults, so the SPRT sets no option
    sprt = out.split("SPRT against the untuned engine:")[1]
    assert "option.RFP_MARGIN" not in sprt
    # another run's state is refused
    assert tune.main(argv[:-4] + ["--seed", "7", "--state", str(state), "--log", str(log)]) == 2
    # a slice's figures: a step logged twice (replayed after a stop) counts once
    capsys.readouterr()
    with open(log, "a", encoding="utf-8") as f:
        f.write(log.read_text().splitlines()[1] + "\n")
    assert tune.main(argv + ["--show", "--since", "0"]) == 0
    out = capsys.readouterr().out
    assert ("pairs 0-3 (2 steps, 8 games); plus against minus [0, 0, 4, 0, 0]; faults plus "
            "none, minus none") in out
    assert "theta from the start, in c_end: " in out
    assert tune.main(argv + ["--show", "--since", "2"]) == 0
    assert "pairs 2-3 (1 steps, 4 games)" in capsys.readouterr().out
    log.write_text("not json\n")
    assert tune.main(argv + ["--show", "--since", "0"]) == 2
    # --options: only the values that moved from the run's start, as the runner's arguments
    capsys.readouterr()
    assert tune.main(argv + ["--options"]) == 0
    assert capsys.readouterr().out == "\n"                   # draws only: nothing moved
    saved = json.loads(state.read_text())
    saved["theta"] = [saved["theta"][0] + 7.4, saved["theta"][1]]   # RFP_MARGIN, NMP_EVAL_DIV
    state.write_text(json.dumps(saved))
    assert tune.main(argv + ["--options"]) == 0
    rfp = tune.SP.TABLE[tune.SP.BY_NAME["RFP_MARGIN"]].default + 7
    assert capsys.readouterr().out == f"option.RFP_MARGIN={rfp}\n"
    # once the tuned values become the table's defaults, the run still reads from its state
    # alone, and its options stay relative to the start values it saved
    monkeypatch.setattr(tune.SP, "TABLE", [p._replace(default=p.default + 1)
                                           if p.name == "NMP_EVAL_DIV" else p
                                           for p in tune.SP.TABLE])
    assert tune.main(argv + ["--options"]) == 0
    assert capsys.readouterr().out == f"option.RFP_MARGIN={rfp}\n"
    assert tune.main(argv + ["--show"]) == 0
    assert f"RFP_MARGIN: {rfp - 7} -> " in capsys.readouterr().out
    assert tune.main(argv + ["--steps", "1"]) == 2       # but playing on needs the same rows
    state.write_text("{}")
    assert tune.main(argv + ["--options"]) == 2
    assert "is not an SPSA state" in capsys.readouterr().err


def test_tune_search_plays_steps_side_by_side(tmp_path):
    """Two workers, one pair a step: every pair index is played once, each step's log line
    has its own flips, and the state ends with nothing in flight. An engine that cannot start
    stops the run (exit 1) with its step saved as pending, which the next command plays first."""
    tune = load_script("tune_search")
    engine = f"{shlex.quote(sys.executable)} {FAKES / 'random_mover.py'}"
    state, log = tmp_path / "state.json", tmp_path / "log.jsonl"
    common = ["--games", "8", "--pairs", "1", "--tc", "1+0.01", "--maxmoves", "6",
              "--params", "RFP_MARGIN", "--book", "", "--state", str(state), "--log", str(log)]
    dead = f"{shlex.quote(sys.executable)} -c 'raise SystemExit(3)'"
    for bad in (str(tmp_path / "no_such_engine"), dead):
        assert tune.main(common + ["--engine", bad, "--concurrency", "1"]) == 1
        saved = json.loads(state.read_text())
        assert saved["k"] == 0 and saved["pending"] == [[0, 1]] and not log.exists()
    assert tune.main(common + ["--engine", engine, "--concurrency", "2"]) == 0
    steps = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(s["k"] for s in steps) == [0, 1, 2, 3]
    assert all(s["pairs"] == 1 and s["faults"] == {} for s in steps)
    run = spsa.Spsa(tune.rows_for(["RFP_MARGIN"], spsa.R_END), 8, seed=1)
    for s in steps:
        assert s["flip"] == run._step(s["k"], 1).flip.tolist()
    saved = json.loads(state.read_text())
    assert saved["k"] == 4 and saved["issued"] == 4 and saved["pending"] == []
    assert saved["config"]["extra"] == {"tc": "1+0.01"}


def test_tune_search_rows_are_the_params_table():
    tune = load_script("tune_search")
    rows = tune.rows_for([], spsa.R_END)
    assert [r.name for r in rows] == [p.name for p in SP.TABLE]
    assert all(r.c_end == p.step and r.start == p.default for r, p in zip(rows, SP.TABLE))
    with pytest.raises(ValueError, match="unknown"):
        tune.rows_for(["NO_SUCH"], spsa.R_END)
    assert math.isclose(rows[0].r_end, 0.002)


def test_tune_search_logs_both_sides_faults_and_writes_the_pgn(tmp_path):
    """An engine that lets its clock run out on its fourth move: in each pair the plus side
    flags as White and the minus side as White in the return game, so the log counts one
    time loss on each side, and ``--pgnout`` holds both games with their clock comments."""
    tune = load_script("tune_search")
    engine = f"{shlex.quote(sys.executable)} {FAKES / 'flagger.py'} 3"
    state, log, pgn = tmp_path / "state.json", tmp_path / "log.jsonl", tmp_path / "g.pgn"
    argv = ["--games", "2", "--pairs", "1", "--tc", "1+0.01", "--maxmoves", "20",
            "--concurrency", "1", "--params", "RFP_MARGIN", "--engine", engine, "--book", "",
            "--state", str(state), "--log", str(log), "--pgnout", str(pgn)]
    assert tune.main(argv) == 0
    (step,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert step["faults"] == {"timeout": 1} and step["minus_faults"] == {"timeout": 1}
    assert step["result"] == 0 and step["penta"] == [0, 0, 1, 0, 0]
    text = pgn.read_text()
    assert text.count("[Event ") == 2 and text.count('[Termination "time forfeit"]') == 2
    assert "s}" in text                                  # each move's clock comment


def test_a_state_in_play_is_refused_to_a_second_run(tmp_path, capsys):
    """Two runs on one state would overwrite each other's steps: while another process holds
    the state's lock, the script refuses to play it (exit 2) and leaves it untouched; --show
    still reads it; once the lock is released the same command plays."""
    import subprocess
    tune = load_script("tune_search")
    state, log = tmp_path / "state.json", tmp_path / "log.jsonl"
    engine = f"{shlex.quote(sys.executable)} {FAKES / 'random_mover.py'}"
    argv = ["--games", "2", "--pairs", "1", "--tc", "1+0.01", "--maxmoves", "4",
            "--concurrency", "1", "--params", "RFP_MARGIN", "--engine", engine, "--book", "",
            "--state", str(state), "--log", str(log)]
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, runpy; m = runpy.run_path(sys.argv[1]); "
         "lock = m['lock_state'](sys.argv[2]); print('locked', flush=True); sys.stdin.read()",
         str(Path(tune.__file__)), str(state)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert tune.main(argv) == 2
        assert "another tune_search run" in capsys.readouterr().err
        assert not state.exists() and not log.exists()
        assert tune.main(argv + ["--show"]) == 0
    finally:
        holder.communicate("")
    assert tune.main(argv) == 0 and json.loads(state.read_text())["k"] == 1
