"""Speed of the slider backends (pext, magic, black, rayscan): perft per backend, the lookups
alone, and the bytes of each backend's tables.

Shared by ``scripts/bench_perft.py`` (the perft speed table) and ``scripts/bench_sliders.py``
(the lookups on perft's own occupancies and the bound they put on ``magic / rayscan``).

* Perft: the backend is fixed per process, so each backend runs in its own subprocess
  (:func:`run_worker`)::

      python -m uci_engine.slider_bench BACKEND [--repeat 3]

  selects ``BACKEND``, warms up (loads or compiles the kernels, perft(2) of each case), times
  startpos perft(6) and Kiwipete perft(5), best of ``--repeat``, checks the node counts and
  prints one JSON line (:func:`worker`).
* Lookups alone (:func:`measure`, :func:`report`): leaf-parent positions of those perfts are
  sampled uniformly over the tree, as perft counts them (python-chess enumerates the positions
  two plies above the leaves; one is drawn in proportion to its legal-move count, then one of
  its moves uniformly); the slider lookups that the counting generator
  (:func:`uci_engine.kernels.perft._gen` with ``write=False``) performs there are listed (every
  own bishop, rook and queen from its square over the occupancy; both lookups for every king
  target, occupancy without our king; both for each en-passant candidate and for each square of
  a castling walk, counted whole: a slight over-count for the ray scan) and timed per backend in
  a compiled loop, minus the same loop returning a table load (the baseline). Each backend's
  lookup functions come from its own module (``sliders_magic``, ``sliders_pext``,
  ``sliders_black``, ``rays``).
* Table bytes (:func:`table_bytes`): every array a backend's lookups read.

python-chess is needed for the lookups (sampling); the perft worker needs only the engine.
"""
import argparse
import json
import random
import subprocess
import sys
import time

STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
CASES = (("startpos", STARTPOS, 6, 119_060_324), ("kiwipete", KIWIPETE, 5, 193_690_690))
BACKENDS = ("pext", "magic", "black", "rayscan")


def result(nodes, depth, wall, cpu):
    """One timed perft as a dict: ``nodes`` at ``depth`` in ``wall`` seconds and ``cpu``
    seconds of CPU time (wall when unknown), with both nps."""
    cpu = cpu if cpu and cpu > 0 else wall
    return {"depth": depth, "nodes": nodes, "seconds": wall, "nps": nodes / wall,
            "cpu_seconds": cpu, "cpu_nps": nodes / cpu}


# --- perft: one backend per process -------------------------------------------------------------
def worker(name, repeat):
    """Select backend ``name``, warm up (load or compile the kernels, perft(2) of each case),
    time each case's perft (best of ``repeat``), check the node counts and print one JSON line
    ``{"backend", "warmup_s", <case>: result(...)}``; returns 0."""
    from . import backend
    backend.select(name)
    t0 = time.perf_counter()
    import numpy as np
    from .fen import parse_fen
    from .kernels import position as P
    from .kernels.perft import perft
    st, mb = P.new_stack(16)
    for _, fen, _, _ in CASES:
        parse_fen(fen, st, mb, 0)
        perft(st, mb, np.int64(0), np.int64(2))
    out = {"backend": name, "warmup_s": time.perf_counter() - t0}
    for key, fen, depth, want in CASES:
        parse_fen(fen, st, mb, 0)
        best = best_cpu = None
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            nodes = int(perft(st, mb, np.int64(0), np.int64(depth)))
            dt, dc = time.perf_counter() - t, time.process_time() - c
            if nodes != want:
                raise SystemExit(f"{name} {key} perft({depth}) = {nodes}, expected {want}")
            best = dt if best is None else min(best, dt)
            best_cpu = dc if best_cpu is None else min(best_cpu, dc)
        out[key] = result(nodes, depth, best, best_cpu)
    print(json.dumps(out), flush=True)
    return 0


def run_worker(name, repeat):
    """:func:`worker` for backend ``name`` in a fresh ``python -m uci_engine.slider_bench``
    process; its JSON line as a dict, or ``{"backend", "error"}``."""
    proc = subprocess.run([sys.executable, "-m", "uci_engine.slider_bench", name,
                           "--repeat", str(repeat)], capture_output=True, text=True)
    if proc.returncode != 0:
        return {"backend": name, "error": (proc.stderr or proc.stdout).strip()[-300:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- slider lookups alone ------------------------------------------------------------------------
def positions_at(board, plies):
    """All positions ``plies`` plies below ``board`` (python-chess boards, with multiplicity)."""
    if plies == 0:
        return [board.copy(stack=False)]
    out = []
    for mv in board.legal_moves:
        board.push(mv)
        out.extend(positions_at(board, plies - 1))
        board.pop()
    return out


def sample_leaf_parents(fen, depth, samples, rng):
    """``samples`` positions drawn uniformly from the nodes at ``depth - 1`` plies (perft's
    leaf parents), with multiplicity as perft visits them."""
    import chess
    grand = positions_at(chess.Board(fen), depth - 2)
    weights = [b.legal_moves.count() for b in grand]
    out = []
    for b in rng.choices(grand, weights=weights, k=samples):
        b = b.copy(stack=False)
        b.push(rng.choice(list(b.legal_moves)))
        out.append(b)
    return out


def lookups_of(board):
    """(rook list, bishop list, leaf count): the (square, occupancy) pairs the counting generator
    looks up for ``board``, and its number of legal moves (the leaves it counts)."""
    import chess
    rook, bishop = [], []
    us = board.turn
    occ = int(board.occupied)
    own = int(board.occupied_co[us])
    ksq = board.king(us)
    occ_nok = occ & ~(1 << ksq)
    for to in chess.SquareSet(chess.BB_KING_ATTACKS[ksq] & ~own):
        rook.append((to, occ_nok))
        bishop.append((to, occ_nok))
    checkers = board.checkers_mask()
    if checkers & (checkers - 1) == 0:                 # not double check: the sliders move
        for sq in board.pieces(chess.BISHOP, us) | board.pieces(chess.QUEEN, us):
            bishop.append((sq, occ))
        for sq in board.pieces(chess.ROOK, us) | board.pieces(chess.QUEEN, us):
            rook.append((sq, occ))
        if board.ep_square is not None:
            them = not us
            cands = (chess.BB_PAWN_ATTACKS[them][board.ep_square]
                     & int(board.pieces(chess.PAWN, us)))
            capsq = board.ep_square + (-8 if us == chess.WHITE else 8)
            for frm in chess.SquareSet(cands):
                occ2 = occ ^ (1 << frm) ^ (1 << capsq) ^ (1 << board.ep_square)
                rook.append((ksq, occ2))
                bishop.append((ksq, occ2))
        if not checkers:
            for rsq in chess.SquareSet(board.clean_castling_rights() & int(board.occupied_co[us])):
                kto = chess.square(6 if rsq > ksq else 2, chess.square_rank(ksq))
                rto = chess.square(5 if rsq > ksq else 3, chess.square_rank(ksq))
                path = (int(chess.SquareSet.between(ksq, kto)) | (1 << kto)
                        | int(chess.SquareSet.between(rsq, rto)) | (1 << rto))
                path &= ~((1 << ksq) | (1 << rsq))
                if path & occ:
                    continue
                for s in list(chess.SquareSet.between(ksq, kto)) + [kto]:
                    rook.append((s, occ_nok))
                    bishop.append((s, occ_nok))
    return rook, bishop, board.legal_moves.count()


def time_lookups(rook, bishop, repeat):
    """ns per lookup of each backend over the given lists (best of ``repeat``)."""
    import numpy as np
    from numba import njit
    from .kernels import rays, sliders_black, sliders_magic
    from .kernels.bitboard import U0
    from . import cpu

    fns = {}
    if cpu.host_has_bmi2():
        from .kernels import sliders_pext
        fns["pext"] = (sliders_pext.rook_attacks, sliders_pext.bishop_attacks)
    fns["magic"] = (sliders_magic.rook_attacks, sliders_magic.bishop_attacks)
    fns["black"] = (sliders_black.rook_attacks, sliders_black.bishop_attacks)
    fns["rayscan"] = (rays.rook_attacks_slow, rays.bishop_attacks_slow)
    masks_r, masks_b = rays.ROOK_MASKS, rays.BISHOP_MASKS

    @njit
    def baseline(sqs, occs, kind):
        acc = U0
        for i in range(sqs.size):
            if kind == 0:
                acc ^= masks_r[sqs[i]] & occs[i]
            else:
                acc ^= masks_b[sqs[i]] & occs[i]
        return acc

    def make_loop(rf, bf):
        @njit
        def loop(sqs, occs, kind):
            acc = U0
            for i in range(sqs.size):
                if kind == 0:
                    acc ^= rf(sqs[i], occs[i])
                else:
                    acc ^= bf(sqs[i], occs[i])
            return acc
        return loop

    arrays = {}
    for kind, pairs in ((0, rook), (1, bishop)):
        arrays[kind] = (np.array([p[0] for p in pairs], dtype=np.int64),
                        np.array([p[1] for p in pairs], dtype=np.uint64))

    def best_time(fn, kind):
        sqs, occs = arrays[kind]
        fn(sqs[:4], occs[:4], kind)                    # compile
        best = None
        for _ in range(repeat):
            t = time.perf_counter()
            fn(sqs, occs, kind)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        return best

    base = {k: best_time(baseline, k) for k in (0, 1)}
    out = {}
    for name, (rf, bf) in fns.items():
        loop = make_loop(rf, bf)
        res = {}
        for kind, label in ((0, "rook"), (1, "bishop")):
            n = arrays[kind][0].size
            res[label] = max(best_time(loop, kind) - base[kind], 0.0) / n * 1e9
        out[name] = res
    # check: every backend gives the ray scan's answer on every pair
    for kind in (0, 1):
        sqs, occs = arrays[kind]
        for name, (rf, bf) in fns.items():
            f = rf if kind == 0 else bf
            g = rays.rook_attacks_slow if kind == 0 else rays.bishop_attacks_slow
            for i in range(0, sqs.size, max(1, sqs.size // 500)):
                assert f(sqs[i], occs[i]) == g(sqs[i], occs[i]), (name, kind, i)
    return out


def table_bytes():
    """{backend: bytes} of every array each backend's lookups read: attack tables, masks (or
    negated masks), magics, shifts and offsets; the ray scan reads none. pext is missing without
    BMI2."""
    from .kernels import sliders_black as sb
    from .kernels import sliders_magic as sm
    from . import cpu

    def nbytes(*arrays):
        return int(sum(a.nbytes for a in arrays))
    out = {}
    if cpu.host_has_bmi2():
        from .kernels import sliders_pext as sp
        out["pext"] = nbytes(sp.ROOK_PEXT_TABLE, sp.BISHOP_PEXT_TABLE, sm.ROOK_MASK,
                             sm.BISHOP_MASK, sm.ROOK_OFFSET, sm.BISHOP_OFFSET)
    out["magic"] = nbytes(sm.ROOK_TABLE, sm.BISHOP_TABLE, sm.ROOK_MASK, sm.BISHOP_MASK,
                          sm.ROOK_MAGIC, sm.BISHOP_MAGIC, sm.ROOK_SHIFT, sm.BISHOP_SHIFT,
                          sm.ROOK_OFFSET, sm.BISHOP_OFFSET)
    out["black"] = sb.TABLE_BYTES
    out["rayscan"] = 0
    return out


def perft_all(repeat, names=BACKENDS):
    """{backend: :func:`run_worker` dict} for every backend in ``names`` (pext skipped without
    BMI2), each in its own subprocess, one after the other."""
    from . import cpu
    return {name: run_worker(name, repeat) for name in names
            if name != "pext" or cpu.host_has_bmi2()}


def summary(meas, perft, tables):
    """Print one row per backend: million lookups per second (the mean ns per lookup over both
    cases' occupancies, baseline loop subtracted), perft Mnps of each case (wall, and CPU in
    brackets), table bytes; then each figure as a ratio to ``magic``'s."""
    names = [n for n in BACKENDS if n in tables]
    mlps = {}
    for n in names:
        ns = [m["ns"][n]["mean"] for m in meas.values() if n in m["ns"]]
        mlps[n] = 1e3 / max(sum(ns) / len(ns), 1e-9) if ns else float("nan")
    print(f"\n{'backend':<8} {'M lookups/s':>11} {'startpos d6 Mnps (cpu)':>23} "
          f"{'kiwipete d5 Mnps (cpu)':>23} {'table bytes':>12}")
    for n in names:
        row = f"{n:<8} {mlps[n]:11.1f}"
        data = (perft or {}).get(n)
        for key, _, _, _ in CASES:
            if data is None or "error" in data:
                row += f" {'-':>23}"
            else:
                row += f" {data[key]['nps'] / 1e6:15.2f} ({data[key]['cpu_nps'] / 1e6:5.2f})"
        row += f" {tables[n]:12,d}"
        print(row)
    if "magic" in names:
        print("ratios to magic (lookups/s; startpos, kiwipete cpu nps; table bytes):")
        for n in names:
            if n == "magic":
                continue
            parts = [f"{mlps[n] / mlps['magic']:.2f}"]
            a, b = (perft or {}).get(n), (perft or {}).get("magic")
            for key, _, _, _ in CASES:
                ok = a and b and "error" not in a and "error" not in b
                parts.append(f"{a[key]['cpu_nps'] / b[key]['cpu_nps']:.3f}" if ok else "-")
            parts.append(f"{tables[n] / tables['magic']:.3f}")
            print(f"  {n:<8} " + "  ".join(parts))
    for n, data in (perft or {}).items():
        if "error" in data:
            print(f"perft worker {n}: {data['error']}")


def measure(samples=20000, seed=1, repeat=5):
    """Lookup costs per case: {case: {"depth", "leaves_per_parent", "lookups_per_parent",
    "lookups_per_leaf", "rook", "bishop", "ns": {backend: {"rook", "bishop", "mean"}}}}."""
    rng = random.Random(seed)
    out = {}
    for case, fen, depth, _ in CASES:
        rook, bishop, leaves = [], [], 0
        for b in sample_leaf_parents(fen, depth, samples, rng):
            r, bi, n = lookups_of(b)
            rook += r
            bishop += bi
            leaves += n
        ns = time_lookups(rook, bishop, repeat)
        for res in ns.values():
            res["mean"] = ((res["rook"] * len(rook) + res["bishop"] * len(bishop))
                           / (len(rook) + len(bishop)))
        out[case] = {"depth": depth, "leaves_per_parent": leaves / samples,
                     "lookups_per_parent": (len(rook) + len(bishop)) / samples,
                     "lookups_per_leaf": (len(rook) + len(bishop)) / leaves,
                     "rook": len(rook), "bishop": len(bishop), "ns": ns}
    return out


def report(meas, perft=None, samples=None, seed=None, repeat=None):
    """Print :func:`measure`'s table; with ``perft`` ({backend: {case: ns per leaf}}) also the
    4x bound for the magic path."""
    head = "slider lookups alone, on perft's own occupancies"
    if samples:
        head += f"; {samples} leaf parents per case, seed {seed}, best of {repeat}"
    print(head)
    for case, m in meas.items():
        per_leaf = m["lookups_per_leaf"]
        print(f"\n{case} perft({m['depth']}): {m['leaves_per_parent']:.1f} leaves and "
              f"{m['lookups_per_parent']:.2f} slider lookups per leaf parent "
              f"({m['rook']} rook, {m['bishop']} bishop sampled) = {per_leaf:.3f} per leaf")
        print(f"  {'backend':<8} {'rook ns':>8} {'bishop ns':>10} {'mean ns':>8} {'ns/leaf':>8}")
        for name, res in m["ns"].items():
            print(f"  {name:<8} {res['rook']:8.2f} {res['bishop']:10.2f} {res['mean']:8.2f} "
                  f"{res['mean'] * per_leaf:8.3f}")
        mean = {name: res["mean"] for name, res in m["ns"].items()}
        print(f"  lookups alone: rayscan / magic = "
              f"{mean['rayscan'] / max(mean['magic'], 1e-9):.1f}x")
        if perft:
            tm, tr = perft["magic"][case], perft["rayscan"][case]
            need = (tr - tm) / 3
            print(f"  perft: magic {tm:.3f} ns/leaf ({1e3 / tm:.0f} Mnps), rayscan {tr:.3f} "
                  f"ns/leaf ({1e3 / tr:.0f} Mnps): magic / rayscan = {tr / tm:.2f}x")
            print(f"  magic / rayscan >= 4 needs the magic path at <= (T_rayscan - T_magic) / 3 = "
                  f"{need:.3f} ns/leaf ({1e3 / need:.0f} Mnps), {tm / need:.2f}x faster than now; "
                  f"its lookups alone take {mean['magic'] * per_leaf:.3f} ns/leaf of that, leaving "
                  f"{max(need - mean['magic'] * per_leaf, 0.0) * m['leaves_per_parent']:.1f} ns "
                  f"per leaf parent for a make and a whole legal-move count")


def main(argv=None):
    ap = argparse.ArgumentParser(description="perft speed of one slider backend (a JSON line)")
    ap.add_argument("backend", choices=BACKENDS)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case, best kept")
    args = ap.parse_args(argv)
    return worker(args.backend, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
