"""Time management: turn ``go`` limits into a soft and a hard deadline (plain Python).

The soft limit decides whether a new iteration starts; the hard limit is enforced inside the
search by a timer that sets the kernels' stop flag. ``Move Overhead`` (milliseconds) is taken off
every budget. Technique: chessprogramming wiki "Time Management".
"""
from dataclasses import dataclass, field


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


def budget(limits, white_to_move, move_overhead=10):
    """Return ``(soft_ms, hard_ms)`` for this move, or ``(None, None)`` when the search is not
    limited by time (``infinite``, ``ponder`` before ``ponderhit``, or no clock given).

    ``move_overhead`` is milliseconds reserved for the GUI and transport on every move."""
    if limits.infinite:
        return None, None
    if limits.movetime is not None:
        t = max(1, limits.movetime - move_overhead)
        return t, t
    left = limits.wtime if white_to_move else limits.btime
    if left is None:
        return None, None
    inc = limits.winc if white_to_move else limits.binc
    # Keep a reserve: overhead on every remaining move, and never plan to use the last bit.
    mtg = limits.movestogo if limits.movestogo else 30
    mtg = max(1, min(mtg, 50))
    usable = max(1, left - move_overhead - min(100, left // 20))
    base = usable / mtg + inc * 0.8
    if limits.movestogo == 1:
        base = usable * 0.7
    soft = min(base * 0.9, usable * 0.35)
    hard = min(base * 3.0, usable * 0.6 if mtg > 1 else usable * 0.9)
    soft = max(1, int(min(soft, hard)))
    hard = max(1, int(hard))
    return soft, hard
