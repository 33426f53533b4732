"""Perft: count leaf nodes of the legal move tree (chessprogramming wiki "Perft").

The tree walk uses an explicit stack (no recursion: cheaper calls, and clear of numba issue
#6061) and counts the last ply in bulk with :func:`count_legal`.
"""
import numpy as np
from numba import njit

from .movegen import MAX_MOVES, count_legal, generate_legal
from .position import make_move


@njit(cache=True)
def perft(st, mb, ply, depth):
    """Leaf count (int64) of the legal move tree of row ``ply`` to ``depth`` plies.

    ``st``/``mb`` need ``depth`` free rows after ``ply``."""
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int32)
    if depth <= 0:
        return np.int64(1)
    if depth == 1:
        return np.int64(count_legal(st, ply, moves[0]))
    count = np.zeros(depth + 1, dtype=np.int64)
    index = np.zeros(depth + 1, dtype=np.int64)
    nodes = np.int64(0)
    count[0] = generate_legal(st, ply, moves[0])
    d = 0
    while d >= 0:
        if index[d] >= count[d]:
            d -= 1
            continue
        m = np.int64(moves[d, index[d]])
        index[d] += 1
        make_move(st, mb, ply + d, m)
        if depth - d - 1 == 1:
            nodes += count_legal(st, ply + d + 1, moves[d + 1])
        else:
            d += 1
            count[d] = generate_legal(st, ply + d, moves[d])
            index[d] = 0
    return nodes
