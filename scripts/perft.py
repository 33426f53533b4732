#!/usr/bin/env python3
"""Run a perft EPD suite against the engine's move generator.

Usage::

    python scripts/perft.py --epd tests/data/perft.epd [--max-nodes N] [--chess960] [--sliders X]

Each EPD line is ``FEN ;D1 n ;D2 n ...``. Every listed depth whose expected count is at most
``--max-nodes`` (default: no limit) is run; one PASS/FAIL line per EPD line goes to stdout, a
tqdm bar (advancing by nodes, so its ETA is meaningful) to stderr, then a summary with total
nodes, perft time (wall), nodes per second, and the process CPU time (a steadier figure on a
loaded machine). A line whose castling field holds letters other than
``KQkq`` is parsed in Chess960 mode (Shredder-FEN); ``--chess960`` forces it for every line.
Exit status: 0 when all counts match, 1 on any mismatch or unparsable line.
"""
import argparse
import sys
import time


def parse_epd_line(line):
    """``(fen, [(depth, count), ...])`` for one EPD line, or None for a blank/comment line."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    parts = line.split(";")
    fen = parts[0].strip()
    depths = []
    for p in parts[1:]:
        p = p.strip()
        if not p:
            continue
        tag, value = p.split()
        if not tag.upper().startswith("D"):
            raise ValueError(f"bad depth tag {tag!r}")
        depths.append((int(tag[1:]), int(value)))
    return fen, depths


def is_960_fen(fen):
    """True when the castling field uses letters other than ``KQkq`` (Shredder-FEN)."""
    fields = fen.split()
    return len(fields) > 2 and fields[2] != "-" and any(c not in "KQkq" for c in fields[2])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epd", required=True, help="EPD file: FEN ;D1 n ;D2 n ...")
    ap.add_argument("--max-nodes", type=int, default=None,
                    help="skip depths whose expected count exceeds this (default: run all)")
    ap.add_argument("--chess960", action="store_true", help="parse every FEN in Chess960 mode")
    ap.add_argument("--sliders", choices=["auto", "pext", "magic", "black", "rayscan"], default=None,
                    help="slider backend (default: auto / UCI_ENGINE_SLIDERS)")
    ap.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    args = ap.parse_args(argv)

    from uci_engine import backend
    name, text, warning = backend.choose_and_select(args.sliders)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)

    import numpy as np
    from tqdm import tqdm

    from uci_engine.fen import STARTPOS, parse_fen
    from uci_engine.kernels import position as P
    from uci_engine.kernels.perft import perft

    jobs = []
    with open(args.epd) as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                parsed = parse_epd_line(line)
            except ValueError as exc:
                jobs.append((lineno, line.strip(), None, str(exc)))
                continue
            if parsed is None:
                continue
            fen, depths = parsed
            run = [(d, c) for d, c in depths if args.max_nodes is None or c <= args.max_nodes]
            jobs.append((lineno, fen, run, None))

    st, mb = P.new_stack(64)
    t0 = time.perf_counter()
    parse_fen(STARTPOS, st, mb, 0)
    perft(st, mb, np.int64(0), np.int64(2))   # load/compile outside the timed part
    warm = time.perf_counter() - t0

    total_expected = sum(c for _, _, run, _ in jobs if run for _, c in run)
    bar = tqdm(total=total_expected, unit="node", unit_scale=True, file=sys.stderr,
               disable=args.no_progress, smoothing=0.05, dynamic_ncols=True)
    out = (lambda s: tqdm.write(s, file=sys.stdout)) if not args.no_progress else print

    failed_lines = 0
    depths_run = 0
    nodes_total = 0
    perft_time = 0.0
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    for lineno, fen, run, err in jobs:
        if run is None:
            failed_lines += 1
            out(f"FAIL line {lineno}: unparsable EPD line ({err}): {fen}")
            continue
        chess960 = args.chess960 or is_960_fen(fen)
        try:
            parse_fen(fen, st, mb, 0, chess960=chess960)
        except ValueError as exc:
            failed_lines += 1
            out(f"FAIL line {lineno}: {exc}: {fen}")
            bar.update(sum(c for _, c in run))
            continue
        bad = []
        done = []
        t_line = 0.0
        for depth, want in run:
            t = time.perf_counter()
            got = int(perft(st, mb, np.int64(0), np.int64(depth)))
            dt = time.perf_counter() - t
            t_line += dt
            perft_time += dt
            nodes_total += got
            depths_run += 1
            bar.update(want)
            done.append(f"D{depth}")
            if got != want:
                bad.append(f"D{depth} expected {want} got {got}")
        if not run:
            out(f"skip line {lineno}: no depth within --max-nodes: {fen}")
        elif bad:
            failed_lines += 1
            out(f"FAIL line {lineno}: {'; '.join(bad)}: {fen}")
        else:
            out(f"ok   line {lineno}: {done[0]}..{done[-1]} {t_line:7.2f} s: {fen}")
    bar.close()
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    nps = nodes_total / perft_time if perft_time > 0 else 0.0
    cpu_nps = nodes_total / cpu if cpu > 0 else 0.0
    print()
    print(f"sliders {text}; warm-up/compile {warm:.2f} s")
    print(f"{len(jobs)} positions, {depths_run} perft runs, "
          f"{failed_lines} failing line(s)")
    print(f"total nodes {nodes_total:,}  perft time {perft_time:.2f} s  "
          f"wall {wall:.2f} s  nps {nps / 1e6:.1f} M")
    print(f"process CPU time {cpu:.2f} s  ({cpu_nps / 1e6:.1f} M nodes per CPU second)")
    print("PASS" if failed_lines == 0 else "FAIL")
    return 1 if failed_lines else 0


if __name__ == "__main__":
    sys.exit(main())
