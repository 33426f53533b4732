#!/usr/bin/env python3
"""What the int16 quantisation of a net costs in held-out loss, layer by layer and by QB.

A shipped net is its float weights rounded: the first layer (``w_ft``, ``b_ft``) to multiples
of 1/QA, the output layer (``w_out``) to multiples of 1/QB and its biases to 1/(QA * QB)
(bullet's quantisation, ``train_nnue.quantise``). This script loads a float-weights file
(``<net>.f16.npz``, what the trainer writes beside each net), rounds one layer or both, and
prints scripts/train_nnue.py's loss on the held-out tail of a data list for each:

* ``float``: the weights as saved (float16);
* ``first layer /QA``: only ``w_ft`` and ``b_ft`` rounded;
* ``output /QB``: only the output layer rounded, for each ``--qb``;
* ``both /QA, /QB``: the net file's rounding, for each ``--qb``.

The engine reads QA and QB from the net file's header (``uci_engine/nnue_file.py``), so a net
may be written with another QB when its output weights fit the engine's integers
(``nnue_file.check_net``; ``train_nnue.py --qb max`` picks the largest); each QB's line says
whether they do, and the last line gives the largest.

A data file may be given as the trainer's converted ``.nnuebin.npy`` (read as it is, while
datagen still appends to the source). The tail is the last ``--val`` share (train_nnue's
default 2 %) of the data's first ``--first`` positions (all when omitted): give a net's record
``positions`` to get the tail it held out.

Usage:
  python scripts/quant_loss.py campaign/nets/gen8i_h256_w8f_o8.f16.npz \\
      /work/data/gen7_5k_s22.bin --first 3342108 --qb 64,128 --wdl-scale 149.93692345009205
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_nnue as T  # noqa: E402


def load_model(path):
    """A (non-factorised) model of the float-weights file ``path``'s architecture, holding its
    weights (the factor merged into the bucket rows, as in the net file)."""
    with np.load(path, allow_pickle=False) as z:
        arch = json.loads(str(z["architecture"]))
    model = T.make_model(arch["hidden"], arch["activation"], arch["output_buckets"],
                         arch["king_buckets"])
    T.init_weights(model, path)
    return model


def snapshot(model):
    """The model's weights as float64 tensors: (w_ft, b_ft, w_out, b_out)."""
    return tuple(x.detach().clone().double() for x in
                 (model.ft_weights(), model.ft_bias, model.out.weight, model.out.bias))


def set_rounded(model, weights, qa=None, qb=None):
    """Load ``weights`` (:func:`snapshot`) into ``model``, the first layer rounded to multiples
    of 1/qa and the output layer's weights to 1/qb, its biases to 1/(QA * qb) (None: as they
    are)."""
    import torch
    w_ft, b_ft, w_out, b_out = weights

    def r(x, s):
        return x if s is None else torch.round(x * s) / s

    with torch.no_grad():
        model.set_ft_weights(r(w_ft, qa).float(), None)
        model.ft_bias.copy_(r(b_ft, qa))
        model.out.weight.copy_(r(w_out, qb))
        model.out.bias.copy_(r(b_out, None if qb is None else T.QA * qb))


def fits(model, qb):
    """Whether ``model``'s weights quantised with ``qb`` pass the engine's checks
    (``train_nnue.quantise``, ``nnue_file.check_net``)."""
    try:
        T.check_net(T.quantise(model, qb))
    except ValueError:
        return False
    return True


def quant_losses(model, rec, idx, qbs, lam=0.0, wdl_scale=T.WDL_SCALE, batch=16384):
    """``{label: loss}`` for the rows ``idx`` of ``rec``: the float weights, the first layer
    rounded, and for each QB in ``qbs`` the output layer rounded alone and both layers. The
    model is left holding its float weights."""
    weights = snapshot(model)
    out = {}

    def run(label, qa, qb):
        set_rounded(model, weights, qa, qb)
        out[label] = T.evaluate_loss(model, rec, idx, lam, batch, wdl_scale)

    run("float", None, None)
    run(f"first layer /{T.QA}", T.QA, None)
    for qb in qbs:
        run(f"output /{qb}", None, qb)
        run(f"both /{T.QA}, /{qb}", T.QA, qb)
    set_rounded(model, weights)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", help="float-weights file (<net>.f16.npz)")
    ap.add_argument("data", nargs="+", help="training data files, in the trainer's order (or "
                    "their converted .nnuebin.npy files)")
    ap.add_argument("--first", type=int, default=None,
                    help="use the first N positions only (a net record's positions)")
    ap.add_argument("--val", type=float, default=0.02, help="held-out share of the tail")
    ap.add_argument("--qb", default=str(T.QB), help="comma-separated QB values (64)")
    ap.add_argument("--lambda", dest="lam", type=float, default=0.0)
    ap.add_argument("--wdl-scale", type=float, default=T.WDL_SCALE)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    import torch
    torch.set_num_threads(args.threads)
    qbs = [int(x) for x in args.qb.split(",")]
    model = load_model(args.weights)
    recs = [np.load(d, mmap_mode="r") if d.endswith(".nnuebin.npy") else T.load_records([d])[0]
            for d in args.data]
    rec = np.concatenate([np.asarray(r) for r in recs]) if len(recs) > 1 else recs[0]
    n = len(rec) if args.first is None else min(args.first, len(rec))
    n_val = int(round(n * args.val))
    idx = np.arange(n - n_val, n)
    print(f"{args.weights}: {n_val:,} held-out positions (of the first {n:,}), "
          f"lambda {args.lam}, scale {args.wdl_scale:g}")
    losses = quant_losses(model, rec, idx, qbs, args.lam, args.wdl_scale)
    base = losses["float"]
    for label, loss in losses.items():
        note = ""
        for qb in qbs:
            if label.endswith(f"/{qb}"):
                note = "" if fits(model, qb) else "  (does not fit the engine's integers)"
        print(f"  {label:<22} {loss:.7f}  {loss - base:+.7f}{note}")
    print(f"  largest QB that fits: {T.largest_qb(model)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
