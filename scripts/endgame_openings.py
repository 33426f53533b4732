#!/usr/bin/env python3
"""Write start positions for a focused endgame test from the PGN files of earlier games: in each
game, the first position with at most ``--max-men`` men (kings and pawns included), kept when
it has at least ``--min-men``, no castling rights, the side to move not in check, and both
engines' last scores within ``--max-eval`` pawns (the scores are read from the runner's move
comments, ``+0.35/14 0.12s``; a game without two scores there is skipped). Each position is
written once (its EPD, the four FEN fields), in the order first met, as an EPD file that
``uci-engine-match -openings file=... format=epd`` plays.

Why: a change that acts only with few men on the board (Syzygy probing inside the search,
issue 44) searches exactly as before in the rest of a game, so most games from the usual
openings measure nothing but noise; starting near the tables measures the change where it
acts. The games' openings stay noob_2moves for every other test.

Usage: python scripts/endgame_openings.py GAMES.pgn [...] --out FILE.epd [--min-men 6]
       [--max-men 8] [--max-eval 2.0] [--limit N]
"""
import argparse

import chess

from uci_engine.tools.pgnfiles import comment_score, read_games

def first_endgame_position(game, min_men, max_men, max_eval):
    """The EPD (str) of ``game``'s first position with at most ``max_men`` men, when that
    position qualifies (see the module's docstring); None otherwise."""
    board = game.board()
    last = [None, None]                     # the last score each side reported, from White's side
    for node in game.mainline():
        if chess.popcount(board.occupied) <= max_men:
            break
        score = comment_score(node.comment)
        if score is not None:
            last[board.turn] = score if board.turn == chess.WHITE else -score
        board.push(node.move)
    else:
        return None
    if (chess.popcount(board.occupied) < min_men or board.castling_rights or board.is_check()
            or board.is_game_over() or None in last or max(map(abs, last)) > max_eval):
        return None
    return board.epd()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="+", help="PGN files of earlier games")
    ap.add_argument("--out", required=True, help="the EPD file to write")
    ap.add_argument("--min-men", type=int, default=6)
    ap.add_argument("--max-men", type=int, default=8)
    ap.add_argument("--max-eval", type=float, default=2.0,
                    help="largest |score| in pawns either engine last gave (default 2.0)")
    ap.add_argument("--limit", type=int, default=0, help="stop after N positions (0: all)")
    args = ap.parse_args()
    seen = {}
    games = 0
    for game in read_games(args.pgn):
        games += 1
        epd = first_endgame_position(game, args.min_men, args.max_men, args.max_eval)
        if epd is not None:
            seen.setdefault(epd, None)
            if len(seen) == args.limit:
                break
    with open(args.out, "w", encoding="utf-8") as f:
        f.writelines(epd + "\n" for epd in seen)
    print(f"{len(seen)} positions from {games} games -> {args.out}")


if __name__ == "__main__":
    main()
