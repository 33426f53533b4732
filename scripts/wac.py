#!/usr/bin/env python3
"""Win At Chess (odd-numbered positions) at a fixed time (or node count) per position.

Usage: python scripts/wac.py [--time 1.0 | --nodes N] [--epd tests/data/wac_odd.epd]
           [--engine uci-engine]

Every EPD line gives ``bm`` (one or more SAN moves, any of which solves it) and optionally
``am`` (moves to avoid). A position counts as solved when the engine's best move after
``Limit(time=...)`` is in ``bm`` (when given) and not in ``am``; ``--nodes`` searches
``Limit(nodes=...)`` instead, which gives the same answers on every machine and under any load
(one search thread): a way to compare two builds while the machine is busy. Prints each
failure and the summary ``Solved: X/N``. An engine crash counts as a failure (``CRASH``); the
engine is restarted and the run goes on.
"""
import argparse
import os
import shlex
import sys
import time

import chess
import chess.engine

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_EPD = os.path.join(HERE, os.pardir, "tests", "data", "wac_odd.epd")


def load_epd(path):
    """List of (board, ops) from an EPD file; ops holds ``bm``/``am`` as lists of moves."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            board, ops = chess.Board.from_epd(line)
            out.append((board, ops))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=1.0, help="seconds per position (1.0)")
    ap.add_argument("--nodes", type=int, default=None,
                    help="nodes per position instead of a time (deterministic with one thread)")
    ap.add_argument("--epd", default=DEFAULT_EPD)
    ap.add_argument("--engine", default="uci-engine", help="engine command line")
    ap.add_argument("--hash", type=int, default=16, help="Hash in MiB (16)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N positions")
    ap.add_argument("--start", type=int, default=0, help="skip the first N positions")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each position first")
    args = ap.parse_args(argv)
    if args.nodes is not None and args.nodes < 1:
        ap.error(f"--nodes wants a positive count, got {args.nodes}")
    limit = (chess.engine.Limit(nodes=args.nodes) if args.nodes
             else chess.engine.Limit(time=args.time))

    positions = load_epd(args.epd)
    positions = positions[args.start:]
    if args.limit:
        positions = positions[:args.limit]
    def start():
        eng = chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine), timeout=120)
        eng.configure({"Hash": args.hash})
        return eng

    engine = start()
    solved = 0
    failures = []
    crashes = 0
    t_start = time.monotonic()
    try:
        for board, ops in positions:
            pid = ops.get("id", "?")
            bm = list(ops.get("bm", []))
            am = list(ops.get("am", []))
            if args.verbose:
                print(f"{pid}: {board.fen()}", flush=True)
            try:
                if "Clear Hash" in engine.options:
                    engine.configure({"Clear Hash": None})
                res = engine.play(board, limit,
                                  info=chess.engine.INFO_SCORE | chess.engine.INFO_PV)
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError,
                    TimeoutError) as exc:
                crashes += 1
                msg = f"CRASH {pid}: {type(exc).__name__}: {exc}  {board.fen()}"
                failures.append(msg)
                print(msg, flush=True)
                try:
                    engine.close()
                except Exception:
                    pass
                engine = start()
                continue
            move = res.move
            ok = move is not None and (not bm or move in bm) and move not in am
            if ok:
                solved += 1
            else:
                got = board.san(move) if move is not None else "(none)"
                want = " ".join(board.san(m) for m in bm)
                avoid = " ".join(board.san(m) for m in am)
                score = res.info.get("score")
                msg = f"FAIL {pid}: got {got} want {want}"
                if avoid:
                    msg += f" avoid {avoid}"
                msg += f" (score {score.white() if score else '?'}, depth " \
                       f"{res.info.get('depth', '?')})  {board.fen()}"
                failures.append(msg)
                print(msg, flush=True)
    finally:
        try:
            engine.quit()
        except Exception:
            pass
    if crashes:
        print(f"Engine crashes: {crashes}")
    print(f"Time: {time.monotonic() - t_start:.1f} s")
    print(f"Solved: {solved}/{len(positions)}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
