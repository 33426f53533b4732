"""cutechess-cli argument parsing of the match runner (no engines are started here)."""

from __future__ import annotations

import pytest

from uci_engine.tools.args import ArgError, parse_args, parse_engine_spec
from uci_engine.tools.match import build_schedule
from uci_engine.tools.tc import Clock, TimeControl, TimeControlError, parse_st, parse_tc

TWO = ["-engine", "cmd=a", "-engine", "cmd=b"]


def P(*extra, engines=TWO, each=("-each", "tc=10+0.1")):
    return parse_args(list(engines) + list(each) + list(extra), check_files=False)


# ---------------------------------------------------------------- time controls

@pytest.mark.parametrize("text,moves,base,inc", [
    ("40/60", 40, 60000, 0),
    ("10+0.1", 0, 10000, 100),
    ("40/1:00+0.5", 40, 60000, 500),
    ("1:30", 0, 90000, 0),
    ("0.5+0.05", 0, 500, 50),
    ("40/4:00", 40, 240000, 0),
    ("1:00:00", 0, 3600000, 0),
    ("0+1", 0, 0, 1000),
])
def test_parse_tc_forms(text, moves, base, inc):
    tc = parse_tc(text)
    assert (tc.moves, tc.base_ms, tc.inc_ms, tc.infinite, tc.per_move_ms) == (moves, base, inc, False, 0)


def test_parse_tc_inf_and_st():
    assert parse_tc("inf").infinite
    assert parse_tc("st=1").per_move_ms == 1000
    assert parse_st("0.2").per_move_ms == 200
    assert parse_tc("inf").pgn_string() == "inf"
    assert parse_st("1").pgn_string() == "1/move"
    assert parse_tc("40/1:00+0.5").pgn_string() == "40/60+0.5"
    assert parse_tc("10+0.1").pgn_string() == "10+0.1"


@pytest.mark.parametrize("bad", ["", "abc", "40/", "/60", "0/60", "10+", "1:75", "0", "10+x",
                                 "-5", "1:2:3:4", "st=0", "st=x"])
def test_parse_tc_rejects(bad):
    with pytest.raises(TimeControlError):
        parse_tc(bad)


def test_clock_periods_increment_and_margin():
    c = Clock(TimeControl(moves=2, base_ms=1000), margin_ms=0)
    assert c.consume(400) and c.time_left_ms == 600 and c.moves_left == 1
    assert c.consume(500) and c.time_left_ms == 1100 and c.moves_left == 2  # new period
    c = Clock(parse_tc("1+0.1"))
    assert c.consume(999) and c.time_left_ms == pytest.approx(101)
    assert not Clock(parse_tc("1")).consume(1001)
    assert Clock(parse_tc("1"), margin_ms=50).consume(1040)
    assert Clock(parse_st("0.2")).think_budget_ms() == 200
    assert Clock(parse_st("0.2"), 100).consume(250)
    assert Clock(parse_tc("inf")).think_budget_ms() is None


def test_clock_lowest_time_left():
    c = Clock(parse_tc("1+0.5"))
    assert c.lowest_ms == 1000                                  # full clock before any move
    assert c.consume(300) and c.lowest_ms == 700                # before the increment
    assert c.consume(100) and c.lowest_ms == 700 and c.time_left_ms == 1600
    assert c.consume(1550) and c.lowest_ms == 50 and c.time_left_ms == 550
    c = Clock(parse_tc("1"), margin_ms=50)
    assert c.consume(1040) and c.lowest_ms == pytest.approx(-40)  # saved by the margin
    c = Clock(parse_st("0.2"))
    assert c.consume(50) and c.consume(150) and c.lowest_ms == 50
    c = Clock(parse_tc("inf"))
    assert c.consume(5000) and c.lowest_ms is None


def test_game_record_move_times_and_fault_loser():
    chess = pytest.importorskip("chess")
    from uci_engine.tools.game import GameRecord

    start = chess.Board()
    start.push_uci("e2e4")                                      # one book ply: Black moves first
    rec = GameRecord("W", "B", start.copy(), 1, times_ms={1: 10.0, 2: 20.0, 3: 30.0, 4: 40.0})
    assert rec.move_times_ms(chess.BLACK) == [10.0, 30.0]
    assert rec.move_times_ms(chess.WHITE) == [20.0, 40.0]
    assert rec.fault_loser is None
    rec.result, rec.rtype = "0-1", "timeout"
    assert rec.fault_loser is chess.WHITE
    rec.result, rec.rtype = "1-0", "illegal"
    assert rec.fault_loser is chess.BLACK
    rec.rtype = "resignation"
    assert rec.fault_loser is None


# ---------------------------------------------------------------- engines

def test_engine_keys_and_each():
    cfg = P(engines=["-engine", "cmd=./eng --fast", "name=New", "proto=uci", "arg=-x", "arg=2",
                     "dir=/tmp", "option.Hash=64", "option.Skill Level=3", "tc=40/60",
                     "-engine", "cmd=fairymax", "proto=xboard", "st=1", "timemargin=50"],
            each=["-each", "tc=5+0.05", "option.Hash=16", "option.Threads=1", "restart=on"])
    a, b = cfg.engines
    assert a.command() == ["./eng", "--fast", "-x", "2"]
    assert a.name == "New" and a.proto == "uci" and a.dir == "/tmp"
    assert a.options == {"Hash": "64", "Skill Level": "3", "Threads": "1"}
    assert a.tc == parse_tc("40/60")                      # own tc wins over -each
    assert a.restart == "on"
    assert b.proto == "xboard" and b.tc == parse_st("1") and b.timemargin_ms == 50
    assert b.options == {"Hash": "16", "Threads": "1"}
    assert b.display_name() == "fairymax"


def test_top_level_timemargin_applies_to_engines_without_their_own():
    cfg = P("-timemargin", "200", engines=["-engine", "cmd=a", "timemargin=10", "-engine", "cmd=b"])
    assert [e.timemargin_ms for e in cfg.engines] == [10, 200]


def test_nodes_and_plies():
    cfg = P(each=["-each", "tc=inf", "nodes=1000", "plies=5"])
    assert cfg.engines[0].nodes == 1000 and cfg.engines[0].plies == 5


# ---------------------------------------------------------------- match options

def test_all_match_options():
    cfg = P("-games", "2", "-rounds", "50", "-repeat", "-concurrency", "4",
            "-openings", "file=book.epd", "format=epd", "order=random", "plies=8", "start=3",
            "-srand", "42", "-pgnout", "out.pgn", "min",
            "-draw", "movenumber=40", "movecount=8", "score=10",
            "-resign", "movecount=3", "score=600", "twosided=true",
            "-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05",
            "-tournament", "gauntlet", "-recover", "-ratinginterval", "20", "-timemargin", "100",
            "-maxmoves", "200", "-event", "My", "Event", "-site", "here", "-noswap", "-wait", "10",
            "-stalltimeout", "3000", "-noprogress", "-variant", "standard")
    assert (cfg.games, cfg.rounds, cfg.repeat, cfg.concurrency) == (2, 50, 2, 4)
    o = cfg.openings
    assert (o.file, o.format, o.order, o.plies, o.start) == ("book.epd", "epd", "random", 8, 3)
    assert cfg.srand == 42 and cfg.pgnout == "out.pgn" and cfg.pgn_min
    assert (cfg.draw.movenumber, cfg.draw.movecount, cfg.draw.score) == (40, 8, 10)
    assert (cfg.resign.movecount, cfg.resign.score, cfg.resign.twosided) == (3, 600, True)
    s = cfg.sprt
    assert (s.elo0, s.elo1, s.alpha, s.beta, s.model) == (0, 5, 0.05, 0.05, "normalized")
    assert cfg.tournament == "gauntlet" and cfg.recover and cfg.ratinginterval == 20
    assert cfg.timemargin_ms == 100 and cfg.maxmoves == 200
    assert cfg.event == "My Event" and cfg.site == "here" and cfg.noswap and cfg.wait_ms == 10
    assert cfg.stall_timeout_ms == 3000 and not cfg.progress


def test_defaults():
    cfg = P()
    assert (cfg.games, cfg.rounds, cfg.repeat, cfg.concurrency) == (1, 1, 1, 1)
    assert cfg.tournament == "round-robin" and not cfg.recover and cfg.ratinginterval == 10
    assert cfg.openings is None and cfg.sprt is None and cfg.stall_timeout_ms == 15000


def test_sprt_prior_takes_the_earlier_parts_counts():
    cfg = P("-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05", "prior=8,87,152,78,18")
    assert cfg.sprt.prior == (8, 87, 152, 78, 18)
    assert cfg.sprt.combined([1, 2, 3, 4, 5]) == [9, 89, 155, 82, 23]
    # the report's own format, brackets and spaces, is accepted too
    cfg = P("-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05", "prior=[8, 87, 152, 78, 18]")
    assert cfg.sprt.prior == (8, 87, 152, 78, 18)
    assert P("-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05").sprt.prior == (0,) * 5


def test_repeat_with_count_and_negative_sprt_bound():
    cfg = P("-repeat", "4", "-sprt", "elo0=-3", "elo1=1", "alpha=0.05", "beta=0.1", "model=logistic")
    assert cfg.repeat == 4 and cfg.sprt.elo0 == -3 and cfg.sprt.model == "logistic"


@pytest.mark.parametrize("argv,named", [
    (["-bogus"], "-bogus"),
    (["-games"], "-games"),
    (["-games", "x"], "-games"),
    (["-games", "0"], "-games"),
    (["-games", "1", "2"], "-games"),
    (["-concurrency", "0"], "-concurrency"),
    (["-tournament", "swiss"], "-tournament"),
    (["-openings", "format=epd"], "file="),
    (["-openings", "file=a.epd", "order=shuffled"], "order="),
    (["-openings", "file=a.epd", "colour=x"], "-openings"),
    (["-openings", "file=a.epd", "policy=round"], "policy="),
    (["-draw", "movenumber=40", "movecount=8"], "score="),
    (["-draw", "movenumber=x", "movecount=8", "score=10"], "movenumber="),
    (["-resign", "movecount=3"], "score="),
    (["-sprt", "elo0=5", "elo1=0", "alpha=0.05", "beta=0.05"], "elo0"),
    (["-sprt", "elo0=0", "elo1=5", "alpha=0.05"], "beta="),
    (["-sprt", "elo0=0", "elo1=5", "alpha=2", "beta=0.05"], "alpha"),
    (["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05", "model=bayes"], "model="),
    (["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05", "prior=1,2,3,4"], "prior="),
    (["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05", "prior=1,2,-3,4,5"], "prior="),
    (["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05", "prior=a,2,3,4,5"], "prior="),
    (["-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05", "prior=0,0,10,50,200"], "prior="),
    (["-pgnout"], "-pgnout"),
    (["-pgnout", "x.pgn", "max"], "-pgnout"),
    (["-recover", "yes"], "-recover"),
    (["-variant", "atomic"], "-variant"),
    (["stray"], "stray"),
    (["-srand", "-1"], "-srand"),
])
def test_errors_name_the_argument(argv, named):
    with pytest.raises(ArgError) as exc:
        P(*argv)
    assert named in str(exc.value)


@pytest.mark.parametrize("engines,named", [
    (["-engine", "cmd=a"], "two engines"),
    (["-engine", "cmd=a", "-engine", "name=b"], "cmd="),
    (["-engine", "cmd=a", "bad", "-engine", "cmd=b"], "key=value"),
    (["-engine", "cmd=a", "proto=cecp", "-engine", "cmd=b"], "proto="),
    (["-engine", "cmd=a", "colour=w", "-engine", "cmd=b"], "colour"),
    (["-engine", "cmd=a", "ponder=x", "-engine", "cmd=b"], "ponder"),
    (["-engine", "cmd=a", "tc=40/", "-engine", "cmd=b"], "tc="),
    (["-engine", "cmd=a", "st=abc", "-engine", "cmd=b"], "st="),
    (["-engine", "cmd=a", "nodes=0", "-engine", "cmd=b"], "nodes="),
    (["-engine", "cmd=a", "restart=maybe", "-engine", "cmd=b"], "restart="),
    (["-engine", "cmd=a", "option.=1", "-engine", "cmd=b"], "option"),
    (["-engine", "cmd=a", "proto=xboard", "nodes=5", "-engine", "cmd=b"], "nodes="),
])
def test_engine_errors(engines, named):
    with pytest.raises(ArgError) as exc:
        P(engines=engines)
    assert named in str(exc.value)


def test_missing_time_control():
    with pytest.raises(ArgError, match="time control"):
        parse_args(TWO, check_files=False)


def test_sprt_needs_two_engines():
    with pytest.raises(ArgError, match="-sprt"):
        P("-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05",
          engines=TWO + ["-engine", "cmd=c"])


def test_file_checks(tmp_path):
    with pytest.raises(ArgError, match="not found"):
        parse_args(["-engine", "cmd=surely-not-an-engine-xyz", "-engine", "cmd=python3", "-each", "tc=1"])
    with pytest.raises(ArgError, match="no such file"):
        parse_args(["-engine", "cmd=./nope", f"dir={tmp_path}", "-engine", "cmd=python3", "-each", "tc=1"])
    with pytest.raises(ArgError, match="-openings"):
        parse_args(["-engine", "cmd=python3", "-engine", "cmd=python3", "-each", "tc=1",
                    "-openings", f"file={tmp_path / 'none.epd'}"])


def test_parse_engine_spec_matches_engine():
    """The public one-engine parser gives the spec that ``-engine`` gives in a match."""
    tokens = ["name=x", "cmd=python3 -u", "arg=e.py", "option.Hash=16", "tc=5+0.05", "nodes=9",
              "timemargin=40"]   # a match fills an unset margin from -timemargin
    spec = parse_engine_spec(tokens, check_files=False)
    via_match = P(engines=["-engine", *tokens, "-engine", "cmd=b"]).engines[0]
    assert spec == via_match
    assert spec.command() == ["python3", "-u", "e.py"] and spec.options == {"Hash": "16"}


@pytest.mark.parametrize("tokens,keys,named", [
    (["name=x"], None, "missing cmd="),
    (["cmd=a", "oops"], None, "key=value"),
    (["cmd=a", "bogus=1"], None, "unknown key 'bogus'"),
    (["cmd=a", "tc=5+0.05"], {"cmd", "name"}, "'tc' is not used here"),
    ([], None, "no engine settings"),
])
def test_parse_engine_spec_errors(tokens, keys, named):
    with pytest.raises(ArgError, match=named) as exc:
        parse_engine_spec(tokens, "--engine", keys=keys, check_files=False)
    assert str(exc.value).startswith("--engine")


def test_parse_engine_spec_checks_files(tmp_path):
    with pytest.raises(ArgError, match="not found"):
        parse_engine_spec(["cmd=surely-not-an-engine-xyz"])
    with pytest.raises(ArgError, match="no such directory"):
        parse_engine_spec(["cmd=python3", f"dir={tmp_path / 'none'}"])
    assert parse_engine_spec(["cmd=python3"]).command()[0] == "python3"


def test_main_reports_bad_args_with_exit_2(capsys):
    from uci_engine.tools.match import main
    assert main(["-engine", "cmd=python3", "-engine", "cmd=python3", "-each", "tc=1", "-rounds", "x"]) == 2
    assert "-rounds" in capsys.readouterr().err


# ---------------------------------------------------------------- schedule

def test_schedule_two_engines_repeat_pairs():
    cfg = P("-games", "2", "-rounds", "3", "-repeat")
    s = build_schedule(cfg)
    assert cfg.total_games() == len(s) == 6
    assert [(g.white, g.black) for g in s] == [(0, 1), (1, 0)] * 3
    assert [g.opening for g in s] == [0, 0, 1, 1, 2, 2]
    assert [g.pair for g in s] == [0, 0, 1, 1, 2, 2]
    assert [g.round for g in s] == [1, 1, 2, 2, 3, 3]


def test_schedule_round_robin_and_gauntlet():
    three = TWO + ["-engine", "cmd=c"]
    rr = P("-games", "2", engines=three)
    assert rr.total_games() == 6
    assert {(g.white, g.black) for g in build_schedule(rr)} == {(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)}
    ga = P("-games", "2", "-tournament", "gauntlet", engines=three)
    assert ga.total_games() == 4
    assert all(0 in (g.white, g.black) for g in build_schedule(ga))


def test_schedule_noswap():
    s = build_schedule(P("-games", "4", "-noswap"))
    assert all((g.white, g.black) == (0, 1) for g in s)
