"""The static evaluation the search calls: hand-crafted or NNUE, chosen by the type of ``acc``.

negamax is compiled once per evaluation, like a C++ template: with ``acc`` the tuple ``(stack,
cache, pieces, pending)`` of an int16[rows, 2, H] accumulator stack, a Finny table and the
stack's lazy-update marks (:func:`.nnue.new_search_accumulators`) the NNUE evaluates; with the
one-dimensional placeholder HCE_ACC the hand-crafted evaluation does, and no NNUE code is
compiled into that search (linking the NNUE kernels into negamax cost about 5 s of CPU at the
first start, which the default hand-crafted engine should not pay). The two switches below are
resolved while negamax is typed (numba.extending.overload, inlined), so neither costs a branch
per node.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from .evaluate import evaluate
from .nnue import nnue_update, nnue_copy, nnue_refresh, nnue_evaluate, ACC_CLEAN
from .position import NULL_MOVE
from .state import NNUE_CHECK, NNUE_EVALS, NNUE_MISMATCHES

HCE_ACC = np.zeros(1, dtype=np.int16)     # the ``acc`` argument of a hand-crafted search


# _nrt=False as negamax: nothing here needs reference counting.
@njit(cache=True, nogil=True, _nrt=False)
def nnue_materialize(st, mb, row, acc, sply, net, params):
    """Bring accumulator row ``sply`` of the stack ``acc[0]`` up to date for st row ``row``:
    from the last computed row of the path (``acc[3][a] == ACC_CLEAN``; row 0, the root's,
    always is) each pending move is applied in turn (:func:`.nnue.nnue_update`, rebuilds from
    the Finny table ``acc[1], acc[2]``; NULL_MOVE copies the row). The path's st and mailbox
    rows ``row - sply + a`` still hold its positions (copy-make), so the result is the eager
    update's. Lazy updates: Stockfish's accumulator ``computed`` flags, src/nnue/
    nnue_accumulator.cpp (a node cut off by the TT, a draw or a TT eval needs no update)."""
    stack, cache, pieces, pending = acc
    k = sply
    while pending[k] != ACC_CLEAN:
        k -= 1
    base = row - sply
    for a in range(k, sply):
        m = pending[a + 1]
        if m == NULL_MOVE:
            nnue_copy(stack, a)
        else:
            nnue_update(st, mb, base + a, m, stack, a, net, params, cache, pieces)
        pending[a + 1] = ACC_CLEAN


@njit(cache=True, nogil=True, _nrt=False)
def nnue_static_eval(st, mb, row, ctl, acc, sply, net, params):
    """NNUE evaluation (int64 centipawns, side to move's view) of row ``row`` from accumulator
    row ``sply`` of the stack ``acc[0]`` (:func:`.nnue.nnue_evaluate`), brought up to date
    first (:func:`nnue_materialize`). With ``ctl[NNUE_CHECK]`` set (tests) the accumulator is
    also rebuilt from scratch in the stack's last row and compared (counts in
    ``ctl[NNUE_EVALS]`` and ``ctl[NNUE_MISMATCHES]``)."""
    nnue_materialize(st, mb, row, acc, sply, net, params)
    stack = acc[0]
    if ctl[NNUE_CHECK]:
        spare = stack.shape[0] - 1
        nnue_refresh(st, row, net, stack, spare, params)
        ctl[NNUE_EVALS] += 1
        same = True
        for persp in range(2):
            for i in range(stack.shape[2]):
                if stack[spare, persp, i] != stack[sply, persp, i]:
                    same = False
        if not same:
            ctl[NNUE_MISMATCHES] += 1
    return nnue_evaluate(st, row, stack, sply, net, params)


@njit(cache=True, nogil=True, _nrt=False)
def nnue_push_move(acc, m, sply):
    """Mark accumulator row ``sply + 1`` of the stack ``acc[0]`` as the child reached by move
    ``m`` (made already; NULL_MOVE for a null move): :func:`nnue_materialize` computes it when
    the child, or a node below it, evaluates."""
    acc[3][sply + 1] = m


def static_eval(st, mb, row, ctl, acc, sply, net, params):
    """Static evaluation (int64 centipawns, side to move's view) of row ``row`` at search ply
    ``sply``: :func:`nnue_static_eval` when ``acc`` is the NNUE's tuple, the hand-crafted
    :func:`.evaluate.evaluate` for :data:`HCE_ACC`. Compiled code resolves the choice from the
    type (overload below)."""
    if isinstance(acc, tuple):
        return nnue_static_eval(st, mb, row, ctl, acc, sply, net, params)
    return evaluate(st, row)


def nnue_push(acc, m, sply):
    """Before the child at search ply ``sply + 1`` reached by move ``m`` is searched: its
    accumulator row marked pending (:func:`nnue_push_move`) when ``acc`` is the NNUE's tuple,
    nothing for :data:`HCE_ACC`. Called right before the child's search, so moves pruned after
    making them cost nothing, and the update itself waits until an evaluation needs it."""
    if isinstance(acc, tuple):
        nnue_push_move(acc, m, sply)


@overload(static_eval, inline="always")
def _static_eval_typed(st, mb, row, ctl, acc, sply, net, params):
    if isinstance(acc, types.BaseTuple):
        return lambda st, mb, row, ctl, acc, sply, net, params: nnue_static_eval(
            st, mb, row, ctl, acc, sply, net, params)
    return lambda st, mb, row, ctl, acc, sply, net, params: evaluate(st, row)


@overload(nnue_push, inline="always")
def _nnue_push_typed(acc, m, sply):
    if isinstance(acc, types.BaseTuple):
        return lambda acc, m, sply: nnue_push_move(acc, m, sply)
    return lambda acc, m, sply: None

