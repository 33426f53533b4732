"""scripts/time_use.py replays an engine's clock from a match PGN: figures checked on games
whose move times are known."""

import chess
import chess.pgn
import pytest

from conftest import load_script


def _game(white, black, times, tc="10+0.1", result="*", termination=None):
    """A game of knight shuffles whose i-th ply took ``times[i]`` seconds."""
    g = chess.pgn.Game()
    g.headers.update(White=white, Black=black, TimeControl=tc, Result=result)
    if termination:
        g.headers["Termination"] = termination
    node = g
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i, t in enumerate(times):
        node = node.add_variation(chess.Move.from_uci(shuffle[i % 4]))
        node.comment = f"+0.10/{i + 1} {t}s"
    return str(g)


def test_clock_replay_figures(tmp_path):
    tu = load_script("time_use")
    # ours is White in game 1 (plies 0, 2, 4: 1.0, 2.0, 3.0 s) and Black in game 2 (0.5 s each)
    pgn = tmp_path / "m.pgn"
    pgn.write_text(_game("ours", "them", [1.0, 9.0, 2.0, 9.0, 3.0]) + "\n\n"
                   + _game("them", "ours", [0.1, 0.5, 0.1, 0.5], result="1-0",
                           termination="time forfeit") + "\n\n"
                   + _game("x", "y", [1.0]) + "\n\n"
                   + _game("ours", "z", [1.0], tc="inf") + "\n")
    s = tu.summarise([str(pgn)], "ours")
    assert s["games"] == 2 and s["moves"] == 5 and s["time_losses"] == 1
    assert s["phase_means"][(1, 10)] == pytest.approx((1 + 2 + 3 + 0.5 + 0.5) / 5)
    # each ply's comment gives depth ply + 1: ours played plies 0, 2, 4 and 1, 3
    assert s["phase_depths"][(1, 10)] == pytest.approx((1 + 3 + 5 + 2 + 4) / 5)
    assert s["phase_depths"][(11, 20)] is None
    # game 1 ends with 10 - 6 + 3 * 0.1 = 4.3 s, game 2 with 10 - 1 + 0.2 = 9.2 s
    assert s["left_at_end"] == pytest.approx((4.3 / 10 + 9.2 / 10) / 2)
    # the lowest clock: game 1 before its third move, 10 - 1 - 2 + 0.2 = 7.2 s
    assert s["lowest_clock"] == pytest.approx(7.2)
    assert s["largest_share"] == pytest.approx(3.0 / 7.2)
    assert tu.main([str(pgn), "--engine", "ours"]) == 0
    assert tu.main([str(pgn), "--engine", "nobody"]) == 1


def test_depth_of_a_comment():
    tu = load_script("time_use")
    assert tu.DEPTH_RE.match("+0.24/12 0.31s").group(1) == "12"
    assert tu.DEPTH_RE.match("-M3/14 0.004s").group(1) == "14"
    assert tu.DEPTH_RE.match("+M1/6 0.002s, White mates").group(1) == "6"
    assert tu.DEPTH_RE.match("book") is None and tu.DEPTH_RE.match("0.31s") is None


def test_time_controls():
    tu = load_script("time_use")
    assert tu.parse_tc("10+0.1") == (None, 10.0, 0.1)
    assert tu.parse_tc("40/60+0.6") == (40, 60.0, 0.6)
    assert tu.parse_tc("60") == (None, 60.0, 0.0)
    assert tu.parse_tc("inf") is None and tu.parse_tc("-") is None


def test_moves_over_the_hard_limit(tmp_path):
    tu = load_script("time_use")
    # at 5+0.05 the hard limit is 4 x the soft limit, (left + 29 * 50 - 32 * 10) / 30 ms, taken
    # at 5,010 ms (the slack): 818 ms; below 500 ms on the clock it is 0.8 of the increment
    # less 10 ms: 30 ms
    assert tu.hard_limit_s(5.0, (None, 5.0, 0.05), 1) == pytest.approx(0.818)
    assert tu.hard_limit_s(0.45, (None, 5.0, 0.05), 60) == pytest.approx(0.030)
    # within CLOCK_SLACK_MS of the low-clock line the larger (normal) limit counts
    assert tu.hard_limit_s(0.495, (None, 5.0, 0.05), 60) > 0.1
    pgn = tmp_path / "m.pgn"
    # ours (White) spends 0.1, 1.0 (182 ms over) and 0.2 s; Black's 3.0 s is not ours
    pgn.write_text(_game("ours", "them", [0.1, 3.0, 1.0, 0.1, 0.2], tc="5+0.05") + "\n\n"
                   + _game("them", "ours", [0.1, 0.5], tc="5+0.05", result="1-0",
                           termination="time forfeit") + "\n")
    found = tu.overruns([str(pgn)], "ours", 100)
    assert [(g, m) for g, m, *_ in found] == [(1, 2), (2, None)]
    assert found[0][2:4] == pytest.approx((4.95, 1.0))
    assert tu.overruns([str(pgn)], "ours", 200) == [(2, None, None, None, None)]
    assert tu.main([str(pgn), "--engine", "ours", "--overrun", "100"]) == 0
