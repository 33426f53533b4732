"""Command line: ``uci-engine [--sliders X] [uci|bench [depth]|perft ...|warmup]``, ``--version``.

Without a subcommand the engine speaks UCI on stdin/stdout.
"""
import argparse
import os
import sys
import time

from . import __version__


def _build_parser():
    p = argparse.ArgumentParser(prog="uci-engine", description="UCI chess engine (Numba)")
    p.add_argument("--sliders", choices=["auto", "pext", "magic", "rayscan"], default=None,
                   help="slider attack backend (default: auto-detect; env UCI_ENGINE_SLIDERS)")
    p.add_argument("--version", action="store_true", help="print version and slider path")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("uci", help="speak UCI on stdin/stdout (the default)")
    b = sub.add_parser("bench", help="fixed-depth search signature for OpenBench")
    b.add_argument("depth", nargs="?", type=int, default=None)
    pf = sub.add_parser("perft", help="perft divide from a position")
    pf.add_argument("--depth", type=int, required=True)
    pf.add_argument("--fen", default=None)
    sub.add_parser("warmup", help="compile or load every kernel, then exit")
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
        from .uci import UCI
        status = UCI(sliders=args.sliders).run()
        # Leave without interpreter teardown: a daemon thread may still hold compiled code,
        # and LLVM's global destructors then assert at exit. Everything is flushed first.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    name, text = _select(args.sliders)
    from .engine import Engine
    if args.command == "warmup":
        t = time.perf_counter()
        from .warmup import start_leaf_compiler, warm_up
        helper = start_leaf_compiler()
        warm_up(Engine())
        if helper is not None:
            helper.wait()
        print(f"warmup done: sliders {text}, {time.perf_counter() - t:.1f} s")
        return 0
    if args.command == "bench":
        from .bench import DEFAULT_DEPTH, run_bench
        eng = Engine(16)
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
