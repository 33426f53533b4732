"""Compact self-play game records: ``uci-engine datagen --format records`` writes them, the
trainer (scripts/train_nnue.py) reads them, ``python -m uci_engine.gamerecord to-text IN OUT``
turns them into the text format of :mod:`uci_engine.dataformat` (``FEN | score | result``).

The idea is Viridithas's "viriformat" (github.com/cosmobobak/viridithas, a marlinformat start
position followed by the game's moves and scores): a game is stored once as its start position
and one 4-byte entry per ply, about 4 bytes a position instead of about 70 for a text line. This
is our own layout and code; files of the two formats are not interchangeable.

File layout (all integers little-endian, every part a multiple of 4 bytes)::

    file  := MAGIC game*                (MAGIC may recur between games: ``cat a b > c`` works)
    game  := header (32 bytes) ply* terminator (4 bytes)

``MAGIC`` is the 8 bytes ``ff ff 55 43 49 47 52 31`` (``b"\\xff\\xffUCIGR1"``, format version 1).
Read as an occupancy bitboard it has 36 bits set, more than the 32 pieces a position can have,
so it never looks like the start of a game.

header, :data:`HEADER_DTYPE` (32 bytes, packed)::

    offset size dtype  field
     0     8    <u8    occupancy   bit s set when square s is occupied (a1 = 0, b1 = 1, ...,
                                   h8 = 63)
     8    16    u1[16] pieces      4-bit piece code of each occupied square in ascending square
                                   order, the first square in the low nibble of byte 0; unused
                                   nibbles are 0. Code = 8 * colour + type: colour 0 White,
                                   1 Black; type 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen,
                                   5 king (codes 6, 7, 14, 15 are invalid)
    24     1    u1     stm         side to move: 0 White, 1 Black
    25     1    u1     ep_file     en-passant file 0..7 (a..h; the square is on the 6th rank from
                                   the side to move's view), 8 = none
    26     2    <u2    castling    four 4-bit rook files, low nibble first: White h-side (the
                                   rook on a file above its king's, "kingside"), White a-side,
                                   Black h-side, Black a-side; 0..7 = the file of the rook that
                                   may castle (any file: Chess960), 15 = no such right
    28     1    u1     halfmove    halfmove clock (plies since the last capture or pawn move)
    29     2    <u2    fullmove    fullmove number (starts at 1)
    31     1    u1     result      game result from White's view, in halves: 0 Black won,
                                   1 draw, 2 White won

ply, :data:`PLY_DTYPE` (4 bytes): the move played from the current position and its score::

    offset size dtype  field
     0     2    <u2    move        bits 0-5 from-square, bits 6-11 to-square, bits 12-14 flag:
                                   0 normal, 1 en passant, 2 castling (to-square = the castling
                                   rook's square, "king takes rook", as in Chess960), 4..7
                                   promotion to knight, bishop, rook, queen; 3 is invalid; bit 15
                                   is 0. This is the engine's own move encoding
                                   (uci_engine/kernels/position.py), so datagen stores its moves
                                   as they are.
     2     2    <i2    score       the search score of the position before the move, in
                                   centipawns from **White's** point of view (as the text
                                   format); mate scores are kept as the engine's (|score| >=
                                   MATE_BOUND); SCORE_NONE (-32768) = not searched (the random
                                   opening plies)

terminator: 4 zero bytes (move 0, a1 to a1, is never a move).

The last ply of an adjudicated game is the searched position's best move, which was not played
(the game ended on its score); replaying it is legal all the same.

Positions a reader yields (:func:`iter_positions`) are the ones the text writer keeps: a ply
with a score, not a mate score, the side to move not in check, and a quiet move (no capture, en
passant or promotion) unless ``keep_noisy``. Each is a :class:`uci_engine.dataformat.Record`
(FEN, White's-view score, White's-view result), so every consumer of the text format reads
records through the same type.

Errors: a corrupt or truncated file raises ValueError ``"<path>: offset <byte>: <what>"``, the
byte offset of the game header or ply at fault: a bad magic, a header field out of range, a
piece count or placement python-chess rejects, a malformed or illegal move, a game without its
terminator, or trailing bytes.

python-chess (a dependency of the package) supplies the board for encoding start positions and
for the legality checks of the reader: this module is outside the engine core.
"""
import argparse
import os
import sys
from typing import Iterator, NamedTuple, Sequence

import chess
import numpy as np

from .dataformat import Record, format_line

#: pieces a position can have (16 a side), so the header holds 32 piece nibbles
MAX_PIECES = 32
#: file magic, 8 bytes: 36 bits set, so never a valid occupancy (at most MAX_PIECES)
MAGIC = b"\xff\xffUCIGR1"
HEADER_DTYPE = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("stm", "u1"),
                         ("ep_file", "u1"), ("castling", "<u2"), ("halfmove", "u1"),
                         ("fullmove", "<u2"), ("result", "u1")])
PLY_DTYPE = np.dtype([("move", "<u2"), ("score", "<i2")])
#: bytes of a game header, of a ply entry and of the terminator
HEADER_BYTES, PLY_BYTES, TERMINATOR_BYTES = HEADER_DTYPE.itemsize, PLY_DTYPE.itemsize, 4
#: score of a ply that was not searched (the random opening plies)
SCORE_NONE = -32768
#: |score| at or beyond which a score is a mate score: uci_engine.kernels.state.MATE_BOUND
#: (MATE 32000 - 2 * MAX_PLY 128), repeated here so that readers need not load the kernels
#: (tests/test_gamerecord.py checks that the two agree)
MATE_BOUND = 31744
#: "no en-passant file" and "no castling right" codes
EP_NONE, ROOK_NONE = 8, 15
#: move flags (bits 12-14), the engine's (uci_engine/kernels/position.py)
FLAG_NORMAL, FLAG_EP, FLAG_CASTLE, FLAG_PROMO = 0, 1, 2, 4
#: promotion flag - FLAG_PROMO -> python-chess piece type
PROMO_TYPES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
#: colour bit of a piece code
COLOUR_BIT = 8
#: result (White's view) <-> the header's halves
RESULT_HALVES = {0.0: 0, 0.5: 1, 1.0: 2}
RESULTS = (0.0, 0.5, 1.0)
#: castling nibbles: (colour, h-side?) in nibble order
CASTLING_SLOTS = ((chess.WHITE, True), (chess.WHITE, False), (chess.BLACK, True),
                  (chess.BLACK, False))


# --- encoding ---------------------------------------------------------------------------------
def encode_start(board: chess.Board) -> np.ndarray:
    """The header (a HEADER_DTYPE scalar array, result 0) of ``board``'s position. Castling
    rights are python-chess's cleaned ones (``clean_castling_rights``: rook squares, any
    files). Raises ValueError for a position with more than MAX_PIECES pieces or a counter
    beyond its field."""
    h = np.zeros((), HEADER_DTYPE)
    occ = int(board.occupied)
    if occ.bit_count() > MAX_PIECES:
        raise ValueError(f"{occ.bit_count()} pieces, at most {MAX_PIECES}")
    if not 0 <= board.halfmove_clock <= 0xFF or not 1 <= board.fullmove_number <= 0xFFFF:
        raise ValueError(f"move counters {board.halfmove_clock} {board.fullmove_number} do "
                         f"not fit (halfmove 0..255, fullmove 1..65535)")
    nibbles = []
    for sq in chess.scan_forward(occ):
        piece = board.piece_at(sq)
        nibbles.append(COLOUR_BIT * (piece.color == chess.BLACK) + piece.piece_type - 1)
    nibbles += [0] * (2 * len(h["pieces"]) - len(nibbles))
    h["occupancy"] = occ
    h["pieces"] = [lo | (hi << 4) for lo, hi in zip(nibbles[0::2], nibbles[1::2])]
    h["stm"] = 0 if board.turn == chess.WHITE else 1
    h["ep_file"] = EP_NONE if board.ep_square is None else chess.square_file(board.ep_square)
    castling = 0
    rights = board.clean_castling_rights()
    for i, (colour, h_side) in enumerate(CASTLING_SLOTS):
        file = ROOK_NONE
        king = board.king(colour)
        back_rank = chess.BB_RANK_1 if colour == chess.WHITE else chess.BB_RANK_8
        for rook in chess.scan_forward(rights & back_rank):
            if king is not None and (chess.square_file(rook) > chess.square_file(king)) == h_side:
                file = chess.square_file(rook)
        castling |= file << (4 * i)
    h["castling"] = castling
    h["halfmove"] = board.halfmove_clock
    h["fullmove"] = board.fullmove_number
    return h


def encode_game(start_fen: str, plies: Sequence[tuple[int, int]], result: float) -> bytes:
    """The bytes of one game (header, plies, terminator; no MAGIC): ``start_fen`` (str, the
    position before the first ply; castling as KQkq, X-FEN or Shredder-FEN), ``plies`` a
    sequence of ``(move, score)``: move in the 16-bit encoding of the module docstring (an
    engine move as it is), score in centipawns from White's view or SCORE_NONE (mate scores
    included; clipped to int16); ``result`` 1.0 / 0.5 / 0.0 from White's view. Moves are not
    checked for legality here (the reader does). Raises ValueError for a bad result, move or
    start position."""
    if result not in RESULT_HALVES:
        raise ValueError(f"result {result!r} is not one of 1.0, 0.5, 0.0 (White's view)")
    h = encode_start(chess.Board(start_fen, chess960=True))
    h["result"] = RESULT_HALVES[result]
    p = np.zeros(len(plies) + 1, PLY_DTYPE)              # the last entry is the terminator
    if len(plies):
        moves, scores = (np.asarray(x, np.int64) for x in zip(*plies))
        bad = (moves <= 0) | (moves > 0x7FFF) | ((moves >> 12) & 7 == 3)
        if bad.any():
            raise ValueError(f"ply {int(np.argmax(bad))}: move {int(moves[bad][0]):#x} is not "
                             f"a 16-bit record move")
        p["move"][:-1] = moves
        p["score"][:-1] = np.clip(scores, SCORE_NONE, np.iinfo(np.int16).max)
    return h.tobytes() + p.tobytes()


def move_code(board: chess.Board, move: chess.Move) -> int:
    """The 16-bit record move (int) of python-chess ``move``, legal on ``board`` (castling in
    either of python-chess's notations)."""
    if board.is_castling(move):
        king, rook = move.from_square, move.to_square
        if board.piece_type_at(rook) != chess.ROOK:         # king to g/c file: find the rook
            h_side = chess.square_file(rook) > chess.square_file(king)
            rook = next(sq for sq in chess.scan_forward(board.clean_castling_rights()
                                                        & chess.BB_RANKS[chess.square_rank(king)])
                        if (chess.square_file(sq) > chess.square_file(king)) == h_side)
        return king | (rook << 6) | (FLAG_CASTLE << 12)
    flag = FLAG_NORMAL
    if board.is_en_passant(move):
        flag = FLAG_EP
    elif move.promotion:
        flag = FLAG_PROMO + PROMO_TYPES.index(move.promotion)
    return move.from_square | (move.to_square << 6) | (flag << 12)


def chess_move(board: chess.Board, code: int) -> chess.Move:
    """The python-chess move of 16-bit record move ``code`` on ``board`` (a board with
    ``chess960=True``: castling is king takes rook). Raises ValueError for a malformed code or
    a move whose flag does not match the position (the legality check is the caller's)."""
    frm, to, flag = code & 63, (code >> 6) & 63, (code >> 12) & 7
    if code == 0 or code >> 15 or flag == 3 or frm == to:
        raise ValueError(f"malformed move {code:#06x}")
    promotion = PROMO_TYPES[flag - FLAG_PROMO] if flag >= FLAG_PROMO else None
    move = chess.Move(frm, to, promotion)
    if (flag == FLAG_CASTLE) != board.is_castling(move) or \
            (flag == FLAG_EP) != board.is_en_passant(move):
        raise ValueError(f"move {code:#06x} ({move.uci()}): flag {flag} does not fit the "
                         f"position {board.fen()}")
    return move


# --- decoding ---------------------------------------------------------------------------------
def decode_start(h: np.ndarray) -> chess.Board:
    """The python-chess board (``chess960=True``) of header ``h`` (a HEADER_DTYPE scalar).
    Raises ValueError (without an offset) for a field out of range or an invalid position."""
    occ = int(h["occupancy"])
    n = occ.bit_count()
    if n > MAX_PIECES:
        raise ValueError(f"occupancy has {n} squares, at most {MAX_PIECES}")
    if int(h["stm"]) > 1 or int(h["ep_file"]) > EP_NONE or int(h["result"]) > 2 \
            or int(h["fullmove"]) == 0:
        raise ValueError(f"header field out of range (stm {int(h['stm'])}, ep file "
                         f"{int(h['ep_file'])}, result {int(h['result'])}, fullmove "
                         f"{int(h['fullmove'])})")
    packed = h["pieces"]
    nibbles = np.empty(2 * len(packed), np.uint8)
    nibbles[0::2], nibbles[1::2] = packed & 15, packed >> 4
    board = chess.Board(None, chess960=True)
    for i, sq in enumerate(chess.scan_forward(occ)):
        code = int(nibbles[i])
        if code & 7 > 5:
            raise ValueError(f"piece code {code} on {chess.square_name(sq)}")
        board.set_piece_at(sq, chess.Piece(code % COLOUR_BIT + 1, code < COLOUR_BIT))
    if nibbles[n:].any():
        raise ValueError("piece nibbles beyond the occupied squares are not 0")
    board.turn = chess.WHITE if int(h["stm"]) == 0 else chess.BLACK
    rights = 0
    castling = int(h["castling"])
    for i, (colour, _) in enumerate(CASTLING_SLOTS):
        file = castling >> (4 * i) & 15
        if file != ROOK_NONE:
            if file > 7:
                raise ValueError(f"castling rook file {file}")
            rights |= chess.BB_SQUARES[chess.square(file, 0 if colour == chess.WHITE else 7)]
    board.castling_rights = rights
    ep = int(h["ep_file"])
    board.ep_square = None if ep == EP_NONE else chess.square(ep, 5 if board.turn else 2)
    board.halfmove_clock = int(h["halfmove"])
    board.fullmove_number = int(h["fullmove"])
    status = board.status()
    if status != chess.STATUS_VALID:
        raise ValueError(f"invalid position {board.fen()} ({status!r})")
    return board


class Game(NamedTuple):
    """One game of a record file: ``offset`` (int, byte offset of its header), ``start``
    (str, the FEN of the start position, X-FEN castling), ``plies`` (PLY_DTYPE array: move,
    White's-view score) and ``result`` (float 1.0 / 0.5 / 0.0, White's view)."""
    offset: int
    start: str
    plies: np.ndarray
    result: float

    @property
    def end(self) -> int:
        """Byte offset (int) just past the game's terminator: where the next game may start."""
        return self.offset + HEADER_BYTES + PLY_BYTES * len(self.plies) + TERMINATOR_BYTES


def _where(path, offset):
    return f"{path}: offset {offset}"


def _read_words(path):
    """The file as little-endian uint32 words (memory-mapped) and its size in bytes."""
    size = os.path.getsize(path)
    if size < 4:
        return np.zeros(0, "<u4"), size
    return np.memmap(path, dtype="<u4", mode="r", shape=(size // 4,)), size


def is_record_file(path) -> bool:
    """True when the file ``path`` starts with MAGIC (a game-record file)."""
    with open(path, "rb") as fh:
        return fh.read(len(MAGIC)) == MAGIC


def _spans(words, w=0):
    """``(w, first, end)`` word indices (header, first ply, terminator) of each complete game of
    a record file's words from word ``w`` (a game's start, or 0: the magic), in order, MAGICs
    between games skipped; the walk stops at the first part that is not complete (a truncated
    header or a game without its terminator). The caller finds where from the last span."""
    magic = np.frombuffer(MAGIC, "<u4")
    zeros = w + np.flatnonzero(words[w:] == 0)             # terminator candidates
    head_words = HEADER_BYTES // 4
    while w < len(words):
        if w + 2 <= len(words) and np.array_equal(words[w:w + 2], magic):
            w += 2
            continue
        first = w + head_words
        k = np.searchsorted(zeros, first)
        if first > len(words) or k == len(zeros):
            return
        end = int(zeros[k])
        yield w, first, end
        w = end + 1


def _check_magic(path, words, size):
    if size < len(MAGIC) or not np.array_equal(words[:2], np.frombuffer(MAGIC, "<u4")):
        raise ValueError(f"{_where(path, 0)}: not a game-record file (no magic {MAGIC!r})")


def read_games(path, start=0) -> Iterator[Game]:
    """Every :class:`Game` of record file ``path`` in file order, from byte ``start`` (0, or
    where a game starts: a :attr:`Game.end` read before, so that a file datagen has appended to
    is read on from there). Checks the layout (not the legality of the moves: :func:`replay`
    does). Raises ValueError ``"<path>: offset <byte>: ..."`` for a bad magic, a header out of
    range, a game without its terminator (truncated file), trailing bytes or a ``start`` that
    is not a multiple of 4 within the file."""
    words, size = _read_words(path)
    _check_magic(path, words, size)
    if start % 4 or not 0 <= start <= 4 * len(words):
        raise ValueError(f"{_where(path, start)}: not a game's start (a multiple of 4 within "
                         f"the file's {size} bytes)")
    done = start // 4                                      # words of the complete games
    for w, first, end in _spans(words, start // 4):
        header = np.frombuffer(words[w:first].tobytes(), HEADER_DTYPE)[0]
        try:
            fen = decode_start(header).fen(en_passant="xfen")
        except ValueError as exc:
            raise ValueError(f"{_where(path, 4 * w)}: bad game header: {exc}") from None
        plies = np.frombuffer(words[first:end].tobytes(), PLY_DTYPE)
        yield Game(4 * w, fen, plies, RESULTS[int(header["result"])])
        done = end + 1
    if done < len(words) and not np.array_equal(words[done:], np.frombuffer(MAGIC, "<u4")):
        offset = 4 * done
        if len(words) - done < HEADER_BYTES // 4:
            raise ValueError(f"{_where(path, offset)}: truncated game header "
                             f"({size - offset} of {HEADER_BYTES} bytes)")
        raise ValueError(f"{_where(path, offset)}: truncated game (no terminator before the "
                         f"end of the file at byte {size})")
    if size % 4:
        raise ValueError(f"{_where(path, 4 * len(words))}: {size % 4} trailing bytes")


def complete_bytes(path) -> int:
    """Bytes (int) of record file ``path`` up to the end of its last complete game (at least
    the magic): a file cut by a crash in the middle of a game is truncated to this before more
    games are appended (datagen's resume). Checks the layout only. Raises ValueError for a file
    without the magic."""
    words, size = _read_words(path)
    _check_magic(path, words, size)
    done = len(MAGIC) // 4
    for _, _, end in _spans(words):
        done = end + 1
    return 4 * done


def replay(path, game: Game) -> Iterator[tuple[chess.Board, chess.Move, int]]:
    """``(board, move, score)`` for every ply of ``game`` (read from ``path``, named in
    errors): the board before the move (the same object, advanced after each yield: copy it
    to keep it), the python-chess move (castling as king takes rook) and the White's-view
    score (int, or SCORE_NONE). Raises ValueError naming the ply's byte offset for a malformed
    or illegal move."""
    board = chess.Board(game.start, chess960=True)
    base = game.offset + HEADER_BYTES
    for i, (code, score) in enumerate(zip(game.plies["move"].tolist(),
                                          game.plies["score"].tolist())):
        try:
            move = chess_move(board, code)
            if not board.is_legal(move):
                raise ValueError(f"illegal move {move.uci()} in {board.fen()}")
        except ValueError as exc:
            raise ValueError(f"{_where(path, base + PLY_BYTES * i)}: ply {i} of the game at "
                             f"offset {game.offset}: {exc}") from None
        yield board, move, score
        board.push(move)


def keep_position(board: chess.Board, move: chess.Move, score: int, keep_noisy=False) -> bool:
    """Whether the text writer keeps this ply's position: it was searched, its score is not a
    mate score, the side to move is not in check, and its best move ``move`` is quiet (no
    capture, en passant or promotion) unless ``keep_noisy`` (datagen's filter)."""
    if score == SCORE_NONE or abs(score) >= MATE_BOUND or board.is_check():
        return False
    return keep_noisy or not (board.is_capture(move) or move.promotion)


def position_fen(board: chess.Board) -> str:
    """``board.fen(en_passant="xfen")`` (str), built from the piece bitboards: python-chess's
    ``board_fen`` asks every square for its piece and took over half of a conversion's time."""
    cells = ["1"] * 64
    for colour, letters in ((chess.WHITE, "PNBRQK"), (chess.BLACK, "pnbrqk")):
        own = board.occupied_co[colour]
        for letter, bb in zip(letters, (board.pawns, board.knights, board.bishops, board.rooks,
                                        board.queens, board.kings)):
            for sq in chess.scan_forward(bb & own):
                cells[sq] = letter
    placement = "/".join("".join(cells[r:r + 8]) for r in range(56, -1, -8))
    for n in range(8, 1, -1):                     # runs of empty squares, longest first
        placement = placement.replace("1" * n, str(n))
    ep = board.ep_square if board.has_pseudo_legal_en_passant() else None
    return (f"{placement} {'w' if board.turn else 'b'} {board.castling_xfen()} "
            f"{'-' if ep is None else chess.SQUARE_NAMES[ep]} {board.halfmove_clock} "
            f"{board.fullmove_number}")


def game_positions(path, keep_noisy=False, start=0) -> Iterator[tuple[Game, list[Record]]]:
    """``(game, records)`` for every game of record file ``path`` from byte ``start``
    (:func:`read_games`): the game's kept positions (:func:`keep_position`) as
    :class:`uci_engine.dataformat.Record` (FEN with X-FEN castling and en passant, score in
    centipawns and result, both from White's view), in file order; a game may keep none.
    Raises ValueError with the byte offset at the first corrupt game."""
    for game in read_games(path, start):
        yield game, [Record(position_fen(board), score, game.result)
                     for board, move, score in replay(path, game)
                     if keep_position(board, move, score, keep_noisy)]


def iter_positions(path, keep_noisy=False, start=0) -> Iterator[Record]:
    """The kept positions of record file ``path`` from byte ``start`` in file order
    (:func:`game_positions`). Raises ValueError with the byte offset at the first corrupt
    game."""
    for _, records in game_positions(path, keep_noisy, start):
        yield from records


def to_text(src, dst, keep_noisy=False) -> int:
    """Write the kept positions of record file ``src`` to ``dst`` as text lines (the format of
    :mod:`uci_engine.dataformat`); returns the number of lines."""
    n = 0
    with open(dst, "w", encoding="utf-8") as out:
        for rec in iter_positions(src, keep_noisy):
            out.write(format_line(*rec) + "\n")
            n += 1
    return n


def stats(path, keep_noisy=False) -> dict:
    """``games``, ``plies``, ``positions`` (kept) and ``bytes`` of record file ``path`` and
    ``bytes_per_position`` (float)."""
    games = plies = positions = 0
    for game in read_games(path):
        games += 1
        plies += len(game.plies)
        positions += sum(keep_position(b, m, s, keep_noisy) for b, m, s in replay(path, game))
    size = os.path.getsize(path)
    return {"games": games, "plies": plies, "positions": positions, "bytes": size,
            "bytes_per_position": round(size / max(positions, 1), 2)}


def main(argv=None) -> int:
    """``python -m uci_engine.gamerecord to-text IN OUT [--keep-noisy]`` or ``stats IN``."""
    ap = argparse.ArgumentParser(prog="python -m uci_engine.gamerecord",
                                 description="game-record files of uci-engine datagen")
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("to-text", help="write the kept positions as 'FEN | score | result'")
    t.add_argument("src")
    t.add_argument("dst")
    s = sub.add_parser("stats", help="games, plies, kept positions and bytes per position")
    s.add_argument("src")
    for p in (t, s):
        p.add_argument("--keep-noisy", action="store_true",
                       help="also positions whose best move is a capture or promotion")
    args = ap.parse_args(argv)
    try:
        if args.command == "to-text":
            n = to_text(args.src, args.dst, args.keep_noisy)
            print(f"wrote {n} positions to {args.dst}")
        else:
            print(stats(args.src, args.keep_noisy))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
