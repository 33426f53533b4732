"""Search parameters a tuner can reach: one table, one int64 array for the kernels.

Each row of :data:`TABLE` is a :class:`Param` (name, default, min, max, step, meaning), in the
spirit of Stockfish's ``TUNE`` macro and OpenBench's SPSA input (:func:`spsa_inputs` prints
``name, int, default, min, max, step, 0.002`` lines). All values are integers: a fraction is
stored in fixed point with its scale in the name (``_X100``: hundredths).

Numba freezes module globals when it compiles a kernel, so the margins live in the array that
:func:`pack` builds (int64[PARAMS_LEN]; row ``i`` of the table at index ``i``, then the late
move reduction table derived from the LMR rows) and that is passed to ``negamax``: a new value
needs no recompile. ``uci-engine --tune`` lists the rows as UCI spin options (:func:`uci_options`)
and ``setoption`` applies them to the engine (:func:`apply`); the default build does not show
them. The defaults are SPSA's values (scripts/tune_search.py, 20,000 games at 3+0.03 with
generation 7; docs/campaign.md rows 42-86), kept after their gauntlet against Ethereal 12 (rows
87-90) and their SPRT at 10+0.1 (rows 91-94); the 21 rows SPSA left in place keep their hand-set
values.

Plain Python and numpy (no Numba): the UCI layer imports it before the kernels load.
"""
from typing import NamedTuple

import numpy as np

from .options import Option


class Param(NamedTuple):
    name: str
    default: int
    min: int
    max: int
    step: int          # SPSA's c_end: the perturbation size at the end of a tuning run
    doc: str


TABLE = []


def _param(name, default, lo, hi, step, doc):
    TABLE.append(Param(name, default, lo, hi, step, doc))
    return len(TABLE) - 1


# --- pruning (depths in plies, margins in centipawns). Forms as named in kernels/search.py.
RFP_MAX_DEPTH = _param("RFP_MAX_DEPTH", 6, 1, 15, 1, "reverse futility: up to this depth")
RFP_MARGIN = _param("RFP_MARGIN", 77, 20, 200, 5, "reverse futility: ev - margin * depth >= beta")
RAZOR_MAX_DEPTH = _param("RAZOR_MAX_DEPTH", 3, 0, 6, 1, "razoring: up to this depth")
RAZOR_BASE = _param("RAZOR_BASE", 488, 100, 1000, 20,
                    "razoring: ev + base + margin * depth^2 < alpha")
RAZOR_MARGIN = _param("RAZOR_MARGIN", 285, 50, 600, 15, "razoring: per depth squared")
NMP_MIN_DEPTH = _param("NMP_MIN_DEPTH", 2, 1, 8, 1, "null move: from this depth")
NMP_BASE_R = _param("NMP_BASE_R", 3, 1, 6, 1,
                    "null move: R = base + depth / div + min(max_r, (ev - beta) / eval_div)")
# 4, its hand-set value, again after a scaling SPRT [0, 10] at 8+0.08 against SPSA's 3
# (docs/campaign.md rows 217-222)
NMP_DEPTH_DIV = _param("NMP_DEPTH_DIV", 4, 2, 8, 1, "null move: depth divisor of R")
NMP_EVAL_DIV = _param("NMP_EVAL_DIV", 197, 50, 500, 10, "null move: eval divisor of R")
NMP_EVAL_MAX_R = _param("NMP_EVAL_MAX_R", 3, 0, 6, 1, "null move: largest eval term of R")
IIR_MIN_DEPTH = _param("IIR_MIN_DEPTH", 4, 2, 10, 1,
                       "internal iterative reduction: from this depth")
LMP_MAX_DEPTH = _param("LMP_MAX_DEPTH", 5, 1, 10, 1, "late move pruning: up to this depth")
LMP_BASE = _param("LMP_BASE", 3, 1, 10, 1, "late move pruning: quiets after base + depth^2")
LMP_NOT_IMPROVING_NUM = _param("LMP_NOT_IMPROVING_NUM", 2, 1, 8, 1,
                               "late move pruning: count * num / den when not improving")
LMP_NOT_IMPROVING_DEN = _param("LMP_NOT_IMPROVING_DEN", 3, 1, 8, 1,
                               "late move pruning: see LMP_NOT_IMPROVING_NUM")
FUTILITY_MAX_DEPTH = _param("FUTILITY_MAX_DEPTH", 3, 1, 8, 1, "futility pruning: up to depth")
FUTILITY_BASE = _param("FUTILITY_BASE", 120, 0, 300, 10,
                       "futility: ev + base + margin * depth <= alpha")
FUTILITY_MARGIN = _param("FUTILITY_MARGIN", 100, 30, 250, 5, "futility: per depth")
HISTORY_PRUNE_MAX_DEPTH = _param("HISTORY_PRUNE_MAX_DEPTH", 3, 0, 6, 1,
                                 "history pruning: up to this depth")
HISTORY_PRUNE_MARGIN = _param("HISTORY_PRUNE_MARGIN", 2984, 500, 8000, 200,
                              "history pruning: quiets below -margin * depth")
SEE_PRUNE_MAX_DEPTH = _param("SEE_PRUNE_MAX_DEPTH", 4, 1, 10, 1, "SEE pruning: up to depth")
SEE_PRUNE_MARGIN = _param("SEE_PRUNE_MARGIN", 100, 20, 250, 5,
                          "SEE pruning: captures with SEE < -margin * depth")
DELTA_MARGIN = _param("DELTA_MARGIN", 207, 50, 500, 10, "quiescence delta pruning margin")
# --- singular extensions
SE_MIN_DEPTH = _param("SE_MIN_DEPTH", 6, 4, 12, 1, "singular extension: from this depth")
SE_TT_DEPTH_SLACK = _param("SE_TT_DEPTH_SLACK", 3, 1, 6, 1,
                           "singular extension: TT depth >= depth - slack")
SE_BETA_MARGIN = _param("SE_BETA_MARGIN", 1, 1, 6, 1,
                        "singular extension: beta = tt score - margin * depth")
SE_DOUBLE_MARGIN = _param("SE_DOUBLE_MARGIN", 21, 0, 60, 2,
                          "double extension: fail low by this much more")
SE_DOUBLE_MAX = _param("SE_DOUBLE_MAX", 6, 0, 12, 1, "double extensions on one line at most")
# --- late move reductions: the table round-down(base + ln(depth) ln(moves) / divisor)
LMR_BASE_X100 = _param("LMR_BASE_X100", 74, 0, 200, 5, "LMR table base, hundredths of a ply")
LMR_DIVISOR_X100 = _param("LMR_DIVISOR_X100", 227, 100, 500, 10, "LMR table divisor, hundredths")
LMR_MIN_DEPTH = _param("LMR_MIN_DEPTH", 3, 1, 6, 1, "LMR: from this depth")
LMR_MIN_MOVES = _param("LMR_MIN_MOVES", 1, 1, 6, 1, "LMR: after this many searched moves")
LMR_MIN_MOVES_PV = _param("LMR_MIN_MOVES_PV", 3, 1, 8, 1, "LMR: the same at PV nodes")
LMR_HISTORY_DIV = _param("LMR_HISTORY_DIV", 7711, 1000, 20000, 500,
                         "LMR: one ply less per this much history score")
# --- histories
#: the largest history bound: the move picker's bands are set apart for it (kernels/movepick.py)
HISTORY_MAX_BOUND = 1 << 16
HISTORY_MAX_LOG2 = _param("HISTORY_MAX_LOG2", 12, 12, 16, 1,
                          "history gravity bound |h| < 2^log2 (a power of two: a shift)")
HISTORY_BONUS_SCALE = _param("HISTORY_BONUS_SCALE", 16, 4, 64, 1,
                             "history bonus: min(scale * depth^2, bonus max)")
HISTORY_BONUS_MAX = _param("HISTORY_BONUS_MAX", 1577, 200, 4000, 100, "history bonus cap")
CORR_WEIGHT_MAX = _param("CORR_WEIGHT_MAX", 16, 1, 128, 1,
                         "correction history: weight min(depth + 1, max) / 256")
CORR_MAX = _param("CORR_MAX", 63, 8, 256, 4, "correction history bound, centipawns")
# --- iterative deepening (uci_engine/engine/driver.py)
ASPIRATION_MIN_DEPTH = _param("ASPIRATION_MIN_DEPTH", 5, 1, 10, 1, "aspiration: from depth")
ASPIRATION_DELTA = _param("ASPIRATION_DELTA", 19, 5, 100, 2, "aspiration: first half-window")
ASPIRATION_GROWTH_CP = _param("ASPIRATION_GROWTH_CP", 5, 0, 50, 1,
                              "aspiration: delta += delta / 2 + growth on a fail")
# --- time management (uci_engine/timeman.py's scale_soft; act on clock searches only)
SOFT_SCALE_X100 = _param("SOFT_SCALE_X100", 142, 80, 250, 10,
                         "soft limit: factor over the three below, hundredths")
SCORE_DROP_CP = _param("SCORE_DROP_CP", 204, 50, 600, 20,
                       "soft limit: a score drop of d cp scales it by 1 + d / this")
NODE_FACTOR_SLOPE_X100 = _param("NODE_FACTOR_SLOPE_X100", 198, 50, 400, 10,
                                "soft limit: slope * (1 - best move's node share) + base")
NODE_FACTOR_BASE_X100 = _param("NODE_FACTOR_BASE_X100", 35, 0, 150, 5,
                               "soft limit: see NODE_FACTOR_SLOPE_X100, hundredths")
#: the rows that act on the time manager, not on a fixed-depth search
TIME_PARAMS = ("SOFT_SCALE_X100", "SCORE_DROP_CP", "NODE_FACTOR_SLOPE_X100",
               "NODE_FACTOR_BASE_X100")

TABLE = tuple(TABLE)
BY_NAME = {p.name: i for i, p in enumerate(TABLE)}
#: int[64 * 64] derived: plies of late move reduction by (depth, searched moves), both < 64
LMR_TABLE = len(TABLE)
LMR_SIZE = 64
PARAMS_LEN = LMR_TABLE + LMR_SIZE * LMR_SIZE


def defaults():
    """The table's defaults: dict name -> int."""
    return {p.name: p.default for p in TABLE}


def pack(values=None):
    """The kernels' ``params`` array, int64[PARAMS_LEN]: the table's values (``values``, a
    dict name -> int, overrides the defaults) and the late move reduction table derived from
    LMR_BASE_X100 and LMR_DIVISOR_X100 (the formula of :mod:`uci_engine.kernels.search`)."""
    v = defaults()
    v.update(values or {})
    out = np.zeros(PARAMS_LEN, dtype=np.int64)
    for i, p in enumerate(TABLE):
        out[i] = v[p.name]
    base = v["LMR_BASE_X100"] / 100
    div = v["LMR_DIVISOR_X100"] / 100
    for d in range(1, LMR_SIZE):
        for m in range(1, LMR_SIZE):
            out[LMR_TABLE + d * LMR_SIZE + m] = int(base + np.log(d) * np.log(m) / div)
    return out


def time_factors(params):
    """The keyword arguments of :func:`uci_engine.timeman.scale_soft` from the ``params``
    array (floats from the fixed-point rows)."""
    return {"soft_scale": params[SOFT_SCALE_X100] / 100,
            "score_drop_cp": int(params[SCORE_DROP_CP]),
            "node_factor_slope": params[NODE_FACTOR_SLOPE_X100] / 100,
            "node_factor_base": params[NODE_FACTOR_BASE_X100] / 100}


def uci_options():
    """The tunables as UCI spin options (:class:`uci_engine.options.Option` rows): the range
    is checked by the option, and the engine effect writes the value into the engine's
    ``params`` array (:func:`apply`), so it holds for the next search, no recompile."""
    return [Option(p.name, "spin", p.default, p.min, p.max,
                   on_engine=lambda eng, v, name=p.name: apply(eng.params, {name: v}))
            for p in TABLE]


def is_param(name):
    """True if ``name`` (str, case as in the table) is a tunable."""
    return name in BY_NAME


def apply(params, values):
    """Write the values (dict name -> int; the others keep theirs) into the engine's
    ``params`` array in place, so every search thread sees them from its next search.
    Raises ValueError on an unknown name or a value out of its range."""
    for name, value in values.items():
        if name not in BY_NAME:
            raise ValueError(f"unknown search parameter {name!r}")
        p = TABLE[BY_NAME[name]]
        if not p.min <= int(value) <= p.max:
            raise ValueError(f"{name} value {value} out of range [{p.min}, {p.max}]")
    current = {p.name: int(params[i]) for i, p in enumerate(TABLE)}
    current.update(values)
    params[:] = pack(current)


def spsa_inputs():
    """OpenBench's SPSA input lines, one per tunable: ``name, int, default, min, max, step,
    0.002`` (0.002: OpenBench's default R_end)."""
    return [f"{p.name}, int, {p.default}, {p.min}, {p.max}, {p.step}, 0.002" for p in TABLE]
