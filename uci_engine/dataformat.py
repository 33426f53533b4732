"""The self-play data line format: written by ``uci-engine datagen``, read by every trainer.

One searched position per line, the plain-text format that bullet and marlinflow read::

    <FEN> | <score> | <result>

* ``FEN``: the position, a full Forsyth-Edwards Notation string (placement, side to move,
  castling, en passant, and normally the two move counters).
* ``score``: the search score of the position in **centipawns from White's point of view**
  (an int; positive is good for White, whichever side is to move).
* ``result``: the game's final result **from White's point of view**: ``1.0`` White won,
  ``0.5`` draw, ``0.0`` Black won (written as those three strings).

Blank lines and lines starting with ``#`` (a metadata header, e.g. ``# {"nodes": 5000}``) are
not records. Readers that want the side to move's view use :attr:`Record.stm_score` and
:attr:`Record.stm_result`.

:func:`parse_line` raises :class:`ValueError` with the offending line and the field at fault
for a malformed line: not three ``|``-separated fields, a score that is not an integer, a
result other than 0, 0.5 or 1, or a FEN whose placement or side to move is malformed (the check
is structural and cheap; legality is left to the consumer's FEN parser).
"""
from typing import Iterator, NamedTuple

#: field separator of a data line (with its spaces, as written)
SEPARATOR = " | "
#: result (float, White's view) -> its text in a data line
RESULT_TEXT = {1.0: "1.0", 0.5: "0.5", 0.0: "0.0"}
#: FEN fields: placement, side to move, castling, en passant (+ halfmove clock, fullmove number)
FEN_FIELDS = (4, 6)
PIECE_LETTERS = frozenset("pnbrqkPNBRQK")


class Record(NamedTuple):
    """One data line: ``fen`` (str), ``score`` (int, centipawns, White's view) and ``result``
    (float 1.0 / 0.5 / 0.0, White's view)."""
    fen: str
    score: int
    result: float

    @property
    def white_to_move(self) -> bool:
        return self.fen.split(None, 2)[1] == "w"

    @property
    def stm_score(self) -> int:
        """The score in centipawns from the side to move's point of view."""
        return self.score if self.white_to_move else -self.score

    @property
    def stm_result(self) -> float:
        """The result from the side to move's point of view (1.0 win, 0.5 draw, 0.0 loss)."""
        return self.result if self.white_to_move else 1.0 - self.result


def format_line(fen: str, score: int, result: float) -> str:
    """The data line (no newline) of a position: ``fen``, ``score`` (int, centipawns, White's
    view) and ``result`` (1.0 / 0.5 / 0.0, White's view). Raises ValueError for another
    result."""
    if result not in RESULT_TEXT:
        raise ValueError(f"result {result!r} is not one of 1.0, 0.5, 0.0 (White's view)")
    return f"{fen}{SEPARATOR}{int(score)}{SEPARATOR}{RESULT_TEXT[result]}"


def is_record(line: str) -> bool:
    """True unless ``line`` is blank or a ``#`` comment."""
    text = line.strip()
    return bool(text) and not text.startswith("#")


def _check_fen(fen: str) -> None:
    """Raise ValueError (a reason, without the line) if the FEN is structurally malformed."""
    fields = fen.split()
    if len(fields) not in FEN_FIELDS:
        raise ValueError(f"FEN has {len(fields)} fields, expected 4 or 6")
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise ValueError(f"FEN placement has {len(ranks)} ranks, expected 8")
    for rank in ranks:
        squares = 0
        for ch in rank:
            if ch in PIECE_LETTERS:
                squares += 1
            elif ch in "12345678":
                squares += int(ch)
            else:
                raise ValueError(f"FEN placement has {ch!r}, not a piece letter or 1-8")
        if squares != 8:
            raise ValueError(f"FEN rank {rank!r} covers {squares} squares, expected 8")
    if fields[1] not in ("w", "b"):
        raise ValueError(f"FEN side to move is {fields[1]!r}, expected 'w' or 'b'")


def parse_line(line: str, where: str = "") -> Record:
    """The :class:`Record` of one data line (surrounding whitespace ignored). Raises ValueError
    naming the line and what is wrong with it (see the module docstring), prefixed by
    ``where`` (e.g. ``"data.txt:12"``) when given."""
    text = line.strip()
    try:
        parts = text.split("|")
        if len(parts) != 3:
            raise ValueError(f"{len(parts)} '|'-separated fields, expected 3 "
                             f"(FEN | score | result)")
        fen, score_text, result_text = (p.strip() for p in parts)
        _check_fen(fen)
        try:
            score = int(score_text)
        except ValueError:
            raise ValueError(f"score {score_text!r} is not an integer (centipawns)") from None
        try:
            result = float(result_text)
        except ValueError:
            result = None
        if result not in RESULT_TEXT:
            raise ValueError(f"result {result_text!r} is not 1.0, 0.5 or 0.0")
    except ValueError as exc:
        prefix = f"{where}: " if where else ""
        raise ValueError(f"{prefix}malformed data line {text!r}: {exc}") from None
    return Record(fen, score, result)


def read_records(path: str, start: int = 0) -> Iterator[tuple[int, Record]]:
    """``(line number, Record)`` (1-based) of every record of file ``path`` from 0-based line
    ``start`` on; blank and comment lines are skipped. Raises ValueError ``"<path>:<n>: ..."``
    at the first malformed line."""
    for n, text in numbered_records(path, start):
        yield n, parse_line(text, f"{path}:{n}")


def numbered_records(path: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` (1-based) of every record line of ``path`` from 0-based line
    ``start`` on, unparsed (for readers that sample lines before parsing them)."""
    with open(path, encoding="utf-8") as fh:
        for i, text in enumerate(fh):
            if i >= start and is_record(text):
                yield i + 1, text
