#!/usr/bin/env python3
"""Where a match was won or lost: for each material threshold (men on the board, kings and pawns
included), the games are split by who stood better when the board first came down to that many
men, and engine A's score is given in each part.

The judge is one engine's own last score before that moment (the runner's move comments,
``+0.35/14 0.12s``, in pawns from the mover's side; ``--judge``, by default engine B, so the
opponent's view decides): A "better" above ``--margin`` pawns, "worse" below its negative,
"even" between, "none" when the judge gave no score yet or the game never got there.

Reading it: if A stands worse more often than better at a threshold, the deficit arose before
it; if A's score when better and when worse add up to 1 (0.86 and 0.14, say), both engines
convert alike from there on. A change that acts only with few men on the board (Syzygy probing
inside the search) cannot be the cause of a deficit that is already there with 20 men on the
board, where both search the same trees (``scripts/same_trees.py``).

Usage: python scripts/pgn_phases.py GAMES.pgn [...] --a NAME [--b NAME] [--judge NAME]
       [--men 24,20,16,12,8] [--margin 1.0]
"""
import argparse
from collections import defaultdict

import chess

from uci_engine.tools.pgnfiles import RESULT_POINTS, comment_score, read_games

CLASSES = ("better", "even", "worse", "none")


def judge_scores(game, judge, thresholds):
    """{threshold: the judge's last score (pawns, from White's side) before the board first had
    at most that many men} for the thresholds ``game`` reached after the judge's first score."""
    board = game.board()
    white = game.headers.get("White") == judge
    last = None
    out = {}
    for node in game.mainline():
        men = chess.popcount(board.occupied)
        for t in thresholds:
            if men <= t and t not in out and last is not None:
                out[t] = last
        s = comment_score(node.comment)
        if s is not None and (board.turn == chess.WHITE) == white:
            last = s if board.turn == chess.WHITE else -s
        board.push(node.move)
    return out


def split(games, a, judge, thresholds, margin):
    """{(threshold, class): [games, A's points]}; classes as in the module's docstring."""
    table = defaultdict(lambda: [0, 0.0])
    for game in games:
        result = RESULT_POINTS.get(game.headers.get("Result"))
        names = (game.headers.get("White"), game.headers.get("Black"))
        if result is None or a not in names or judge not in names:
            continue
        a_white = names[0] == a
        points = result if a_white else 1.0 - result
        scores = judge_scores(game, judge, thresholds)
        for t in thresholds:
            if t not in scores:
                cls = "none"
            else:
                s = scores[t] if a_white else -scores[t]
                cls = "better" if s > margin else "worse" if s < -margin else "even"
            cell = table[(t, cls)]
            cell[0] += 1
            cell[1] += points
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--a", required=True, help="the engine whose score is given")
    ap.add_argument("--b", help="its opponent (default: the other name in the first game)")
    ap.add_argument("--judge", help="whose scores classify the games (default: B)")
    ap.add_argument("--men", default="24,20,16,12,8", help="thresholds, comma-separated")
    ap.add_argument("--margin", type=float, default=1.0, help="pawns (default 1.0)")
    args = ap.parse_args()
    games = list(read_games(args.pgn))
    b = args.b
    if b is None:
        first = games[0].headers
        b = first["Black"] if first["White"] == args.a else first["White"]
    judge = args.judge or b
    thresholds = [int(x) for x in args.men.split(",")]
    table = split(games, args.a, judge, thresholds, args.margin)
    print(f"{args.a} against {b}; judged by {judge}'s score, margin {args.margin} pawns")
    print("| men | " + " | ".join(f"{c}: games, {args.a}'s score" for c in CLASSES) + " |")
    print("| --- " * (len(CLASSES) + 1) + "|")
    for t in thresholds:
        cells = []
        for c in CLASSES:
            n, p = table[(t, c)]
            cells.append(f"{n}, {p / n:.3f}" if n else "0")
        print(f"| {t} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
