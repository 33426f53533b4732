#!/usr/bin/env python3
"""Remake the shipped nets from nothing: self-play data, then training, generation by generation.

A new machine has none of the training data (it stays out of git). This script replays the
chain that made the shipped nets (docs/nets.md): the hand-crafted evaluation's self-play trains
generation 0, generation 0's self-play trains generation 1, and so on, each generation's data
made by the net this script remade before it, so the chain needs nothing but the engine. Each
step is one of the two commands docs/nets.md records (``uci-engine datagen`` in the compact
game-record format, then ``scripts/train_nnue.py``), printed before it runs.

It resumes: a data file that already holds its positions is not played again (datagen's
sidecar counts them, and a run cut short is topped up), and a net whose file and record exist
is not trained again (``--retrain`` trains it anyway). Nets go to ``--nets-dir`` (default
``data/nets``), never over the shipped ones; compare a remade net with the shipped one in games
before replacing it.

The plan (:data:`GENERATIONS`) follows docs/nets.md: generations 0-5, then the strength
campaign's chain from generation 5 (docs/campaign.md): ``gen6a`` (seeds 14 and 17), ``gen6c``
(seed 18) and ``gen6f`` (seed 19) each fine-tune the float weights (``.f16.npz``) of the net
before on generation 5's self-play, and ``gen7c`` (remade as ``gen7_h256_w8_o8``) grows
``gen6f``'s to H256 with 8 mirrored king buckets (``--widen``) on seeds 18 and 19. Generation 8
(``gen8k``, remade as ``gen8_h256_w8_o8``) is four fine-tunes in a row from generation 7's float
weights (``gen8h``, ``gen8i``, ``gen8j``, ``gen8k``), each on all of generation 7's seed-22
self-play there was when it trained (one file, topped up before each). Generation 9 (``gen9j``,
remade as ``gen9_h256_w8_o8``) goes on the same way from generation 8's float weights through
``gen9c`` (seed 23), ``gen9g`` and ``gen9h`` (seed 24) and ``gen9i`` (seed 24 after seeds 15,
16, 27 and 28 of the lent machine), and learns a quarter of the game's result in its last step.
It differs in two ways: generation 0's data is the first 1,000,000 positions written (not
``head -1000000`` of a 3,000,000-position run, the same thing) and the runs stopped by hand or
partly lost (after 70 and 78 minutes, generation 3's data after two runs, generation 4's second
part, a copy of a run's first 17,808 games, and generation 5's seeds 14 and 17, ``gen6a``'s part
of them) are given the position counts their nets trained on. Datagen changed since (the node
limit is now checked at every node, issue 31), so the remade nets are new nets of the same
recipe, not byte copies.

Usage:
  python scripts/make_nets.py                      # every generation up to the shipped net
  python scripts/make_nets.py --upto gen0_h128     # stop after a generation
  python scripts/make_nets.py --dry-run            # print the commands and what is done
  python scripts/make_nets.py --small              # a tiny chain (smoke test, minutes)
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

from uci_engine.nnue_file import float_weights_path

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BOOK = os.path.normpath(os.path.join(ROOT, "tests", "data", "openings", "noob_2moves.epd"))
#: the Syzygy tables docs/nets.md's runs used (``../shared/data/syzygy`` beside the checkout); a
#: run without them ends
#: its games by the rules and adjudication alone
SYZYGY = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "syzygy"))


@dataclass(frozen=True)
class Data:
    """One self-play run: its file name (``<name>.rec`` in the data directory), the net that
    plays it (a generation's name, or None: the hand-crafted evaluation), nodes per move,
    seed, and the kept positions it must hold."""
    name: str
    net: str | None
    nodes: int
    seed: int
    positions: int


@dataclass(frozen=True)
class Generation:
    """One net: its name (``<name>.nnue``), the runs it trains on (in order: the last run's
    tail is the held-out part), the trainer's options and the generation whose remade net it
    starts from (``--init``; None: random weights): its net file, or with ``init_float`` its
    float weights (``<init>.f16.npz``, which the trainer writes beside the net), as the
    campaign went on from."""
    name: str
    data: tuple
    train: tuple = field(default=())
    init: str | None = None
    init_float: bool = False


_HCE_S1 = Data("hce5k_s1", None, 5000, 1, 1_000_000)
_GEN0_S2 = Data("gen0_5k_s2", "gen0_h128", 5000, 2, 1_148_959)
_GEN1_S3 = Data("gen1_2k5_s3", "gen1_h128", 2500, 3, 2_654_075)
_GEN2_S5 = Data("gen2_5k_s5", "gen2_h128", 5000, 5, 4_403_209)
#: generation 4's second part: the first 17,808 games of generation 3's self-play
_GEN3_S6 = Data("gen3_5k_s6", "gen3_h128_o8", 5000, 6, 1_554_464)
#: the trainer's options of generations 3 and 4 (generation 4 kept generation 3's recipe)
_H128_O8 = ("--hidden", "128", "--output-buckets", "8", "--epochs", "15", "--batch", "16384",
            "--lr", "0.004", "--lambda", "0.0", "--mirror")
#: generation 5's data: generation 4's self-play of the strength campaign (docs/campaign.md,
#: rows 5, 9 and 19; seeds 8, 9, 11 and 12 were played on the lent 16-core machine), in the
#: order the trainer read them
_GEN4_S8 = Data("gen4_5k_s8", "gen4_h128_o8", 5000, 8, 717_478)
_GEN4_S9 = Data("gen4_5k_s9", "gen4_h128_o8", 5000, 9, 714_795)
_GEN4_S11 = Data("gen4_5k_s11", "gen4_h128_o8", 5000, 11, 256_727)
_GEN4_S12 = Data("gen4_5k_s12", "gen4_h128_o8", 5000, 12, 254_830)
_GEN4_S10 = Data("gen4_5k_s10", "gen4_h128_o8", 5000, 10, 197_552)
_GEN4_S13 = Data("gen4_5k_s13", "gen4_h128_o8", 5000, 13, 2_677_610)
#: generation 4's fitted loss scale, which every fine-tune since keeps (the nets' records,
#: ``wdl_scale``)
_GEN4_WDL_SCALE = "149.93692345009205"


def _fine_tune(lr):
    """The trainer's options of a fine-tune of an H128 net with 8 output buckets: 4 epochs at
    ``lr`` (str), lambda 0, mirrored, with generation 4's fitted loss scale."""
    return ("--hidden", "128", "--output-buckets", "8", "--epochs", "4", "--lr", lr,
            "--lambda", "0.0", "--mirror", "--wdl-scale", _GEN4_WDL_SCALE)


#: generation 5 (the campaign's candidate gen5d): generation 4 fine-tuned at a low rate, with
#: generation 4's fitted loss scale; gen6a kept it (its record: epochs, lr, init)
_GEN5_FINE_TUNE = _fine_tune("0.0002")
#: generation 5's self-play of the campaign (docs/campaign.md, rows 32-62; the records of gen6a,
#: gen6c and gen6f, ``sources``). Seed 14 is its second run (row 33: 6,143 games, the first
#: 519,809 positions of row 32's lost file); seed 17 the first 35,395 games, what gen6a read
#: (rows 35, 37 and 38; its later games were lost, row 49); seeds 18 and 19 whole (rows 49
#: and 57-62)
_GEN5_S14 = Data("gen5d_5k_s14", "gen5_h128_o8", 5000, 14, 519_809)
_GEN5_S17 = Data("gen5_5k_s17", "gen5_h128_o8", 5000, 17, 3_011_480)
_GEN5_S18 = Data("gen5_5k_s18", "gen5_h128_o8", 5000, 18, 3_152_431)
_GEN5_S19 = Data("gen5_5k_s19", "gen5_h128_o8", 5000, 19, 5_830_690)
#: gen6c and gen6f: the float weights of the net before fine-tuned at half gen6a's rate (their
#: records)
_GEN6_FINE_TUNE = _fine_tune("0.0001")
#: gen7c's held-out part: the last 2 % of seed 19 (the trainer's default ``--val``), gen6f's
#: tail (its record: 116,614 of 5,830,690), as a fraction of seeds 18 and 19 (0.0129814...,
#: gen7c's record)
_GEN7_VAL = repr(round(_GEN5_S19.positions * 0.02)
                 / (_GEN5_S18.positions + _GEN5_S19.positions))
#: gen7c (docs/nets.md, "H256 with king buckets on seeds 18 and 19"; its record): gen6f's float
#: weights grown to H256 with 8 mirrored factorised king buckets (``--widen-kings`` east, the
#: default), the bucket rows decayed
_GEN7_GROW = ("--widen", "--hidden", "256", "--king-buckets", "wing8", "--factorise",
              "--output-buckets", "8", "--epochs", "4", "--lr", "0.0005", "--bucket-decay", "100",
              "--val", _GEN7_VAL, "--lambda", "0.0", "--mirror", "--wdl-scale", _GEN4_WDL_SCALE)
#: generation 7's self-play of the campaign, seed 22 (docs/campaign.md, rows 102-123): one file
#: that grew between trainings; each of gen8h, gen8i, gen8j and gen8k read all of it that
#: existed then (their records, ``sources``), so the chain tops the same file up to each count
_GEN7_S22 = tuple(Data("gen7_5k_s22", "gen7_h256_w8_o8", 5000, 22, n)
                  for n in (2_451_264, 3_342_108, 5_118_422, 9_296_713))


def _h256_fine_tune(lam="0.0", qb=None):
    """The trainer's options of a fine-tune of an H256 net with 8 mirrored factorised king
    buckets and 8 output buckets: 4 epochs at lr 0.0002 with a pull towards the starting weights
    (``--init-decay 200``), the bucket rows decayed, ``lam`` (str) the game result's share of the
    target, generation 4's fitted loss scale; ``qb`` (str or None) the net file's output
    quantisation (``"max"``: the finer one), the trainer's default when None."""
    opts = ("--epochs", "4", "--lr", "0.0002", "--init-decay", "200", "--hidden", "256",
            "--king-buckets", "wing8", "--factorise", "--bucket-decay", "100",
            "--output-buckets", "8", "--lambda", lam, "--mirror", "--wdl-scale", _GEN4_WDL_SCALE)
    return opts if qb is None else opts + ("--qb", qb)


#: the fine-tunes of gen7c's float weights on seed 22 (docs/campaign.md, rows 104, 113, 121 and
#: 124; their records); gen8j and gen8k write the net with the finer output quantisation
_GEN8_FINE_TUNE = _h256_fine_tune()
_GEN8_FINE_TUNE_QB = _h256_fine_tune(qb="max")
#: generation 8's self-play of the campaign (docs/campaign.md, rows 131-166; the records of
#: gen9c, gen9g, gen9i and gen9j, ``sources``): seed 23 whole (row 139), what gen9c read; seed 24
#: (rows 142-166), one file that grew between trainings, topped up to what each of gen9g, gen9h,
#: gen9i and gen9j read; seeds 15, 16, 27 and 28, played on the lent 16-core machine (row 154)
_GEN8_S23 = Data("gen8_5k_s23", "gen8_h256_w8_o8", 5000, 23, 2_669_319)
_GEN8_S24 = tuple(Data("gen8_5k_s24", "gen8_h256_w8_o8", 5000, 24, n)
                  for n in (6_003_906, 7_283_572, 7_658_922, 8_077_235))
_GEN8_LENT = tuple(Data(f"gen8_5k_s{s}", "gen8_h256_w8_o8", 5000, s, n)
                   for s, n in ((15, 588_633), (16, 593_781), (27, 346_082), (28, 344_568)))
#: generation 9's fine-tunes (docs/campaign.md, rows 141, 148, 152, 156 and 162; their records):
#: generation 8's recipe with the finer output quantisation; gen9j, the one shipped, learns a
#: quarter of the game's result in its target (``--lambda 0.25``)
_GEN9_FINE_TUNE = _GEN8_FINE_TUNE_QB
_GEN9_RESULT = _h256_fine_tune("0.25", qb="max")
#: docs/nets.md, generations 0-5 (gen5_h128_o8, the campaign's gen5d), then the campaign's
#: gen6a, gen6c, gen6f and gen7c (remade as gen7_h256_w8_o8), gen8h, gen8i, gen8j and gen8k
#: (remade as gen8_h256_w8_o8), and gen9c, gen9g, gen9h, gen9i and gen9j (remade as
#: gen9_h256_w8_o8)
GENERATIONS = (
    Generation("gen0_h128", (_HCE_S1,), ("--hidden", "128", "--epochs", "20", "--batch", "16384",
                                         "--lr", "0.004", "--lambda", "0.0")),
    Generation("gen1_h128", (_GEN0_S2,), ("--hidden", "128", "--epochs", "20", "--batch",
                                          "16384", "--lr", "0.004", "--lambda", "0.0")),
    Generation("gen2_h128", (_GEN0_S2, _GEN1_S3), ("--hidden", "128", "--epochs", "15",
                                                   "--batch", "16384", "--lr", "0.004",
                                                   "--lambda", "0.0", "--mirror")),
    Generation("gen3_h128_o8", (_GEN2_S5,), _H128_O8),
    Generation("gen4_h128_o8", (_GEN2_S5, _GEN3_S6), _H128_O8),
    Generation("gen5_h128_o8", (_GEN4_S8, _GEN4_S9, _GEN4_S11, _GEN4_S12, _GEN4_S10, _GEN4_S13),
               _GEN5_FINE_TUNE, init="gen4_h128_o8"),
    Generation("gen6a_h128_o8", (_GEN5_S14, _GEN5_S17), _GEN5_FINE_TUNE, init="gen5_h128_o8",
               init_float=True),
    Generation("gen6c_h128_o8", (_GEN5_S18,), _GEN6_FINE_TUNE, init="gen6a_h128_o8",
               init_float=True),
    Generation("gen6f_h128_o8", (_GEN5_S19,), _GEN6_FINE_TUNE, init="gen6c_h128_o8",
               init_float=True),
    Generation("gen7_h256_w8_o8", (_GEN5_S18, _GEN5_S19), _GEN7_GROW, init="gen6f_h128_o8",
               init_float=True),
    Generation("gen8h_h256_w8f_o8", (_GEN7_S22[0],), _GEN8_FINE_TUNE, init="gen7_h256_w8_o8",
               init_float=True),
    Generation("gen8i_h256_w8f_o8", (_GEN7_S22[1],), _GEN8_FINE_TUNE, init="gen8h_h256_w8f_o8",
               init_float=True),
    Generation("gen8j_h256_w8f_o8", (_GEN7_S22[2],), _GEN8_FINE_TUNE_QB,
               init="gen8i_h256_w8f_o8", init_float=True),
    Generation("gen8_h256_w8_o8", (_GEN7_S22[3],), _GEN8_FINE_TUNE_QB,
               init="gen8j_h256_w8f_o8", init_float=True),
    Generation("gen9c_h256_w8f_o8", (_GEN8_S23,), _GEN9_FINE_TUNE, init="gen8_h256_w8_o8",
               init_float=True),
    Generation("gen9g_h256_w8f_o8", (_GEN8_S24[0],), _GEN9_FINE_TUNE, init="gen9c_h256_w8f_o8",
               init_float=True),
    Generation("gen9h_h256_w8f_o8", (_GEN8_S24[1],), _GEN9_FINE_TUNE, init="gen9g_h256_w8f_o8",
               init_float=True),
    Generation("gen9i_h256_w8f_o8", _GEN8_LENT + (_GEN8_S24[2],), _GEN9_FINE_TUNE,
               init="gen9h_h256_w8f_o8", init_float=True),
    Generation("gen9_h256_w8_o8", _GEN8_LENT + (_GEN8_S24[3],), _GEN9_RESULT,
               init="gen9i_h256_w8f_o8", init_float=True),
)


def small_plan():
    """A four-generation chain of the same shape, small enough for a smoke test; the third
    generation starts from the net file of the one before, as generation 5 does, and the
    fourth from the third's float weights, as the campaign's generations 6 and 7 do."""
    tiny = ("--hidden", "16", "--epochs", "1", "--batch", "256", "--lr", "0.004",
            "--lambda", "0.0")
    d0, d1 = Data("s_hce", None, 300, 1, 150), Data("s_gen0", "s_gen0", 300, 2, 150)
    d2 = Data("s_gen1", "s_gen1", 300, 3, 150)
    return (Generation("s_gen0", (d0,), tiny), Generation("s_gen1", (d1,), tiny),
            Generation("s_gen2", (d1, d2), tiny + ("--mirror",), init="s_gen1"),
            Generation("s_gen3", (d2,), tiny + ("--mirror",), init="s_gen2", init_float=True))


def init_path(g, nets_dir):
    """The weights generation ``g`` starts from (``--init``): the remade net file of
    ``g.init``, or its float weights with ``g.init_float``; None for random weights."""
    if g.init is None:
        return None
    net = os.path.join(nets_dir, g.init + ".nnue")
    return float_weights_path(net) if g.init_float else net


def held_positions(path):
    """Kept positions a datagen output holds, from its sidecar (0 when there is none)."""
    try:
        with open(path + ".json", encoding="utf-8") as f:
            return int(json.load(f).get("positions") or 0)
    except (OSError, ValueError):
        return 0


def datagen_cmd(d, data_dir, nets_dir, workers, syzygy):
    cmd = [sys.executable, "-m", "uci_engine", "datagen",
           "--out", os.path.join(data_dir, d.name + ".rec"),
           "--format", "records", "--positions", str(d.positions), "--nodes", str(d.nodes),
           "--seed", str(d.seed), "--book", BOOK, "--quiet"]
    if workers:
        cmd += ["--workers", str(workers)]
    if d.net is not None:
        cmd += ["--eval-file", os.path.join(nets_dir, d.net + ".nnue")]
    if syzygy:
        cmd += ["--syzygy", syzygy]
    return cmd


def train_cmd(g, data_dir, nets_dir, threads):
    return [sys.executable, os.path.join(ROOT, "scripts", "train_nnue.py"),
            *[os.path.join(data_dir, d.name + ".rec") for d in g.data],
            "--out", os.path.join(nets_dir, g.name + ".nnue"), *g.train,
            *(("--init", init_path(g, nets_dir)) if g.init else ()),
            "--threads", str(threads), "--no-progress"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default="data", help="self-play files (data)")
    ap.add_argument("--nets-dir", default=os.path.join("data", "nets"), help="nets (data/nets)")
    ap.add_argument("--upto", default=None, help="the last generation to make")
    ap.add_argument("--workers", type=int, default=None, help="datagen processes (all cores)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="trainer threads (all cores)")
    ap.add_argument("--syzygy", default=SYZYGY if os.path.isdir(SYZYGY) else None,
                    help="Syzygy directory (default ../shared/data/syzygy when present)")
    ap.add_argument("--retrain", action="store_true", help="train nets that exist again")
    ap.add_argument("--dry-run", action="store_true", help="print the steps, run nothing")
    ap.add_argument("--small", action="store_true", help="a tiny chain (smoke test)")
    args = ap.parse_args(argv)
    plan = small_plan() if args.small else GENERATIONS
    names = [g.name for g in plan]
    if args.upto is not None and args.upto not in names:
        print(f"error: --upto {args.upto!r} is not one of {', '.join(names)}", file=sys.stderr)
        return 2
    last = names.index(args.upto) if args.upto else len(plan) - 1
    args.data_dir, args.nets_dir = os.path.abspath(args.data_dir), os.path.abspath(args.nets_dir)
    os.makedirs(args.data_dir, exist_ok=True)
    os.makedirs(args.nets_dir, exist_ok=True)
    for g in plan[:last + 1]:
        for d in g.data:
            path = os.path.join(args.data_dir, d.name + ".rec")
            have = held_positions(path)
            cmd = datagen_cmd(d, args.data_dir, args.nets_dir, args.workers, args.syzygy)
            if have >= d.positions:
                print(f"{d.name}: done ({have:,} of {d.positions:,} positions)", flush=True)
                continue
            print(f"{d.name}: {have:,} of {d.positions:,} positions; {shlex.join(cmd)}",
                  flush=True)
            if not args.dry_run:
                subprocess.run(cmd, check=True)
        net = os.path.join(args.nets_dir, g.name + ".nnue")
        cmd = train_cmd(g, args.data_dir, args.nets_dir, args.threads)
        if os.path.exists(net) and os.path.exists(net + ".json") and not args.retrain:
            print(f"{g.name}: done ({net})", flush=True)
            continue
        print(f"{g.name}: {shlex.join(cmd)}", flush=True)
        if not args.dry_run:
            subprocess.run(cmd, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
