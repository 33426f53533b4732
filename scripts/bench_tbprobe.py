"""Speed of the compiled Syzygy WDL prober (uci_engine/kernels/tbprobe.py) against python-chess's
``chess.syzygy.Tablebase.probe_wdl`` on the same random legal positions, measured in one run;
with ``--dtz``, of the DTZ prober (uci_engine/kernels/tbdtz.py) against ``probe_dtz``.

Positions: ``--per-table`` random legal positions (no castling, the side not to move not in
check; python-chess's ``Board.is_valid``) of every ``.rtbw`` table in ``--tables``. Each side
probes every position once after a warm-up (our kernel compiled, python-chess's files mapped);
results are checked equal. Prints probes per second of each and the ratio. A DTZ probe needs
the ``.rtbz`` and the ``.rtbw`` files of each table; python-chess's probe_dtz is slow (about
a thousand probes/s), hence the smaller default count.

    python scripts/bench_tbprobe.py --tables ../shared/data/syzygy --per-table 2000
    python scripts/bench_tbprobe.py --dtz --per-table 300
"""
import argparse
import random
import time

import numpy as np

from uci_engine.tools.tbpositions import random_boards


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="tests/data/syzygy34",
                    help="directory of .rtbw (and .rtbz) files")
    ap.add_argument("--per-table", type=int, default=None,
                    help="positions per table (default 2000, with --dtz 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dtz", action="store_true", help="time probe_dtz instead of probe_wdl")
    args = ap.parse_args(argv)
    if args.per_table is None:
        args.per_table = 300 if args.dtz else 2000
    from uci_engine import backend
    backend.choose_and_select()
    import chess.syzygy
    from uci_engine.fen import parse_fen
    from uci_engine.kernels import position as P
    from uci_engine.kernels import state as SS
    from uci_engine.kernels import tbdtz as TD
    from uci_engine.kernels import tbprobe as TP
    from uci_engine.tbfiles import DtzTables, WdlTables

    tables = WdlTables([args.tables])
    if args.dtz:
        dtz = DtzTables([args.tables])
        kind, rows_after = "DTZ", TD.DTZ_ROWS + 1

        def probe(rows, out):
            TD.probe_dtz_many(tables.array, dtz.array, st, mb, rows, mv, pos, out)
    else:
        kind, rows_after = "WDL", 16

        def probe(rows, out):
            TP.probe_many(tables.array, st, mb, rows, mv, pos, out)
    rng = random.Random(args.seed)
    boards = random_boards(rng, sorted(tables.names), args.per_table)
    n = len(boards)
    st, mb = P.new_stack(n + rows_after)
    for i, b in enumerate(boards):
        parse_fen(b.fen(), st, mb, i)
    rows = np.arange(n, dtype=np.int64)
    mv = SS.new_move_buffers()
    pos = np.zeros(8, dtype=np.int64)
    ours = np.zeros(n, dtype=np.int64)
    probe(rows[:10], ours[:10])                                             # compile
    t = time.perf_counter()
    probe(rows, ours)
    t_ours = time.perf_counter() - t
    with chess.syzygy.open_tablebase(args.tables, load_dtz=args.dtz) as tb:
        ref_probe = tb.probe_dtz if args.dtz else tb.probe_wdl
        for i in range(0, n, args.per_table):
            ref_probe(boards[i])                          # map every file before timing
        t = time.perf_counter()
        ref = [ref_probe(b) for b in boards]
        t_ref = time.perf_counter() - t
    mismatches = sum(int(a != b) for a, b in zip(ours, ref))
    print(f"positions: {n} ({len(tables.names)} tables x {args.per_table}), "
          f"mismatches: {mismatches}")
    ours_name = f"ours (Numba {'tbdtz' if args.dtz else 'tbprobe'}):"
    print(f"{ours_name:28}{n / t_ours:12,.0f} probes/s")
    print(f"{'python-chess probe_' + kind.lower() + ':':28}{n / t_ref:12,.0f} probes/s")
    print(f"ratio ours / python-chess:  {t_ref / t_ours:12.1f}x")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
