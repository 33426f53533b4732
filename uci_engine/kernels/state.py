"""Search state layout shared by the search kernels: score and bound constants, the offsets of
the ``heur`` control/heuristics block and the planes of the per-ply move buffers ``mv``.

* ``heur``: int64[HEUR_LEN] control block and heuristics; offsets below. The UCI thread writes
  ``heur[STOP] = 1`` to stop a search; kernels are ``nogil`` so it is read while they run.
* ``mv``: int32[MAX_PLY + 8, MV_PLANES, 256] per-ply buffers: moves (MV_MOVES), their
  ordering scores (MV_SCORES), the quiet moves and the captures tried so far (MV_QUIETS,
  MV_CAPTURES).
"""
import numpy as np

MAX_PLY = 128
MATE = 32000
INF = 32500
MATE_BOUND = MATE - 2 * MAX_PLY     # |score| >= this is a mate score
VALUE_NONE = 32600

BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3

# heur layout
STOP = 0            # set to 1 by the controller to abort
NODES = 1           # nodes searched
NODE_LIMIT = 2      # stop when NODES reaches this (0 = none)
SELDEPTH = 3
ROOT_ROW = 4        # row index of the root position in st/mb
TT_MASK = 5         # number of buckets - 1
AGE = 6             # TT generation, 0..31
ROOT_N = 7          # root move filter length (0 = all legal moves)
BEST_MOVE = 8       # best root move of the current iteration (0 = none yet)
BEST_SCORE = 9
ROOT_DONE = 10      # root moves fully searched in the current iteration
SOFT_NODES = 11     # stop after a root move once NODES reaches this (0 = none)
SOFT_STOP = 12      # set to 1 by the controller's soft deadline: stop after the next root move
BEST_NODES = 13     # nodes spent on the root move that is best in the current root search
ITER_NODES = 14     # NODES when the current root search started
ROOT_MOVES = 16                                 # int[256]: allowed root moves
PV_LEN = ROOT_MOVES + 256                       # int[MAX_PLY]
PV = PV_LEN + MAX_PLY                           # int[MAX_PLY * MAX_PLY] triangular PV table
KILLERS = PV + MAX_PLY * MAX_PLY                # int[MAX_PLY * 2]
HISTORY = KILLERS + MAX_PLY * 2                 # int[2 * 64 * 64]
COUNTER = HISTORY + 2 * 64 * 64                 # int[12 * 64]
SEE_GAIN = COUNTER + 12 * 64                    # int[40] scratch
EVAL_STACK = SEE_GAIN + 40                      # int[MAX_PLY + 4]: static eval per ply
EXCLUDED = EVAL_STACK + MAX_PLY + 4             # int[MAX_PLY + 4]: singular search's excluded move
DOUBLE_EXT = EXCLUDED + MAX_PLY + 4             # int[MAX_PLY + 4]: double extensions on the line
CAPTURE_HISTORY = DOUBLE_EXT + MAX_PLY + 4      # int[12 * 64 * 6]: piece x to x captured type
CORR_HISTORY = CAPTURE_HISTORY + 12 * 64 * 6    # int[2 * CORR_SIZE]: side x pawn-structure hash
CORR_BITS = 14
CORR_SIZE = 1 << CORR_BITS
CONT_HISTORY = CORR_HISTORY + 2 * CORR_SIZE     # int[768 * 768]: (piece, to) x (piece, to)
NNUE_CHECK = CONT_HISTORY + 768 * 768           # 1: every NNUE eval also refreshes (test mode)
NNUE_EVALS = NNUE_CHECK + 1                     # NNUE evals checked against a refresh
NNUE_MISMATCHES = NNUE_CHECK + 2                # ... whose incremental accumulator differed
PICK = NNUE_CHECK + 3                           # int[MAX_PLY + 4, PICK_FIELDS]: picker state
# picker fields: stage, next index, noisy count, end of the list, TT move, first bad capture,
# ordering score of the move last returned, and the node's continuation-history keys one and
# two plies back (:func:`piece_to` values, -1 = none)
(PICK_STAGE, PICK_NEXT, PICK_NOISY, PICK_END, PICK_TT, PICK_BAD, PICK_SCORE, PICK_PREV1,
 PICK_PREV2) = range(9)
PICK_FIELDS = 9
HEUR_LEN = PICK + (MAX_PLY + 4) * PICK_FIELDS

# mv buffer planes
MV_MOVES, MV_SCORES, MV_QUIETS, MV_CAPTURES = 0, 1, 2, 3
MV_PLANES = 4


def new_heur():
    """A zeroed control/heuristics block: int64[HEUR_LEN]."""
    return np.zeros(HEUR_LEN, dtype=np.int64)


def new_move_buffers():
    """Per-ply buffers: int32[MAX_PLY + 8, MV_PLANES, 256] (moves, ordering scores, the quiet
    moves and the captures tried so far)."""
    return np.zeros((MAX_PLY + 8, MV_PLANES, 256), dtype=np.int32)
