"""The static evaluation the search calls: hand-crafted or NNUE, chosen by the type of ``acc``.

negamax is compiled once per evaluation, like a C++ template: with ``acc`` the tuple ``(stack,
cache, pieces)`` of an int16[rows, 2, H] accumulator stack and a Finny table
(:func:`.nnue.new_search_accumulators`) the NNUE evaluates; with the one-dimensional
placeholder HCE_ACC the hand-crafted evaluation does, and no NNUE code is compiled into that
search (linking the NNUE kernels into negamax cost about 5 s of CPU at the first start, which
the default hand-crafted engine should not pay). The two switches below are resolved while
negamax is typed (numba.extending.overload, inlined), so neither costs a branch per node.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from .evaluate import evaluate
from .nnue import nnue_update, nnue_copy, nnue_refresh, nnue_evaluate
from .position import NULL_MOVE
from .state import NNUE_CHECK, NNUE_EVALS, NNUE_MISMATCHES

HCE_ACC = np.zeros(1, dtype=np.int16)     # the ``acc`` argument of a hand-crafted search


# _nrt=False as negamax: nothing here needs reference counting.
@njit(cache=True, nogil=True, _nrt=False)
def nnue_static_eval(st, row, ctl, acc, sply, net, params):
    """NNUE evaluation (int64 centipawns, side to move's view) of row ``row`` from accumulator
    row ``sply`` of the stack ``acc[0]`` (:func:`.nnue.nnue_evaluate`). With ``ctl[NNUE_CHECK]``
    set (tests) the accumulator is also rebuilt from scratch in the stack's last row and
    compared (counts in ``ctl[NNUE_EVALS]`` and ``ctl[NNUE_MISMATCHES]``)."""
    acc = acc[0]
    if ctl[NNUE_CHECK]:
        spare = acc.shape[0] - 1
        nnue_refresh(st, row, net, acc, spare, params)
        ctl[NNUE_EVALS] += 1
        same = True
        for persp in range(2):
            for i in range(acc.shape[2]):
                if acc[spare, persp, i] != acc[sply, persp, i]:
                    same = False
        if not same:
            ctl[NNUE_MISMATCHES] += 1
    return nnue_evaluate(st, row, acc, sply, net, params)


@njit(cache=True, nogil=True, _nrt=False)
def nnue_push_move(st, mb, row, m, acc, sply, net, params):
    """Accumulator row ``sply + 1`` of the stack ``acc[0]`` for the child of row ``row`` reached
    by move ``m`` (made already; NULL_MOVE: a copy of row ``sply``), rebuilds from the Finny
    table ``acc[1], acc[2]``."""
    stack, cache, pieces = acc
    if m == NULL_MOVE:
        nnue_copy(stack, sply)
    else:
        nnue_update(st, mb, row, m, stack, sply, net, params, cache, pieces)


def static_eval(st, row, ctl, acc, sply, net, params):
    """Static evaluation (int64 centipawns, side to move's view) of row ``row`` at search ply
    ``sply``: :func:`nnue_static_eval` when ``acc`` is the NNUE's tuple, the hand-crafted
    :func:`.evaluate.evaluate` for :data:`HCE_ACC`. Compiled code resolves the choice from the
    type (overload below)."""
    if isinstance(acc, tuple):
        return nnue_static_eval(st, row, ctl, acc, sply, net, params)
    return evaluate(st, row)


def nnue_push(st, mb, row, m, acc, sply, net, params):
    """Before the child of row ``row`` reached by move ``m`` is searched: its accumulator
    (:func:`nnue_push_move`) when ``acc`` is the NNUE's tuple, nothing for :data:`HCE_ACC`.
    Called right before the child's search, so moves pruned after making them cost no
    update."""
    if isinstance(acc, tuple):
        nnue_push_move(st, mb, row, m, acc, sply, net, params)


@overload(static_eval, inline="always")
def _static_eval_typed(st, row, ctl, acc, sply, net, params):
    if isinstance(acc, types.BaseTuple):
        return lambda st, row, ctl, acc, sply, net, params: nnue_static_eval(
            st, row, ctl, acc, sply, net, params)
    return lambda st, row, ctl, acc, sply, net, params: evaluate(st, row)


@overload(nnue_push, inline="always")
def _nnue_push_typed(st, mb, row, m, acc, sply, net, params):
    if isinstance(acc, types.BaseTuple):
        return lambda st, mb, row, m, acc, sply, net, params: nnue_push_move(
            st, mb, row, m, acc, sply, net, params)
    return lambda st, mb, row, m, acc, sply, net, params: None

