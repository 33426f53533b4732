"""The datagen line format (uci_engine/dataformat.py): round trip, side-to-move view, errors."""
import re

import chess
import pytest

from uci_engine.dataformat import (Record, format_line, is_record, numbered_records, parse_line,
                                   read_records)

FENS = [chess.STARTING_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 3 40",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"]


@pytest.mark.parametrize("fen", FENS)
@pytest.mark.parametrize("score,result", [(0, 0.5), (35, 1.0), (-1234, 0.0), (31999, 1.0)])
def test_round_trip(fen, score, result):
    line = format_line(fen, score, result)
    assert line == f"{fen} | {score} | {result}"
    rec = parse_line(line + "\n")
    assert rec == Record(fen, score, result)
    assert isinstance(rec.score, int) and isinstance(rec.result, float)
    board = chess.Board(rec.fen)                  # python-chess reads the FEN back
    assert board.fen() == fen and board.is_valid()
    white = board.turn == chess.WHITE
    assert rec.white_to_move == white
    assert rec.stm_score == (score if white else -score)
    assert rec.stm_result == (result if white else 1.0 - result)


def test_writer_refuses_a_result_it_cannot_write():
    with pytest.raises(ValueError, match="result 2.0 is not one of 1.0, 0.5, 0.0"):
        format_line(FENS[0], 0, 2.0)


@pytest.mark.parametrize("line,reason", [
    (f"{FENS[0]} | 12", "2 '|'-separated fields, expected 3"),
    (f"{FENS[0]} | 12 | 0.5 | 3", "4 '|'-separated fields, expected 3"),
    (f"{FENS[0]} | x | 1.0", "score 'x' is not an integer"),
    (f"{FENS[0]} | 12.5 | 1.0", "score '12.5' is not an integer"),
    (f"{FENS[0]} | 12 | 2.0", "result '2.0' is not 1.0, 0.5 or 0.0"),
    (f"{FENS[0]} | 12 | draw", "result 'draw' is not 1.0, 0.5 or 0.0"),
    ("not a fen | 1 | 1.0", "FEN has 3 fields, expected 4 or 6"),
    ("8/8/8/8/8/8/8 w - - 0 1 | 1 | 1.0", "FEN placement has 7 ranks, expected 8"),
    ("8/8/8/8/8/8/8/7 w - - 0 1 | 1 | 1.0", "FEN rank '7' covers 7 squares, expected 8"),
    ("8/8/8/8/8/8/8/7x w - - 0 1 | 1 | 1.0", "FEN placement has 'x'"),
    ("8/8/8/8/8/8/8/8 x - - 0 1 | 1 | 1.0", "FEN side to move is 'x', expected 'w' or 'b'"),
])
def test_malformed_lines_raise_a_clear_value_error(line, reason):
    with pytest.raises(ValueError) as exc:
        parse_line(line)
    msg = str(exc.value)
    assert msg.startswith(f"malformed data line {line!r}: ") and reason in msg, msg
    with pytest.raises(ValueError, match=r"^data\.txt:7: malformed data line"):
        parse_line(line, "data.txt:7")


def test_reading_a_file_skips_comments_and_names_the_bad_line(tmp_path):
    path = tmp_path / "data.txt"
    good = [format_line(fen, 10 * i, 0.5) for i, fen in enumerate(FENS)]
    path.write_text(f"# {{\"nodes\": 5000}}\n{good[0]}\n\n{good[1]}\n   # note\n{good[2]}\n")
    assert not is_record("   # note\n") and not is_record(" \n") and is_record(good[0])
    assert [(n, rec.fen) for n, rec in read_records(str(path))] == \
        [(2, FENS[0]), (4, FENS[1]), (6, FENS[2])]
    assert [n for n, _ in numbered_records(str(path), start=3)] == [4, 6]
    with open(path, "a") as fh:
        fh.write(f"{FENS[3]} | 5 | 1\n{FENS[3]} | five | 1\n")
    records = read_records(str(path))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}:8: malformed data line "
                                         r".*score 'five'"):
        for n, rec in records:
            if n == 7:
                assert rec.result == 1.0                # "1" is a result too
