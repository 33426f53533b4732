"""End-to-end UCI tests: the installed ``uci-engine`` console script driven as a subprocess.

Two drivers: python-chess's ``SimpleEngine`` (one process for the module) for the ordinary
GUI-style traffic, and :class:`Raw` (:class:`uci_engine.tools.uci_driver.UciPipe`, a line-level
pipe with timeouts) for protocol details that python-chess hides or refuses (``bestmove 0000``,
ponderhit, bad input, ``d``, ``go perft``).

The first engine start may have to compile every kernel (empty Numba cache in CI), so a module
fixture runs ``uci-engine warmup`` once with a generous timeout before anything else.
"""
import re
import subprocess
import time

import chess
import chess.engine
import pytest

from pathlib import Path

from uci_engine.tools.uci_driver import UciPipe, engine_cmd

DATA = Path(__file__).parent / "data"
STARTUP_TIMEOUT = 600          # cold Numba cache: every kernel compiles on first use
TIMEOUT = 60                   # python-chess communication timeout once warm


@pytest.fixture(scope="module", autouse=True)
def warm_cache():
    """Compile (or load) all kernels once, so later starts take about a second."""
    res = subprocess.run(engine_cmd() + ["warmup"], capture_output=True, text=True,
                         timeout=STARTUP_TIMEOUT)
    assert res.returncode == 0, res.stderr
    assert "warmup done" in res.stdout


@pytest.fixture(scope="module")
def engine(warm_cache):
    eng = chess.engine.SimpleEngine.popen_uci(engine_cmd(), timeout=TIMEOUT)
    yield eng
    eng.quit()


# --- raw protocol helper -----------------------------------------------------------------------

PROTOCOL_WORDS = {"id", "option", "uciok", "readyok", "bestmove", "info", "copyprotection",
                  "registration"}
D_LINE = re.compile(r"^( \+(---\+){8}| \|( [ PNBRQKpnbrqk] \|){8} [1-8]|   a   b   c   d   e   f"
                    r"   g   h|Fen: .+|Key: [0-9A-F]{16}|Checkers:( [a-h][1-8])* ?)$")
PERFT_LINE = re.compile(r"^([a-h][1-8][a-h][1-8][nbrq]?: \d+|Nodes searched: \d+|)$")


def is_protocol_line(line):
    """True for a line a UCI GUI may see: standard replies, plus ``d`` and ``go perft``."""
    words = line.split()
    if words and words[0] in PROTOCOL_WORDS:
        return True
    return bool(D_LINE.match(line) or PERFT_LINE.match(line))


class Raw(UciPipe):
    """The engine's raw lines with this module's start-up timeouts, plus ``d``'s FEN. Every
    stdout line is kept in ``self.log`` so tests can check that stdout carried only protocol
    lines."""

    def sync(self, timeout=STARTUP_TIMEOUT):
        return super().sync(timeout)

    def start(self):
        """``uci`` and ``isready``, then ``d``, which waits for the kernels: ``isready``
        answers after READY_PATIENCE_S even while they still load (a busy machine), and a
        ``go`` then may get the fallback search's move."""
        super().start(uciok_timeout=30, ready_timeout=STARTUP_TIMEOUT)
        self.fen()
        return self

    def fen(self):
        """The ``Fen:`` line of the ``d`` command (read through its last line)."""
        self.send("d")
        lines = self.expect("Checkers:")
        return [ln for ln in lines if ln.startswith("Fen: ")][-1][len("Fen: "):]


@pytest.fixture
def raw(warm_cache):
    r = Raw().start()
    yield r
    r.quit()
    bad = [ln for ln in r.log if not is_protocol_line(ln)]
    assert not bad, f"non-protocol lines on stdout: {bad}"


@pytest.fixture(scope="module")
def shared_raw(warm_cache):
    """One raw process for the bad-input tests (each test resets the position first)."""
    r = Raw().start()
    yield r
    rc = r.quit()
    assert rc == 0
    bad = [ln for ln in r.log if not is_protocol_line(ln)]
    assert not bad, f"non-protocol lines on stdout: {bad}"


def bestmove_of(line):
    assert line.startswith("bestmove "), line
    return line.split()[1]


def infos(lines):
    return [ln for ln in lines if ln.startswith("info ") and " pv " in ln]


# --- python-chess driven ------------------------------------------------------------------------

def test_analyse_depth(engine):
    board = chess.Board()
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    assert info["depth"] >= 6
    assert "score" in info and info["nodes"] > 0
    pv = info["pv"]
    assert pv, info
    b = board.copy()
    for mv in pv:
        assert mv in b.legal_moves, (mv, b.fen(), pv)
        b.push(mv)


def test_analyse_middlegame_pv_legal(engine):
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    assert info["depth"] >= 5 and info["pv"]
    b = board.copy()
    for mv in info["pv"]:
        assert mv in b.legal_moves, (mv, b.fen())
        b.push(mv)


@pytest.mark.parametrize("clock,inc", [(10.0, 0.1), (1.0, 0.0), (0.3, 0.05)])
def test_play_with_clock(engine, clock, inc):
    board = chess.Board()
    engine.configure({"Clear Hash": None})
    for _ in range(4):
        limit = chess.engine.Limit(white_clock=clock, black_clock=clock,
                                   white_inc=inc, black_inc=inc)
        t = time.monotonic()
        res = engine.play(board, limit)
        elapsed = time.monotonic() - t
        assert res.move in board.legal_moves
        # a sane share of the clock: never more than half of what is left (+ pipe latency)
        assert elapsed < clock * 0.5 + inc + 0.15, (elapsed, clock)
        board.push(res.move)


def test_no_flag_with_a_tenth_of_a_second_left(engine):
    """0.1 s on the clock and a 0.01 s increment: the engine plays on, keeping a clock the way a
    GUI does (time from go to bestmove is charged, the increment added after each move)."""
    board = chess.Board()
    engine.configure({"Clear Hash": None})
    engine.ping()                  # isready before the clock starts, as GUIs do
    clock = 0.1
    for ply in range(30):
        limit = chess.engine.Limit(white_clock=clock, black_clock=clock,
                                   white_inc=0.01, black_inc=0.01)
        t = time.monotonic()
        res = engine.play(board, limit)
        clock -= time.monotonic() - t
        assert clock > 0, f"flagged at ply {ply}"
        clock += 0.01
        assert res.move in board.legal_moves
        board.push(res.move)
        if board.is_game_over():
            break


def test_loaded_session_leaves_its_objects_to_no_collection(warm_cache):
    """Once the kernels are loaded, the objects made so far (modules, Numba's dispatchers) are
    in the permanent generation (``gc.freeze``), so a full collection during a move walks only
    what came after: with them it took 70 ms of CPU, longer than a low-clock move's limit."""
    import sys
    code = ("import gc, io\n"
            "from uci_engine import uci\n"
            "u = uci.UCI(out=io.StringIO())\n"
            "assert u.ready.wait(300) and u.engine is not None, u.load_error\n"
            "print(gc.get_freeze_count(), len(gc.get_objects()))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=STARTUP_TIMEOUT)
    assert res.returncode == 0, res.stderr
    frozen, walked = map(int, res.stdout.split()[-2:])
    assert frozen > 50_000 and walked < frozen // 20, (frozen, walked)


def test_game_with_growing_move_list(engine):
    """python-chess sends ``position startpos moves ...`` with the whole game each time."""
    board = chess.Board()
    for ply in range(12):
        res = engine.play(board, chess.engine.Limit(time=0.1), game="growing")
        assert res.move in board.legal_moves, (ply, res.move, board.fen())
        board.push(res.move)
        if board.is_game_over():
            break
    assert len(board.move_stack) >= 8


def test_stop_infinite_analysis(engine):
    board = chess.Board()
    with engine.analysis(board) as analysis:
        time.sleep(0.5)
        t = time.monotonic()
        analysis.stop()
        best = analysis.wait()
        assert time.monotonic() - t < 1.0
    assert best.move in board.legal_moves


def test_multipv_3(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos_ = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert len(infos_) == 3
    firsts = [i["pv"][0] for i in infos_]
    assert len(set(firsts)) == 3, firsts
    for i in infos_:
        assert i["pv"][0] in board.legal_moves
    scores = [i["score"].relative.score(mate_score=100000) for i in infos_]
    assert scores == sorted(scores, reverse=True), scores
    # back to one line
    one = engine.analyse(board, chess.engine.Limit(depth=4))
    assert one["pv"][0] in board.legal_moves


def test_searchmoves(engine):
    board = chess.Board()
    allowed = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h4")]
    info = engine.analyse(board, chess.engine.Limit(depth=5), root_moves=allowed)
    assert info["pv"][0] in allowed
    res = engine.play(board, chess.engine.Limit(depth=4), root_moves=[allowed[1]])
    assert res.move == allowed[1]


# Chess960 positions from tests/data/perft960.epd where castling is legal, covering: king and
# rook swapping squares (f1g1), king staying put (g1h1), long castling with the rook moving
# across (d1a1), a king that passes over the rook's square (e1c1 / e1h1), castling with the
# king on b1, and a position with both castlings.
CHESS960 = [
    ("qnbnr1kr/ppp1b1pp/4p3/3p1p2/8/2NPP3/PPP1BPPP/QNB1R1KR w HEhe - 1 9", "g1h1"),
    ("bbqr1krn/pppp1p1p/5n2/4p1p1/3P4/P3QP2/1PP1P1PP/BB1RNKRN w GDgd - 0 9", "f1g1"),
    ("rnbkrbqn/p1pp1ppp/4p3/1p6/8/BPN3P1/P1PPPP1P/R2KRBQN w EAea - 2 9", "d1a1"),
    ("bbrqknnr/ppp4p/3pp3/5pp1/4PP2/5Q2/PPPP2PP/BBR1KNNR w HChc - 0 9", "e1c1"),
    ("qbnrkn1r/1pppp1p1/p3bp2/2BN3p/8/5P2/PPPPP1PP/QBNRK2R w HDhd - 0 9", "e1h1"),
    ("rkn1bqrb/pnp1pppp/3p4/8/Pp6/1N2NP2/1PPPP1PP/RK2BQRB w GAga - 0 9", "b1a1"),
    ("bbrk2qr/pp1p1ppp/3n2n1/2p1p3/3P1P2/6N1/PPP1P1PP/BBRKN1QR w HChc - 0 9", "d1c1"),
    ("bbnrk1rq/pp2p1pp/2ppn3/5p2/8/3NNP1P/PPPPP1P1/BB1RK1RQ w GDgd - 1 9", "e1g1"),
]


def board_equal(fen_a, fen_b, chess960=True):
    a, b = chess.Board(fen_a, chess960=chess960), chess.Board(fen_b, chess960=chess960)
    return (a.board_fen() == b.board_fen() and a.turn == b.turn
            and a.castling_rights == b.castling_rights and a.ep_square == b.ep_square)


@pytest.mark.parametrize("fen,castle", CHESS960)
def test_chess960_castling(engine, fen, castle):
    board = chess.Board(fen, chess960=True)
    move = chess.Move.from_uci(castle)
    assert board.is_castling(move), "test data: castling must be legal here"
    # the engine can be told to castle and then searches only that move
    res = engine.play(board, chess.engine.Limit(depth=3), root_moves=[move])
    assert res.move == move
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    b = board.copy()
    for mv in info["pv"]:
        assert mv in b.legal_moves, (mv, b.fen(), info["pv"])
        b.push(mv)


def test_chess960_raw_position_and_pv(raw):
    raw.send("setoption name UCI_Chess960 value true")
    for fen, castle in CHESS960:
        board = chess.Board(fen, chess960=True)
        board.push(chess.Move.from_uci(castle))
        raw.send(f"position fen {fen} moves {castle}")
        got = raw.fen()
        assert board_equal(got, board.fen()), (fen, castle, got, board.fen())
        # and the castling move comes back in king-takes-rook form
        raw.send(f"position fen {fen}", f"go depth 2 searchmoves {castle}")
        assert bestmove_of(raw.expect("bestmove")[-1]) == castle
    # the standard-chess king-two-squares notation is accepted in a standard game too
    raw.send("setoption name UCI_Chess960 value false")
    raw.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1")
    assert raw.fen().startswith("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq")


# Mate problems, each checked with a python-chess solver when the test data was written: the
# score is ``mate N`` and the PV mates in exactly N moves.
MATES = [
    # back-rank mate in 1
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1, 6),
    # queen and knight, smothered: 1. Nf7#
    ("6rk/6pp/8/6N1/8/8/8/6QK w - - 0 1", 1, 6),
    # king and rook: 1. Kh5 Kg8 2. Kg6 Kh8 3. Rf8#
    ("7k/5R2/8/8/7K/8/8/8 w - - 0 1", 3, 10),
    # Morphy: 1. Ra6! bxa6 (1... Bc7 2. Rxa7#) 2. b7#. After 1. Ra6 black is in zugzwang: every
    # move loses, passing would not; the null-move guard (no null move with a lone minor) sees it.
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2, 8),
    # WAC.001: 1. Qg6! is mate in 2 (quiet queen sacrifice). Depth 14: the default NNUE
    # (gen2_h128) finds it at depth 14 (202k nodes), the hand-crafted evaluation at depth 10-11
    # (issue 10's pruning moved it from 10 to 11); the net scores the sacrifice lower, so the
    # pruning tries it later. The games of docs/strength.md judge both trades.
    ("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1", 2, 14),
]


@pytest.mark.parametrize("fen,n,depth", MATES)
def test_mate_in_n(engine, fen, n, depth):
    board = chess.Board(fen)
    engine.configure({"Clear Hash": None})
    info = engine.analyse(board, chess.engine.Limit(depth=depth))
    score = info["score"].relative
    assert score.is_mate() and score.mate() == n, (score, info.get("pv"))
    b = board.copy()
    for mv in info["pv"][:2 * n - 1]:
        assert mv in b.legal_moves
        b.push(mv)
    assert b.is_checkmate(), (info["pv"], b.fen())


def test_mated_side_reports_negative_mate(engine):
    # Morphy's problem after 1. Ra6: black is mated next move whatever it plays
    board = chess.Board("kbK5/pp6/RP6/8/8/8/8/8 b - - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    score = info["score"].relative
    assert score.is_mate() and score.mate() == -1, score


# --- raw protocol ---------------------------------------------------------------------------------

def test_uci_handshake_and_options(raw):
    raw.send("uci")
    lines = raw.expect("uciok")
    assert lines[0].startswith("id name ")
    names = {re.match(r"option name (.+?) type", ln).group(1)
             for ln in lines if ln.startswith("option ")}
    assert {"Hash", "MultiPV", "Ponder", "UCI_Chess960", "Move Overhead"} <= names


@pytest.mark.parametrize("fen", [
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",          # stalemate
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",        # checkmate
])
def test_no_legal_moves_bestmove_0000(raw, fen):
    raw.send(f"position fen {fen}", "go depth 5")
    assert raw.expect("bestmove", 10)[-1] == "bestmove 0000"
    raw.send("go movetime 100")
    assert raw.expect("bestmove", 10)[-1] == "bestmove 0000"
    raw.send("go wtime 1000 btime 1000")
    assert raw.expect("bestmove", 10)[-1] == "bestmove 0000"
    raw.send("go infinite")
    assert not [ln for ln in raw.drain(0.3) if ln.startswith("bestmove")]
    raw.send("stop")
    assert raw.expect("bestmove", 5)[-1] == "bestmove 0000"


def test_raw_searchmoves(raw):
    raw.send("position startpos", "go depth 5 searchmoves a2a3")
    assert bestmove_of(raw.expect("bestmove")[-1]) == "a2a3"
    raw.send("go depth 4 searchmoves b1a3 g1h3")
    lines = raw.expect("bestmove")
    assert bestmove_of(lines[-1]) in ("b1a3", "g1h3")
    assert all(ln.split(" pv ")[1].split()[0] in ("b1a3", "g1h3") for ln in infos(lines))
    # an illegal move in the list is reported and skipped
    raw.send("go depth 3 searchmoves e2e5 d2d4")
    lines = raw.expect("bestmove")
    assert any(ln.startswith("info string error:") and "e2e5" in ln for ln in lines)
    assert bestmove_of(lines[-1]) == "d2d4"


def test_ponder_then_ponderhit(raw):
    raw.send("setoption name Ponder value true")
    raw.send("position startpos moves e2e4 e7e5 g1f3", "go ponder wtime 3000 btime 3000 "
             "winc 100 binc 100")
    early = raw.drain(1.0)
    assert not [ln for ln in early if ln.startswith("bestmove")], early
    assert infos(early), "pondering search should report progress"
    t = time.monotonic()
    raw.send("ponderhit")
    line = raw.expect("bestmove", 5)[-1]
    assert time.monotonic() - t < 2.0
    board = chess.Board()
    for m in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(m)
    assert chess.Move.from_uci(bestmove_of(line)) in board.legal_moves


def test_ponder_then_stop(raw):
    raw.send("position startpos moves d2d4", "go ponder wtime 60000 btime 60000")
    assert not [ln for ln in raw.drain(0.5) if ln.startswith("bestmove")]
    t = time.monotonic()
    raw.send("stop")
    raw.expect("bestmove", 3)
    assert time.monotonic() - t < 1.0


def test_stop_infinite_raw(raw):
    raw.send("position startpos", "go infinite")
    early = raw.drain(0.5)
    assert not [ln for ln in early if ln.startswith("bestmove")]
    t = time.monotonic()
    raw.send("stop")
    line = raw.expect("bestmove", 3)[-1]
    assert time.monotonic() - t < 1.0
    assert chess.Move.from_uci(bestmove_of(line)) in chess.Board().legal_moves


def test_every_go_gets_one_bestmove(raw):
    raw.send("position startpos")
    gos = 0
    for i in range(6):
        raw.send("go infinite", "stop")
        gos += 1
    for i in range(3):
        raw.send("go depth 2")
        gos += 1
    raw.send("go infinite", "go depth 1")          # a new go ends the running search
    gos += 2
    raw.send("go movetime 50", "stop", "stop")
    gos += 1
    seen = []
    deadline = time.monotonic() + 15
    while len(seen) < gos and time.monotonic() < deadline:
        try:
            line = raw.readline(deadline - time.monotonic())
        except TimeoutError:
            break
        if line.startswith("bestmove"):
            seen.append(line)
    assert len(seen) == gos, seen
    extra = [ln for ln in raw.drain(0.5) if ln.startswith("bestmove")]
    assert not extra, extra
    assert raw.sync(10) is not None


def test_quit_during_search_exits_promptly(warm_cache):
    r = Raw().start()
    r.send("position startpos", "go infinite")
    r.drain(0.3)
    t = time.monotonic()
    rc = r.quit(timeout=5)
    assert rc == 0
    assert time.monotonic() - t < 2.0


def test_eof_exits(warm_cache):
    r = Raw().start()
    r.proc.stdin.close()
    assert r.proc.wait(5) == 0


def test_go_perft_divide(raw):
    raw.send("position startpos", "go perft 3")
    lines = raw.expect("Nodes searched:", 30)
    assert lines[-1] == "Nodes searched: 8902"
    assert lines[-2] == ""
    moves = dict(ln.split(": ") for ln in lines[:-2])
    board = chess.Board()
    expected = {}
    for mv in board.legal_moves:
        board.push(mv)
        expected[mv.uci()] = sum(1 for _ in _leaves(board, 2))
        board.pop()
    assert {k: int(v) for k, v in moves.items()} == expected
    assert expected["e2e4"] == 600 and expected["a2a3"] == 380
    # perft from a position with moves, and depth 1
    raw.send("position startpos moves e2e4", "go perft 1")
    lines = raw.expect("Nodes searched:", 10)
    assert lines[-1] == "Nodes searched: 20" and len(lines) == 22


def _leaves(board, depth):
    if depth == 0:
        yield 1
        return
    for mv in list(board.legal_moves):
        board.push(mv)
        yield from _leaves(board, depth - 1)
        board.pop()


def test_stdout_only_protocol_lines(raw):
    raw.send("debug on", "position startpos moves e2e4", "go depth 3", "ucinewgame",
             "setoption name Hash value 8", "setoption name Clear Hash", "eval_unknown",
             "go movetime 100", "debug off")
    raw.expect("bestmove")
    raw.expect("bestmove")
    raw.sync()
    # the ``raw`` fixture checks every stdout line when the test ends


# --- bad input ---------------------------------------------------------------------------------

BASE_MOVES = "e2e4 c7c5 g1f3"

BAD_COMMANDS = [
    "foo bar",
    "positoin startpos",
    "go_on",
    "Position startpos",
    "position",
    "position fen",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
    "position fen rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "position fen rnbqkbnr/ppppXppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
    "position fen k6R/8/8/8/8/8/8/K7 w - - 0 1",
    "position fen hello world",
    "position startpos moves e2e5",
    "position startpos moves e2e4 e2e4",
    "position startpos moves e7e5",
    "position startpos moves e1g1",
    "position startpos moves xyz",
    "position startpos moves e2e4 e7e5 e1e2 e8e7 e2e3 e7e6 a1a1",
    "position nonsense",
    "setoption name NoSuchOption value 1",
    "setoption name Hash value 0",
    "setoption name Hash value 100000",
    "setoption name Hash value abc",
    "setoption name Hash value -16",
    "setoption name MultiPV value 0",
    "setoption name MultiPV value 1.5",
    "setoption name Move Overhead value 99999999999999999999",
    "setoption name Ponder value maybe",
    "setoption name UCI_Chess960 value 1",
    "setoption name Hash",
    "setoption name Hash value",
    "setoption Hash value 16",
    "setoption",
    "debug maybe",
]


def _reset(r):
    r.send("setoption name MultiPV value 1", f"position startpos moves {BASE_MOVES}")
    fen = r.fen()
    board = chess.Board()
    for m in BASE_MOVES.split():
        board.push_uci(m)
    assert fen == board.fen()
    return fen


@pytest.mark.parametrize("cmd", BAD_COMMANDS)
def test_bad_command_keeps_position(shared_raw, cmd):
    r = shared_raw
    fen = _reset(r)
    r.send(cmd)
    lines = r.sync(10)
    errors = [ln for ln in lines if ln.startswith("info string error:")]
    assert len(errors) == 1, (cmd, lines)
    assert all(is_protocol_line(ln) for ln in lines), lines
    assert r.fen() == fen
    # and the engine still searches the right position
    r.send("go depth 2")
    board = chess.Board(fen)
    assert chess.Move.from_uci(bestmove_of(r.expect("bestmove")[-1])) in board.legal_moves


# (go arguments, whether the search still needs ``stop``)
BAD_GO = [
    ("go depth -3", True),
    ("go depth abc", True),
    ("go depth 0", True),
    ("go depth", True),
    ("go movetime -5", True),
    ("go movetime 1e3", True),
    ("go movetime", True),
    ("go nodes -100", True),
    ("go nodes many", True),
    ("go mate -2", True),
    ("go movestogo 0 wtime 500 btime 500", False),
    ("go wtime -100 btime -100", False),
    ("go wtime abc btime 1000 depth 3", False),
    ("go depth 99999999999999999999999", True),
    ("go movetime 99999999999999999999999", True),
    ("go nodes 99999999999999999999999", True),
    ("go wtime 99999999999999999999999 btime 99999999999999999999999", True),
    ("go mate 99999999999999999999999", True),
    ("go frobnicate", True),
    ("go depth 3 frobnicate", False),
    ("go searchmoves e2e5 depth 3", False),
]


@pytest.mark.parametrize("cmd,needs_stop", BAD_GO)
def test_bad_go_arguments(shared_raw, cmd, needs_stop):
    r = shared_raw
    fen = _reset(r)
    r.send(cmd)
    if needs_stop:
        early = r.drain(0.3)
        assert not [ln for ln in early if ln.startswith("bestmove")], (cmd, early)
        r.send("stop")
    else:
        early = []
    lines = early + r.expect("bestmove", 10)
    errors = [ln for ln in lines if ln.startswith("info string error:")]
    assert len(errors) >= 1, (cmd, lines)
    board = chess.Board(fen)
    assert chess.Move.from_uci(bestmove_of(lines[-1])) in board.legal_moves, lines
    assert not [ln for ln in r.drain(0.2) if ln.startswith("bestmove")]
    assert r.fen() == fen
    assert all(is_protocol_line(ln) for ln in lines), lines


def test_bad_perft_depth(shared_raw):
    r = shared_raw
    fen = _reset(r)
    r.send("go perft -1")
    lines = r.sync(10)
    # either an error, or (depth < 1 is accepted as perft 0) the one-node answer
    assert any(ln.startswith("info string error:") for ln in lines) or \
        "Nodes searched: 1" in lines, lines
    assert r.fen() == fen


# lines no GUI sends, beyond the malformed commands above: control characters, the engine's own
# replies echoed back, a non-ASCII command, a 5000-move line (its second move is illegal)
GARBAGE = ["\x01\x02\x03", "readyok", "bestmove e2e4", "\u00e9chec et mat",
           "position startpos moves " + " ".join(["e2e4"] * 5000)]
NOT_UTF8 = b"\xff\xfe not utf-8\n"


def test_engine_alive_after_bad_input(raw):
    """A fresh engine gets every malformed line in one burst, without waiting for the replies,
    and then a line that is not UTF-8: each gets exactly one ``info string error:``, in order,
    and the engine still answers ``readyok`` and plays a legal move from a legal position."""
    bad = BAD_COMMANDS + GARBAGE
    raw.send(*bad)
    raw.proc.stdin.buffer.write(NOT_UTF8)
    raw.proc.stdin.buffer.flush()
    lines = raw.sync(30)
    errors = [ln for ln in lines if ln.startswith("info string error:")]
    assert len(errors) == len(bad) + 1, lines
    assert "foo bar" in errors[0] and "not utf-8" in errors[-1], errors
    raw.send(f"position startpos moves {BASE_MOVES}", "go depth 1")
    lines = raw.expect("bestmove", 30)
    assert not [ln for ln in lines if ln.startswith("info string error:")], lines
    board = chess.Board()
    for m in BASE_MOVES.split():
        board.push_uci(m)
    assert chess.Move.from_uci(bestmove_of(lines[-1])) in board.legal_moves, lines
    assert raw.sync(10) == []
    assert raw.fen() == board.fen()


# --- command line ---------------------------------------------------------------------------

def test_bench_is_deterministic(warm_cache):
    outs = []
    for _ in range(2):
        res = subprocess.run(engine_cmd() + ["bench", "4"], capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, res.stderr
        lines = res.stdout.strip().splitlines()
        assert re.fullmatch(r"Nodes searched: \d+", lines[-2]), lines[-2:]
        assert re.fullmatch(r"Nodes/second: \d+", lines[-1]), lines[-2:]
        outs.append(int(lines[-2].split(": ")[1]))
    assert outs[0] == outs[1] > 0


def _bench_nodes(*args):
    res = subprocess.run(engine_cmd() + list(args), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return int(res.stdout.strip().splitlines()[-2].split(": ")[1])


def test_bench_evaluation_options(warm_cache):
    """``bench`` searches with the default evaluation; ``-o "Use NNUE=false"`` gives the
    hand-crafted signature and ``-o EvalFile=...`` another net's, each equal to the node count
    of an in-process Engine set up the same way; values the option table refuses (a bad
    value, an unknown option, a net that does not load) exit 2."""
    from uci_engine.bench import parse_bench, run_bench
    from uci_engine.engine import Engine
    from uci_engine.nnue_file import load_net, find_net
    want = {}
    for key in ("default", "hce", "gen1"):
        e = Engine(16)
        if key == "hce":
            e.set_use_nnue(False)
        elif key == "gen1":
            e.set_net(load_net(find_net("gen1_h128.nnue")))
        lines = []
        nodes, nps = run_bench(e, 4, out=lines.append)
        # the scripts read bench's summary with parse_bench
        assert parse_bench("\n".join(lines)) == (nodes, nps)
        want[key] = nodes
    assert len(set(want.values())) == 3
    assert _bench_nodes("bench", "4") == want["default"]
    assert _bench_nodes("-o", "Use NNUE=false", "bench", "4") == want["hce"]
    assert _bench_nodes("-o", "EvalFile=gen1_h128.nnue", "bench", "4") == want["gen1"]
    for bad in ("Hash=lots", "Use NNUE=maybe", "EvalFile=no-such.nnue", "NoSuchOption=1"):
        res = subprocess.run(engine_cmd() + ["-o", bad, "bench", "4"], capture_output=True,
                             text=True, timeout=300)
        assert res.returncode == 2 and "error:" in res.stderr, (bad, res.stderr)


def test_threads_limitstrength_elo_showwdl_options(raw):
    """Stockfish's names, types and ranges; out-of-range values rejected; the options act."""
    from uci_engine import strength
    from uci_engine import uci as U
    raw.send("uci")
    lines = raw.expect("uciok")
    opts = {ln for ln in lines if ln.startswith("option ")}
    assert f"option name Threads type spin default 1 min 1 max {U.MAX_THREADS}" in opts
    assert "option name UCI_LimitStrength type check default false" in opts
    assert (f"option name UCI_Elo type spin default {strength.ELO_DEFAULT} "
            f"min {strength.ELO_MIN} max {strength.ELO_MAX}") in opts
    assert "option name UCI_ShowWDL type check default false" in opts
    for bad in ("Threads value 0", f"Threads value {U.MAX_THREADS + 1}", "Threads value two",
                f"UCI_Elo value {strength.ELO_MIN - 1}", "UCI_ShowWDL value maybe"):
        raw.send(f"setoption name {bad}")
        assert raw.expect("info string error", 5)[-1].startswith("info string error:")
    # two threads: a search still answers with a legal move and sums both threads' nodes
    raw.send("setoption name Threads value 2", "setoption name UCI_ShowWDL value true",
             "position startpos moves e2e4", "go movetime 300")
    lines = raw.expect("bestmove", 20)
    assert chess.Move.from_uci(bestmove_of(lines[-1])) in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    wdls = [re.search(r" score (?:cp|mate) -?\d+ wdl (\d+) (\d+) (\d+)", ln) for ln in infos(lines)]
    assert wdls and all(m and sum(map(int, m.groups())) == 1000 for m in wdls)
    # limited strength: the node limit of the lowest Elo caps every search
    raw.send("setoption name Threads value 1", "setoption name UCI_ShowWDL value false",
             "setoption name UCI_LimitStrength value true",
             f"setoption name UCI_Elo value {strength.ELO_MIN}", "position startpos",
             "go depth 30")
    lines = raw.expect("bestmove", 20)
    nodes = [int(re.search(r" nodes (\d+)", ln).group(1)) for ln in infos(lines)]
    assert nodes and max(nodes) <= strength.nodes_for(strength.ELO_MIN) + 64
    assert not any(" wdl " in ln for ln in infos(lines))
    raw.send("setoption name UCI_LimitStrength value false")


def test_engine_and_uci_thread_bounds_agree():
    from uci_engine import uci as U
    from uci_engine.engine import MAX_THREADS
    assert U.MAX_THREADS == MAX_THREADS


def test_multipv_lines_come_best_first(raw):
    """Each iteration's MultiPV lines are reported in score order, whatever the order in which
    the exclusion searches found them (positions where they come out of order are common)."""
    raw.send("setoption name MultiPV value 4")
    for fen in ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"):
        raw.send(f"position fen {fen}", "go depth 7")
        lines = infos(raw.expect("bestmove", 30))
        by_depth = {}
        for ln in lines:
            if " bound" in ln or "lowerbound" in ln or "upperbound" in ln:
                continue
            d = int(re.search(r" depth (\d+)", ln).group(1))
            k = int(re.search(r" multipv (\d+)", ln).group(1))
            sc = re.search(r" score (cp|mate) (-?\d+)", ln)
            v = int(sc.group(2)) if sc.group(1) == "cp" else (100000 if int(sc.group(2)) > 0
                                                              else -100000)
            by_depth.setdefault(d, {})[k] = v
        full = [d for d, ks in by_depth.items() if len(ks) == 4]
        assert full
        for d in full:
            scores = [by_depth[d][k] for k in (1, 2, 3, 4)]
            assert scores == sorted(scores, reverse=True), (d, scores)
    raw.send("setoption name MultiPV value 1")


def test_command_line_options_are_set_before_the_first_command(warm_cache):
    """``uci-engine --option NAME=VALUE`` (for clients that cannot send setoption, such as
    fastchess --compliance): MultiPV 3 from the command line gives three lines; a bad value
    gets an error line and the engine carries on."""
    r = Raw(engine_cmd() + ["--option", "MultiPV=3", "-o", "Hash=lots", "--option", "Threads=2"])
    try:
        first = r.readline(30)
        assert first.startswith("info string error:") and "Hash" in first, first
        r.start()
        r.send("position startpos", "go depth 5")
        lines = infos(r.expect("bestmove", 30))
        assert {int(re.search(r" multipv (\d+)", ln).group(1)) for ln in lines} == {1, 2, 3}
    finally:
        r.quit()


def test_setoption_line_of_a_command_line_option():
    from uci_engine.uci import setoption_line
    assert setoption_line("Threads=2") == "setoption name Threads value 2"
    assert setoption_line("SyzygyPath=/a b/c") == "setoption name SyzygyPath value /a b/c"
    assert setoption_line("Clear Hash") == "setoption name Clear Hash"


def test_engine_exits_when_its_client_dies_mid_search(warm_cache):
    """A client that dies during a timed search closes both pipes: the engine stops and exits
    (it used to hang forever: the failed info write killed the search thread before it marked
    the search finished, and the loop waited for that at the end of its input)."""
    p = subprocess.Popen(engine_cmd(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        p.stdin.write("uci\nisready\nd\n")
        p.stdin.flush()
        while not p.stdout.readline().startswith("Checkers:"):   # d: the kernels are loaded
            pass
        p.stdin.write("position startpos\ngo wtime 20000 btime 20000 winc 200 binc 200\n")
        p.stdin.flush()
        assert p.stdout.readline().startswith("info ")             # the search is running
        p.stdout.close()
        p.stdin.close()
        assert p.wait(15) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
