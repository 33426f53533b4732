#!/usr/bin/env python3
"""Fake UCI engine with a known, deterministic choice (for scripts/move_quality.py's test).

Usage: python3 material_oracle.py [first]

It scores each root move (all legal moves, or those of ``go ... searchmoves``) by the material
balance after the move and the opponent's best capture in reply (pawn 100, knight and bishop
300, rook 500, queen 900; centipawns, side to move's view), and plays the highest (ties: the
first in python-chess's move order), reporting ``info depth 1 score cp X pv MOVE``. It ignores
``nodes``/``movetime``. With ``first`` it plays the first legal move instead, a weak engine
whose losses the test can predict. Every search appends a line to ``$MATERIAL_ORACLE_LOG``
when that variable is set, so the test can count searches.
"""
import os
import sys

import chess

VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 0}


def material(board, color):
    return sum(VALUES[p.piece_type] * (1 if p.color == color else -1)
               for p in board.piece_map().values())


def score_move(board, move):
    """Side to move's material after ``move`` and the opponent's best capture in reply."""
    us = board.turn
    board.push(move)
    worst = material(board, us)
    for reply in board.legal_moves:
        if board.is_capture(reply):
            board.push(reply)
            worst = min(worst, material(board, us))
            board.pop()
    if board.is_checkmate():
        worst = 10000
    board.pop()
    return worst


def main():
    first = len(sys.argv) > 1 and sys.argv[1] == "first"
    board = chess.Board()
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "uci":
            print("id name Fake-material-oracle")
            print("option name Hash type spin default 16 min 1 max 1024")
            print("option name Threads type spin default 1 min 1 max 8")
            print("uciok", flush=True)
        elif tokens[0] == "isready":
            print("readyok", flush=True)
        elif tokens[0] == "position":
            if tokens[1] == "startpos":
                board = chess.Board()
                rest = tokens[2:]
            else:
                end = tokens.index("moves") if "moves" in tokens else len(tokens)
                board = chess.Board(" ".join(tokens[2:end]))
                rest = tokens[end:]
            for m in rest[1:]:
                board.push_uci(m)
        elif tokens[0] == "go":
            moves = list(board.legal_moves)
            if "searchmoves" in tokens:
                moves = [chess.Move.from_uci(m) for m in tokens[tokens.index("searchmoves") + 1:]]
            scored = [(score_move(board, m), k, m) for k, m in enumerate(moves)]
            cp, _, best = scored[0] if first else max(scored, key=lambda t: (t[0], -t[1]))
            if os.environ.get("MATERIAL_ORACLE_LOG"):
                with open(os.environ["MATERIAL_ORACLE_LOG"], "a") as f:
                    f.write(board.fen() + "\n")
            print(f"info depth 1 score cp {cp} pv {best.uci()}")
            print(f"bestmove {best.uci()}", flush=True)
        elif tokens[0] == "quit":
            break


if __name__ == "__main__":
    main()
