"""Polyglot opening book (:mod:`uci_engine.book`) and the UCI options OwnBook / BookFile.

tests/data/polyglot/performance.bin: Performance.bin (wbec-ridderkerk.nl), 92,954 entries.
python-chess's ``chess.polyglot`` reader is the oracle for which moves the book holds.
"""
import io
import random
import time
from pathlib import Path

import chess
import chess.polyglot
import pytest

from uci_engine.book import Book, BookError
from uci_engine.uci import UCI

BOOK = Path(__file__).parent / "data" / "polyglot" / "performance.bin"
CASTLE_LINE = "c2c4 g8f6 d2d4 e7e6 b1c3 f8b4 d1c2"      # the book answers e8g8 (O-O)


def book_moves(fen, chess960=False):
    board = chess.Board(fen, chess960=chess960)
    with chess.polyglot.open_reader(str(BOOK)) as r:
        return {board.uci(e.move) for e in r.find_all(board)}


def test_probe_draws_book_moves_by_weight():
    book = Book(random.Random(7))
    assert book.load(str(BOOK)) == 92954
    start = chess.STARTING_FEN
    want = book_moves(start)
    assert len(want) >= 2
    drawn = [book.probe(start)[0] for _ in range(60)]
    assert set(drawn) == want              # every book move, nothing else (equal weights)
    board = chess.Board()
    board.push_uci("e2e4")
    assert book.probe(board.fen())[0] in book_moves(board.fen())
    assert book.probe("8/8/8/4k3/8/8/8/KQ6 w - - 0 1") is None


def test_ponder_move_is_a_book_reply():
    book = Book(random.Random(1))
    book.load(str(BOOK))
    move, ponder = book.probe(chess.STARTING_FEN)
    board = chess.Board()
    board.push_uci(move)
    assert ponder in book_moves(board.fen())


def test_castling_notation():
    board = chess.Board()
    for m in CASTLE_LINE.split():
        board.push_uci(m)
    book = Book(random.Random(0))
    book.load(str(BOOK))
    seen = {book.probe(board.fen())[0] for _ in range(40)}
    assert "e8g8" in seen and seen <= book_moves(board.fen())
    seen960 = {book.probe(board.fen(), chess960=True)[0] for _ in range(40)}
    assert "e8h8" in seen960                 # king takes rook under UCI_Chess960


@pytest.mark.parametrize("content", [b"", b"x" * 17, bytes(range(16)) + bytes(16)])
def test_bad_files_keep_the_book(tmp_path, content):
    book = Book()
    book.load(str(BOOK))
    bad = tmp_path / "bad.bin"
    bad.write_bytes(content)
    for path in (bad, tmp_path / "missing.bin", tmp_path):
        with pytest.raises(BookError):
            book.load(str(path))
        assert book.path == str(BOOK) and book.probe(chess.STARTING_FEN) is not None


# --- UCI ----------------------------------------------------------------------------------------

class Session:
    def __init__(self):
        self.out = io.StringIO()
        self.uci = UCI(out=self.out)
        self.uci.book.rng = random.Random(3)
        self.pos = 0

    def __call__(self, *lines, until=None):
        for line in lines:
            self.uci.handle(line)
        deadline = time.monotonic() + 120
        while until and until not in self.out.getvalue()[self.pos:]:
            assert time.monotonic() < deadline, self.out.getvalue()[self.pos:]
            time.sleep(0.01)
        text = self.out.getvalue()
        new, self.pos = text[self.pos:], len(text)
        return new.splitlines()


@pytest.fixture
def session():
    return Session()


def test_uci_lists_book_options(session):
    lines = session("uci")
    assert "option name OwnBook type check default false" in lines
    assert "option name BookFile type string default <empty>" in lines


def test_uci_go_answers_from_the_book(session):
    assert session(f"setoption name BookFile value {BOOK}") == \
        [f"info string book {BOOK} with 92954 entries"]
    session("setoption name OwnBook value true", "isready", until="readyok")
    lines = session("position startpos", "go wtime 60000 btime 60000", until="bestmove")
    assert lines[0].startswith("info string book move ")
    move = lines[0].split()[-1]
    assert move in book_moves(chess.STARTING_FEN)
    assert lines[-1].split()[:2] == ["bestmove", move] and len(lines) == 2
    # out of book: a normal search
    lines = session("position fen 8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "go depth 3", until="bestmove")
    assert not any("book" in ln for ln in lines) and any(ln.startswith("info depth") for ln in lines)
    # analysis (go infinite) searches even in book
    session("position startpos", "go infinite")
    time.sleep(0.2)
    lines = session("stop", until="bestmove")
    assert not any("book" in ln for ln in lines) and any(ln.startswith("info depth") for ln in lines)
    # OwnBook off: a normal search
    session("setoption name OwnBook value false")
    lines = session("position startpos", "go depth 2", until="bestmove")
    assert not any("book" in ln for ln in lines)


def test_uci_bad_book_keeps_the_old_one(session, tmp_path):
    session(f"setoption name BookFile value {BOOK}")
    (tmp_path / "odd.bin").write_bytes(b"abc")
    for bad in (tmp_path / "odd.bin", tmp_path / "nope.bin"):
        lines = session(f"setoption name BookFile value {bad}")
        assert len(lines) == 1 and lines[0].startswith("info string error: BookFile"), lines
        assert session.uci.options["bookfile"].value == str(BOOK)
    session("setoption name OwnBook value true", "isready", until="readyok")
    lines = session("position startpos moves e2e4", "go movetime 1000", until="bestmove")
    assert lines[0].startswith("info string book move ")
    assert lines[0].split()[-1] in {"e7e5", "c7c5"}
