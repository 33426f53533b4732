#!/usr/bin/env python3
"""Fit the UCI_ShowWDL win-rate model to our own self-play games; write uci_engine/wdl_params.py.

Data: ``uci-engine datagen`` output, either game-record files (``--format records``,
:mod:`uci_engine.gamerecord`, read as the positions the trainer keeps) or text lines
``<FEN> | <score> | <result>`` (score in centipawns and result from White's view;
:mod:`uci_engine.dataformat`), the FENs read by python-chess. Each
position gives the side to move's score ``v``, the material on the board and the game's
outcome for the side to move. The model (Stockfish's ``win_rate_model``, see uci_engine/wdl.py) is
``P(win) = 1 / (1 + exp((a(m) - v) / b(m)))``, ``P(loss)`` the same at ``-v``, ``P(draw)`` the
rest, with ``a`` and ``b`` cubic in the normalised material ``m``. The eight coefficients
maximise the likelihood of the outcomes (scipy.optimize.minimize, L-BFGS-B), as Stockfish's
WDL_model tool fits its own.

The scores must come from the evaluation the engine plays with: generate the data with the
default net (``--eval-file``), name it with ``--net`` (default: the engine's default net). The
datagen sidecar ``<data>.json`` records which net evaluated the games; a mismatch is refused.
The generated module's ``RECORD`` (net, its SHA-256, commits, data, command, NLL) is what
tests/test_calibration_records.py checks against the shipped default net.

Usage::

    python scripts/fit_wdl.py /tmp/calib/wdl_selfplay.txt [--net gen2_h128.nnue | --net none]
        [--max-positions 500000] [--seed 0] [--out uci_engine/wdl_params.py] [--dry-run]
"""
import argparse
import hashlib
import json
import os
import random
import shlex
import sys

import chess
import numpy as np
from scipy.optimize import minimize

from uci_engine import gamerecord, provenance
from uci_engine.dataformat import read_records
from uci_engine.nnue_file import DEFAULT_NET, find_net
from uci_engine.wdl import MATERIAL_MAX, MATERIAL_MIN, MATERIAL_REF, MATERIAL_WEIGHTS

#: |score| beyond which a position says nothing about the curve's shape (decided games)
MAX_ABS_SCORE = 1500
#: the start of the search: Stockfish-like a = 150 cp, b = 100 cp at every material
X0 = (0.0, 0.0, 0.0, 150.0, 0.0, 0.0, 0.0, 100.0)
#: ``--net`` value for data scored by the hand-crafted evaluation
HAND_CRAFTED = "none"
#: digest size (bytes) of the BLAKE2b net digest that datagen's sidecar records
DATAGEN_DIGEST_SIZE = 8


def material(board):
    """Material (int, pawn units, both sides) of a :class:`chess.Board`, weighted as the model
    (:data:`uci_engine.wdl.MATERIAL_WEIGHTS`, P N B R Q K)."""
    return sum(w * chess.popcount(board.pieces_mask(pt, chess.WHITE)
                                  | board.pieces_mask(pt, chess.BLACK))
               for pt, w in zip(chess.PIECE_TYPES, MATERIAL_WEIGHTS))


def positions(path):
    """``(number, Record)`` (1-based) of every position of data file ``path``: a game-record file
    (:func:`uci_engine.gamerecord.iter_positions`, numbered in file order) or text lines
    (:func:`uci_engine.dataformat.read_records`, numbered by line). Raises ValueError at corrupt
    data."""
    if gamerecord.is_record_file(path):
        return enumerate(gamerecord.iter_positions(path), 1)
    return read_records(path)


def load(paths, max_positions, seed):
    """Arrays (v, m, outcome) for the side to move: score (float64, cp), normalised material
    (float64), outcome (int8: 1 win, 0 draw, -1 loss); a seeded sample of at most
    ``max_positions`` positions with |score| <= MAX_ABS_SCORE. Also the number of positions
    (list of int) in each file of ``paths``, the ones past MAX_ABS_SCORE too. Positions are read
    by :func:`positions` (ValueError at corrupt data) and their FENs by python-chess (ValueError
    for an invalid FEN)."""
    rows = []
    counts = []
    for path in paths:
        counts.append(0)
        for n, rec in positions(path):
            counts[-1] += 1
            if abs(rec.score) > MAX_ABS_SCORE:
                continue
            try:
                board = chess.Board(rec.fen)
            except ValueError as err:
                raise ValueError(f"{path}:{n}: {err}") from None
            r = rec.stm_result
            outcome = 1 if r == 1.0 else (-1 if r == 0.0 else 0)
            rows.append((rec.stm_score, material(board), outcome))
    random.Random(seed).shuffle(rows)
    rows = rows[:max_positions]
    if not rows:
        raise SystemExit("no positions in the data")
    a = np.array(rows, dtype=np.float64)
    m = np.clip(a[:, 1], MATERIAL_MIN, MATERIAL_MAX) / MATERIAL_REF
    return a[:, 0], m, a[:, 2].astype(np.int8), counts


def _poly(c, m):
    return ((c[0] * m + c[1]) * m + c[2]) * m + c[3]


def nll(x, v, m, outcome):
    """Mean negative log-likelihood (float) of the outcomes for coefficients ``x`` (8: ``a``'s
    then ``b``'s, highest power first)."""
    a = _poly(x[:4], m)
    b = np.maximum(_poly(x[4:], m), 1.0)
    pw = 1.0 / (1.0 + np.exp(np.clip((a - v) / b, -700, 700)))
    pl = 1.0 / (1.0 + np.exp(np.clip((a + v) / b, -700, 700)))
    pd = np.maximum(1.0 - pw - pl, 1e-9)
    p = np.where(outcome == 1, pw, np.where(outcome == -1, pl, pd))
    return float(-np.mean(np.log(np.maximum(p, 1e-12))))


def fit(v, m, outcome):
    """Fitted coefficients (as_, bs) and the final mean negative log-likelihood."""
    res = minimize(nll, np.array(X0), args=(v, m, outcome), method="L-BFGS-B",
                   options={"maxiter": 2000})
    return tuple(res.x[:4]), tuple(res.x[4:]), float(res.fun)


def sidecar(path):
    """The datagen sidecar ``<path>.json`` (dict), or {} when there is none or it is unreadable."""
    try:
        with open(path + ".json", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def describe_data(paths):
    """One dict per data file: name, what datagen's sidecar says (games played, nodes, seed,
    datagen's commit and command, the BLAKE2b-64 digest of the net) and ``positions`` (None:
    :func:`load` counts them while it reads the file)."""
    out = []
    for p in paths:
        meta = sidecar(p)
        games = sum(b - a + 1 for a, b in meta.get("done", []))
        out.append({"file": os.path.basename(p), "positions": None, "games": games or None,
                    "nodes": meta.get("nodes"), "seed": meta.get("seed"),
                    "datagen_commit": meta.get("commit"), "datagen_command": meta.get("command"),
                    "net_blake2b_64": meta.get("settings", {}).get("net")})
    return out


def check_net(net, data):
    """The net's path (None for ``HAND_CRAFTED``); SystemExit when a data file's sidecar names
    another evaluation than ``net``."""
    path = None
    digest = None
    if net != HAND_CRAFTED:
        path = find_net(net)
        if not os.path.isfile(path):
            raise SystemExit(f"net file {net} not found")
        with open(path, "rb") as f:
            digest = hashlib.blake2b(f.read(), digest_size=DATAGEN_DIGEST_SIZE).hexdigest()
    for d in data:
        if d["datagen_command"] is not None and d["net_blake2b_64"] != digest:
            raise SystemExit(f"{d['file']} was generated with net digest {d['net_blake2b_64']}, "
                             f"not {net} ({digest}): pass the net that scored the data")
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--net", default=DEFAULT_NET,
                    help=f"the net that scored the data (default {DEFAULT_NET}; "
                         f"'{HAND_CRAFTED}': the hand-crafted evaluation)")
    ap.add_argument("--max-positions", type=int, default=500_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..",
                                                  "uci_engine", "wdl_params.py"))
    ap.add_argument("--compare", metavar="PARAMS_PY",
                    help="also print the NLL of the coefficients of this wdl_params.py on the data")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    data = describe_data(args.data)
    net_path = check_net(args.net, data)
    v, m, outcome, counts = load(args.data, args.max_positions, args.seed)
    for d, n in zip(data, counts):
        d["positions"] = n
    as_, bs, loss = fit(v, m, outcome)
    base = nll(np.array(X0), v, m, outcome)
    wins, draws, losses = (int(np.sum(outcome == k)) for k in (1, 0, -1))
    print(f"positions {len(v)} (+{wins} ={draws} -{losses}), mean NLL {base:.4f} -> {loss:.4f}")
    print("AS =", ", ".join(f"{c:.3f}" for c in as_))
    print("BS =", ", ".join(f"{c:.3f}" for c in bs))
    if args.compare:
        ns = {}
        with open(args.compare, encoding="utf-8") as f:
            exec(f.read(), ns)  # noqa: S102 - our own generated module
        old = nll(np.array(ns["AS"] + ns["BS"]), v, m, outcome)
        print(f"mean NLL of {args.compare} on the same data: {old:.4f}")
    command = "python scripts/fit_wdl.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    record = {
        "evaluation": "hand-crafted" if net_path is None else "nnue",
        "net": None if net_path is None else os.path.basename(net_path),
        "net_sha256": None if net_path is None else provenance.file_sha256(net_path),
        "fit_commit": provenance.git_commit(),
        "date": provenance.utc_now(),
        "data": data,
        "positions": len(v), "wins": wins, "draws": draws, "losses": losses,
        "max_abs_score": MAX_ABS_SCORE,
        "nll": round(loss, 6),
        "command": command,
    }
    doc = (f"Win-rate model coefficients for :mod:`uci_engine.wdl` (generated by "
           f"scripts/fit_wdl.py; do not edit).\n\n"
           f"Fitted on {len(v)} positions (+{wins} ={draws} -{losses}, side to move's view, "
           f"|score| <= {MAX_ABS_SCORE}) of {', '.join(d['file'] for d in data)} "
           f"(uci-engine datagen self-play, {record['evaluation']}"
           f"{'' if net_path is None else ' ' + record['net']}); mean negative log-likelihood "
           f"{loss:.4f}.\nCommand: {command}\n``RECORD`` is the fit's record; AS, BS are a and b, "
           f"highest power first.")
    if not args.dry_run:
        provenance.write_generated_module(args.out, doc, record,
                                          {"AS": tuple(round(float(c), 8) for c in as_),
                                           "BS": tuple(round(float(c), 8) for c in bs)})
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
