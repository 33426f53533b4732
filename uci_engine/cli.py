"""Command line: ``uci-engine [--sliders X] [--option NAME=VALUE ...] [uci|bench [depth]|perft
...|warmup]``, ``--version``.

Without a subcommand the engine speaks UCI on stdin/stdout.
"""
import argparse
import os
import sys
import time

from . import __version__


def _build_parser():
    p = argparse.ArgumentParser(prog="uci-engine", description="UCI chess engine (Numba)")
    p.add_argument("--sliders", choices=["auto", "pext", "magic", "black", "rayscan"], default=None,
                   help="slider attack backend (default: auto-detect; env UCI_ENGINE_SLIDERS)")
    p.add_argument("--version", action="store_true", help="print version and slider path")
    p.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                   help="UCI: apply 'setoption name NAME value VALUE' before reading "
                        "commands (repeatable), for clients that cannot send options, such "
                        "as fastchess --compliance; a bad one gets 'info string error'. "
                        "bench and warmup: the same options (e.g. 'Use NNUE=false', "
                        "'EvalFile=NET'); a bad one exits 2")
    p.add_argument("--tune", action="store_true",
                   help="UCI: list the search parameters (uci_engine/params.py) as spin "
                        "options a tuner can set")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("uci", help="speak UCI on stdin/stdout (the default)")
    b = sub.add_parser("bench", help="fixed-depth search signature for OpenBench")
    b.add_argument("depth", nargs="?", type=int, default=None)
    pf = sub.add_parser("perft", help="perft divide from a position")
    pf.add_argument("--depth", type=int, required=True)
    pf.add_argument("--fen", default=None)
    sub.add_parser("warmup", help="compile or load every kernel, then exit")
    d = sub.add_parser("datagen", help="self-play training data: '<FEN> | <score> | <result>' "
                                       "lines or compact game records")
    d.add_argument("--out", required=True, help="output file (appended to; a rerun resumes)")
    d.add_argument("--format", choices=["text", "records"], default="text",
                   help="text: a 'FEN | score | result' line per kept position (default; "
                        "every script reads it); records: binary game records, about 4 bytes "
                        "a position (uci_engine.gamerecord; train_nnue.py reads them, "
                        "'python -m uci_engine.gamerecord to-text' converts them)")
    n = d.add_mutually_exclusive_group()
    n.add_argument("--games", type=int, default=None, help="play games 0 .. N-1")
    n.add_argument("--positions", type=int, default=None,
                   help="play new games until the file holds N positions (a resumed run "
                        "counts those it has)")
    d.add_argument("--nodes", type=int, default=5000,
                   help="node limit per move, checked at every node as 'go nodes' does "
                        "(default 5000)")
    d.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    d.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    d.add_argument("--book", default=None,
                   help="EPD/FEN openings, e.g. tests/data/openings/noob_2moves.epd "
                        "(default: the start position)")
    d.add_argument("--syzygy", default=None, help="Syzygy directory: a tablebase WDL ends a game")
    d.add_argument("--keep-noisy", action="store_true",
                   help="keep positions whose best move is a capture or promotion")
    d.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="run the workers as Ray tasks ('local' starts a local cluster)")
    d.add_argument("--eval-file", default=None, metavar="NET",
                   help="evaluate with this NNUE net (EvalFile's lookup; default: hand-crafted)")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _select(sliders):
    from . import backend
    name, text, warning = backend.choose_and_select(sliders)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return name, text


def main(argv=None):
    """Entry point of the ``uci-engine`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    # UCI GUIs sometimes pass the single word "uci"; argparse handles it as a subcommand.
    args = _build_parser().parse_args(argv)
    if args.version:
        _, text = _select(args.sliders)
        print(f"uci_engine {__version__} (sliders {text})")
        return 0
    if args.command in (None, "uci"):
        from .uci import UCI, setoption_line
        session = UCI(sliders=args.sliders, tune=args.tune)
        for item in args.option:
            session.handle(setoption_line(item))
        status = session.run()
        # Leave without interpreter teardown: a daemon thread may still hold compiled code,
        # and LLVM's global destructors then assert at exit. Everything is flushed first.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    name, text = _select(args.sliders)
    from .engine import Engine
    from .uci import configured_engine
    if args.command == "warmup":
        t = time.perf_counter()
        from .warmup import warm_up
        try:    # the UCI session's own load first (the lock, the leaf helper), then the rest
            eng = configured_engine(args.option, args.sliders)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        warm_up(eng)
        print(f"warmup done: sliders {text}, {time.perf_counter() - t:.1f} s")
        return 0
    if args.command == "datagen":
        from .datagen import main as datagen_main
        return datagen_main(args, name)
    if args.command == "bench":
        from .bench import DEFAULT_DEPTH, run_bench
        try:
            eng = configured_engine(args.option, args.sliders)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        run_bench(eng, args.depth or DEFAULT_DEPTH, out=lambda s: print(s, flush=True))
        return 0
    if args.command == "perft":
        from .fen import STARTPOS
        eng = Engine(1)
        try:
            eng.set_position(args.fen or STARTPOS, [])
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        t = time.perf_counter()
        total = 0
        for mv, n in eng.perft_divide(args.depth) if args.depth >= 1 else []:
            print(f"{mv}: {n}")
            total += n
        print()
        print(f"Nodes searched: {total if args.depth >= 1 else 1}")
        print(f"info string sliders {text}, {time.perf_counter() - t:.3f} s", file=sys.stderr)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
