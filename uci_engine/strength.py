"""UCI_LimitStrength / UCI_Elo: weaker play by a node limit and a noisy choice among the best
root moves (plain Python).

Two knobs, both driven by the requested Elo and both smooth across the range:

* a node limit per move, geometric in the Elo: ``NODES_AT_MIN * 2 ** ((elo - ELO_MIN) /
  ELO_PER_NODE_DOUBLING)``;
* Stockfish's skill level (src/search.cpp, ``Skill::pick_best``): the engine searches
  ``SKILL_MULTIPV`` lines and picks the move whose score plus a random push is highest, the
  push being ``(weakness * (top - score) + delta * rand % weakness) / 128`` with ``weakness =
  120 - 2 * level`` and ``delta = min(top - worst, PAWN)``. The level rises linearly from 0 at
  ``ELO_MIN`` to ``SKILL_LEVEL_MAX`` at ``ELO_MAX``, where the noise is gone.

Not calibrated yet: against Debian Stockfish at the same ``UCI_Elo`` these constants play
400-650 Elo below the request (README, "UCI_Elo calibration").
"""
import random

ELO_MIN = 1320            # Stockfish's lowest UCI_Elo
ELO_MAX = 2800
ELO_DEFAULT = 1320        # Stockfish's default UCI_Elo
# Nodes per move at ELO_MIN. The first guess, 400, seemed to play 200 Elo below the request
# (a reading inflated by Stockfish's time losses), so it was raised by 1.33 doublings,
# 400 * 2 ** (200 / 150) ~ 1000; measured again this is still 400-650 Elo low (README).
NODES_AT_MIN = 1000
ELO_PER_NODE_DOUBLING = 150   # the classical ~100-200 Elo per doubling of search effort
SKILL_LEVEL_MAX = 20      # Stockfish: level 20 = no deliberate noise
SKILL_MULTIPV = 4         # Stockfish searches at least 4 lines with a skill level
SKILL_PAWN = 100          # Stockfish's PawnValue cap on delta, in our centipawns


def nodes_for(elo):
    """Node limit (int) per move at ``elo`` (clamped to ELO_MIN .. ELO_MAX)."""
    elo = min(max(int(elo), ELO_MIN), ELO_MAX)
    return int(round(NODES_AT_MIN * 2 ** ((elo - ELO_MIN) / ELO_PER_NODE_DOUBLING)))


def level_for(elo):
    """Skill level (float, 0 .. SKILL_LEVEL_MAX) at ``elo``."""
    elo = min(max(int(elo), ELO_MIN), ELO_MAX)
    return SKILL_LEVEL_MAX * (elo - ELO_MIN) / (ELO_MAX - ELO_MIN)


def pick(scores, level, rng=random):
    """Index (int) of the root line to play among ``scores`` (centipawns, best first), by
    Stockfish's ``Skill::pick_best``; 0 when ``level`` >= SKILL_LEVEL_MAX."""
    if level >= SKILL_LEVEL_MAX or len(scores) < 2:
        return 0
    top = scores[0]
    delta = min(top - scores[-1], SKILL_PAWN)
    weakness = 120 - 2 * level
    best, best_value = 0, None
    for i, s in enumerate(scores):
        push = int(weakness * (top - s) + delta * (rng.randrange(1 << 30) % int(weakness))) // 128
        if best_value is None or s + push >= best_value:
            best, best_value = i, s + push
    return best
