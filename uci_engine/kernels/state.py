"""Search state layout shared by the search kernels: score and bound constants, and the arrays
of one search thread, grouped by lifetime (all int64, offsets below; no jitclass: cacheable):

* ``ctl``: int64[CTL_LEN] control shared with the UCI thread, reset for every search: the stop
  flag (the UCI thread writes ``ctl[STOP] = 1``; kernels are ``nogil``, so it is read while
  they run), node limits and counters, the root's state and result, the NNUE test counters.
* ``hist``: int64[HIST_LEN] per-game heuristics: butterfly, countermove, capture, correction
  and continuation histories; cleared on ``ucinewgame`` and kept from move to move.
* ``ss``: int64[SS_LEN] the per-ply search stack and scratch (Stockfish's ``Stack``): PV
  table, killers, static evals, excluded moves, double extensions, picker state, SEE's swap
  list, the tablebase prober's scratch; killers and excluded moves are reset for every search,
  the rest is written before it is read.
* ``mv``: int32[MAX_PLY + 8, MV_PLANES, 256] per-ply buffers: moves (MV_MOVES), their
  ordering scores (MV_SCORES), the quiet moves and the captures tried so far (MV_QUIETS,
  MV_CAPTURES).

The transposition table (:mod:`.tt`) is shared by all threads; its index mask comes from its
shape.
"""
import numpy as np

MAX_PLY = 128
MATE = 32000
INF = 32500
MATE_BOUND = MATE - 2 * MAX_PLY     # |score| >= this is a mate score
# Tablebase scores (Stockfish's VALUE_TB = VALUE_MATE_IN_MAX_PLY - 1): a TB win found sply
# plies from the root scores TB_WIN - sply, just below the mate range; |score| >= TB_BOUND is a
# TB or mate score, never an evaluation.
TB_WIN = MATE_BOUND - 1
TB_BOUND = TB_WIN - MAX_PLY
VALUE_NONE = 32600

BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3

# --- ctl: control and counters -------------------------------------------------------------
STOP = 0            # set to 1 by the controller to abort
NODES = 1           # nodes searched
NODE_LIMIT = 2      # stop when NODES reaches this (0 = none)
SELDEPTH = 3
ROOT_ROW = 4        # row index of the root position in st/mb
AGE = 5             # TT generation, 0..31
ROOT_N = 6          # root move filter length (0 = all legal moves)
BEST_MOVE = 7       # best root move of the current iteration (0 = none yet)
BEST_SCORE = 8
ROOT_DONE = 9       # root moves fully searched in the current iteration
SOFT_STOP = 10      # set to 1 by the controller's soft deadline: stop after the next root move
BEST_NODES = 11     # nodes spent on the root move that is best in the current root search
ITER_NODES = 12     # NODES when the current root search started
NNUE_CHECK = 13     # 1: every NNUE eval also refreshes (test mode)
NNUE_EVALS = 14     # NNUE evals checked against a refresh
NNUE_MISMATCHES = 15  # ... whose incremental accumulator differed
TB_HITS = 16        # tablebase probes inside the search that found their table
ROOT_MOVES = 32     # int[256]: allowed root moves
CTL_LEN = ROOT_MOVES + 256

# --- hist: per-game histories --------------------------------------------------------------
CORR_BITS = 14
CORR_SIZE = 1 << CORR_BITS
HISTORY = 0                                     # int[2 * 64 * 64]: side x from x to
COUNTER = HISTORY + 2 * 64 * 64                 # int[12 * 64]: countermove by (piece, to)
CAPTURE_HISTORY = COUNTER + 12 * 64             # int[12 * 64 * 6]: piece x to x captured type
CORR_HISTORY = CAPTURE_HISTORY + 12 * 64 * 6    # int[2 * CORR_SIZE]: side x pawn-structure hash
CONT_HISTORY = CORR_HISTORY + 2 * CORR_SIZE     # int[768 * 768]: (piece, to) x (piece, to)
HIST_LEN = CONT_HISTORY + 768 * 768

# --- ss: per-ply search stack and scratch --------------------------------------------------
# picker fields: stage, next index, noisy count, end of the list, TT move, first bad capture,
# ordering score of the move last returned, and the node's continuation-history keys one and
# two plies back (:func:`piece_to` values, -1 = none)
(PICK_STAGE, PICK_NEXT, PICK_NOISY, PICK_END, PICK_TT, PICK_BAD, PICK_SCORE, PICK_PREV1,
 PICK_PREV2) = range(9)
PICK_FIELDS = 9
SEE_GAIN_LEN = 40
PV_LEN = 0                                      # int[MAX_PLY]
PV = PV_LEN + MAX_PLY                           # int[MAX_PLY * MAX_PLY] triangular PV table
KILLERS = PV + MAX_PLY * MAX_PLY                # int[MAX_PLY * 2]
EVAL_STACK = KILLERS + MAX_PLY * 2              # int[MAX_PLY + 4]: static eval per ply
EXCLUDED = EVAL_STACK + MAX_PLY + 4             # int[MAX_PLY + 4]: singular search's excluded move
DOUBLE_EXT = EXCLUDED + MAX_PLY + 4             # int[MAX_PLY + 4]: double extensions on the line
PICK = DOUBLE_EXT + MAX_PLY + 4                 # int[MAX_PLY + 4, PICK_FIELDS]: picker state
SEE_GAIN = PICK + (MAX_PLY + 4) * PICK_FIELDS   # int[SEE_GAIN_LEN]: SEE's swap list
TB_POS = SEE_GAIN + SEE_GAIN_LEN               # int[8]: the tablebase prober's square list
SS_LEN = TB_POS + 8

# mv buffer planes
MV_MOVES, MV_SCORES, MV_QUIETS, MV_CAPTURES = 0, 1, 2, 3
MV_PLANES = 4


def new_control():
    """A zeroed control block: int64[CTL_LEN]."""
    return np.zeros(CTL_LEN, dtype=np.int64)


def new_histories():
    """Zeroed per-game histories: int64[HIST_LEN]."""
    return np.zeros(HIST_LEN, dtype=np.int64)


def new_stack():
    """A zeroed search stack: int64[SS_LEN]."""
    return np.zeros(SS_LEN, dtype=np.int64)


def new_move_buffers():
    """Per-ply buffers: int32[MAX_PLY + 8, MV_PLANES, 256] (moves, ordering scores, the quiet
    moves and the captures tried so far)."""
    return np.zeros((MAX_PLY + 8, MV_PLANES, 256), dtype=np.int32)
