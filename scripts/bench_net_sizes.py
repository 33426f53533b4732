#!/usr/bin/env python3
"""Search speed by net architecture: a plain net widened, as ratios against itself.

For issue 31's size choice (hidden 128/256/512/1024, king buckets, output buckets) the cost of
a bigger net has to be known before one is trained. Random nets of each size change the search
tree as well as the cost of a node (their bench node counts differ by 6x), so this script
widens a trained plain net instead (``--net``, default ``gen2_h128.nnue``, the last plain
default): hidden neurons with zero weights and zero bias (SCReLU(0) = 0
adds nothing to the output), the output row copied into every output bucket, the first layer
copied into every king bucket. A widened net without king buckets evaluates every position
exactly as the original does, so its ``bench`` node count is the same and only the cost per
node differs. With king buckets the board is mirrored a<->h while the king stands on files e-h,
which changes some evaluations (the net is nearly, not exactly, symmetric): the node
count is printed so the difference is visible.

Each architecture runs ``ENGINE -o EvalFile=NET bench`` ``--rounds`` times, the architectures
alternated within a round; the table gives the node count, the median nps and its ratio to the
unwidened net's median in the same command.

Usage: python scripts/bench_net_sizes.py [--engine uci-engine] [--rounds 3] [--net gen2_h128.nnue]
           [--hidden 128,256,512,1024] [--king-buckets none,wing8] [--output-buckets 1,8]
"""
import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from uci_engine.bench import parse_bench
from uci_engine.nnue_file import find_net, load_net, save_net, widened_net

#: the net widened: plain layout, one output (the default)
PLAIN_NET = "gen2_h128.nnue"


def bench(engine, net_path):
    """(nodes, nps) of ``ENGINE -o EvalFile=NET bench``; raises RuntimeError on a failed run."""
    cmd = shlex.split(engine) + ["-o", f"EvalFile={net_path}", "bench"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    nodes, nps = parse_bench(out.stdout)
    if out.returncode or nodes is None or nps is None:
        raise RuntimeError(f"{cmd} failed: {out.stdout[-500:]} {out.stderr[-500:]}")
    return nodes, nps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default="uci-engine", help="our engine's command line")
    ap.add_argument("--rounds", type=int, default=3, help="bench runs per architecture")
    ap.add_argument("--net", default=PLAIN_NET,
                    help="a plain net with one output: a path or a shipped net's name")
    ap.add_argument("--hidden", default="128,256,512,1024")
    ap.add_argument("--king-buckets", default="none,wing8")
    ap.add_argument("--output-buckets", default="1,8")
    args = ap.parse_args(argv)
    base = load_net(find_net(args.net))
    archs = [(h, kb, ob) for h in map(int, args.hidden.split(","))
             for kb in args.king_buckets.split(",") for ob in map(int, args.output_buckets.split(","))]
    with tempfile.TemporaryDirectory() as d:
        path, name = {}, {}           # each architecture's net file and description
        for a in archs:
            net = widened_net(base, *a)
            path[a], name[a] = Path(d) / f"h{a[0]}_{a[1]}_{a[2]}.nnue", net.architecture()
            save_net(path[a], net)
        results = {a: [] for a in archs}
        for r in range(args.rounds):
            for a in archs:
                results[a].append(bench(args.engine, path[a]))
                print(f"round {r + 1}: {name[a]}: {results[a][-1]}", file=sys.stderr)
    ref = statistics.median(nps for _, nps in results[archs[0]])
    print(f"| architecture | bench nodes | nps (median of {args.rounds}) | ratio |")
    print("| --- | --- | --- | --- |")
    for a in archs:
        nodes = sorted({n for n, _ in results[a]})
        med = statistics.median(nps for _, nps in results[a])
        print(f"| {name[a]} | {', '.join(f'{n:,}' for n in nodes)} | {med:,.0f} | {med / ref:.3f} |")


if __name__ == "__main__":
    main()
