"""Opening suites of the match runner: EPD and PGN reading, and the cache of files read."""

from __future__ import annotations

import pytest

from uci_engine.tools import openings as O

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def test_epd_and_pgn_openings(tmp_path):
    epd = tmp_path / "a.epd"
    epd.write_text(f"# a comment\n{START} id \"start\";\n\n{E4}\n")
    assert [o.fen for o in O.load_openings(epd)] == [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", E4]
    pgn = tmp_path / "b.pgn"
    pgn.write_text("[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n")
    (op,) = O.load_openings(pgn, plies=3)
    assert op.moves == ("e2e4", "e7e5", "g1f3") and op.board().fullmove_number == 2
    with pytest.raises(O.OpeningsError, match="not found"):
        O.load_openings(tmp_path / "none.epd")
    (tmp_path / "empty.epd").write_text("# nothing\n")
    with pytest.raises(O.OpeningsError, match="no openings"):
        O.load_openings(tmp_path / "empty.epd")
    bad = tmp_path / "bad.epd"
    bad.write_text(f"{START}\nnot a position\n")
    with pytest.raises(O.OpeningsError, match="bad.epd:2"):
        O.load_openings(bad)


def test_a_file_read_before_is_not_parsed_again_until_it_changes(tmp_path, monkeypatch):
    """A match per SPSA step re-reads the same book on the event loop that times other games:
    the second read must not parse it again (a new list, the same openings), and a changed
    file must be read again."""
    epd = tmp_path / "book.epd"
    epd.write_text(f"{START}\n")
    parsed = []
    real = O._epd_line_to_fen
    monkeypatch.setattr(O, "_epd_line_to_fen", lambda line: parsed.append(line) or real(line))
    first = O.load_openings(epd)
    second = O.load_openings(str(epd), "epd")
    assert len(parsed) == 1 and second == first and second is not first
    second.clear()
    assert len(O.load_openings(epd)) == 1                # the caller's list is its own
    epd.write_text(f"{START}\n{E4}\n")
    assert [o.fen for o in O.load_openings(epd)][1] == E4 and len(parsed) == 3
