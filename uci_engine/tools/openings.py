"""Opening suites for the match runner: EPD (one position per line) and PGN (move sequences).

An :class:`Opening` is a start position plus book moves; :meth:`Opening.board` returns a
``chess.Board`` whose move stack holds the book moves (so repetition detection and the PGN see
them, as in cutechess).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import chess
import chess.pgn

__all__ = ["Opening", "OpeningsError", "load_openings", "OpeningStream"]


class OpeningsError(ValueError):
    """An unreadable or empty opening file."""


@dataclass(frozen=True)
class Opening:
    """A start position (``fen``, None = standard start) followed by ``moves`` (UCI strings)."""

    fen: str | None = None
    moves: tuple[str, ...] = field(default_factory=tuple)

    def board(self) -> chess.Board:
        """A board at the start position with the book moves pushed."""
        b = chess.Board(self.fen) if self.fen else chess.Board()
        for uci in self.moves:
            b.push_uci(uci)
        return b


def _epd_line_to_fen(line: str) -> str:
    """Accept both 4-field EPD (with optional opcodes) and full 6-field FEN lines."""
    fields = line.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        fen = " ".join(fields[:6])
        chess.Board(fen)  # validate
        return fen
    board, _ops = chess.Board.from_epd(line)
    return board.fen()


#: the openings of the files read so far: (resolved path, format, plies, mtime_ns, size) -> the
#: tuple of :class:`Opening`. Validating noob_2moves' 7,314 EPD lines with python-chess takes
#: 0.7-0.8 s; scripts/tune_search.py starts a match for every SPSA step on the event loop that
#: times its other steps' games, so a re-read stalled a game in progress: 4 of 143 games lost on
#: time at 3+0.03, each from a clock of about 0.5 s (2026-11-28; none in the 1,397 games after)
_CACHE: dict[tuple, tuple[Opening, ...]] = {}


def load_openings(path: str | Path, fmt: str | None = None,
                  plies: int | None = None) -> list[Opening]:
    """Read all openings of an EPD or PGN file (a new list; a file read before and unchanged
    since, by modification time and size, is not parsed again).

    ``fmt`` is "epd" or "pgn" (default: from the file extension), ``plies`` caps the number of
    book moves taken from each PGN game (cutechess ``plies=``; ignored for EPD). Raises
    :class:`OpeningsError` for a missing, unreadable or empty file, or an unknown format.
    """
    p = Path(path)
    if not p.is_file():
        raise OpeningsError(f"opening file not found: {p}")
    if fmt is None:
        fmt = "pgn" if p.suffix.lower() == ".pgn" else "epd"
    st = p.stat()
    key = (str(p.resolve()), fmt, plies, st.st_mtime_ns, st.st_size)
    if key not in _CACHE:
        _CACHE[key] = tuple(_read_openings(p, fmt, plies))
    return list(_CACHE[key])


def _read_openings(p: Path, fmt: str, plies: int | None) -> list[Opening]:
    """Parse every opening of ``p`` (:func:`load_openings`' errors)."""
    out: list[Opening] = []
    if fmt == "epd":
        with p.open(encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    out.append(Opening(fen=_epd_line_to_fen(line)))
                except ValueError as err:
                    raise OpeningsError(f"{p}:{lineno}: bad EPD/FEN: {err}") from None
    elif fmt == "pgn":
        with p.open(encoding="utf-8", errors="replace") as fh:
            while True:
                game = chess.pgn.read_game(fh)
                if game is None:
                    break
                if game.errors:
                    raise OpeningsError(f"{p}: bad PGN game #{len(out) + 1}: {game.errors[0]}")
                fen = game.headers.get("FEN") if game.headers.get("SetUp", "1") == "1" else None
                moves = []
                for i, move in enumerate(game.mainline_moves()):
                    if plies is not None and i >= plies:
                        break
                    moves.append(move.uci())
                out.append(Opening(fen=fen, moves=tuple(moves)))
    else:
        raise OpeningsError(f"unknown opening format {fmt!r} (use epd or pgn)")
    if not out:
        raise OpeningsError(f"no openings in {p}")
    return out


class OpeningStream:
    """Hands out openings in cutechess order: ``sequential`` from ``start`` (1-based) wrapping
    around, or ``random`` (seeded by ``-srand``)."""

    def __init__(self, openings: list[Opening], order: str = "sequential", start: int = 1,
                 seed: int | None = None):
        self.openings = openings
        self.order = order
        self.index = (start - 1) % len(openings)
        self.rng = random.Random(seed)

    def __iter__(self) -> Iterator[Opening]:
        return self

    def __next__(self) -> Opening:
        if self.order == "random":
            return self.openings[self.rng.randrange(len(self.openings))]
        op = self.openings[self.index]
        self.index = (self.index + 1) % len(self.openings)
        return op
