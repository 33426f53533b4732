"""The match-analysis tools: uci_engine.tools.pgnfiles, scripts/endgame_openings.py,
scripts/pgn_phases.py, scripts/same_trees.py and scripts/gauntlet.py."""
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from conftest import load_script
from uci_engine.tools.pgnfiles import comment_score, read_games
from uci_engine.tools.stats import elo_trinomial

ROOT = Path(__file__).resolve().parent.parent

# Ten men; 1. Rxd5 leaves nine, 3. Rxa7 eight. Scores as the runner writes them (pawns, from
# the mover's side): from White's side Black's read +0.35, +1.50, +1.00.
START = "4k3/p2p4/8/3r4/8/4P3/P2RPP2/4K3 w - - 0 1"
MOVES = [("Rxd5", "+0.40/12 0.1s"), ("Ke7", "-0.35/12 0.1s"), ("Ra5", "+0.50/12 0.1s"),
         ("Kd6", "-1.50/12 0.1s"), ("Rxa7", "+2.00/12 0.1s"), ("Kc6", "-1.00/12 0.1s")]
AFTER_RXA7 = "8/R2p4/3k4/8/8/4P3/P3PP2/4K3 b - -"


def _game(start=START, moves=MOVES, white="A", black="B", result="0-1"):
    game = chess.pgn.Game()
    game.setup(chess.Board(start))
    game.headers.update(White=white, Black=black, Result=result)
    node = game
    for san, comment in moves:
        node = node.add_variation(node.board().parse_san(san), comment=comment)
    return game


def test_comment_score():
    assert comment_score("+0.35/14 0.12s") == 0.35
    assert comment_score("-2.10/9 0.050s, White loses on time") == -2.1
    assert comment_score("-M5/20 0.3s") is None
    assert comment_score("book") is None and comment_score(None) is None


def test_read_games_in_file_order(tmp_path):
    paths = []
    for i, name in enumerate(("X", "Y")):
        p = tmp_path / f"{i}.pgn"
        p.write_text(str(_game(white=name)) + "\n\n" + str(_game(white=name + "2")) + "\n")
        paths.append(p)
    assert [g.headers["White"] for g in read_games(paths)] == ["X", "X2", "Y", "Y2"]


def test_first_endgame_position():
    eo = load_script("endgame_openings")
    game = _game()
    assert eo.first_endgame_position(game, 6, 8, 2.0) == AFTER_RXA7
    assert eo.first_endgame_position(game, 6, 8, 1.9) is None        # White said +2.00
    assert eo.first_endgame_position(game, 9, 8, 2.0) is None        # fewer than min_men
    assert eo.first_endgame_position(game, 6, 6, 2.0) is None        # never that few
    assert eo.first_endgame_position(game, 6, 9, 2.0) is None        # Black had not spoken
    # the same with a rook more on h1: nine men after Rxa7, kept unless castling is allowed
    plain = _game("4k3/p2p4/8/3r4/8/4P3/P2RPP2/4K2R w - - 0 1")
    castles = _game("4k3/p2p4/8/3r4/8/4P3/P2RPP2/4K2R w K - 0 1")
    assert eo.first_endgame_position(plain, 6, 9, 2.0) == "8/R2p4/3k4/8/8/4P3/P3PP2/4K2R b - -"
    assert eo.first_endgame_position(castles, 6, 9, 2.0) is None


def test_pgn_phases_split():
    pp = load_script("pgn_phases")
    # B judges. In the first game B is Black: +0.35 (even) when nine men were reached, +1.50
    # (A, White, better) at eight. In the second B is White and A Black: +0.40 at nine (even),
    # +2.00 at eight (A worse).
    first = _game(result="0-1")
    second = _game(result="1/2-1/2", white="B", black="A")
    assert pp.judge_scores(first, "B", [9, 8]) == {9: 0.35, 8: 1.5}
    assert pp.judge_scores(second, "B", [9, 8]) == {9: 0.40, 8: 2.0}
    table = pp.split([first, second], "A", "B", [9, 8, 4], 1.0)
    assert table[(9, "even")] == [2, 0.5]
    assert table[(8, "better")] == [1, 0.0] and table[(8, "worse")] == [1, 0.5]
    assert table[(4, "none")] == [2, 0.5]
    assert (9, "better") not in table and (8, "even") not in table


def test_same_trees_script(tmp_path):
    """The same engine twice searches the same trees (exit 0); with a different evaluation on
    one side the trees differ and the script says so (exit 1)."""
    engine = shutil.which("uci-engine", path=str(Path(sys.executable).parent))
    assert engine is not None
    epd = tmp_path / "two.epd"
    epd.write_text("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -\n"
                   "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - -\n")
    script = ROOT / "scripts" / "same_trees.py"
    same = subprocess.run([sys.executable, str(script), engine, engine, str(epd), "--depth", "6"],
                          capture_output=True, text=True, timeout=240)
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.strip().endswith("2 of 2 positions equal (nodes and best move) at depth 6")
    differ = subprocess.run([sys.executable, str(script), engine, engine, str(epd), "--depth",
                             "6", "--option-b", "Use NNUE=false"],
                            capture_output=True, text=True, timeout=240)
    assert differ.returncode == 1, differ.stdout + differ.stderr
    assert "of 2 positions equal" in differ.stdout and " B " in differ.stdout


def test_gauntlet_standings(tmp_path):
    """Two parts of a gauntlet against X: pairs are the two games of one file, Round and FEN;
    a lone game counts in W-L-D but not in the pentanomial; a loss by time forfeit is a fault;
    games without X are ignored."""
    ga = load_script("gauntlet")
    other = "4k3/p2p4/8/3r4/8/4P3/P2RPP2/4K2R w - - 0 1"

    def g(white, black, result, rnd, fen=START, termination=None):
        game = _game(fen, white=white, black=black, result=result)
        game.headers["Round"] = str(rnd)
        if termination:
            game.headers["Termination"] = termination
        return str(game) + "\n\n"

    part1 = tmp_path / "part1.pgn"
    part1.write_text(g("X", "A", "0-1", 1) + g("A", "X", "1/2-1/2", 1)          # A: pair 1.5
                     + g("X", "B", "1-0", 1, other) + g("B", "X", "0-1", 1, other,  # B: pair 0
                                                        "time forfeit")
                     + g("A", "B", "1-0", 2))                                  # no X: ignored
    part2 = tmp_path / "part2.pgn"
    part2.write_text(g("X", "A", "1/2-1/2", 1) + g("A", "X", "1/2-1/2", 1)      # A: pair 1 (same
                     + g("B", "X", "1-0", 1, other))                           # Round, other file)
    table = ga.standings([part1, part2], "X")
    assert set(table) == {"A", "B"}
    a, b = table["A"], table["B"]
    assert a.wld() == (1, 0, 3) and a.pentanomial() == [0, 0, 1, 1, 0]
    assert b.wld() == (1, 2, 0) and b.pentanomial() == [1, 0, 0, 0, 0]
    assert dict(b.faults) == {"time forfeit": 1} and not a.faults
    lines = ga.report(table, base="B")
    assert lines[1].startswith("A ") and " 1-0-3 " in lines[1] and "none" in lines[1]
    assert "1 time forfeit" in lines[2]
    diff, err = ga.difference(elo_trinomial(1, 0, 3), elo_trinomial(1, 2, 0))
    assert lines[3] == f"A - B: {diff:+.1f} ± {err:.1f} Elo" and diff > 0


def test_gauntlet_resumed_sprt_reading(tmp_path):
    """``--prior`` adds the earlier parts' pentanomial to the part's pairs, and ``--sprt`` prints
    the LLR of the sum: the same figures as stats on the summed counts, as the runner's
    ``prior=`` gives; a malformed prior is refused with argparse's usage error."""
    from uci_engine.tools.stats import elo_pentanomial, sprt_llr
    ga = load_script("gauntlet")

    def g(white, black, result, rnd):
        game = _game(white=white, black=black, result=result)
        game.headers["Round"] = str(rnd)
        return str(game) + "\n\n"

    part = tmp_path / "part2.pgn"
    part.write_text(g("new", "old", "1-0", 1) + g("old", "new", "1/2-1/2", 1)   # pair 1.5
                    + g("new", "old", "0-1", 2) + g("old", "new", "0-1", 2))    # pair 1.0
    table = ga.standings([part], "old")
    assert table["new"].pentanomial() == [0, 0, 1, 1, 0]
    prior = [19, 87, 151, 98, 15]
    total = [19, 87, 152, 99, 15]
    e, llr = elo_pentanomial(total), sprt_llr(0, 10, total)
    assert ga.combined(table, prior, (0, 10)) == [
        f"new with the earlier parts: {total}, 744 games, {e.elo:+.1f} ± {e.error:.1f} Elo, "
        f"LLR {llr:+.2f} [0, 10]"]
    assert "LLR" not in ga.combined(table, prior)[0]
    with pytest.raises(ValueError):
        ga.combined(table, [1, 2, 3])
    cli = [sys.executable, str(ROOT / "scripts" / "gauntlet.py"), str(part), "--anchor", "old"]
    out = subprocess.run(cli + ["--prior", ",".join(map(str, prior)), "--sprt=0,10"],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == ga.combined(table, prior, (0, 10))[0]
    pasted = subprocess.run(cli + ["--prior", str(prior), "--sprt=0,10"],       # the report's form
                            capture_output=True, text=True, check=True).stdout
    assert pasted == out
    for bad, message in ((["--prior", "1,2,3,4"], "five non-negative pair counts"),
                         (["--prior", "1,2,3,4,-1"], "five non-negative pair counts"),
                         (["--sprt", "0,x"], "2 comma-separated numbers"),
                         (["--sprt", "10,0"], "elo0 must be less than elo1"),
                         (["--sprt=0,0"], "elo0 must be less than elo1")):
        refused = subprocess.run(cli + bad, capture_output=True, text=True)
        assert refused.returncode == 2 and message in refused.stderr
