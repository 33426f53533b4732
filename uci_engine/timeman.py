"""Time management: turn ``go`` limits into a soft and a hard deadline (plain Python).

The soft limit, scaled after each iteration by :func:`scale_soft`, ends the search between
iterations or, through a timer and the kernels' ``SOFT_STOP`` flag, after the root move being
searched when it passes; the hard limit is enforced inside the search by a timer that sets the
kernels' stop flag at once. ``Move Overhead`` (milliseconds) is taken off
every budget. Technique: chessprogramming wiki "Time Management".
"""
from dataclasses import dataclass, field

from . import params as _params


@dataclass
class Limits:
    """The parsed arguments of ``go``. Times are milliseconds, depth in plies."""
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list = field(default_factory=list)
    perft: int | None = None


#: below this many increments on the clock, a move spends less than the increment (so the
#: clock grows back instead of settling a few increments above zero, where one stall of a
#: loaded machine flags: 22 of 211 games at 5+0.05 were lost on time that way)
LOW_CLOCK_INCREMENTS = 20
#: share of the increment a move may use (before Move Overhead) while the clock is low
LOW_CLOCK_INC_SHARE = 0.8
#: ... but that reserve is capped at this many milliseconds or LOW_CLOCK_MIN_INCREMENTS
#: increments, whichever is more: 20 increments are 20 % of the base at 10+0.1 and 5+0.05,
#: and games there ended with 21-22 % of the base unused (Ethereal 12: 6 %; docs/performance.md,
#: "Time use"); 500 ms still outlasts the stalls of 40-150 ms that flagged games before the rule
LOW_CLOCK_RESERVE_MS = 500
LOW_CLOCK_MIN_INCREMENTS = 5
#: moves still to play assumed when ``go`` gives no ``movestogo`` (sudden death with or without
#: increment): the base soft limit is the clock plus those moves' increments over this count.
#: At 40, games at 10+0.1 ended with 22 % of the base unused (Ethereal 12: 6 %) and the first
#: ten moves took 0.37 s against Ethereal's 0.47 s (docs/performance.md, "Time use")
SUDDEN_DEATH_MOVES_TO_GO = 30


def low_clock_reserve(inc):
    """Clock (milliseconds) below which a move spends less than the increment ``inc``
    (milliseconds): LOW_CLOCK_INCREMENTS increments, at most the larger of
    LOW_CLOCK_RESERVE_MS and LOW_CLOCK_MIN_INCREMENTS increments."""
    return min(LOW_CLOCK_INCREMENTS * inc,
               max(LOW_CLOCK_RESERVE_MS, LOW_CLOCK_MIN_INCREMENTS * inc))


def budget(limits, white_to_move, move_overhead=10):
    """Return ``(soft_ms, hard_ms)`` for this move, or ``(None, None)`` when the search is not
    limited by time (``infinite``, ``ponder`` before ``ponderhit``, or no clock given).

    As in Stockfish's ``TimeManagement::init``, ``move_overhead`` (milliseconds lost to the GUI
    and transport per move) is charged for every move still to play before the time control,
    and increments for those moves are counted in: with 0.1 s left and a 0.01 s increment the
    engine plays on increment alone, near-instantly, instead of draining its clock. The hard
    limit is at most 30% of the clock (80% on the last move before a ``movestogo`` control),
    and while the clock is below :func:`low_clock_reserve`, at most LOW_CLOCK_INC_SHARE of the
    increment less ``move_overhead``: the clock then grows back to about that reserve instead
    of living a few milliseconds above zero."""
    if limits.infinite:
        return None, None
    if limits.movetime is not None:
        t = max(1, limits.movetime - move_overhead)
        return t, t
    left = limits.wtime if white_to_move else limits.btime
    if left is None:
        return None, None
    inc = limits.winc if white_to_move else limits.binc
    mtg = min(limits.movestogo, 50) if limits.movestogo else SUDDEN_DEATH_MOVES_TO_GO
    pool = left + inc * (mtg - 1) - move_overhead * (2 + mtg)
    soft = max(1.0, pool / mtg)
    if mtg == 1:
        cap = 0.8 * left - move_overhead    # last move before the control: keep a margin
    else:
        # Never bet more than 30% of the clock on one move. Living on the increment, a move
        # runs to this cap (iterations overrun the soft limit), so the clock settles where the
        # cap equals the increment: about 3.3 increments in reserve (at 50% it was 2, and a
        # stall of some 40 ms lost a 3+0.03 game on time from a 71 ms clock).
        cap = 0.3 * left - move_overhead
    hard = max(1.0, min(soft * 4.0, cap))
    if inc > 0 and left < low_clock_reserve(inc) and mtg > 1:
        hard = max(1.0, min(hard, LOW_CLOCK_INC_SHARE * inc - move_overhead))
    soft = min(soft, hard)
    return int(soft), int(hard)


#: Soft-limit factor by the number of iterations the best move has held (0, 1, 2, 3, 4 or more):
#: Ethereal's best-move stability factors (timeman.c)
STABILITY_FACTORS = (2.50, 1.20, 0.90, 0.80, 0.75)
#: a score drop of d centipawns since the last iteration scales the soft limit by
#: 1 + d / SCORE_DROP_CP, within [SCORE_FACTOR_MIN, SCORE_FACTOR_MAX] (a rise shortens it).
#: This constant and the three tuned ones below are the defaults of params.py's time rows, read
#: from its table so that a tuning run's values are written in one place.
_TUNED = _params.time_factors([p.default for p in _params.TABLE])
SCORE_DROP_CP = _TUNED["score_drop_cp"]
SCORE_FACTOR_MIN = 0.8
SCORE_FACTOR_MAX = 1.5
#: node effort, Ethereal's form: max(NODE_FACTOR_MIN, NODE_FACTOR_SLOPE * (1 - best share)
#: + NODE_FACTOR_BASE), where best share is the fraction of the last root search's nodes spent
#: on the best move: a best move that took most of the effort is settled
NODE_FACTOR_SLOPE = _TUNED["node_factor_slope"]
NODE_FACTOR_BASE = _TUNED["node_factor_base"]
NODE_FACTOR_MIN = 0.5
#: all three factors above are multiplied by this one. Ethereal checks its scaled limit only
#: between iterations, so a search there overshoots it by part of an iteration; here the soft
#: stop ends the search after the root move being searched, and with the factors alone a
#: move used 0.195 s on average at 10+0.1 against 0.261 s for the engine before them (400
#: games, 245c27f against c31237a). Value chosen to restore that usage (1.5), kept by an SPRT
#: (docs/strength.md), then tuned by SPSA with SCORE_DROP_CP and the node factors (params.py's
#: time rows, docs/campaign.md row 86: 1.42)
SOFT_SCALE = _TUNED["soft_scale"]
#: iterations below this depth leave the soft limit unscaled (they take microseconds and say
#: little about stability)
TM_MIN_DEPTH = 4


def scale_soft(soft_ms, hard_ms, stability, score_drop, best_share, soft_scale=SOFT_SCALE,
               score_drop_cp=SCORE_DROP_CP, node_factor_slope=NODE_FACTOR_SLOPE,
               node_factor_base=NODE_FACTOR_BASE):
    """The soft limit (milliseconds, float) after an iteration: ``soft_ms`` scaled by best-move
    stability (``stability``: iterations the best move has held), the score drop since the
    previous iteration (``score_drop``, centipawns, positive when the score fell) and the share
    of the root search's nodes spent on the best move (``best_share``, 0..1), then capped at
    ``hard_ms``. The three factors are Ethereal's and Stockfish's (chessprogramming wiki "Time
    Management"); their constants, and :data:`SOFT_SCALE` over all three, are named above.
    The keyword arguments override four of them (search parameters: uci_engine/params.py)."""
    f = soft_scale * STABILITY_FACTORS[min(stability, len(STABILITY_FACTORS) - 1)]
    f *= min(SCORE_FACTOR_MAX, max(SCORE_FACTOR_MIN, 1.0 + score_drop / score_drop_cp))
    f *= max(NODE_FACTOR_MIN, node_factor_slope * (1.0 - best_share) + node_factor_base)
    return min(soft_ms * f, hard_ms)
