#!/usr/bin/env python3
"""Fake UCI engine whose strength follows a known node law (for scripts/calibrate_elo.py's test).

Usage: python3 node_strength.py ELO_AT_1000 PER_DOUBLING [SEED]

At ``go nodes N`` it "plays at" ``E = ELO_AT_1000 + PER_DOUBLING * log2(N / 1000)``. It cannot
play chess that well, so it decides each game at its first move instead: against an opponent of
Elo ``R``, read from UCI's standard ``UCI_Opponent`` option (``none 1320 computer stockfish``,
which calibrate_elo.py sets), its expected score is the logistic ``s = 1 / (1 + 10^((R - E) /
400))``. It can only lose or draw (it plays random moves), so for ``E <= R`` it resigns (reports
``score cp -1000``; the runner's ``-resign movecount=1 score=900`` ends the game) with chance
``1 - 2 s`` and otherwise reports ``score cp 0`` until ``-maxmoves`` draws the game: the
expected score is ``s``. Above ``R`` it always draws.
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minichess import legal, parse_position, uci, Pos  # noqa: E402

#: the decided game's score (centipawns), beyond the test's resign threshold
DECIDED_CP = 1000


def main():
    elo_at_1000, per_doubling = float(sys.argv[1]), float(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    opponent = 1500.0
    pos = Pos()
    verdict = None

    def send(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            send("id name Fake-node-strength")
            send("option name Hash type spin default 16 min 1 max 1024")
            send("option name UCI_Opponent type string default none 1500 computer none")
            send("uciok")
        elif cmd == "setoption" and "UCI_Opponent" in tokens and "value" in tokens:
            fields = tokens[tokens.index("value") + 1:]
            if len(fields) >= 2 and fields[1].isdigit():
                opponent = float(fields[1])
        elif cmd == "isready":
            send("readyok")
        elif cmd == "ucinewgame":
            verdict = None
        elif cmd == "position":
            pos = parse_position(tokens[1:])
            if "moves" not in tokens or len(tokens) - tokens.index("moves") <= 2:
                verdict = None                  # a new game from the start position
        elif cmd == "go":
            nodes = int(tokens[tokens.index("nodes") + 1]) if "nodes" in tokens else 1000
            if verdict is None:
                elo = elo_at_1000 + per_doubling * math.log2(max(nodes, 1) / 1000)
                score = 1.0 / (1.0 + 10 ** ((opponent - elo) / 400))
                verdict = -DECIDED_CP if rng.random() < 1.0 - 2.0 * score else 0
            moves = legal(pos)
            send(f"info depth 1 score cp {verdict}")
            send(f"bestmove {uci(rng.choice(moves)) if moves else '(none)'}")
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
