"""Reading the PGN files of matches (our runner's, cutechess-cli's or fastchess's) for the
analysis scripts (scripts/endgame_openings.py, scripts/gauntlet.py, scripts/pgn_phases.py,
scripts/time_use.py).

Each engine move's comment holds ``score/depth time``: ``{+0.35/14 0.12s}`` with the score in
pawns from the mover's side, or ``{-M5/20 0.3s}`` for a mate."""
import re

#: White's points for each PGN result (a game without one, ``*``, is not in it)
RESULT_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
#: a move comment's score in pawns and its depth (mates, ``+M5``, do not match)
SCORE_RE = re.compile(r"^([+-]?\d+(?:\.\d+)?)/\d+")


def read_games(paths):
    """Every game of the PGN files ``paths`` in order (python-chess ``chess.pgn.Game``);
    undecodable bytes are replaced. Raises OSError for a file that cannot be opened."""
    import chess.pgn
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                yield game


def comment_score(comment):
    """The score in pawns (float, from the mover's side) of a move comment such as
    ``+0.35/14 0.12s``; None for a mate score, a book move or no comment."""
    m = SCORE_RE.match(comment or "")
    return float(m.group(1)) if m else None
