"""Time of the root's tablebase ranking (``uci_engine.syzygy.Tablebases.rank_root``, DTZ with the
fifty-move rule) through the compiled probers against the same ranking through python-chess's
``probe_wdl`` / ``probe_dtz`` (the engine's probes until 2026-11-27), on the same random roots,
measured in one run; the rankings are checked equal.

Roots: ``--per-table`` random legal positions (``uci_engine.tools.tbpositions.random_boards``)
of every table in ``--tables`` that has a ``.rtbz``, with at least one legal move. Each side
ranks every root once after a warm-up. Prints milliseconds per root (mean and worst) of each and the ratio.

    python scripts/bench_tbroot.py --tables ../shared/data/syzygy --per-table 20
"""
import argparse
import os
import random
import sys
import time

from uci_engine import backend
from uci_engine.syzygy import Tablebases
from uci_engine.tools.tbpositions import random_boards


class PythonChessProbes(Tablebases):
    """The same ranking with python-chess's probes (the reference)."""

    def load(self, path, wait=True, after=None):
        import chess.syzygy
        n = super().load(path, wait, after)      # (closes the tables loaded before)
        self._pc = chess.syzygy.open_tablebase(path)
        return n

    def close(self):
        if getattr(self, "_pc", None) is not None:
            self._pc.close()
            self._pc = None
        super().close()

    def probe_wdl(self, board):
        return self._pc.probe_wdl(board)

    def probe_dtz(self, board):
        return self._pc.probe_dtz(board)


def time_rankings(tb, roots, win):
    """(rankings, per-root seconds) of ``tb`` over ``roots`` (``win``: a TB win's score)."""
    out, secs = [], []
    for board in roots:
        moves = [m.uci() for m in board.legal_moves]
        t0 = time.perf_counter()
        out.append(tb.rank_root(board, moves, win))
        secs.append(time.perf_counter() - t0)
    return out, secs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default=os.path.join("..", "shared", "data", "syzygy"))
    ap.add_argument("--per-table", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if backend.selected() is None:               # before any kernel is imported
        backend.choose_and_select()
    from uci_engine.engine.roottb import TB_WIN
    rng = random.Random(args.seed)
    names = sorted(f[:-5] for f in os.listdir(args.tables) if f.endswith(".rtbz"))
    roots = random_boards(rng, names, args.per_table, keep=lambda b: any(b.legal_moves))
    ours, ref = Tablebases(), PythonChessProbes()
    ours.load(args.tables)
    ref.load(args.tables)
    for tb in (ours, ref):                       # warm-up: kernels loaded, files mapped
        time_rankings(tb, roots[::max(1, len(roots) // 20)], TB_WIN)
    got, t_ours = time_rankings(ours, roots, TB_WIN)
    want, t_ref = time_rankings(ref, roots, TB_WIN)
    ours.close()
    ref.close()
    bad = sum(g != w for g, w in zip(got, want))
    mean = sum(t_ours) / len(roots) * 1000, sum(t_ref) / len(roots) * 1000
    print(f"{len(roots)} roots over {len(names)} tables, rankings different: {bad}")
    print(f"compiled probers: {mean[0]:.2f} ms a root (worst {max(t_ours) * 1000:.1f} ms)")
    print(f"python-chess:     {mean[1]:.2f} ms a root (worst {max(t_ref) * 1000:.1f} ms)")
    print(f"ratio: {mean[1] / mean[0]:.1f}x")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
