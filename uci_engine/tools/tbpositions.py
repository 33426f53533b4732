"""Random legal positions of a Syzygy table's material (python-chess boards), drawn the same way
by the probers' identity tests (tests/test_tbprobe.py, tests/test_tbdtz.py) and their speed
scripts (scripts/bench_tbprobe.py, scripts/bench_tbroot.py)."""


def random_board(rng, name):
    """A random legal position (python-chess Board) of material ``name`` ("KRvKP"), white
    holding the first half; side to move random (``rng``: a ``random.Random``); no castling;
    the side not to move not in check. None when the draw is not legal (the caller draws
    again)."""
    import chess
    w, b = name.split("v")
    squares = rng.sample(range(64), len(w) + len(b))
    board = chess.Board(None)
    for letters, colour in ((w, chess.WHITE), (b, chess.BLACK)):
        for ch in letters:
            sq = squares.pop()
            ptype = "PNBRQK".index(ch) + 1
            if ptype == chess.PAWN and chess.square_rank(sq) in (0, 7):
                return None
            board.set_piece_at(sq, chess.Piece(ptype, colour))
    board.turn = rng.random() < 0.5
    return board if board.is_valid() else None


def random_boards(rng, names, per, keep=None):
    """``per`` boards of :func:`random_board` for each material of ``names`` in turn (list of
    python-chess Boards), drawing again where the draw is not legal or ``keep(board)`` is
    false."""
    out = []
    for name in names:
        got = 0
        while got < per:
            b = random_board(rng, name)
            if b is not None and (keep is None or keep(b)):
                out.append(b)
                got += 1
    return out
