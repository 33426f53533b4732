"""FEN / Shredder-FEN / X-FEN parsing and formatting (uci_engine.fen); Engine.set_position errors.

* every perft.epd and perft960.epd FEN survives parse -> format unchanged, agrees with
  python-chess, and parse(format(x)) reproduces the rows bit for bit;
* X-FEN ``KQkq`` castling of a Chess960 position parses to the same rows as its Shredder form;
* malformed FENs raise ValueError whose message names the bad field, and leave the target rows
  (and the neighbouring ones) untouched;
* Engine.set_position with an illegal move or a bad FEN raises ValueError and keeps the old
  position.
"""
import os

import chess
import numpy as np
import pytest

from uci_engine.engine import Engine
from uci_engine.fen import STARTPOS, format_fen, parse_fen
from uci_engine.kernels import position as P
from uci_engine.kernels.bitboard import NO_SQ

DATA = os.path.join(os.path.dirname(__file__), "data")


def _fens(name):
    with open(os.path.join(DATA, name)) as fh:
        return [ln.split(";")[0].strip() for ln in fh if ln.strip()]


STANDARD = _fens("perft.epd")
FISCHER = _fens("perft960.epd")


def is_960(fen):
    c = fen.split()[2]
    return c != "-" and any(ch not in "KQkq" for ch in c)


@pytest.mark.parametrize("name,fens", [("perft.epd", STANDARD), ("perft960.epd", FISCHER)])
def test_round_trip(new_stack, name, fens):
    st, mb = new_stack(2)
    for fen in fens:
        fischer = name == "perft960.epd" or is_960(fen)
        parse_fen(fen, st, mb, 0, chess960=fischer)
        out = format_fen(st, mb, 0)
        assert out == fen
        board = chess.Board(fen, chess960=fischer)
        assert out == board.fen(shredder=fischer, en_passant="xfen")
        assert int(st[0, P.KEY]) == int(P.compute_key(st, 0))
        parse_fen(out, st, mb, 1, chess960=fischer)
        assert np.array_equal(st[0], st[1]) and np.array_equal(mb[0], mb[1]), fen


def test_xfen_castling_equals_shredder(new_stack):
    """X-FEN KQkq (outermost rook) and Shredder letters give the same rows for 960 positions."""
    st, mb = new_stack(2)
    seen_xfen = 0
    for fen in FISCHER:
        board = chess.Board(fen, chess960=True)
        xfen = board.fen(shredder=False)
        parse_fen(fen, st, mb, 0, chess960=True)
        parse_fen(xfen, st, mb, 1)          # no chess960 hint: the rook squares imply it
        seen_xfen += xfen != fen
        # the Chess960 flag cannot be inferred without castling rights on odd squares
        cols = [i for i in range(P.STATE_LEN) if i != P.CHESS960]
        assert np.array_equal(st[0, cols], st[1, cols]), xfen
        assert np.array_equal(mb[0], mb[1]), xfen
    assert seen_xfen > 500


def test_standard_flag_and_defaults(new_stack):
    st, mb = new_stack(1)
    parse_fen(STARTPOS, st, mb, 0)
    assert int(st[0, P.CHESS960]) == 0
    assert [int(st[0, P.ROOK_SQ + i]) for i in range(4)] == [7, 0, 63, 56]
    parse_fen(STARTPOS, st, mb, 0, chess960=True)
    assert int(st[0, P.CHESS960]) == 1
    assert format_fen(st, mb, 0).split()[2] == "HAha"
    # clocks may be omitted; fullmove 0 (sent by some GUIs) reads as 1
    parse_fen("4k3/8/8/8/8/8/8/4K3 b - -", st, mb, 0)
    assert format_fen(st, mb, 0) == "4k3/8/8/8/8/8/8/4K3 b - - 0 1"
    parse_fen("4k3/8/8/8/8/8/8/4K3 w - - 7 0", st, mb, 0)
    assert format_fen(st, mb, 0) == "4k3/8/8/8/8/8/8/4K3 w - - 7 1"


def test_ep_square_dropped_when_not_capturable(new_stack):
    st, mb = new_stack(1)
    parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", st, mb, 0)
    assert int(st[0, P.EP]) == NO_SQ
    assert format_fen(st, mb, 0).split()[3] == "-"
    parse_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", st, mb, 0)
    assert int(st[0, P.EP]) == 20
    assert format_fen(st, mb, 0).split()[3] == "e3"


_BASE = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
BAD = [
    # (case id, fen, field named in the message)
    ("placement-char", "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement"),
    ("placement-7-ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement"),
    ("placement-9-ranks", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "placement"),
    ("placement-9-squares", "rnbqkbnr/pppppppp/8/8/4p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "placement"),
    ("placement-9-pieces", "rnbqkbnrp/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "placement"),
    ("placement-8-then-piece", "rnbqkbnr/pppppppp/8p/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "placement"),
    ("placement-digit-9", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement"),
    ("placement-digit-0", "rnbqkbnr/pppppppp/08/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "placement"),
    ("placement-7-squares", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "placement"),
    ("missing-white-king", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "placement"),
    ("missing-black-king", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "placement"),
    ("two-kings", "rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQKBNR w kq - 0 1", "placement"),
    ("pawn-rank-1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w Qkq - 0 1", "placement"),
    ("pawn-rank-8", "rnbqkbnp/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQq - 0 1", "placement"),
    ("side-x", f"{_BASE} x KQkq - 0 1", "side to move"),
    ("side-W", f"{_BASE} W KQkq - 0 1", "side to move"),
    ("castling-letter", f"{_BASE} w KQkx - 0 1", "castling"),
    ("castling-digit", f"{_BASE} w KQk1 - 0 1", "castling"),
    ("castling-repeat", f"{_BASE} w KKkq - 0 1", "castling"),
    ("castling-no-rook", "r3k3/8/8/8/8/8/8/R3K3 w KQkq - 0 1", "castling"),
    ("castling-no-rook-shredder", "r3k3/8/8/8/8/8/8/R3K3 w Ha - 0 1", "castling"),
    ("castling-king-off-rank", "r3k2r/8/8/8/8/8/4K3/R6R w KQkq - 0 1", "castling"),
    ("ep-square-rank", f"{_BASE} w KQkq e4 0 1", "en passant"),
    ("ep-square-wrong-side", f"{_BASE} w KQkq e3 0 1", "en passant"),
    ("ep-square-name", f"{_BASE} w KQkq z6 0 1", "en passant"),
    ("ep-square-long", f"{_BASE} w KQkq e66 0 1", "en passant"),
    ("ep-no-pawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "en passant"),
    ("clock-non-numeric", f"{_BASE} w KQkq - x 1", "move counters"),
    ("fullmove-non-numeric", f"{_BASE} w KQkq - 0 one", "move counters"),
    ("clock-negative", f"{_BASE} w KQkq - -1 1", "halfmove clock"),
    ("too-few-fields", f"{_BASE} w KQkq", "fields"),
    ("too-many-fields", f"{_BASE} w KQkq - 0 1 x", "fields"),
    ("empty", "", "fields"),
    ("not-to-move-in-check", "4k3/8/8/8/8/8/4R3/4K3 b - - 0 1", None),   # black to move: fine
    ("not-to-move-in-check-bad", "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "placement"),
    ("three-checkers", "4k3/8/3N1N2/8/8/8/4R3/4K3 b - - 0 1", "placement"),
]


@pytest.mark.parametrize("fen,field", [(f, w) for _, f, w in BAD], ids=[i for i, _, _ in BAD])
def test_malformed(new_stack, fen, field):
    st, mb = new_stack(3)
    parse_fen(STARTPOS, st, mb, 0)
    parse_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20", st, mb, 1)
    parse_fen("8/8/8/8/8/8/8/K6k w - - 0 1", st, mb, 2)
    before = st.copy(), mb.copy()
    if field is None:
        parse_fen(fen, st, mb, 1)                  # the valid control case
        return
    with pytest.raises(ValueError, match=f"bad FEN {field}"):
        parse_fen(fen, st, mb, 1)
    assert np.array_equal(st, before[0]) and np.array_equal(mb, before[1]), "rows changed"


def test_non_string_rejected(new_stack):
    st, mb = new_stack(1)
    with pytest.raises(ValueError):
        parse_fen(None, st, mb, 0)


def test_set_position_illegal_move_keeps_old():
    eng = Engine(1)
    eng.set_position(STARTPOS, ["e2e4", "c7c5", "g1f3"])
    n = eng.root + 1
    old = eng.fen(), eng.root, eng.key(), eng.st[:n].copy(), eng.mb[:n].copy()
    for fen, moves in [
        (STARTPOS, ["e2e4", "e7e5", "e1e3"]),       # king two squares up: illegal
        (STARTPOS, ["e2e4", "e2e4"]),               # no piece on e2 any more
        (STARTPOS, ["e7e5"]),                       # wrong side
        (STARTPOS, ["e2e5"]),                       # pawn three squares
        (STARTPOS, ["e1g1"]),                       # castling through pieces
        (STARTPOS, ["e2e4", "zz"]),                 # garbage
        (STARTPOS, ["e7e8q"]),                      # promotion from nowhere
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", []),   # bad FEN
    ]:
        with pytest.raises(ValueError):
            eng.set_position(fen, moves)
        assert (eng.fen(), eng.root, eng.key()) == old[:3], moves
        assert np.array_equal(eng.st[: eng.root + 1], old[3])
        assert np.array_equal(eng.mb[: eng.root + 1], old[4])
    # the engine still works from the kept position
    assert eng.fen() == "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert len(eng.legal_moves()) == 22


def test_set_position_moves_match_python_chess():
    eng = Engine(1)
    moves = ["e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8f6", "g1f3", "b8c6", "f1c4", "c8g4",
             "e1g1", "d8d7", "d2d4", "e8c8"]
    eng.set_position(STARTPOS, moves)
    board = chess.Board()
    for mv in moves:
        board.push_uci(mv)
    assert eng.fen() == board.fen(en_passant="xfen")
    assert eng.root == len(moves)
    assert eng.key() == int(P.compute_key(eng.st, eng.root))
