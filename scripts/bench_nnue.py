#!/usr/bin/env python3
"""Cost per call of the NNUE kernels against the hand-crafted evaluation, in one process.

Positions: random legal playouts (``--plies`` moves each, seeded) from the 32 bench positions
(uci_engine/bench.py). For each hidden size (random nets of that size, seeded) compiled loops
time, per position along the playouts (ns per call, best of ``--repeat`` rounds, rounds
interleaved so a busy machine slows every column alike):

* ``hce``: ``evaluate(st, row)`` (uci_engine/kernels/evaluate.py), the reference;
* ``make``: ``make_move`` alone, for scale;
* ``upd``: ``nnue_update`` (the child accumulator after a move, copy-on-make);
* ``eval``: ``nnue_evaluate`` from a ready accumulator;
* ``upd+eval``: both, what a search node pays instead of ``hce``;
* ``refresh``: ``nnue_refresh`` from scratch (root only).

Prints a table with the ratios to ``hce``. ``--asm`` also prints the vector instructions of the
compiled ``nnue_update`` and ``nnue_evaluate`` (``inspect_asm``) with a short excerpt.

Usage: python scripts/bench_nnue.py [--hidden 128,256] [--plies 60] [--repeat 5] [--asm]
"""
import argparse
import random
import re
import time
from collections import Counter

import numpy as np

from uci_engine import backend

backend.choose_and_select()
from numba import njit  # noqa: E402

from uci_engine.bench import BENCH_FENS  # noqa: E402
from uci_engine.fen import parse_fen  # noqa: E402
from uci_engine.kernels import nnue as N, position as P  # noqa: E402
from uci_engine.kernels.evaluate import evaluate  # noqa: E402
from uci_engine.kernels.movegen import generate_legal  # noqa: E402
from uci_engine.nnue_file import random_net  # noqa: E402


def playouts(plies, seed):
    """[(st, mb, moves int64[n])]: one random legal playout per bench position."""
    rng = random.Random(seed)
    buf = np.zeros(256, dtype=np.int32)
    out = []
    for fen in BENCH_FENS:
        st, mb = P.new_stack(plies + 2)
        parse_fen(fen, st, mb, 0)
        moves = []
        for ply in range(plies):
            n = int(generate_legal(st, np.int64(ply), buf))
            if n == 0:
                break
            m = int(buf[rng.randrange(n)])
            P.make_move(st, mb, np.int64(ply), np.int64(m))
            moves.append(m)
        if moves:
            out.append((st, mb, np.array(moves, dtype=np.int64)))
    return out


@njit(cache=False, nogil=True)
def loop_hce(st, mb, moves, reps):
    s = 0
    for _ in range(reps):
        for i in range(moves.shape[0]):
            s += evaluate(st, i + 1)
    return s


@njit(cache=False, nogil=True)
def loop_make(st, mb, moves, reps):
    s = 0
    for _ in range(reps):
        for i in range(moves.shape[0]):
            P.make_move(st, mb, i, moves[i])
            s += np.int64(st[i + 1, P.KEY] & np.uint64(1))
    return s


@njit(cache=False, nogil=True)
def loop_update(st, mb, moves, reps, acc, net, params, cache, pieces):
    s = 0
    for _ in range(reps):
        for i in range(moves.shape[0]):
            N.nnue_update(st, mb, i, moves[i], acc, i, net, params, cache, pieces)
        s += acc[moves.shape[0], 0, 0]
    return s


@njit(cache=False, nogil=True)
def loop_eval(st, mb, moves, reps, acc, net, params):
    s = 0
    for _ in range(reps):
        for i in range(moves.shape[0]):
            s += N.nnue_evaluate(st, i + 1, acc, i + 1, net, params)
    return s


@njit(cache=False, nogil=True)
def loop_both(st, mb, moves, reps, acc, net, params, cache, pieces):
    s = 0
    for _ in range(reps):
        for i in range(moves.shape[0]):
            N.nnue_update(st, mb, i, moves[i], acc, i, net, params, cache, pieces)
            s += N.nnue_evaluate(st, i + 1, acc, i + 1, net, params)
    return s


@njit(cache=False, nogil=True)
def loop_refresh(st, mb, moves, reps, acc, net, params):
    for _ in range(reps):
        for i in range(moves.shape[0]):
            N.nnue_refresh(st, i + 1, net, acc, i + 1, params)
    return acc[1, 0, 0]


def _sample_update_args(net):
    st, mb = P.new_stack(4)
    parse_fen(BENCH_FENS[0], st, mb, 0)
    acc = N.new_accumulators(net.hidden, 4)
    pk = net.packed()
    return (st, mb, np.int64(0), np.int64(12 | (28 << 6)), acc, np.int64(0), pk,
            net.params) + N.new_finny_table(pk)


def _sample_eval_args(net):
    st, mb = P.new_stack(4)
    parse_fen(BENCH_FENS[0], st, mb, 0)
    acc = N.new_accumulators(net.hidden, 4)
    return st, np.int64(0), acc, np.int64(0), net.packed(), net.params


def asm_report(net):
    """Counts of vector instructions (xmm/ymm/zmm operands, AVX or SSE forms) in the compiled
    update and evaluate."""
    lines = []
    for f in (N.nnue_update, N.nnue_evaluate):
        # a fresh compile of the same source: cached code cannot be inspected
        g = njit(cache=False, nogil=True)(f.py_func)
        if f is N.nnue_update:
            g(*_sample_update_args(net))
        else:
            g(*_sample_eval_args(net))
        for sig, asm in g.inspect_asm().items():
            # AVX forms carry a "v" prefix (vpaddw); the generic x86-64 target's SSE2 forms do not
            ops = re.findall(r"^\s+(\w+)\s+([^\n]*%([xyz])mm)", asm, re.M)
            kinds = Counter(k + "mm" for _, _, k in ops)
            names = Counter(o for o, _, _ in ops)
            lines.append(f"{f.__name__}: {dict(kinds)}; top {names.most_common(10)}")
            hot = []
            for op in ("paddw", "psubw", "pmaxsw", "pminsw", "pmullw", "pmaddwd"):
                hot += [ln.strip() for ln in asm.splitlines()
                        if re.match(rf"\s+v?{op}\s.*%[xyz]mm", ln)][:2]
            lines.extend("    " + h for h in hot)
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", default="128,256")
    ap.add_argument("--plies", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--reps", type=int, default=100, help="passes over the playouts per round")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--asm", action="store_true")
    ap.add_argument("--output-buckets", type=int, default=1, help="output buckets of the nets")
    ap.add_argument("--king-buckets", default="none",
                    help="king-bucket map of the nets (nnue_consts.KING_MAPS), or none")
    args = ap.parse_args(argv)
    games = playouts(args.plies, args.seed)
    calls = sum(len(m) for _, _, m in games)
    print(f"{len(games)} playouts, {calls} positions; sliders {backend.selected()}")
    sizes = [int(h) for h in args.hidden.split(",")]
    nets = {h: random_net(h, 100 + h, output_buckets=args.output_buckets,
                          king_map=args.king_buckets) for h in sizes}
    packed = {h: (nets[h].packed(), nets[h].params) for h in sizes}
    finny = {h: N.new_finny_table(packed[h][0]) for h in sizes}
    accs = {h: N.new_accumulators(h, args.plies + 2) for h in sizes}

    def prepare(h):
        acc = accs[h]
        return [(st, mb, m, acc, packed[h], finny[h]) for st, mb, m in games]

    def run(kind, h=None):
        total = 0.0
        reps = args.reps
        for st, mb, m, acc, (pk, params), table in prepare(h or sizes[0]):
            # a fresh root accumulator per playout: updates then follow the real move line
            N.nnue_refresh(st, np.int64(0), pk, acc, np.int64(0), params)
            if kind == "eval":
                loop_update(st, mb, m, 1, acc, pk, params, *table)    # fill the rows (untimed)
            work = st.copy() if kind == "make" else st
            t0 = time.perf_counter()
            if kind == "hce":
                loop_hce(st, mb, m, reps)
            elif kind == "make":
                loop_make(work, mb.copy(), m, reps)
            elif kind == "upd":
                loop_update(st, mb, m, reps, acc, pk, params, *table)
            elif kind == "eval":
                loop_eval(st, mb, m, reps, acc, pk, params)
            elif kind == "upd+eval":
                loop_both(st, mb, m, reps, acc, pk, params, *table)
            elif kind == "refresh":
                loop_refresh(st, mb, m, reps, acc, pk, params)
            total += time.perf_counter() - t0
        return total / (calls * reps) * 1e9

    kinds = ["upd", "eval", "upd+eval", "refresh"]
    cols = [("hce", None), ("make", None)] + [(k, h) for h in sizes for k in kinds]
    for k, h in cols:                              # compile and warm up
        saved, args.reps = args.reps, 1
        run(k, h)
        args.reps = saved
    best = {c: float("inf") for c in cols}
    for _ in range(args.repeat):
        for c in cols:
            best[c] = min(best[c], run(*c))
    hce = best[("hce", None)]
    print(f"{'kernel':<22}{'ns/call':>10}{'/ hce':>9}")
    for (k, h), ns in best.items():
        name = k if h is None else f"{k} H={h}"
        print(f"{name:<22}{ns:>10.1f}{ns / hce:>9.3f}")
    if args.asm:
        print(asm_report(nets[sizes[0]]))


if __name__ == "__main__":
    main()
