#!/usr/bin/env python3
"""Slider lookups alone, on the occupancies perft really asks about, and what they bound.

Usage::

    python scripts/bench_sliders.py [--samples 20000] [--seed 1] [--repeat 5]

``magic / rayscan`` measured on perft nps (``scripts/bench_perft.py``) mixes the slider lookups
with everything else a perft node costs (make, pawns, knights, pins, counting). This script
separates the two, in one process:

1. Samples leaf-parent positions of startpos perft(6) and Kiwipete perft(5) uniformly over the
   tree, as perft counts them (python-chess enumerates the positions two plies above the leaves;
   one is drawn in proportion to its legal-move count, then one of its moves uniformly).
2. Lists, for each sampled position, the slider lookups that the counting generator
   (:func:`uci_engine.kernels.perft._gen` with ``write=False``) performs: every own bishop,
   rook and queen from its square over the occupancy; both lookups for every king target
   (occupancy without our king); both lookups for each en-passant candidate and for each square
   of a castling walk (the walk is counted whole: a slight over-count for the ray scan).
3. Times the rook and bishop lookups of each backend over those (square, occupancy) lists in a
   compiled loop, minus the same loop returning a table load instead (the baseline), and prints
   ns per lookup, lookups per leaf and their ratios.
4. Runs our perft on the magic and rayscan paths for the figure that counts, the nanoseconds
   per leaf of each, and from them the bound: with the ray-scan oracle as it is, the magic path
   reaches ``magic / rayscan >= 4`` only if its whole cost per leaf drops to
   ``(T_rayscan - T_magic) / 3``.

Each backend's lookup functions are imported from its own module (``sliders_magic``,
``sliders_pext``, ``rays``); perft itself runs per backend in a subprocess of
``scripts/perft_worker.py``.
"""
import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import perft_worker  # noqa: E402  (the perft cases and the per-backend perft worker)

CASES = tuple((key, fen, depth) for key, fen, depth, _ in perft_worker.CASES)


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
    from uci_engine.kernels import rays, sliders_magic
    from uci_engine.kernels.bitboard import U0
    from uci_engine import cpu

    fns = {"magic": (sliders_magic.rook_attacks, sliders_magic.bishop_attacks),
           "rayscan": (rays.rook_attacks_slow, rays.bishop_attacks_slow)}
    if cpu.host_has_bmi2():
        from uci_engine.kernels import sliders_pext
        fns["pext"] = (sliders_pext.rook_attacks, sliders_pext.bishop_attacks)
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


def perft_ns_per_leaf(repeat):
    """{backend: {case: ns per leaf}} by CPU time, from ``perft_worker.py`` subprocesses."""
    out = {}
    for name in ("magic", "rayscan"):
        data = perft_worker.run_worker(name, repeat)
        if "error" in data:
            raise SystemExit(f"perft worker {name}: {data['error']}")
        out[name] = {case: 1e9 / data[case]["cpu_nps"] for case, _, _ in CASES}
    return out


def measure(samples=20000, seed=1, repeat=5):
    """Lookup costs per case: {case: {"depth", "leaves_per_parent", "lookups_per_parent",
    "lookups_per_leaf", "rook", "bishop", "ns": {backend: {"rook", "bishop", "mean"}}}}."""
    rng = random.Random(seed)
    out = {}
    for case, fen, depth in CASES:
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=20000, help="leaf parents sampled per case")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-perft", action="store_true", help="skip the perft runs and the bound")
    args = ap.parse_args(argv)
    perft = None if args.no_perft else perft_ns_per_leaf(3)
    report(measure(args.samples, args.seed, args.repeat), perft, args.samples, args.seed,
           args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
