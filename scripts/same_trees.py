#!/usr/bin/env python3
"""Whether two engines search the same trees: each position of an EPD file is searched to a fixed
depth by both (``ucinewgame`` before each, so no TT is carried over), and their node counts and
best moves are compared. Prints one line a position with a difference (with each side's
tbhits), then the count of equal positions. Exit status 0 when every position is equal, 1
otherwise.

A change that should act only in some positions (Syzygy probing inside the search acts only
where the tables can be reached) proves that it leaves the others alone this way: equal node
counts at equal depth mean equal trees, so any Elo difference in games must come from the
positions where it acts, or from speed (``uci-engine bench`` nps).

Usage: python scripts/same_trees.py "CMD_A" "CMD_B" POSITIONS.epd [--depth 12]
       [--option NAME=VALUE ...] [--option-a NAME=VALUE ...] [--option-b NAME=VALUE ...]
       [--limit N]
(each command is split as a shell would; --option is set on both engines). The same build with
``--option-b SyzygyPath=DIR`` shows which positions the tables reach at that depth.
"""
import argparse
import shlex
import sys

import chess
import chess.engine


def search(engine, board, depth):
    """``(nodes, bestmove_uci, tbhits)`` of one fixed-depth search from a cleared hash
    (python-chess sends ``ucinewgame`` when ``game`` differs from the last one)."""
    result = engine.play(board, chess.engine.Limit(depth=depth), info=chess.engine.INFO_ALL,
                         game=object())         # a new game each time: ucinewgame first
    info = result.info
    return int(info.get("nodes", -1)), result.move.uci(), int(info.get("tbhits", 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd_a")
    ap.add_argument("cmd_b")
    ap.add_argument("epd")
    ap.add_argument("--depth", type=int, default=12, help="plies (default 12)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option set on both engines (repeatable)")
    ap.add_argument("--option-a", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option set on engine A only (repeatable)")
    ap.add_argument("--option-b", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option set on engine B only (repeatable)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N positions")
    args = ap.parse_args()
    both = dict(o.split("=", 1) for o in args.option)
    options = [{**both, **dict(o.split("=", 1) for o in own)}
               for own in (args.option_a, args.option_b)]
    with open(args.epd, encoding="utf-8") as f:
        boards = [chess.Board.from_epd(line.strip())[0] for line in f if line.strip()]
    if args.limit:
        boards = boards[:args.limit]
    engines = [chess.engine.SimpleEngine.popen_uci(shlex.split(c))
               for c in (args.cmd_a, args.cmd_b)]
    try:
        for e, opts in zip(engines, options):
            e.configure(opts)
        equal = 0
        for i, board in enumerate(boards, 1):
            a, b = (search(e, board, args.depth) for e in engines)
            if a[:2] == b[:2]:
                equal += 1
            else:
                print(f"{i}: {board.epd()} men {chess.popcount(board.occupied)}: "
                      f"A {a[0]} nodes {a[1]} tbhits {a[2]}, B {b[0]} nodes {b[1]} tbhits {b[2]}",
                      flush=True)
    finally:
        for e in engines:
            e.quit()
    print(f"{equal} of {len(boards)} positions equal (nodes and best move) at depth {args.depth}")
    sys.exit(0 if equal == len(boards) else 1)


if __name__ == "__main__":
    main()
