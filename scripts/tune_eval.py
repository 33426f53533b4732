#!/usr/bin/env python3
"""Texel tuning of the evaluation weights; writes ``uci_engine/kernels/eval_weights.py``.

Usage::

    python scripts/tune_eval.py data/games.txt [more.txt ...] [--lambda 0.5] [--iters 500]
        [--seed 1] [--max-positions N] [--l2 1e-8] [--freeze KING_DANGER_MG,...]
        [--out PATH] [--dry-run]
    python scripts/tune_eval.py --rewrite     # rewrite the current module unchanged

Data: the datagen text format (:mod:`uci_engine.dataformat`), one position per line
``<FEN> | <score> | <result>``: the score in centipawns from White's view (int), the result
1.0 / 0.5 / 0.0 from White's view. Blank lines
and lines starting with ``#`` are skipped, except that a first line ``# {json}`` or
``# key=value ...`` describes the data (keys ``nodes``, ``seed``, ``commit``, ``command``); a
sidecar ``<data>.json`` with the same keys takes precedence. Missing keys are "unknown".
Malformed lines are counted and skipped.

Method (chessprogramming wiki "Texel's Tuning Method", Peter Österlund): the evaluation is an
exact linear form over the weight vector ``w``, whose coefficients the evaluation traces itself
(:func:`uci_engine.kernels.evaluate.evaluate_traced`, Ethereal's ``TRACE``); with the taper
folded in, ``eval_white = phase/24 * (C_mg . w) + (24 - phase)/24 * (C_eg . w)`` is a sparse
matrix ``A`` (scipy CSR, float64[n, N_WEIGHTS]) times ``w``. Each data file is converted to
coefficients once (the compiled trace, tqdm bar) and cached next to it as ``<data>.coeffs.npz``,
keyed on the file's size, mtime, the position limit and a digest of the evaluation's source.

1. ``K`` (the sigmoid scale, ``sigmoid(s) = 1 / (1 + 10 ** (-K * s / 400))``, s in centipawns)
   is fitted first with scipy's ``minimize_scalar`` to minimise the mean squared error between
   ``sigmoid(K * eval(w0))`` and the game *results* of the training set. Results only: the
   blended target below depends on K itself, and fitting K against it has the degenerate
   optimum K -> 0 when lambda < 1.
2. With K fixed, ``w`` is fitted by L-BFGS-B (scipy, analytic gradient) on
   ``loss = mean((sigmoid(K * A w) - target)^2) + l2 * sum((w - w0)^2)`` over the free weights,
   ``target = lambda * result + (1 - lambda) * sigmoid(K * score)``.

Default lambda 0.5: the game result is the truth the evaluation should predict but is a single
noisy outcome shared by every position of a game; the search score is a per-position, lower-
variance estimate but carries the current evaluation's own biases (lambda 0 would mostly teach
the evaluation to imitate a slightly deeper search of itself). An even blend keeps both signals.

Regularisation: fixing K before the fit anchors the overall scale (a uniformly larger ``w`` would
change the predictions, so the scale cannot drift freely); the pawn middlegame value is pinned as
the centipawn unit and the king's material (always cancelling) is frozen. The L2 pull (``--l2``,
loss units per centipawn^2) to the start values keeps weights with little data (rare piece-square
entries, large king-danger cells, high mobility counts) near their start values and removes the
material/PST redundancy (a constant added to a piece's PST and taken from its material changes
nothing). The default 1e-8 gave the best validation loss on 20,000 synthetic positions (1e-9 and
0 overfit: training loss down, validation loss up); use more for a few thousand positions and
less for millions (compare the validation losses). Weights with no coefficient in the training
data, entries that can never occur (pawns on the first and last rank, passed pawns on relative
ranks 0 and 7, mobility counts beyond a piece's maximum, king danger without attackers) and
arrays named by ``--freeze`` stay fixed. The result is rounded to integers; the losses printed
after the fit are those of the rounded weights. The train/validation split (90 % / 10 %) is
seeded by ``--seed``.

The start weights are the engine's current ``uci_engine/kernels/eval_weights.py`` (whatever
``--out`` says). Memory: about 2 KB per position (some 150 coefficients, float64 + int32), so
use ``--max-positions`` to stay within RAM (1 M positions need about 2 GB).

The header of the written module names the data files with their position counts and metadata,
the git commit, the exact command line, K, lambda and the losses before and after. The engine
picks the new weights up at its next start (the Numba cache is keyed on the kernel sources).
"""
import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np

import uci_engine
from uci_engine.dataformat import is_record, parse_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the imported package's kernels (whose sources key the coefficient cache)
KERNELS_DIR = os.path.join(os.path.dirname(uci_engine.__file__), "kernels")

DEFAULT_LAMBDA = 0.5
DEFAULT_ITERS = 500
DEFAULT_SEED = 1
DEFAULT_L2 = 1e-8            # loss units per centipawn^2 of distance from the start weights
VALIDATION_FRACTION = 0.10
K_BOUNDS = (0.01, 10.0)      # search interval for K (1/centipawn scale of the 400-cp sigmoid)
CHUNK = 65536                # positions per compiled conversion call
CACHE_VERSION = 1
META_KEYS = ("nodes", "seed", "commit", "command")
LN10_400 = np.log(10.0) / 400.0
# L-BFGS-B works on OBJECTIVE_SCALE * loss: the loss (~0.05) and its gradient (~1e-6 per cp) are
# far below scipy's default stopping tolerances, so the unscaled fit would stop at once
OBJECTIVE_SCALE = 1e4
EXP_LIMIT = 500.0            # clip of the sigmoid's exponent (mate scores would overflow exp)


# ---------------------------------------------------------------------------------------------
# Data files
# ---------------------------------------------------------------------------------------------
def read_meta(path):
    """Metadata dict of a data file (str values; "unknown" when missing): from a first line
    ``# {json}`` / ``# key=value ...`` and, taking precedence, a sidecar ``<path>.json``."""
    meta = {}
    try:
        with open(path) as fh:
            first = fh.readline().strip()
    except OSError:
        first = ""
    if first.startswith("#"):
        body = first[1:].strip()
        try:
            parsed = json.loads(body)
            if isinstance(parsed, dict):
                meta.update(parsed)
        except ValueError:
            try:
                tokens = shlex.split(body)
            except ValueError:
                tokens = []
            for tok in tokens:
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    meta[k.strip()] = v
    sidecar = path + ".json"
    if os.path.exists(sidecar):
        try:
            with open(sidecar) as fh:
                parsed = json.load(fh)
            if isinstance(parsed, dict):
                meta.update(parsed)
        except (OSError, ValueError) as exc:
            print(f"warning: ignoring sidecar {sidecar}: {exc}", file=sys.stderr)
    return {k: str(meta.get(k, "unknown")) for k in META_KEYS}


def _evaluation_digest():
    """Digest (str) of the source that defines the coefficients, the evaluation (cache key)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(str(CACHE_VERSION).encode())
    with open(os.path.join(KERNELS_DIR, "evaluate.py"), "rb") as fh:
        h.update(fh.read())
    return h.hexdigest()


def _cache_key(path, limit):
    stat = os.stat(path)
    return f"{stat.st_size}:{stat.st_mtime_ns}:{limit}:{_evaluation_digest()}"


def convert(path, limit=None, progress=True):
    """Read data file ``path`` (at most ``limit`` positions) and convert it to coefficients.

    Returns a dict of numpy arrays: ``indptr`` int64[n+1], ``indices`` int32[nnz], ``values``
    int16[nnz] (CSR of the white-view coefficients), ``phase`` int8[n], ``stm`` int8[n],
    ``score`` int64[n] (centipawns, White's view), ``result`` float64[n], and ``bad`` (count of
    skipped lines: malformed, or an illegal FEN)."""
    from tqdm import tqdm
    from uci_engine.fen import parse_fen
    from uci_engine.kernels.evaluate import trace_batch
    from uci_engine.kernels.position import STATE_LEN, STM

    st = np.zeros((CHUNK, STATE_LEN), dtype=np.uint64)
    mb = np.zeros((CHUNK, 64), dtype=np.int8)
    parts = {k: [] for k in ("indptr", "indices", "values", "phase", "stm")}
    scores, results = [], []
    bad = 0
    nnz = 0
    n_chunk = 0

    def flush():
        nonlocal nnz, n_chunk
        if n_chunk == 0:
            return
        indptr, indices, values, phases = trace_batch(st, np.int64(n_chunk))
        parts["indptr"].append(indptr[1:] + nnz)
        parts["indices"].append(indices)
        parts["values"].append(values)
        parts["phase"].append(phases)
        parts["stm"].append(st[:n_chunk, STM].astype(np.int8))
        nnz += int(indptr[-1])
        n_chunk = 0

    total = os.path.getsize(path)
    with open(path, "rb") as fh, tqdm(total=total, unit="B", unit_scale=True,
                                      desc=os.path.basename(path), disable=not progress) as bar:
        for raw in fh:
            bar.update(len(raw))
            if limit is not None and len(scores) >= limit:
                break
            text = raw.decode("utf-8", "replace")
            if not is_record(text):
                continue
            try:
                fen, score, result = parse_line(text)
                parse_fen(fen, st, mb, n_chunk)
            except ValueError:                 # a malformed line, or an illegal position
                bad += 1
                continue
            n_chunk += 1
            scores.append(score)
            results.append(result)
            if n_chunk == CHUNK:
                flush()
    flush()
    cat = {k: (np.concatenate(v) if v else np.zeros(0, dtype=np.int64)) for k, v in parts.items()}
    return {"indptr": np.concatenate([[0], cat["indptr"]]).astype(np.int64),
            "indices": cat["indices"].astype(np.int32), "values": cat["values"].astype(np.int16),
            "phase": cat["phase"].astype(np.int8), "stm": cat["stm"].astype(np.int8),
            "score": np.array(scores, dtype=np.int64),
            "result": np.array(results, dtype=np.float64), "bad": np.int64(bad)}


def load(path, limit=None, progress=True):
    """:func:`convert` through the ``<path>.coeffs.npz`` cache (rebuilt when the key differs;
    a cache that cannot be written is only reported). Returns ``(data, from_cache)``."""
    cache = path + ".coeffs.npz"
    key = _cache_key(path, limit)
    if os.path.exists(cache):
        try:
            with np.load(cache, allow_pickle=False) as z:
                if str(z["key"]) == key:
                    return {k: z[k] for k in z.files if k != "key"}, True
        except (OSError, ValueError, KeyError):
            pass
    data = convert(path, limit, progress)
    try:
        np.savez(cache + ".tmp.npz", key=np.array(key), **data)
        os.replace(cache + ".tmp.npz", cache)
    except OSError as exc:
        print(f"warning: cannot write cache {cache}: {exc}", file=sys.stderr)
    return data, False


# ---------------------------------------------------------------------------------------------
# Fit
# ---------------------------------------------------------------------------------------------
def sigmoid(k, s):
    """Expected score (float64) of centipawn eval ``s`` at scale ``k``: 1 / (1 + 10^(-k s/400))."""
    return 1.0 / (1.0 + np.exp(np.clip(-k * LN10_400 * s, -EXP_LIMIT, EXP_LIMIT)))


def tapered_matrix(data):
    """scipy CSR float64[n, N_WEIGHTS] with the taper folded in: row . w = white-view eval
    (centipawns, without the integer floor)."""
    import scipy.sparse as sp
    from uci_engine.kernels.evaluate import IS_EG, N_WEIGHTS, PHASE_MAX
    indptr = data["indptr"]
    n = len(indptr) - 1
    rows = np.repeat(np.arange(n), np.diff(indptr))
    ph = data["phase"].astype(np.float64)[rows] / PHASE_MAX
    share = np.where(IS_EG[data["indices"]], 1.0 - ph, ph)
    return sp.csr_matrix((data["values"].astype(np.float64) * share, data["indices"], indptr),
                         shape=(n, N_WEIGHTS))


def fixed_mask(a_train, frozen_names=()):
    """bool[N_WEIGHTS]: weights kept at their start value (see the module docstring)."""
    from uci_engine.kernels.evaluate import N_WEIGHTS, OFFSETS
    fixed = np.zeros(N_WEIGHTS, dtype=np.bool_)
    fixed[OFFSETS["MATERIAL_MG"] + 0] = True            # pawn (mg) = the centipawn unit
    fixed[OFFSETS["MATERIAL_MG"] + 5] = True            # king material always cancels
    fixed[OFFSETS["MATERIAL_EG"] + 5] = True
    for name in ("PST_MG", "PST_EG"):                   # pawns never stand on rank 1 or 8
        fixed[OFFSETS[name]:OFFSETS[name] + 8] = True
        fixed[OFFSETS[name] + 56:OFFSETS[name] + 64] = True
    for name in ("PASSED_MG", "PASSED_EG"):
        fixed[OFFSETS[name]] = fixed[OFFSETS[name] + 7] = True
    for name in ("MOBILITY_MG", "MOBILITY_EG"):         # N 8, B 13, R 14, Q 27 squares at most
        for t, most in enumerate((8, 13, 14, 27)):
            fixed[OFFSETS[name] + t * 29 + most + 1:OFFSETS[name] + (t + 1) * 29] = True
    fixed[OFFSETS["KING_DANGER_MG"]:OFFSETS["KING_DANGER_MG"] + 64] = True   # no attackers
    from uci_engine.tuning import weights_dict
    sizes = {k: v.size for k, v in weights_dict(np.zeros(N_WEIGHTS)).items()}
    for name in frozen_names:
        fixed[OFFSETS[name]:OFFSETS[name] + sizes[name]] = True
    seen = np.bincount(a_train.indices, minlength=N_WEIGHTS) > 0   # in the training set
    return fixed | ~seen


def mse(a, w, k, target):
    """Mean squared error (float) of sigmoid(k * a @ w) against ``target``."""
    return float(np.mean((sigmoid(k, a @ w) - target) ** 2))


def fit_k(a, w0, result):
    """K minimising the MSE of sigmoid(K * eval(w0)) against the game results (float > 0)."""
    from scipy.optimize import minimize_scalar
    ev = a @ w0
    res = minimize_scalar(lambda k: float(np.mean((sigmoid(k, ev) - result) ** 2)),
                          bounds=K_BOUNDS, method="bounded", options={"xatol": 1e-6})
    return float(res.x)


def fit_weights(a, w0, k, target, free, l2, iters, log=print):
    """L-BFGS-B fit of the free weights (bool[N_WEIGHTS] ``free``); returns float64[N_WEIGHTS]."""
    from scipy.optimize import minimize
    n = a.shape[0]
    at = a.T
    free_idx = np.nonzero(free)[0]
    w = w0.astype(np.float64).copy()
    state = {"it": 0, "t0": time.perf_counter()}

    def fun(x):
        w[free_idx] = x
        p = sigmoid(k, a @ w)
        r = p - target
        d = (2.0 / n) * r * p * (1.0 - p) * (k * LN10_400)
        dw = x - w0[free_idx]
        loss = float(np.mean(r * r)) + l2 * float(dw @ dw)
        grad = (at @ d)[free_idx] + 2.0 * l2 * dw
        return OBJECTIVE_SCALE * loss, OBJECTIVE_SCALE * grad

    def callback(x):
        state["it"] += 1
        if state["it"] % 50 == 0:
            loss, _ = fun(x)
            log(f"  iteration {state['it']}: loss {loss / OBJECTIVE_SCALE:.7f} "
                f"({time.perf_counter() - state['t0']:.1f} s)")

    res = minimize(fun, w0[free_idx].astype(np.float64), jac=True, method="L-BFGS-B",
                   callback=callback, options={"maxiter": iters, "maxfun": 2 * iters + 20,
                                               "ftol": 1e-15, "gtol": 1e-12})
    w[free_idx] = res.x
    log(f"  L-BFGS-B: {res.nit} iterations, {res.message}")
    return w


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------
def git_commit():
    """Short hash of HEAD plus "+dirty" for uncommitted changes (str; "unknown" without git)."""
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def header_text(files, n_train, n_val, args, k, losses, commit, command):
    """Docstring body (str) of a tuned eval_weights.py."""
    lines = ["Data (Texel tuning by scripts/tune_eval.py; start weights: eval_weights.py at the "
             "commit below):"]
    for path, count, bad, meta in files:
        lines.append(f"  {path}: {count} positions ({bad} lines skipped); nodes per move "
                     f"{meta['nodes']}, seed {meta['seed']}, data commit {meta['commit']}, "
                     f"command: {meta['command']}")
    lines += [
        f"Positions used: {n_train + n_val} ({n_train} train, {n_val} validation; split seed "
        f"{args.seed}).",
        f"Commit: {commit}.",
        f"K = {k:.6f} (fitted on the training results); lambda = {args.lam}; l2 = {args.l2}; "
        f"at most {args.iters} L-BFGS-B iterations.",
        "Loss = MSE of sigmoid(K * eval) against lambda * result + (1 - lambda) * "
        "sigmoid(K * score):",
        f"  train {losses[0]:.7f} -> {losses[1]:.7f}, validation {losses[2]:.7f} -> "
        f"{losses[3]:.7f} (after: the rounded weights below).",
        "",
        "Regenerate:",
        f"    {command}",
    ]
    return "\n".join(lines)


def change_summary(w0, w1):
    """Lines describing the largest changes per weight array."""
    from uci_engine.tuning import weights_dict
    d0, d1 = weights_dict(w0), weights_dict(w1)
    out = []
    for name in d0:
        delta = np.abs(d1[name] - d0[name])
        if delta.size and delta.max() > 0:
            out.append(f"  {name:<17} changed {int(np.count_nonzero(delta)):4d}/{delta.size:<4d}"
                       f" mean |d| {delta.mean():6.2f}  max |d| {int(delta.max())}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="*", help="data files (<FEN> | <score> | <result> per line)")
    ap.add_argument("--lambda", dest="lam", type=float, default=DEFAULT_LAMBDA,
                    help=f"weight of the game result in the target (default {DEFAULT_LAMBDA})")
    ap.add_argument("--iters", type=int, default=DEFAULT_ITERS,
                    help=f"maximum L-BFGS-B iterations (default {DEFAULT_ITERS})")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED,
                    help="seed of the train/validation split and of --max-positions sampling")
    ap.add_argument("--max-positions", type=int, default=None,
                    help="use at most this many positions (read at most this many per file)")
    ap.add_argument("--l2", type=float, default=DEFAULT_L2,
                    help=f"pull towards the start weights, per cp^2 (default {DEFAULT_L2})")
    ap.add_argument("--freeze", default="",
                    help="comma-separated weight arrays to keep fixed, e.g. KING_DANGER_MG")
    ap.add_argument("--out", default=None, help="output module (default: the engine's "
                    "uci_engine/kernels/eval_weights.py)")
    ap.add_argument("--dry-run", action="store_true", help="fit and report, write nothing")
    ap.add_argument("--rewrite", action="store_true",
                    help="rewrite the current weights module unchanged (canonical form), no data")
    ap.add_argument("--sliders", default=None, help="slider backend (default: auto)")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = ap.parse_args(argv)

    from uci_engine import backend
    if backend.selected() is None:
        backend.choose_and_select(args.sliders)
    from uci_engine import tuning
    from uci_engine.kernels.evaluate import N_WEIGHTS, OFFSETS

    out = args.out or tuning.WEIGHTS_PATH
    if args.rewrite:
        source = args.out or tuning.WEIGHTS_PATH
        w, doc = tuning.load_weights_file(source)
        body = doc.split("\n", 2)[2] if doc.count("\n") >= 2 else doc
        if args.dry_run:
            print(f"dry run: would rewrite {out} ({N_WEIGHTS} weights)")
        else:
            tuning.write_weights_module(w, body, out)
            print(f"rewrote {out} ({N_WEIGHTS} weights)")
        return 0
    if not args.data:
        ap.error("no data files (or use --rewrite)")
    if not 0.0 <= args.lam <= 1.0:
        ap.error("--lambda must be in [0, 1]")
    if args.iters < 0 or args.l2 < 0:
        ap.error("--iters and --l2 must not be negative")
    frozen = [s.strip() for s in args.freeze.split(",") if s.strip()]
    unknown = [s for s in frozen if s not in OFFSETS]
    if unknown:
        ap.error(f"unknown weight arrays in --freeze: {', '.join(unknown)}")

    import scipy.sparse as sp
    files, blocks = [], []
    for path in args.data:
        if not os.path.isfile(path):
            print(f"error: no such data file: {path}", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        data, cached = load(path, args.max_positions, progress=not args.no_progress)
        n = len(data["score"])
        print(f"{path}: {n} positions, {int(data['bad'])} lines skipped "
              f"({'cache' if cached else 'converted'}, {time.perf_counter() - t0:.1f} s)")
        files.append((path, n, int(data["bad"]), read_meta(path)))
        blocks.append(data)
    a = sp.vstack([tapered_matrix(d) for d in blocks]).tocsr()
    score = np.concatenate([d["score"] for d in blocks]).astype(np.float64)
    result = np.concatenate([d["result"] for d in blocks])
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(a.shape[0])
    if args.max_positions is not None and len(order) > args.max_positions:
        order = order[:args.max_positions]
    n_val = int(len(order) * VALIDATION_FRACTION)
    if len(order) - n_val < 10:
        print(f"error: too few positions ({len(order)})", file=sys.stderr)
        return 2
    val_idx, train_idx = np.sort(order[:n_val]), np.sort(order[n_val:])
    a_tr, a_va = a[train_idx], a[val_idx]

    w0 = tuning.load_weights_file(tuning.WEIGHTS_PATH)[0].astype(np.float64)
    k = fit_k(a_tr, w0, result[train_idx])
    target = args.lam * result + (1.0 - args.lam) * sigmoid(k, score)
    y_tr, y_va = target[train_idx], target[val_idx]
    before = (mse(a_tr, w0, k, y_tr), mse(a_va, w0, k, y_va) if n_val else float("nan"))
    print(f"K = {k:.6f}; lambda = {args.lam}; {len(train_idx)} train, {n_val} validation")
    print(f"loss before: train {before[0]:.7f}, validation {before[1]:.7f}")

    free = ~fixed_mask(a_tr, frozen)
    print(f"fitting {int(free.sum())} of {N_WEIGHTS} weights (l2 {args.l2}, "
          f"at most {args.iters} iterations)")
    w1 = fit_weights(a_tr, w0, k, y_tr, free, args.l2, args.iters) if args.iters else w0
    w1 = np.rint(w1)
    after = (mse(a_tr, w1, k, y_tr), mse(a_va, w1, k, y_va) if n_val else float("nan"))
    print(f"loss after:  train {after[0]:.7f}, validation {after[1]:.7f} (rounded weights)")
    for line in change_summary(w0, w1):
        print(line)

    command = "python scripts/tune_eval.py " + shlex.join(argv if argv is not None
                                                          else sys.argv[1:])
    header = header_text(files, len(train_idx), n_val, args, k,
                         (before[0], after[0], before[1], after[1]), git_commit(), command)
    if args.dry_run:
        print(f"dry run: {out} not written")
    else:
        tuning.write_weights_module(w1, header, out)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
