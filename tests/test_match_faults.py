"""Fault handling of the match runner against small fake engines (tests/fake_engines/*.py).

Each faulty engine is scored the way cutechess scores it (result comment and PGN Termination
tag) and, with -recover, the match goes on with a restarted engine.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

chess = pytest.importorskip("chess")
import chess.pgn  # noqa: E402

from uci_engine.tools.match import main  # noqa: E402

FAKE = Path(__file__).parent / "fake_engines"
PY = sys.executable


def _engine(script: str, name: str, *args: str) -> list[str]:
    out = ["-engine", f"cmd={PY}", f"arg={FAKE / script}", f"name={name}"]
    out += [f"arg={a}" for a in args]
    return out


def _run(tmp_path, capsys, faulty: str, extra: list[str] | None = None, tc: str = "tc=1+0.05",
         games: int = 2, fault_args: tuple[str, ...] = ()):
    pgn = tmp_path / "games.pgn"
    argv = (_engine(faulty, "Faulty", *fault_args) + _engine("random_mover.py", "Random")
            + ["-each", tc, "-games", str(games), "-pgnout", str(pgn), "-stalltimeout", "1000",
               "-noprogress"] + (extra or []))
    rc = main(argv)
    out = capsys.readouterr().out
    games_ = []
    if pgn.exists():
        with pgn.open() as fh:
            while (g := chess.pgn.read_game(fh)) is not None:
                games_.append(g)
    return rc, out, games_


def _finished(out: str) -> list[str]:
    return re.findall(r"^Finished game \d+ .*$", out, flags=re.M)


def test_illegal_move_is_a_loss_and_match_goes_on(tmp_path, capsys):
    rc, out, games = _run(tmp_path, capsys, "illegal_mover.py")
    assert rc == 0
    fin = _finished(out)
    assert len(fin) == 2, out
    assert re.search(r"Finished game 1 \(Faulty vs Random\): 0-1 \{White makes an illegal move: [a-h][1-8][a-h][1-8]\}", out)
    assert re.search(r"Finished game 2 \(Random vs Faulty\): 1-0 \{Black makes an illegal move: [a-h][1-8][a-h][1-8]\}", out)
    assert "Score of Faulty vs Random: 0 - 2 - 0  [0.000] 2" in out
    assert [g.headers["Termination"] for g in games] == ["illegal move", "illegal move"]
    assert [g.headers["Result"] for g in games] == ["0-1", "1-0"]
    assert "Finished match" in out


def test_engine_that_never_answers_go_loses_on_time(tmp_path, capsys):
    # It ignores "stop" as well, so after the forfeit it is killed and (with -recover)
    # restarted for the next game.
    rc, out, games = _run(tmp_path, capsys, "no_go.py", ["-recover"], tc="tc=0.5+0.05")
    assert rc == 0
    assert "Finished game 1 (Faulty vs Random): 0-1 {White loses on time}" in out
    assert "Finished game 2 (Random vs Faulty): 1-0 {Black loses on time}" in out
    assert [g.headers["Termination"] for g in games] == ["time forfeit", "time forfeit"]


def test_engine_that_never_answers_go_without_recover_stops_match(tmp_path, capsys):
    rc, out, games = _run(tmp_path, capsys, "no_go.py", [], tc="st=0.3")
    assert rc == 0
    assert len(_finished(out)) == 1
    assert "{White loses on time}" in out
    assert "stopping the match" in out
    assert "Finished match" in out


def test_crash_mid_game_is_a_disconnect_and_recover_restarts(tmp_path, capsys):
    rc, out, games = _run(tmp_path, capsys, "crasher.py", ["-recover"])
    assert rc == 0
    assert "Finished game 1 (Faulty vs Random): 0-1 {White disconnects}" in out
    assert "Finished game 2 (Random vs Faulty): 1-0 {Black disconnects}" in out
    assert [g.headers["Termination"] for g in games] == ["abandoned", "abandoned"]
    # the crash happened mid-game: book-free games with a few moves played
    assert all(len(list(g.mainline_moves())) >= 6 for g in games)


def test_crash_without_recover_stops_like_cutechess(tmp_path, capsys):
    rc, out, _ = _run(tmp_path, capsys, "crasher.py", games=4)
    assert rc == 0
    assert len(_finished(out)) == 1
    assert "Started game 2 of 4" not in out
    assert "Finished match" in out


def test_clock_overrun_is_time_forfeit(tmp_path, capsys):
    # The flagger answers 0.3 s after its clock ran out: a time forfeit, but it stays
    # responsive, so the same process plays on (no -recover needed).
    rc, out, games = _run(tmp_path, capsys, "flagger.py", tc="tc=0.4+0.05")
    assert rc == 0
    assert "Finished game 1 (Faulty vs Random): 0-1 {White loses on time}" in out
    assert "Finished game 2 (Random vs Faulty): 1-0 {Black loses on time}" in out
    assert [g.headers["Termination"] for g in games] == ["time forfeit", "time forfeit"]
    assert all(g.headers["TimeControl"] == "0.4+0.05" for g in games)


def test_timemargin_forgives_small_overruns(tmp_path, capsys):
    # st=0.2 per move; the flagger needs 0.2 + 0.3 s; a 1000 ms margin lets it through, so
    # the game ends in some other way than on time.
    rc, out, games = _run(tmp_path, capsys, "flagger.py", ["-timemargin", "1000", "-maxmoves", "15"],
                          tc="st=0.2", games=1, fault_args=("3",))
    assert rc == 0
    fin = _finished(out)
    assert len(fin) == 1
    assert "loses on time" not in fin[0]
    assert fin[0].endswith("{Draw by adjudication}") or "mates" in fin[0] or "Draw" in fin[0]
    assert games[0].headers["TimeControl"] == "0.2/move"


def test_stalled_engine(tmp_path, capsys):
    rc, out, games = _run(tmp_path, capsys, "staller.py", ["-recover"])
    assert rc == 0
    assert "Finished game 1 (Faulty vs Random): 0-1 {White's connection stalls}" in out
    assert "Finished game 2 (Random vs Faulty): 1-0 {Black's connection stalls}" in out
    assert [g.headers["Termination"] for g in games] == ["stalled connection", "stalled connection"]


def test_pgn_headers_and_reason_comment(tmp_path, capsys):
    book = tmp_path / "book.epd"
    book.write_text("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n")
    rc, out, games = _run(tmp_path, capsys, "illegal_mover.py",
                          ["-openings", f"file={book}", "format=epd", "-repeat", "-event", "Test Event"])
    assert rc == 0
    g = games[0]
    h = g.headers
    assert list(h.keys())[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
    assert h["Event"] == "Test Event"
    assert h["FEN"] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert h["SetUp"] == "1"
    assert int(h["PlyCount"]) == len(list(g.mainline_moves()))
    assert h["TimeControl"] == "1+0.05"
    last = g.end()
    assert last.comment.endswith("White makes an illegal move: " + out.split("illegal move: ")[1].split("}")[0])
    text = (tmp_path / "games.pgn").read_text()
    assert re.search(r"\{[+-]\d+\.\d\d/1 \d+(\.\d+)?s\}", text)  # cutechess comment style


def test_bad_arguments_fail_before_any_game(capsys):
    rc = main(_engine("random_mover.py", "A") + _engine("random_mover.py", "B")
              + ["-each", "tc=1+0.05", "-games", "2", "-bogus", "1"])
    err = capsys.readouterr()
    assert rc == 2
    assert "-bogus" in err.err
    assert "Started game" not in err.out


def test_sprt_stops_match_and_prints_llr(tmp_path, capsys):
    # Random vs an engine that always forfeits: H0 (elo <= elo0) would be absurd; the LLR for
    # Random being stronger climbs fast with wide bounds, so the SPRT stops the match early.
    argv = (_engine("random_mover.py", "Random") + _engine("illegal_mover.py", "Faulty", "0")
            + ["-each", "st=0.2", "-games", "2", "-rounds", "50", "-repeat", "-noprogress",
               "-sprt", "elo0=0", "elo1=400", "alpha=0.05", "beta=0.05", "model=logistic",
               "-ratinginterval", "0"])
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0
    assert re.search(r"^LLR: \d+\.\d\d \(-2\.94, 2\.94\) \[0\.00, 400\.00\]$", out, flags=re.M)
    assert "H1 was accepted" in out
    assert len(_finished(out)) < 100
    assert re.search(r"^Ptnml\(0-2\): \[0, 0, 0, 0, \d+\]", out, flags=re.M)


def test_sprt_prior_resumes_a_stopped_test(capsys):
    """With ``prior=`` the earlier parts' pairs count: one pair short of H1 before this run,
    the first pair decides, and the report gives this run's counts and the combined ones."""
    from uci_engine.tools.stats import sprt_status
    need = next(n for n in range(1, 100)
                if sprt_status(0, 400, 0.05, 0.05, [0, 0, 0, 0, n], "logistic").decision == "H1")
    assert need >= 2
    argv = (_engine("random_mover.py", "Random") + _engine("illegal_mover.py", "Faulty", "0")
            + ["-each", "st=0.2", "-games", "2", "-rounds", "50", "-repeat", "-noprogress",
               "-sprt", "elo0=0", "elo1=400", "alpha=0.05", "beta=0.05", "model=logistic",
               f"prior=0,0,0,0,{need - 1}", "-ratinginterval", "0"])
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0
    assert "H1 was accepted" in out
    assert len(_finished(out)) == 2
    assert re.search(r"^Ptnml\(0-2\): \[0, 0, 0, 0, 1\]", out, flags=re.M)
    assert re.search(rf"^Ptnml\(0-2\) with the earlier parts: \[0, 0, 0, 0, {need}\]", out,
                     flags=re.M)


def test_new_game_handshake_is_not_on_the_clock(tmp_path, capsys):
    """The runner sends ``ucinewgame`` and waits for ``readyok`` before it starts a game's
    clock, as cutechess does (its players sync before the game starts): an engine that needs
    0.8 s to be ready for each new game (the stall timeout is 1 s), at 0.5+0.05, plays both
    games without a time loss."""
    rc, out, games = _run(tmp_path, capsys, "slow_ready.py", ["-maxmoves", "10"],
                          tc="tc=0.5+0.05", fault_args=("8",))
    assert rc == 0
    fin = _finished(out)
    assert len(fin) == 2, out
    assert "loses on time" not in out, out
    assert [g.headers.get("Termination") for g in games] == ["adjudication", "adjudication"]
    assert all(len(list(g.mainline_moves())) == 20 for g in games)


def _tracked_objects(root) -> int:
    """Objects the garbage collector tracks that ``root`` reaches (itself included), not
    counting classes and what they reach (modules, functions)."""
    import gc
    seen, todo = set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return len(seen)


def test_kept_records_do_not_grow_with_game_length(tmp_path):
    """A match keeps every game's record; each must cost the garbage collector a few objects,
    not a board state per ply, or a long match's full collections stall the runner's event
    loop for tenths of a second, charged to the engine on move (GameRecord.compact)."""
    import asyncio

    from uci_engine.tools.args import parse_args
    from uci_engine.tools.match import quiet_engine_logs, run_match

    pgn = tmp_path / "games.pgn"
    cfg = parse_args(_engine("random_mover.py", "A") + _engine("random_mover.py", "B")
                     + ["-each", "tc=inf", "-games", "2", "-maxmoves", "40", "-pgnout", str(pgn),
                        "-noprogress"])
    quiet_engine_logs()
    res = asyncio.run(run_match(cfg, out=lambda line: None, warn=lambda line: None))
    assert sorted(res.records) == [1, 2]
    games = []
    with pgn.open() as fh:
        while (g := chess.pgn.read_game(fh)) is not None:
            games.append(g)
    plies = [int(g.headers["PlyCount"]) for g in games]
    assert len(plies) == 2 and min(plies) > 20
    # the PGN was written from the whole game; the kept record holds its start and results
    for rec, g, n in zip((res.records[k] for k in sorted(res.records)), games, plies):
        assert rec.board.move_stack == [] and rec.board.fen() == g.board().fen()
        assert len(rec.times_ms) == n and rec.result == g.headers["Result"]
        assert _tracked_objects(rec) < 40, (n, _tracked_objects(rec))
