#!/usr/bin/env python3
"""How well static evaluations predict held-out self-play: the hand-crafted evaluation and NNUE
nets side by side on the same positions, without playing games.

Usage::

    python scripts/eval_loss.py DATA.txt [--nets A.nnue,B.nnue] [--from-line N]
        [--positions 20000] [--lambda 0.5] [--wdl-scale fit|CP] [--seed 5]

DATA is datagen output (``<FEN> | <score> | <result>``, White's view). A seeded sample of
``--positions`` lines from line ``--from-line`` on (0-based; put it past the lines a net was
trained on, so the positions come from games it never saw) is evaluated by the engine's own
compiled code (``Engine.static_eval``: side to move's centipawns), once with the hand-crafted
evaluation and once per net. For each evaluation it prints, on the side to move's view:

* ``loss``: mean squared error between ``sigmoid(eval / S)`` and the target
  ``lambda * result + (1 - lambda) * sigmoid(score / S)``, the loss of scripts/train_nnue.py;
* ``best K``: the factor K in ``sigmoid(K * eval / S)`` that minimises that loss (0.5-2.0 in
  steps of 0.05) and the loss there (K far from 1: the evaluation's centipawns are on another
  scale than the data's scores);
* ``corr``: the correlation of the evaluation with the search score.

``S`` (centipawns per logit) is fitted to the sample's scores and results by default, as in
train_nnue.py. The scores come from searches with the hand-crafted evaluation (gen-0 data), so
the measure favours it; games decide (docs/strength.md).
"""
import argparse
import os

import numpy as np

from uci_engine import backend
from uci_engine.dataformat import numbered_records, parse_line

K_GRID = np.arange(0.5, 2.0001, 0.05)    # factors tried on the evaluation's centipawns


def read_sample(path, start, n, seed):
    """(fens list, score float[n], result float[n]) for a seeded sample of ``n`` lines from
    line ``start`` on; score (centipawns) and result (0, 0.5, 1) on the side to move's view.
    Only the sampled lines are parsed; a malformed one raises ValueError naming it."""
    lines = list(numbered_records(path, start))
    if not lines:
        raise SystemExit(f"{path}: no lines from line {start} on")
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(len(lines), size=min(n, len(lines)), replace=False))
    fens, score, result = [], [], []
    for i in pick:
        lineno, text = lines[i]
        rec = parse_line(text, f"{path}:{lineno}")
        fens.append(rec.fen)
        score.append(rec.stm_score)
        result.append(rec.stm_result)
    return fens, np.array(score, dtype=np.float64), np.array(result, dtype=np.float64)


def sigmoid(x, scale):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -64 * scale, 64 * scale) / scale))


def fit_scale(score, result):
    """Centipawns per logit minimising MSE(sigmoid(score / S), result)."""
    from scipy.optimize import minimize_scalar
    return float(minimize_scalar(lambda s: np.mean((sigmoid(score, s) - result) ** 2),
                                 bounds=(50.0, 1000.0), method="bounded").x)


def static_evals(engine, fens):
    out = np.empty(len(fens))
    for i, fen in enumerate(fens):
        engine.set_position(fen, [])
        out[i] = engine.static_eval()
    return out


def report(name, ev, score, target, scale):
    loss = float(np.mean((sigmoid(ev, scale) - target) ** 2))
    best = min((float(np.mean((sigmoid(k * ev, scale) - target) ** 2)), float(k))
               for k in K_GRID)
    corr = float(np.corrcoef(ev, score)[0, 1])
    print(f"{name:<40} loss {loss:.5f}  best K {best[1]:.2f} ({best[0]:.5f})  corr {corr:.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--nets", default="", help="comma-separated net files")
    ap.add_argument("--from-line", type=int, default=0)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.5)
    ap.add_argument("--wdl-scale", default="fit")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)

    backend.choose_and_select()
    from uci_engine.engine import Engine
    from uci_engine.nnue_file import load_net

    fens, score, result = read_sample(args.data, args.from_line, args.positions, args.seed)
    scale = fit_scale(score, result) if args.wdl_scale == "fit" else float(args.wdl_scale)
    target = args.lam * result + (1.0 - args.lam) * sigmoid(score, scale)
    print(f"{len(fens)} positions from line {args.from_line} of {args.data}; "
          f"S = {scale:.1f} cp per logit, lambda {args.lam}")
    engine = Engine(16)
    engine.set_use_nnue(False)
    report("hand-crafted", static_evals(engine, fens), score, target, scale)
    for path in filter(None, args.nets.split(",")):
        engine.set_net(load_net(path))
        engine.set_use_nnue(True)
        report(os.path.basename(path), static_evals(engine, fens), score, target, scale)
        engine.set_use_nnue(False)


if __name__ == "__main__":
    main()
