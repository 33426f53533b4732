"""Syzygy tablebases at the root (:mod:`uci_engine.syzygy`): the UCI options, root ranking
checked against python-chess's own probes, and games the engine plays against itself.

Tables in tests/data/syzygy: KQvK, KRvK, KRvKR, KPvK, and KBvK/KNvK (80-byte files) for the
under-promotions of KPvK.
"""
import io
import os
import shutil
import threading
import time
from pathlib import Path

import chess
import chess.syzygy
import pytest

from uci_engine import syzygy
from uci_engine.engine import TB_WIN, Engine
from uci_engine.kernels import tbformat as TF
from uci_engine.kernels.state import MATE_BOUND, TB_BOUND
from uci_engine.startup import TB_COMPILING_TEXT
from uci_engine.syzygy import MAX_DTZ, Tablebases, TablebaseError
from uci_engine.tbfiles import WdlTables
from uci_engine.timeman import Limits
from uci_engine.uci import UCI

from conftest import load_script

TB_DIR = Path(__file__).parent / "data" / "syzygy"
#: every 3- and 4-man table (WDL and DTZ)
TB34 = Path(__file__).parent / "data" / "syzygy34"
# Node budget per move in the self-play games: without the tables the engine draws all three
# wins below at this budget (KQvK, KRvK by repetition, KPvK by losing the pawn).
NODES = 1000
MAX_PLIES = 200


@pytest.fixture(scope="module")
def tables():
    tb = Tablebases()
    assert tb.load(str(TB_DIR)) == 6
    assert tb.max_pieces == 4
    yield tb
    tb.close()


@pytest.fixture(scope="module")
def oracle():
    with chess.syzygy.open_tablebase(str(TB_DIR)) as tb:
        yield tb


@pytest.fixture(scope="module")
def engine():
    return Engine(1)


def play(engine, tables, fen, max_plies=MAX_PLIES):
    """Engine-vs-itself from ``fen`` at ``NODES`` nodes a move; returns the final board."""
    board = chess.Board(fen)
    moves = []
    while not board.is_game_over(claim_draw=True) and len(moves) < max_plies:
        engine.set_position(fen, moves)
        best, _ = engine.search(Limits(nodes=NODES), tablebases=tables)
        move = chess.Move.from_uci(best)
        assert move in board.legal_moves, (board.fen(), best)
        board.push(move)
        moves.append(best)
    return board


# --- ranking helpers ----------------------------------------------------------------------------

def test_rank_order():
    r = syzygy.rank_of
    # wins before cursed wins before draws before blessed losses before losses
    assert r(1, 0, False) > r(5, 0, False) > r(5, 95, False) > r(0, 0, False) \
        > r(-60, 0, False) > r(-5, 0, False) > r(-1, 0, False)
    # a repetition since the last zeroing move demotes a win to the cursed range
    assert r(5, 0, True) == MAX_DTZ // 2 - 5
    assert syzygy.tb_score(r(3, 0, False), True, TB_WIN) == TB_WIN
    assert syzygy.tb_score(r(-3, 0, False), True, TB_WIN) == -TB_WIN
    # zeroing (mate) exactly on the 100th ply still wins; one ply later the win is cursed
    assert syzygy.tb_score(r(5, 95, False), True, TB_WIN) == TB_WIN
    assert syzygy.tb_score(r(5, 96, False), True, TB_WIN) == 49
    assert syzygy.tb_score(r(40, 99, False), True, TB_WIN) == 30    # (200 - 139) / 2
    assert syzygy.tb_score(r(100, 99, False), True, TB_WIN) == 1    # at least 1 cp
    assert syzygy.tb_score(r(5, 96, False), False, TB_WIN) == TB_WIN
    assert syzygy.tb_score(0, True, TB_WIN) == 0
    assert TB_WIN < MATE_BOUND    # shown as cp, never as a mate


#: roots of the ranking tests: won, drawn and lost, one near the fifty-move rule
ROOTS = [
    "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
    "8/8/3rk3/8/8/3RK3/8/8 w - - 0 1",
    "8/8/3rk3/8/8/3RK3/8/8 b - - 0 1",
    "8/8/8/8/4k3/1P6/8/2K5 w - - 70 1",
    "8/8/8/8/4k3/1P6/8/2K5 b - - 0 1",
    "2k5/8/8/8/8/8/5r2/4K2R w - - 0 1",
]


@pytest.mark.parametrize("fen", ROOTS)
def test_root_filter_keeps_the_best_outcome(engine, tables, oracle, fen):
    """Every move the search may play keeps the root's WDL (python-chess's probe of each child
    as the oracle); in a won root those moves are exactly the ones of least DTZ."""
    engine.set_position(fen, [])
    board = chess.Board(fen)
    legal = engine.legal_moves()
    kept = {engine.move_to_uci(m) for m in engine._tb_filter(tables, legal)}
    assert engine.tb_hits > 0
    root = oracle.probe_wdl(board)

    def child(uci):
        board.push_uci(uci)
        try:
            if board.is_checkmate():
                return 2, 1
            wdl = -oracle.probe_wdl(board)
            if board.halfmove_clock == 0:
                return wdl, syzygy.dtz_before_zeroing(wdl)
            d = -oracle.probe_dtz(board)
            return wdl, d + (d > 0) - (d < 0)
        finally:
            board.pop()
    res = {engine.move_to_uci(m): child(engine.move_to_uci(m)) for m in legal}
    assert kept and all(res[m][0] == root for m in kept), (res, kept)
    if root == 2:
        least = min(d for w, d in res.values() if w == 2)
        assert kept == {m for m, (w, d) in res.items() if w == 2 and d == least}


def test_root_not_probed(engine, tables):
    """Castling rights, too many pieces or SyzygyProbeLimit below the piece count: no probe."""
    for fen in ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "4k3/8/8/8/8/8/1PPP4/4K3 w - - 0 1"):
        engine.set_position(fen, [])
        legal = engine.legal_moves()
        assert engine._tb_filter(tables, legal) == legal and engine.tb_hits == 0
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    legal = engine.legal_moves()
    tables.probe_limit = 2
    try:
        assert engine._tb_filter(tables, legal) == legal and engine.tb_hits == 0
    finally:
        tables.probe_limit = syzygy.MAX_PIECES


def test_missing_table_searches_all_moves(engine, tmp_path):
    """KQvK root with only KRvK loaded: no ranking, the whole move list is searched."""
    for ext in (".rtbw", ".rtbz"):
        shutil.copy(TB_DIR / f"KRvK{ext}", tmp_path)
    tb = Tablebases()
    tb.load(str(tmp_path))
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    legal = engine.legal_moves()
    assert engine._tb_filter(tb, legal) == legal
    tb.close()


def test_wdl_only_ranking(engine, oracle, tmp_path):
    """Without DTZ files the root is ranked by WDL: every kept move keeps the draw."""
    for name in ("KRvKR", "KRvK"):
        shutil.copy(TB_DIR / f"{name}.rtbw", tmp_path)
    tb = Tablebases()
    tb.load(str(tmp_path))
    fen = "8/8/3rk3/8/8/3RK3/8/8 w - - 0 1"
    engine.set_position(fen, [])
    kept = [engine.move_to_uci(m) for m in engine._tb_filter(tb, engine.legal_moves())]
    board = chess.Board(fen)
    for uci in kept:
        board.push_uci(uci)
        assert oracle.probe_wdl(board) == 0, uci
        board.pop()
    assert len(kept) < board.legal_moves.count()     # the rook-hanging moves are gone
    tb.close()


def test_compiled_root_probes_equal_python_chess(tables, oracle):
    """Tablebases.probe_wdl and probe_dtz (the compiled probers the root ranking uses) give
    python-chess's WDL and DTZ for every child of the ranking tests' roots."""
    n = 0
    for fen in ROOTS:
        board = chess.Board(fen)
        for move in list(board.legal_moves):
            board.push(move)
            if not board.is_checkmate():
                assert tables.probe_wdl(board) == oracle.probe_wdl(board), board.fen()
                assert tables.probe_dtz(board) == oracle.probe_dtz(board), board.fen()
                n += 1
            board.pop()
    assert n > 40


def test_root_ranking_equals_python_chess_ranking(capsys):
    """scripts/bench_tbroot.py ranks 3 random roots of each of the 35 3-4-man tables with the
    compiled probers and with python-chess's, and finds no difference."""
    bench = load_script("bench_tbroot")
    assert bench.main(["--tables", str(TB34), "--per-table", "3", "--seed", "7"]) == 0
    assert "105 roots over 35 tables, rankings different: 0" in capsys.readouterr().out


def test_root_ranking_time_comes_off_the_hard_limit(engine, tables, monkeypatch):
    """The hard limit counts from the start of ``go``: the timer is armed with what the root
    ranking left of it."""
    now = [100.0]
    armed = []
    real = engine._tb_filter

    def slow_filter(*args):
        now[0] += 0.05                          # the ranking takes 50 ms
        return real(*args)
    monkeypatch.setattr(engine, "_tb_filter", slow_filter)
    monkeypatch.setattr(engine, "_arm_timer", armed.append)
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    engine.search(Limits(wtime=60000, btime=60000, depth=3), clock=lambda: now[0],
                  tablebases=tables)
    assert engine.hard_ms > 100 and armed == [pytest.approx(engine.hard_ms - 50)]


# --- self-play games ----------------------------------------------------------------------------

@pytest.mark.parametrize("fen", [
    "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",       # KQvK, DTZ 17
    "8/8/8/4k3/8/8/8/KR6 w - - 0 1",       # KRvK, DTZ 29
])
def test_converts_to_mate(engine, tables, fen):
    board = play(engine, tables, fen)
    assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()


def test_krvkr_is_held(engine, tables, oracle):
    fen = "8/8/3rk3/8/8/3RK3/8/8 w - - 0 1"
    board = play(engine, tables, fen)
    assert not board.is_checkmate()
    replay = chess.Board(fen)
    for move in board.move_stack:
        replay.push(move)
        if chess.popcount(replay.occupied) <= 4:
            assert oracle.probe_wdl(replay) == 0, replay.fen()


def test_kpvk_win_survives_the_fifty_move_rule(engine, tables):
    """DTZ 15 with the halfmove clock at 84: one wasted move hands Black a fifty-move draw."""
    board = play(engine, tables, "8/8/8/4k3/8/1P6/8/K7 w - - 84 1")
    assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()


def test_search_reports_tb_score_and_hits(engine, tables):
    engine.set_position("8/8/3rk3/8/8/3RK3/8/8 w - - 0 1", [])
    seen = []
    engine.search(Limits(depth=4), on_info=seen.append, tablebases=tables)
    assert seen and all(d["score"] == 0 and d["tbhits"] > 0 for d in seen)
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    seen = []
    engine.search(Limits(depth=3), on_info=seen.append, tablebases=tables)
    assert seen and all(d["score"] == TB_WIN and d["mate"] is None for d in seen)
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    seen = []
    engine.search(Limits(depth=3), on_info=seen.append)       # no tables: no hits
    assert seen and all(d["tbhits"] == 0 and d["score"] != TB_WIN for d in seen)


# --- UCI ----------------------------------------------------------------------------------------

class Session:
    """A :class:`uci_engine.uci.UCI` in this process, writing to a string buffer."""

    def __init__(self):
        self.out = io.StringIO()
        self.uci = UCI(out=self.out)
        self.pos = 0

    def __call__(self, *lines):
        for line in lines:
            self.uci.handle(line)
        assert self.uci.go_done.wait(120)
        text = self.out.getvalue()
        new, self.pos = text[self.pos:], len(text)
        return new.splitlines()


@pytest.fixture
def session():
    return Session()


def test_uci_lists_the_options(session):
    lines = session("uci")
    for want in ("option name SyzygyPath type string default <empty>",
                 "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
                 "option name Syzygy50MoveRule type check default true",
                 "option name SyzygyProbeLimit type spin default 7 min 0 max 7"):
        assert want in lines, lines


def test_uci_load_bad_path_keeps_tables(session, tmp_path):
    assert session(f"setoption name SyzygyPath value {TB_DIR}") == \
        ["info string found 6 tablebases (up to 4 pieces)"]
    for bad in (str(tmp_path / "missing"), str(tmp_path)):     # no directory; no tables
        lines = session(f"setoption name SyzygyPath value {bad}")
        assert len(lines) == 1 and lines[0].startswith("info string error: SyzygyPath"), lines
        assert session.uci.options["syzygypath"].value == str(TB_DIR)
        assert session.uci.tablebases.tables == 6
    for bad in ("SyzygyProbeLimit value 8", "SyzygyProbeDepth value 0",
                "Syzygy50MoveRule value maybe", "SyzygyProbeLimit value x"):
        lines = session(f"setoption name {bad}")
        assert len(lines) == 1 and lines[0].startswith("info string error:"), lines
    assert session.uci.tablebases.probe_limit == 7 and session.uci.tablebases.rule50
    session("setoption name SyzygyPath value <empty>")
    assert session.uci.tablebases.tables == 0 and not session.uci.tablebases.active


def test_uci_path_with_spaces_and_list(session, tmp_path):
    spaced = tmp_path / "my tables"
    spaced.mkdir()
    for ext in (".rtbw", ".rtbz"):
        shutil.copy(TB_DIR / f"KQvK{ext}", spaced)
    assert session(f"setoption name SyzygyPath value {spaced}") == \
        ["info string found 1 tablebases (up to 3 pieces)"]
    both = os.pathsep.join([str(spaced), str(TB_DIR)])
    assert session(f"setoption name SyzygyPath value {both}")[0].startswith(
        "info string found 6 tablebases")


def test_uci_go_in_tablebase(session):
    session(f"setoption name SyzygyPath value {TB_DIR}")
    assert session.uci.tablebases.wait_ready(300)      # the probers load in the background
    lines = session("isready", "position fen 8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    assert lines == ["readyok"] or lines[-1] == "readyok", lines
    session.uci.handle("go depth 4")
    deadline = time.monotonic() + 120
    while "bestmove" not in session.out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    lines = session()
    info = [ln for ln in lines if ln.startswith("info depth")]
    assert info and all(f"score cp {TB_WIN} " in ln for ln in info), info
    assert all(int(ln.split(" tbhits ")[1].split()[0]) > 0 for ln in info), info
    assert lines[-1].startswith("bestmove ")


def test_root_not_probed_until_the_probers_are_ready(engine, tables, monkeypatch):
    """While the compiled probers load in the background (SyzygyPath set through UCI), the
    root is searched without the tables."""
    monkeypatch.setattr(tables, "_ready", threading.Event())     # as while they compile
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    legal = engine.legal_moves()
    assert engine._tb_filter(tables, legal) == legal and engine.tb_hits == 0


def test_uci_isready_says_the_probers_are_loading(session, monkeypatch):
    """isready waits at most READY_PATIENCE_S for the probers, then says why and answers."""
    session(f"setoption name SyzygyPath value {TB_DIR}")
    assert session.uci.tablebases.wait_ready(300)
    assert TB_COMPILING_TEXT not in " ".join(session("isready"))
    monkeypatch.setattr(session.uci.tablebases, "_ready", threading.Event())
    monkeypatch.setattr("uci_engine.uci.READY_PATIENCE_S", 0.05)
    lines = session("isready")
    assert lines[-2:] == [f"info string {TB_COMPILING_TEXT}", "readyok"], lines


def test_uci_probers_that_fail_to_compile(session, monkeypatch):
    """A compile failure of the background warm-up leaves the root unprobed and isready says
    why (an error line), once the UCI session chose its slider backend."""
    import uci_engine.warmup

    def broken():
        raise RuntimeError("no LLVM today")
    monkeypatch.setattr(uci_engine.warmup, "warm_tablebases", broken)
    session(f"setoption name SyzygyPath value {TB_DIR}")
    tbs = session.uci.tablebases
    deadline = time.monotonic() + 60
    while tbs.warm_error is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not tbs.ready and "no LLVM today" in tbs.warm_error
    lines = session("isready")
    assert lines[-1] == "readyok" and any(
        ln.startswith("info string error: Syzygy probers failed to compile") for ln in lines)
    assert tbs.root_board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1") is None


def test_load_errors_without_tables(tmp_path):
    tb = Tablebases()
    with pytest.raises(TablebaseError):
        tb.load(str(tmp_path / "nope"))
    (tmp_path / "README").write_text("not a table")
    with pytest.raises(TablebaseError):
        tb.load(str(tmp_path))
    assert not tb.active and tb.load("<empty>") == 0


def test_corrupt_table_does_not_break_the_search(engine, tmp_path):
    """A file that is no table (64 zero bytes) is left out with a message, at the root and
    inside the search; the root is then searched without it."""
    for ext in (".rtbw", ".rtbz"):
        (tmp_path / f"KQvK{ext}").write_bytes(bytes(64))
        shutil.copy(TB_DIR / f"KRvK{ext}", tmp_path)
    tb = Tablebases()
    assert tb.load(str(tmp_path)) == 1
    assert len(tb.load_errors) == 2 and all("KQvK.rtb" in e for e in tb.load_errors)
    engine.set_position("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", [])
    legal = engine.legal_moves()
    assert engine._tb_filter(tb, legal) == legal
    best, _ = engine.search(Limits(depth=3), tablebases=tb)
    assert engine.parse_move(best) in legal
    only_bad = tmp_path / "bad"
    only_bad.mkdir()
    (only_bad / "KQvK.rtbw").write_bytes(bytes(64))
    with pytest.raises(TablebaseError, match="KQvK.rtbw"):
        tb.load(str(only_bad))
    assert tb.tables == 1                        # the tables loaded before stay


# --- probing inside the search (uci_engine/kernels/tbprobe.py, negamax Step 5b) --------------

# Five men (no five-man tables): Nxh2 leaves KBNvK, a win the search cannot see to mate.
CAPTURE_INTO_WIN = "8/8/8/3k4/8/3B1N2/7r/4K3 w - - 0 1"
# Five men, no capture at hand: the tables are reached only deep in the tree.
ROOKS = "8/8/4k3/8/2r5/8/1R6/K6R w - - 0 1"


@pytest.fixture(scope="module")
def tables34():
    tb = Tablebases()
    assert tb.load(str(TB34)) == 35
    yield tb
    tb.close()


def test_search_probes_and_scores_a_tb_win(engine, tables34):
    """go depth 14 from five men: tbhits > 0 and the capture into the won KBNvK scores as a
    TB win (TB_WIN - 1: one ply below the root, below the mate range); without the tables the
    same search scores an evaluation."""
    engine.clear()
    engine.set_position(CAPTURE_INTO_WIN, [])
    seen = []
    best, _ = engine.search(Limits(depth=14), on_info=seen.append, tablebases=tables34)
    assert best == "f3h2" and seen[-1]["tbhits"] > 0
    assert seen[-1]["score"] == TB_WIN - 1 and seen[-1]["mate"] is None
    engine.clear()
    seen = []
    best, _ = engine.search(Limits(depth=14), on_info=seen.append)
    assert best == "f3h2" and seen[-1]["tbhits"] == 0 and seen[-1]["score"] < TB_WIN - 200


def test_uci_go_depth_14_counts_interior_probes(session):
    """Through UCI: interior probes show in tbhits; SyzygyProbeLimit 0 switches them off."""
    session(f"setoption name SyzygyPath value {TB34}")
    for limit, probed in (("7", True), ("0", False)):
        session(f"setoption name SyzygyProbeLimit value {limit}", "ucinewgame",
                f"position fen {ROOKS}")
        session.uci.handle("go depth 14")
        deadline = time.monotonic() + 300
        while "bestmove" not in session.out.getvalue()[session.pos:] and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        info = [ln for ln in session() if ln.startswith("info depth")]
        hits = int(info[-1].split(" tbhits ")[1].split()[0])
        assert info[-1].startswith("info depth 14 ") and (hits > 0) == probed, info[-1]


def test_search_skips_corrupt_table(engine, tmp_path):
    """A table whose data the search finds corrupt is switched off and reported once; the
    search keeps its result from the other tables."""
    for f in TB34.glob("*.rtbw"):
        shutil.copy(f, tmp_path)
    data = bytearray((TB34 / "KBNvK.rtbw").read_bytes())
    good = WdlTables([str(TB34)])
    a = good.array
    ent = int(a[int(a[TF.H_TABLES]) + good.names.index("KBNvK") * TF.TREC_LEN + TF.T_ENTRY])
    for side in range(2):                   # every index entry: a block beyond the table
        e = ent + side * TF.EREC_LEN
        start = int(a[e + TF.E_INDEX])
        for i in range(int(a[e + TF.E_NINDEX])):
            data[start + 6 * i:start + 6 * i + 4] = b"\xff\xff\xff\x7f"
    (tmp_path / "KBNvK.rtbw").write_bytes(bytes(data))
    tb = Tablebases()
    assert tb.load(str(tmp_path)) == 35
    engine.clear()
    engine.set_position(CAPTURE_INTO_WIN, [])
    seen = []
    best, _ = engine.search(Limits(depth=10), on_info=seen.append, tablebases=tb)
    assert best == "f3h2" and seen[-1]["score"] < TB_BOUND     # no TB score from KBNvK
    errors = tb.take_errors()
    assert len(errors) == 1 and "KBNvK.rtbw" in errors[0] and tb.take_errors() == []
    engine.clear()
    engine.set_position(ROOKS, [])
    seen = []
    engine.search(Limits(depth=10), on_info=seen.append, tablebases=tb)
    assert seen[-1]["tbhits"] > 0
    tb.close()


def test_setoption_value_parsing(session):
    """A value keeps inner spaces; tabs separate tokens; no value clears a string option."""
    assert UCI._raw_value("setoption name SyzygyPath value /a b/c ") == "/a b/c"
    assert UCI._raw_value("setoption\tname BookFile\tvalue\tx.bin") == "x.bin"
    assert UCI._raw_value("setoption name SyzygyPath value") == ""
    session(f"setoption name SyzygyPath value {TB_DIR}")
    session("setoption name SyzygyPath")
    assert session.uci.options["syzygypath"].value == "<empty>"
    assert not session.uci.tablebases.active
