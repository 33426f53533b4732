"""Map between the evaluation weight vector and the generated module ``kernels/eval_weights.py``.

Plain Python (no compiled code). The vector layout is :data:`uci_engine.kernels.evaluate.
WEIGHT_SPEC`: every array of eval_weights flattened in C order, int64 centipawns. Used by
scripts/tune_eval.py (Texel tuning, chessprogramming wiki "Texel's Tuning Method") and its tests.
Import after :func:`uci_engine.backend.select` like any code that imports kernels.
"""
import importlib
import os
import textwrap
import types

import numpy as np

from .kernels.evaluate import (IS_EG, N_WEIGHTS, OFFSETS, PHASE_MAX, T_BISHOP_PAIR, T_KING,
                               T_MOBILITY, T_PAWNS, T_PST, T_ROOKS, T_TEMPO, WEIGHT_SPEC)

#: Default output path of :func:`write_weights_module`.
WEIGHTS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels",
                            "eval_weights.py")

#: Row of ``evaluate.eval_terms`` (UCI ``eval`` breakdown) each weight array contributes to.
TERM_OF_WEIGHT = {
    "MATERIAL_MG": T_PST, "MATERIAL_EG": T_PST, "PST_MG": T_PST, "PST_EG": T_PST,
    "MOBILITY_MG": T_MOBILITY, "MOBILITY_EG": T_MOBILITY,
    "DOUBLED_MG": T_PAWNS, "DOUBLED_EG": T_PAWNS, "ISOLATED_MG": T_PAWNS,
    "ISOLATED_EG": T_PAWNS, "PASSED_MG": T_PAWNS, "PASSED_EG": T_PAWNS,
    "KING_DANGER_MG": T_KING, "SHIELD1_MG": T_KING, "SHIELD2_MG": T_KING,
    "BISHOP_PAIR_MG": T_BISHOP_PAIR, "BISHOP_PAIR_EG": T_BISHOP_PAIR,
    "ROOK_OPEN_MG": T_ROOKS, "ROOK_OPEN_EG": T_ROOKS, "ROOK_SEMIOPEN_MG": T_ROOKS,
    "ROOK_SEMIOPEN_EG": T_ROOKS, "TEMPO_MG": T_TEMPO,
}

#: Comment written above each array: what its indices mean.
DESCRIPTIONS = {
    "MATERIAL_MG": "piece value by type P N B R Q K (middlegame)",
    "MATERIAL_EG": "piece value by type P N B R Q K (endgame)",
    "PST_MG": "[type P..K][wiki square a8 = 0 .. h1 = 63, white's view] (middlegame); "
              "a white piece on sq reads sq ^ 56, a black one sq",
    "PST_EG": "[type P..K][wiki square a8 = 0 .. h1 = 63, white's view] (endgame)",
    "MOBILITY_MG": "[type N B R Q][safe squares 0..28]: attacked squares without own piece "
                   "and not attacked by an enemy pawn (middlegame)",
    "MOBILITY_EG": "[type N B R Q][safe squares 0..28] (endgame)",
    "DOUBLED_MG": "per pawn with an own pawn ahead on its file, by file a..h (middlegame)",
    "DOUBLED_EG": "per doubled pawn, by file a..h (endgame)",
    "ISOLATED_MG": "per pawn without own pawns on the adjacent files, by file a..h (middlegame)",
    "ISOLATED_EG": "per isolated pawn, by file a..h (endgame)",
    "PASSED_MG": "passed pawn (frontmost of its file) by relative rank 0..7 (middlegame)",
    "PASSED_EG": "passed pawn by relative rank 0..7 (endgame)",
    "KING_DANGER_MG": "[attacking pieces 0..7 (7+)][attack units 0..63 (63+)]: danger we inflict "
                      "on the enemy king zone (middlegame only)",
    "SHIELD1_MG": "own pawn on the 3 squares right in front of the king (middlegame)",
    "SHIELD2_MG": "own pawn on the 3 squares two ranks in front of the king (middlegame)",
    "BISHOP_PAIR_MG": "bishops on both square colours (middlegame)",
    "BISHOP_PAIR_EG": "bishops on both square colours (endgame)",
    "ROOK_OPEN_MG": "rook on a file without pawns (middlegame)",
    "ROOK_OPEN_EG": "rook on a file without pawns (endgame)",
    "ROOK_SEMIOPEN_MG": "rook on a file without own pawns (middlegame)",
    "ROOK_SEMIOPEN_EG": "rook on a file without own pawns (endgame)",
    "TEMPO_MG": "bonus for the side to move (middlegame only)",
}


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def weights_vector(module=None):
    """The weight vector (int64[N_WEIGHTS], centipawns) of ``module`` (default: the installed
    ``uci_engine.kernels.eval_weights``; a module object or an object with the same
    attributes). Raises ``ValueError`` if an array has the wrong shape."""
    if module is None:
        module = importlib.import_module("uci_engine.kernels.eval_weights")
    w = np.zeros(N_WEIGHTS, dtype=np.int64)
    for name, shape, _ in WEIGHT_SPEC:
        arr = np.asarray(getattr(module, name), dtype=np.int64)
        if arr.shape != shape:
            raise ValueError(f"{name}: shape {arr.shape}, expected {shape}")
        w[OFFSETS[name]:OFFSETS[name] + _size(shape)] = arr.ravel()
    return w


def weights_dict(w):
    """Dict name -> int64 array (scalars as 0-d int) of a weight vector ``w`` (N_WEIGHTS,),
    rounded to the nearest integer."""
    w = np.rint(np.asarray(w, dtype=np.float64)).astype(np.int64)
    if w.shape != (N_WEIGHTS,):
        raise ValueError(f"weight vector has shape {w.shape}, expected ({N_WEIGHTS},)")
    return {name: w[OFFSETS[name]:OFFSETS[name] + _size(shape)].reshape(shape)
            for name, shape, _ in WEIGHT_SPEC}


def _row(values, per_line, indent):
    vals = [str(int(v)) for v in values]
    width = max(len(v) for v in vals)
    lines = []
    for i in range(0, len(vals), per_line):
        lines.append(indent + ", ".join(v.rjust(width) for v in vals[i:i + per_line]) + ",")
    return lines


def render_weights_module(w, header):
    """Source text (str) of eval_weights.py for weight vector ``w`` (rounded to ints).

    ``header`` (str) becomes the module docstring after the title line: it should name the
    data, nodes per move, seed, commit and the exact command that regenerates the module."""
    d = weights_dict(w)
    out = ['"""Evaluation weights in centipawns (GENERATED by scripts/tune_eval.py: do not edit).',
           "", header.strip().replace('"""', "'''"), '"""', ""]
    for name, shape, _ in WEIGHT_SPEC:
        out.extend(textwrap.wrap(DESCRIPTIONS[name], 99, initial_indent="#: ",
                                 subsequent_indent="#   "))
        arr = d[name]
        if shape == ():
            out.append(f"{name} = {int(arr)}")
        elif len(shape) == 1:
            out.append(f"{name} = ({', '.join(str(int(v)) for v in arr)})")
        else:
            out.append(f"{name} = (")
            per_line = 8 if shape[1] == 64 else 10
            for row in arr:
                out.append("    (")
                out.extend(_row(row, per_line, "        "))
                out.append("    ),")
            out.append(")")
        out.append("")
    return "\n".join(out)


def write_weights_module(w, header, path=None):
    """Write :func:`render_weights_module` of ``w`` to ``path`` (default :data:`WEIGHTS_PATH`);
    return the path (str). The Numba cache is keyed on the kernel sources
    (:func:`uci_engine.backend.kernels_digest`), so the next process recompiles with the new
    weights; this process keeps the weights it compiled with."""
    path = path or WEIGHTS_PATH
    text = render_weights_module(w, header)
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def load_weights_file(path):
    """Weight vector (int64[N_WEIGHTS]) and docstring (str) of a weights module at ``path``,
    executed in isolation (not imported as ``uci_engine.kernels.eval_weights``)."""
    ns = {}
    with open(path) as fh:
        code = compile(fh.read(), path, "exec")
    exec(code, ns)   # noqa: S102 - our own generated file of literals
    w = weights_vector(types.SimpleNamespace(**ns))
    return w, ns.get("__doc__") or ""


# ---------------------------------------------------------------------------------------------
# Positions -> coefficient matrices
# ---------------------------------------------------------------------------------------------
def fens_to_rows(fens):
    """Parse FEN strings into rows of a fresh state array.

    Returns ``(st, ok)``: uint64[n_ok, STATE_LEN] with the parsable positions in order, and
    bool[len(fens)] marking which FENs parsed (a bad FEN is skipped, never raised)."""
    from .fen import parse_fen
    from .kernels.position import STATE_LEN
    st = np.zeros((len(fens), STATE_LEN), dtype=np.uint64)
    mb = np.zeros((len(fens), 64), dtype=np.int8)
    ok = np.zeros(len(fens), dtype=np.bool_)
    n = 0
    for i, fen in enumerate(fens):
        try:
            parse_fen(fen, st, mb, n)
        except ValueError:
            continue
        ok[i] = True
        n += 1
    return st[:n], ok


def coefficient_matrix(st, n_rows=None):
    """Coefficients of the rows of ``st`` (uint64[N, STATE_LEN]) as a scipy CSR matrix
    (int64[n_rows, N_WEIGHTS]), plus ``phase`` (int64[n_rows], 0..24) and ``stm``
    (int64[n_rows], 0 white / 1 black): the evaluation's own trace,
    :func:`uci_engine.kernels.evaluate.trace_batch`."""
    import scipy.sparse as sp
    from .kernels.evaluate import trace_batch
    from .kernels.position import STM
    n_rows = len(st) if n_rows is None else n_rows
    indptr, indices, values, phases = trace_batch(st, np.int64(n_rows))
    c = sp.csr_matrix((values.astype(np.int64), indices, indptr), shape=(n_rows, N_WEIGHTS))
    return c, phases.astype(np.int64), st[:n_rows, STM].astype(np.int64)


def mg_eg(c, w):
    """White-view middlegame and endgame totals (int64[n] each) of coefficient matrix ``c``
    (scipy sparse, [n, N_WEIGHTS]) for integer weight vector ``w`` (int64[N_WEIGHTS])."""
    w = np.asarray(w, dtype=np.int64)
    return c @ np.where(IS_EG, 0, w), c @ np.where(IS_EG, w, 0)


def taper(mg, eg, phase, stm):
    """Side-to-move evaluation (int64[n], centipawns) from white-view ``mg``/``eg`` (int64[n]):
    negate for black to move, then floor ``(mg * phase + eg * (24 - phase)) // 24`` exactly
    as ``evaluate._taper``."""
    sign = 1 - 2 * np.asarray(stm, dtype=np.int64)
    return (sign * mg * phase + sign * eg * (PHASE_MAX - phase)) // PHASE_MAX
