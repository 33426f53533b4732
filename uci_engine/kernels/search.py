"""Alpha-beta search kernel: PVS negamax with quiescence, searching the root itself.

All mutable search state lives in numpy arrays the engine facade owns (no jitclass: cacheable):

* ``st``/``mb``: position rows (see position.py); the game history sits below ``root_row``.
* ``tt``: the transposition table (:mod:`.tt`).
* ``ctl``, ``hist``, ``ss``, ``mv``: control and counters, per-game histories, the per-ply
  search stack, move buffers (:mod:`.state`).

The search's parts live in their own modules: :mod:`.tt` (transposition table), :mod:`.see`
(static exchange evaluation), :mod:`.history` (history heuristics), :mod:`.movepick` (move
ordering and the staged picker), :mod:`.draw` (draw rules), :mod:`.static_eval` (the
evaluation switch); this module holds ``negamax`` (main search and quiescence, also the
root) and the helpers only it calls.

Techniques (chessprogramming wiki pages of the same names): iterative deepening (driven from
Python), principal variation search, a staged move picker (TT move before generation, lazy
SEE), null-move pruning with a zugzwang guard (no null move unless the side to move has a rook,
a queen or two minor pieces), late move reductions (history-adjusted), reverse futility,
razoring, futility, late-move, history and SEE pruning, singular extensions (double and
negative ones, multi-cut; no check extension: in check, quiescence searches every evasion),
mate distance pruning, quiescence with SEE and delta pruning and TT stores, MVV plus capture
history, killer, butterfly and continuation history (with gravity) and countermove ordering, a
pawn-structure correction history of the static eval, repetition / fifty-move /
insufficient-material draws. The static evaluation is the hand-crafted one or an NNUE
(:mod:`.nnue`, copy-on-make accumulators), in two compiled specialisations of ``negamax``
chosen by the type of its ``acc`` argument (see :func:`static_eval`).
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1, lsb, popcount, NO_PIECE, PAWN, ROOK, QUEEN, KING
from .position import (OCC, OCC_ALL, KEY, STM, CASTLE, HALFMOVE, LAST_MOVE, NULL_MOVE, CHECKED,
                       CHECK_UNKNOWN, FLAG_PROMO, move_to, move_flag, piece_of, piece_type,
                       make_move, make_null_move, attackers_to)
from .movegen import generate_noisy
from .tbprobe import TB_FAIL, H_CARD, H_DEPTH, H_RULE50, probe_wdl
from .draw import is_draw
from .static_eval import static_eval, nnue_push
from .state import (MAX_PLY, MATE, INF, MATE_BOUND, VALUE_NONE, BOUND_UPPER, BOUND_LOWER,
                    BOUND_EXACT, AGE, STOP, NODES, NODE_LIMIT, SELDEPTH, ROOT_ROW, ROOT_N,
                    BEST_MOVE, BEST_SCORE, ROOT_DONE, SOFT_STOP, BEST_NODES,
                    ITER_NODES, ROOT_MOVES, PV_LEN, PV, KILLERS, COUNTER, EVAL_STACK, EXCLUDED,
                    DOUBLE_EXT, PICK, PICK_FIELDS, PICK_STAGE, PICK_TT, PICK_END, PICK_SCORE,
                    MV_MOVES, MV_SCORES, MV_QUIETS, MV_CAPTURES, TB_HITS, TB_POS, TB_WIN,
                    TB_BOUND)
from .tt import (tt_prefetch, tt_probe, tt_store, tt_move_of, tt_eval_of, tt_depth_of,
                 tt_bound_of, tt_score_of, score_to_tt, score_from_tt, tt_cutoff, tt_refine)
from .see import SEE_VALUE, see
from .history import (piece_to, capture_index, update_quiet, update_history, corrected_eval,
                      update_corr)
from .movepick import (ORDER_COUNTER, STAGE_GEN_NOISY, STAGE_QUIET, is_quiet, score_moves,
                       pick, quiet_gives_check, picker_init, picker_skip_quiets,
                       next_move)
from ..numba_recursion import infer_return_once
from ..params import (RFP_MAX_DEPTH, RFP_MARGIN, RAZOR_MAX_DEPTH, RAZOR_BASE, RAZOR_MARGIN,
                      NMP_MIN_DEPTH, NMP_BASE_R, NMP_DEPTH_DIV, NMP_EVAL_DIV, NMP_EVAL_MAX_R,
                      IIR_MIN_DEPTH, LMP_MAX_DEPTH, LMP_BASE, LMP_NOT_IMPROVING_NUM,
                      LMP_NOT_IMPROVING_DEN, FUTILITY_MAX_DEPTH, FUTILITY_BASE, FUTILITY_MARGIN,
                      HISTORY_PRUNE_MAX_DEPTH, HISTORY_PRUNE_MARGIN, SEE_PRUNE_MAX_DEPTH,
                      SEE_PRUNE_MARGIN, DELTA_MARGIN, SE_MIN_DEPTH, SE_TT_DEPTH_SLACK,
                      SE_BETA_MARGIN, SE_DOUBLE_MARGIN, SE_DOUBLE_MAX, LMR_MIN_DEPTH,
                      LMR_MIN_MOVES, LMR_MIN_MOVES_PV, LMR_HISTORY_DIV, LMR_TABLE, LMR_SIZE,
                      HISTORY_MAX_LOG2, HISTORY_BONUS_SCALE, HISTORY_BONUS_MAX, CORR_WEIGHT_MAX,
                      CORR_MAX)

# The margins, depths and reductions of the steps below are search parameters: ``params``
# (int64[PARAMS_LEN], indices and defaults in uci_engine/params.py), so a tuner can set them
# without a recompile. Fixed here: structural limits.
EXT_MARGIN = 8                  # no singular extension within 8 plies of MAX_PLY
QS_TT_DEPTH = -1                # depth of quiescence TT entries: below every main-search depth

# Recursive kernels take only int64 scalars (never literals): a cached recursive function
# compiled for a literal type can crash when loaded from the cache (numba issue #6061).
ZERO = np.int64(0)
ONE = np.int64(1)
# The searches of one move in negamax's PVS loop, in the order they may run.
PVS_REDUCED = 0            # zero window at the LMR-reduced depth
PVS_ZERO_WINDOW = 1        # zero window at full depth, after a reduced search beat alpha
PVS_FULL = 2               # full window (first move, or a zero-window search inside the window)
QS_DEPTH = np.int64(-1)   # depth passed inside quiescence


# --- helpers -----------------------------------------------------------------------------------
@njit(cache=True)
def _check_stop(ctl):
    if ctl[NODE_LIMIT] and ctl[NODES] >= ctl[NODE_LIMIT]:
        ctl[STOP] = 1
    return ctl[STOP] != 0


@njit(cache=True)
def in_check_of(st, row, us):
    ksq = lsb(st[row, piece_of(us, KING)])
    return (attackers_to(st, row, ksq, st[row, OCC_ALL]) & st[row, OCC + 1 - us]) != U0


# --- main search -------------------------------------------------------------------------------
# _nrt=False: negamax allocates nothing, and without it every array handed to a callee (and
# every mv[sply, k] view) is increfed and decrefed atomically on each node: about +35% nps.
@infer_return_once
@njit(cache=True, nogil=True, _nrt=False)
def negamax(st, mb, tt, ctl, hist, ss, mv, acc, net, net_params, params, tb,
            row, depth, alpha, beta, cut_node):
    """Principal variation search to ``depth`` plies from row ``row``; returns the score in
    centipawns from the side to move (mate scores are MATE - plies to mate). ``cut_node`` is
    1 at expected cut nodes, else 0 (int64). With ``ss[EXCLUDED + ply]`` set, the node is a
    singular-extension verification search: that move is skipped, nothing is stored.

    ``tt``, ``ctl``, ``hist``, ``ss``, ``mv``: the transposition table (:mod:`.tt`), control
    block, per-game histories, search stack and move buffers (:mod:`.state`).

    ``acc``, ``net``, ``net_params``: the NNUE's ``(stack, cache, pieces, pending)`` (the
    accumulator stack int16[rows, 2, H], row = search ply, row 0 refreshed by the caller for the
    root, the thread's Finny table and the stack's lazy-update marks,
    :func:`.nnue.new_search_accumulators`), packed weights
    (int16[768 * K + 1 + 2 * B, H], ``Net.packed()``) and run-time scalars
    (int64[nnue_consts.PARAMS_LEN]) of :mod:`.nnue`; with ``acc`` = :data:`HCE_ACC` the search
    evaluates with the hand-crafted evaluation and ``net``/``net_params`` are not read (any
    arrays of those types).

    ``params``: the search parameters, int64[uci_engine.params.PARAMS_LEN]
    (:func:`uci_engine.params.pack`).

    ``tb``: the Syzygy WDL tables and probing options, int64[...] in the layout of
    :mod:`.tbformat` (:class:`uci_engine.tbfiles.WdlTables`; ``tbfiles.NO_TABLES`` when no
    tables are loaded: then ``tb[H_CARD]`` is 0 and nothing is probed)."""
    # Step 1. Node set-up: ply, PV length, node type; whether the side to move is in check
    # (known from the parent's move when it tested it), which decides pruning everywhere below.
    root_row = ctl[ROOT_ROW]
    sply = row - root_row
    ss[PV_LEN + sply] = 0
    root = sply == 0
    pv_node = beta - alpha > 1
    us = np.int64(st[row, STM])
    # The parent has usually tested whether its move gives check (column CHECKED).
    checked = st[row, CHECKED]
    if root or checked == CHECK_UNKNOWN:
        in_check = in_check_of(st, row, us)
    else:
        in_check = checked != U0
    if depth <= 0:
        # Step 2. Quiescence search (depth <= 0): captures and promotions (all evasions in
        # check) until the position is quiet, so no leaf is scored in the middle of an
        # exchange (the horizon effect). Kept inside this one recursive kernel: every
        # separately compiled entry point re-optimizes the whole linked closure.
        # Step 2a. Stop, draw and TT cutoff checks, as in the main search.
        ctl[NODES] += 1
        if _check_stop(ctl):
            return np.int64(0)
        if sply > ctl[SELDEPTH]:
            ctl[SELDEPTH] = sply
        if sply >= MAX_PLY - 1:
            return static_eval(st, mb, row, ctl, acc, sply, net, net_params)
        if is_draw(st, row, root_row):
            return np.int64(0)
        key = st[row, KEY]
        d = tt_probe(tt, key)
        tt_move = 0
        raw = VALUE_NONE
        if d >= 0:
            tt_move = tt_move_of(d)
            ts = tt_cutoff(d, sply, alpha, beta)
            if ts != VALUE_NONE:
                return ts
            raw = tt_eval_of(d)
        # Step 2b. Stand pat: the side to move may decline every capture, so the (corrected,
        # TT-refined) static eval is a lower bound; in check there is no stand pat.
        if in_check:
            best = -MATE + sply
            stand = -INF
            raw = VALUE_NONE
        else:
            if raw == VALUE_NONE:
                raw = static_eval(st, mb, row, ctl, acc, sply, net, net_params)
            stand = corrected_eval(hist, st, row, us, raw)
            if d >= 0:
                stand = tt_refine(d, sply, stand)
            if stand >= beta:
                if d < 0:
                    tt_store(tt, key, 0, score_to_tt(stand, sply), raw, QS_TT_DEPTH,
                             BOUND_LOWER, ctl[AGE])
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
        # Step 2c. The noisy moves by MVV and capture history, losing ones by SEE last.
        n = generate_noisy(st, row, mv[sply, MV_MOVES])
        if n == 0:
            return best
        if in_check:                                # the evasions include quiet moves
            score_moves(st, mb, hist, ss, mv, row, sply, n, tt_move, piece_to(st, mb, row),
                         piece_to(st, mb, row - 1))
        else:
            score_moves(st, mb, hist, ss, mv, row, sply, n, tt_move, -ONE, -ONE)
        best_move = 0
        for i in range(n):
            m = pick(mv, sply, i, n)
            make_move(st, mb, row, m)
            tt_prefetch(tt, st[row + 1, KEY])
            # Step 2d. SEE and delta pruning: a losing capture, or one that cannot lift the
            # score to alpha even with DELTA_MARGIN to spare, is not searched.
            # Captures that give check are never pruned: a losing capture can still mate
            # (the null-move reply Rxa7# in kbK5/pp6/1P6/8/8/8/8/R7 w after 1.Ra6).
            if not in_check:
                gives_check = in_check_of(st, row + 1, 1 - us)
                st[row + 1, CHECKED] = U1 if gives_check else U0
                if not gives_check:
                    if mv[sply, MV_SCORES, i] < 0:
                        continue                        # losing captures by SEE: pruned
                    if move_flag(m) < FLAG_PROMO:
                        c = np.int64(mb[row, move_to(m)])
                        gain = SEE_VALUE[piece_type(c)] if c != NO_PIECE else SEE_VALUE[PAWN]
                        if stand + gain + params[DELTA_MARGIN] <= alpha:
                            continue                    # delta pruning
            nnue_push(acc, m, sply)
            score = -negamax(st, mb, tt, ctl, hist, ss, mv, acc, net, net_params, params, tb,
                             row + 1, QS_DEPTH, -beta, -alpha, ZERO)
            if ctl[STOP]:
                return np.int64(0)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    best_move = m
                    if score >= beta:
                        break
        tt_store(tt, key, best_move, score_to_tt(best, sply), raw, QS_TT_DEPTH,
                 BOUND_LOWER if best >= beta else BOUND_UPPER, ctl[AGE])
        return best
    # Step 3. Count the node and check the stop flag and the node limit (the UCI thread's stop
    # is read here, so a search stops within one node).
    ctl[NODES] += 1
    if _check_stop(ctl):
        return np.int64(0)
    if sply > ctl[SELDEPTH]:
        ctl[SELDEPTH] = sply

    # Step 4. Draws, the ply limit and mate distance pruning: a draw needs no search, and no
    # line can beat a mate already found nearer the root.
    if not root:
        if is_draw(st, row, root_row):
            return np.int64(0)
        if sply >= MAX_PLY - 1:
            return static_eval(st, mb, row, ctl, acc, sply, net, net_params)
        # mate distance pruning
        if alpha < -MATE + sply:
            alpha = -MATE + sply
        if beta > MATE - sply - 1:
            beta = MATE - sply - 1
        if alpha >= beta:
            return alpha
    else:
        ss[DOUBLE_EXT] = 0
        ctl[ITER_NODES] = ctl[NODES] - 1
        ctl[BEST_NODES] = 0

    # Step 5. Transposition table lookup: a deep enough entry whose bound settles the window
    # ends a non-PV node; otherwise its move is tried first and its eval saves an evaluation.
    excluded = ss[EXCLUDED + sply]
    key = st[row, KEY]
    d = tt_probe(tt, key) if excluded == 0 else np.int64(-1)
    tt_move = 0
    raw = VALUE_NONE
    tt_score = VALUE_NONE
    tt_depth = -2
    tt_bound = 0
    if d >= 0:
        tt_move = tt_move_of(d)
        raw = tt_eval_of(d)
        tt_depth = tt_depth_of(d)
        tt_bound = tt_bound_of(d)
        tt_score = score_from_tt(tt_score_of(d), sply)
        if not pv_node and tt_depth >= depth:
            ts = tt_cutoff(d, sply, alpha, beta)
            if ts != VALUE_NONE:
                return ts
    if root and ctl[BEST_MOVE] != 0:
        tt_move = ctl[BEST_MOVE]

    # Step 5b. Tablebase probe (Stockfish's "Step 5. Tablebases probe", src/search.cpp): with
    # few enough pieces (at most H_CARD = min(SyzygyProbeLimit, largest table); at the largest
    # table's count only from SyzygyProbeDepth on), no castling rights and right after a
    # zeroing move (the tables assume a fresh fifty-move counter), the WDL tables decide the
    # node (:mod:`.tbprobe`). A win or a loss is a bound just outside the evaluation range
    # (TB_WIN - ply), cut off like a TT bound; a draw is exact. With Syzygy50MoveRule
    # (H_RULE50) a cursed win / blessed loss is a draw (+-2 cp). Where the bound does not cut
    # at a PV node, it limits the node's score instead. A failed probe (missing or corrupt
    # table) changes nothing.
    tb_low = -INF
    tb_high = INF
    if (tb[H_CARD] != 0 and not root and excluded == 0 and st[row, HALFMOVE] == U0
            and st[row, CASTLE] == U0 and sply < MAX_PLY - 8):
        pieces = popcount(st[row, OCC_ALL])
        card = tb[H_CARD]
        if pieces <= card and (pieces < card or depth >= tb[H_DEPTH]):
            wdl = probe_wdl(tb, st, mb, row, mv, sply, ss[TB_POS:TB_POS + 8])
            if wdl != TB_FAIL:
                ctl[TB_HITS] += 1
                draw = tb[H_RULE50]
                if wdl < -draw:
                    value = -TB_WIN + sply
                    tb_bound = BOUND_UPPER
                elif wdl > draw:
                    value = TB_WIN - sply
                    tb_bound = BOUND_LOWER
                else:
                    value = 2 * wdl * draw
                    tb_bound = BOUND_EXACT
                if (tb_bound == BOUND_EXACT or (tb_bound == BOUND_LOWER and value >= beta)
                        or (tb_bound == BOUND_UPPER and value <= alpha)):
                    tt_store(tt, key, 0, score_to_tt(value, sply), VALUE_NONE,
                             min(depth + 6, MAX_PLY - 1), tb_bound, ctl[AGE])
                    return value
                if pv_node:
                    if tb_bound == BOUND_LOWER:
                        tb_low = value
                        if value > alpha:
                            alpha = value
                    else:
                        tb_high = value

    # Step 6. Static evaluation and ``improving`` (correction history, TT-refined eval and
    # improving are in issue 10's group, +95.1 +- 27.6 Elo together at 5+0.05 (docs/strength.md)).
    # Static eval: corrected by the pawn-structure history, then refined by the TT score
    # where its bound allows (``ev``, used by the pruning); the plain static eval
    # (``static_ev``) is what ``improving`` and the correction history compare.
    improving = not in_check
    if in_check:
        ev = -INF
        static_ev = VALUE_NONE
        raw = VALUE_NONE
        ss[EVAL_STACK + sply] = VALUE_NONE
    elif excluded != 0:
        static_ev = ss[EVAL_STACK + sply]
        ev = static_ev
    else:
        if raw == VALUE_NONE:
            raw = static_eval(st, mb, row, ctl, acc, sply, net, net_params)
        static_ev = corrected_eval(hist, st, row, us, raw)
        ss[EVAL_STACK + sply] = static_ev
        ev = tt_refine(d, sply, static_ev) if d >= 0 else static_ev
    if not in_check and sply >= 2:
        # improving (Stockfish): the static eval beats the one two plies earlier (four when
        # that side was in check; true when both were, and near the root)
        prev = ss[EVAL_STACK + sply - 2]
        if prev == VALUE_NONE and sply >= 4:
            prev = ss[EVAL_STACK + sply - 4]
        improving = prev == VALUE_NONE or static_ev > prev

    if not in_check and not pv_node and excluded == 0:
        # Step 7. Reverse futility pruning (static null move): an eval this far above beta at
        # low depth is taken to hold; the margin shrinks when the eval is improving.
        if (depth <= params[RFP_MAX_DEPTH]
                and ev - params[RFP_MARGIN] * (depth - improving) >= beta
                and ev < MATE_BOUND):
            return ev
        # Step 8. Razoring: far below alpha at low depth, ask quiescence whether anything
        # helps (in issue 10's group, +95.1 +- 27.6 Elo together at 5+0.05 (docs/strength.md)).
        if (depth <= params[RAZOR_MAX_DEPTH]
                and ev + params[RAZOR_BASE] + params[RAZOR_MARGIN] * depth * depth < alpha):
            score = negamax(st, mb, tt, ctl, hist, ss, mv, acc, net, net_params, params, tb,
                            row, ZERO, alpha, alpha + 1, ZERO)
            if ctl[STOP]:
                return np.int64(0)
            if score <= alpha:
                return score
        # Step 9. Null move pruning: if passing still fails high at a reduced depth, a real
        # move almost surely would too (the null-move observation). Zugzwang guard: the side
        # to move keeps a rook or queen, or at
        # least two minor pieces (with a lone minor, passing is often the only move that does
        # not lose: Morphy's kbK5/pp6/1P6/8/8/8/8/R7 w, 1. Ra6!).
        non_pawn = st[row, OCC + us] ^ st[row, piece_of(us, PAWN)] ^ st[row, piece_of(us, KING)]
        majors = st[row, piece_of(us, ROOK)] | st[row, piece_of(us, QUEEN)]
        if (depth >= params[NMP_MIN_DEPTH] and ev >= beta
                and (majors != U0 or (non_pawn & (non_pawn - U1)) != U0)
                and st[row, LAST_MOVE] != NULL_MOVE and beta > -MATE_BOUND):
            r = (params[NMP_BASE_R] + depth // params[NMP_DEPTH_DIV]
                 + min(params[NMP_EVAL_MAX_R], (ev - beta) // params[NMP_EVAL_DIV]))
            make_null_move(st, mb, row)
            tt_prefetch(tt, st[row + 1, KEY])
            nnue_push(acc, np.int64(NULL_MOVE), sply)
            score = -negamax(st, mb, tt, ctl, hist, ss, mv, acc, net, net_params, params, tb,
                             row + 1, depth - 1 - r, -beta, -beta + 1, 1 - cut_node)
            if ctl[STOP]:
                return np.int64(0)
            if score >= beta:
                if score >= MATE_BOUND:
                    score = beta
                return score

    # Step 10. Internal iterative reduction: without a TT move the ordering is poor, so a
    # deep PV or cut node is searched one ply shallower (Stockfish's IIR).
    if tt_move == 0 and depth >= params[IIR_MIN_DEPTH] and (pv_node or cut_node):
        depth -= 1

    # Step 11. Singular extension (Stockfish, Ethereal): a TT move much better than every
    # alternative is searched deeper, a multi-cut returns early and a non-singular TT move
    # at a cut node is reduced (in issue 10's group, +95.1 +- 27.6 Elo together at 5+0.05,
    # docs/strength.md).
    # Verify, with the TT move excluded, that no
    # other move reaches tt_score - SE_BETA_MARGIN * depth at half depth. Done before this
    # node generates its moves: the verification search reuses this ply's move buffers.
    tt_ext = 0
    if (not root and excluded == 0 and tt_move != 0 and depth >= params[SE_MIN_DEPTH]
            and tt_depth >= depth - params[SE_TT_DEPTH_SLACK] and (tt_bound & BOUND_LOWER) != 0
            and abs(tt_score) < MATE_BOUND and sply < MAX_PLY - EXT_MARGIN):
        sbeta = tt_score - params[SE_BETA_MARGIN] * depth
        ss[EXCLUDED + sply] = tt_move
        score = negamax(st, mb, tt, ctl, hist, ss, mv, acc, net, net_params, params, tb,
                        row, (depth - 1) // 2, sbeta - 1, sbeta, cut_node)
        ss[EXCLUDED + sply] = 0
        if ctl[STOP]:
            return np.int64(0)
        if score < sbeta:
            tt_ext = 1
            if (not pv_node and score < sbeta - params[SE_DOUBLE_MARGIN]
                    and ss[DOUBLE_EXT + sply] < params[SE_DOUBLE_MAX]):
                tt_ext = 2                          # double extension
        elif sbeta >= beta:
            return sbeta                            # multi-cut: several moves beat beta
        elif tt_score >= beta or cut_node:
            tt_ext = -1                             # negative extension

    # Step 12. The move loop. Moves come from the staged picker (TT move, good captures,
    # killers and countermove, quiets by history, bad captures); the root and check evasions
    # are generated at once.
    prev1 = piece_to(st, mb, row)
    prev2 = piece_to(st, mb, row - 1)
    picker_init(st, mb, ss, mv, row, sply, tt_move, not (root or in_check), prev1, prev2)
    pk = PICK + sply * PICK_FIELDS
    if root and ctl[ROOT_N] > 0:
        # keep only the allowed root moves (searchmoves / MultiPV exclusion)
        n = ss[pk + PICK_END]
        k = 0
        for i in range(n):
            m = mv[sply, MV_MOVES, i]
            for j in range(ctl[ROOT_N]):
                if ctl[ROOT_MOVES + j] == m:
                    mv[sply, MV_MOVES, k] = m
                    k += 1
                    break
        if n > 0 and k == 0:
            return -INF
        ss[pk + PICK_END] = k
    # (computed where late move pruning can apply: a division by a run-time value per node
    # costs measurable speed)
    lmp_count = np.int64(1 << 30)
    if depth <= params[LMP_MAX_DEPTH]:
        lmp_count = params[LMP_BASE] + depth * depth
        if not improving:
            lmp_count = lmp_count * params[LMP_NOT_IMPROVING_NUM] // params[LMP_NOT_IMPROVING_DEN]

    best = tb_low                           # -INF unless a tablebase win set a floor
    best_move = 0
    bound = BOUND_UPPER
    searched = 0
    legal = 0
    quiets = 0
    captures = 0
    while True:
        m = next_move(st, mb, hist, ss, mv, row, sply)
        if m == 0:
            break
        unverified = ss[pk + PICK_STAGE] == STAGE_GEN_NOISY     # the ungenerated TT move
        order = ss[pk + PICK_SCORE]
        quiet = is_quiet(mb, row, m)
        if (quiet and not root and not in_check and best > -MATE_BOUND
                and depth <= params[LMP_MAX_DEPTH] and searched >= lmp_count):
            # Step 13. Late move pruning before the move is made (+27.9 +- 16.2 Elo at 5+0.05
            # as a speed-up, docs/strength.md): the picker yields only the quiet
            # checks left, unsorted (the pruning spares checks); this move, unless it checks,
            # is pruned unmade
            if ss[pk + PICK_STAGE] == STAGE_QUIET:
                picker_skip_quiets(ss, sply)
            if not quiet_gives_check(st, mb, row, m):
                continue
        # Step 14. Make the move: an unverified TT move leaving the king in check is skipped,
        # the singular search's excluded move too, and whether the move checks is recorded.
        # Copy-make leaves row ``row`` intact, so the move is made first and a pruned move
        # costs nothing to take back; knowing whether it checks keeps checks unpruned (a
        # quiet check such as the pawn push in kbK5/pp6/1P6/8/8/8/8/R7 w, 1.Ra6 bxa6 2.b7#,
        # was lost to futility pruning).
        make_move(st, mb, row, m)
        child = row + 1
        them = 1 - us
        if unverified and in_check_of(st, child, us):
            ss[pk + PICK_TT] = 0                  # illegal: the generator will not skip it
            continue
        legal += 1
        if m == excluded:
            continue
        tt_prefetch(tt, st[child, KEY])
        gives_check = in_check_of(st, child, them)
        st[child, CHECKED] = U1 if gives_check else U0
        # Step 15. Shallow-depth pruning of moves that neither evade nor give check: late move
        # counts, futility (eval too far below alpha), history (history pruning is in issue
        # 10's group, +95.1 +- 27.6 Elo together at 5+0.05, docs/strength.md) and SEE for
        # captures.
        if not root and best > -MATE_BOUND and not in_check and not gives_check:
            if quiet:
                # late move pruning, futility pruning and history pruning of quiet moves
                if depth <= params[LMP_MAX_DEPTH] and searched >= lmp_count:
                    continue
                if (depth <= params[FUTILITY_MAX_DEPTH] and searched > 0
                        and ev + params[FUTILITY_BASE] + params[FUTILITY_MARGIN] * depth
                        <= alpha):
                    continue
                if (depth <= params[HISTORY_PRUNE_MAX_DEPTH] and searched > 0
                        and order < ORDER_COUNTER
                        and order < -params[HISTORY_PRUNE_MARGIN] * depth):
                    continue
            elif (depth <= params[SEE_PRUNE_MAX_DEPTH] and order < 0
                  and see(st, mb, ss, row, m) < -params[SEE_PRUNE_MARGIN] * depth):
                continue                            # SEE pruning of losing captures
        # Step 16. Extension and late move reductions: late quiet moves are searched shallower
        # (more at cut nodes and without improving, less for killers and good history) and
        # re-searched only when they beat alpha.
        nodes_before = ctl[NODES]
        ext = tt_ext if m == tt_move else 0
        ss[DOUBLE_EXT + sply + 1] = ss[DOUBLE_EXT + sply] + (ext == 2)
        new_depth = depth - 1 + ext
        # The move's searches, in order: reduced zero window, full-depth zero window, full
        # window. All run through the one recursive call below: Numba types each recursive
        # call site by re-inferring the types of all of negamax (three passes per site), so
        # fewer sites mean a faster first start.
        nnue_push(acc, m, sply)
        r = 0
        if searched == 0:
            phase = PVS_FULL
        else:
            phase = PVS_REDUCED
            if (depth >= params[LMR_MIN_DEPTH] and quiet and not in_check and not gives_check
                    and searched >= (params[LMR_MIN_MOVES_PV] if pv_node
                                     else params[LMR_MIN_MOVES])):
                r = params[LMR_TABLE + min(depth, 63) * LMR_SIZE + min(searched, 63)]
                if pv_node:
                    r -= 1 + root                   # the root one ply less (docs/nets.md, gen 4)
                if cut_node:
                    r += 1
                if not improving:
                    r += 1
                if order >= ORDER_COUNTER:
                    r -= 1                          # killers and countermove
                else:
                    r -= order // params[LMR_HISTORY_DIV]   # history, both ways
                if r < 0:
                    r = 0
                if r > new_depth - 1:
                    r = max(new_depth - 1, 0)
        # Step 17. Principal variation search: zero windows prove a move no better than the
        # best so far cheaply; only a move that beats alpha inside the window gets a full one.
        while True:
            if phase == PVS_REDUCED:
                d, lo, cn = new_depth - r, -alpha - 1, ONE
            elif phase == PVS_ZERO_WINDOW:
                d, lo, cn = new_depth, -alpha - 1, 1 - cut_node
            else:
                d, lo, cn = new_depth, -beta, ZERO
            score = -negamax(st, mb, tt, ctl, hist, ss, mv, acc, net, net_params, params, tb,
                             child, d, lo, -alpha, cn)
            if phase == PVS_REDUCED and score > alpha and r > 0:
                phase = PVS_ZERO_WINDOW
            elif phase != PVS_FULL and score > alpha and score < beta:
                phase = PVS_FULL
            else:
                break
        if ctl[STOP]:
            return np.int64(0)
        # Step 18. A new best move: the PV is extended; on a beta cutoff killers,
        # countermove, butterfly, continuation and capture histories reward it and punish the
        # moves tried before it (the history updates are in issue 10's group, +95.1 +- 27.6
        # Elo together at 5+0.05, docs/strength.md).
        searched += 1
        if root:
            ctl[ROOT_DONE] = searched
        if score > best:
            best = score
            if score > alpha:
                best_move = m
                # update the triangular PV
                base = PV + sply * MAX_PLY
                cbase = PV + (sply + 1) * MAX_PLY
                ss[base] = m
                cl = ss[PV_LEN + sply + 1] if sply + 1 < MAX_PLY else 0
                for j in range(cl):
                    ss[base + 1 + j] = ss[cbase + j]
                ss[PV_LEN + sply] = cl + 1
                if root:
                    ctl[BEST_MOVE] = m
                    ctl[BEST_SCORE] = score
                    ctl[BEST_NODES] = ctl[NODES] - nodes_before
                if score >= beta:
                    bound = BOUND_LOWER
                    bonus = min(depth * depth * params[HISTORY_BONUS_SCALE],
                                params[HISTORY_BONUS_MAX])
                    hmax = params[HISTORY_MAX_LOG2]
                    if quiet:
                        if ss[KILLERS + 2 * sply] != m:
                            ss[KILLERS + 2 * sply + 1] = ss[KILLERS + 2 * sply]
                            ss[KILLERS + 2 * sply] = m
                        update_quiet(hist, mb, row, us, m, prev1, prev2, bonus, hmax)
                        for j in range(quiets):
                            q = np.int64(mv[sply, MV_QUIETS, j])
                            update_quiet(hist, mb, row, us, q, prev1, prev2, -bonus, hmax)
                        if prev1 >= 0:
                            hist[COUNTER + prev1] = m
                    else:
                        update_history(hist, capture_index(mb, row, m), bonus, hmax)
                    for j in range(captures):
                        c = np.int64(mv[sply, MV_CAPTURES, j])
                        update_history(hist, capture_index(mb, row, c), -bonus, hmax)
                    break
                alpha = score
                bound = BOUND_EXACT
        if quiet:
            if quiets < 256:
                mv[sply, MV_QUIETS, quiets] = m
                quiets += 1
        elif captures < 256:
            mv[sply, MV_CAPTURES, captures] = m
            captures += 1
        # Step 19. Soft stop at the root: the soft deadline ends the search after a whole root
        # move (part of the scaled soft limit, +22.6 +- 12.4 Elo for SOFT_SCALE,
        # docs/strength.md).
        if root and ctl[SOFT_STOP]:
            # soft time limit: end the search after a whole root move, keeping what the
            # finished root moves proved
            ctl[STOP] = 1
            return best
    # Step 20. Mate or stalemate, then the correction history learns from the search score
    # and the TT stores the result (not for singular verification searches).
    if legal == 0:
        return -MATE + sply if in_check else np.int64(0)
    if searched == 0:
        # every move was pruned or excluded (a filtered root, a singular verification): fail low
        return alpha
    if best > tb_high:
        best = tb_high                      # a tablebase loss or draw caps a PV node
    if excluded == 0:
        if (not in_check and (best_move == 0 or is_quiet(mb, row, best_move))
                and not (bound == BOUND_LOWER and best <= static_ev)
                and not (bound == BOUND_UPPER and best >= static_ev)
                and abs(best) < TB_BOUND):
            update_corr(hist, st, row, us, best - static_ev, depth, params[CORR_WEIGHT_MAX],
                        params[CORR_MAX])
        if not (root and ctl[ROOT_N] > 0):
            tt_store(tt, key, best_move, score_to_tt(best, sply), raw, depth, bound, ctl[AGE])
    return best
