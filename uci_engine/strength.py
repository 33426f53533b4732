"""UCI_LimitStrength / UCI_Elo: weaker play by a node limit and a noisy choice among the best
root moves (plain Python).

Two knobs, both driven by the requested Elo and both smooth across the range:

* a node limit per move, geometric in the Elo: ``NODES_AT_ANCHOR * 2 ** ((elo - ELO_ANCHOR) /
  ELO_PER_NODE_DOUBLING)``, the node law fitted against Debian Stockfish 15.1's own
  ``UCI_Elo`` by scripts/calibrate_elo.py, which writes these constants and the range
  ELO_MIN .. ELO_MAX (the levels its matches support) to :mod:`uci_engine.strength_params`
  with their record (net digest, commit, every match; docs/calibration.md);
* a controlled choice among ``SKILL_MULTIPV`` root lines (Stockfish's skill-level idea,
  src/search.cpp ``Skill::pick_best``, with our own noise): each line's score gets a uniform
  random push in ``[0, noise_for(elo))`` centipawns and the highest total is played, so a move
  worse than the best by more than the noise is never chosen. The noise falls linearly from
  ``NOISE_AT_MIN`` at ELO_MIN to 0 at NOISE_END; from there on one line is searched. While
  several lines are searched the node limit is multiplied by ``MULTIPV_NODE_FACTOR`` so the best
  line gets about the effort it would get alone and the strength does not jump at NOISE_END,
  and by ``2 ** (NOISE_ELO_PER_CP * noise / ELO_PER_NODE_DOUBLING)``, the nodes that buy back
  the Elo the noisy pick costs: ``NOISE_ELO_PER_CP`` Elo per centipawn of noise width, fitted by
  scripts/calibrate_elo.py ``--fit-noise`` from the verify matches of the multi-line levels
  (docs/calibration.md). It falls to nothing with the noise at NOISE_END.

Stockfish's own push, ``(weakness * (top - score) + delta * rand % weakness) / 128``, made the
choice nearly uniform among the four lines and cost 400-650 Elo on top of the node limit (the
first calibration in README); the noise here is bounded in centipawns instead.
"""
import random

# The node law and the supported range, fitted by scripts/calibrate_elo.py: NODES_AT_ANCHOR
# nodes per move (one line) play at ELO_ANCHOR on Stockfish's UCI_Elo scale, gaining
# ELO_PER_NODE_DOUBLING per doubling; strength_params.RECORD says what with.
from .strength_params import (ELO_ANCHOR, ELO_MAX, ELO_MIN, ELO_PER_NODE_DOUBLING,  # noqa: F401
                              NODES_AT_ANCHOR, NOISE_ELO_PER_CP)

STOCKFISH_ELO_DEFAULT = 1320   # Stockfish 16's default (and lowest) UCI_Elo; 15.1's is 1350
ELO_DEFAULT = min(max(STOCKFISH_ELO_DEFAULT, ELO_MIN), ELO_MAX)
NODES_MIN = 64            # a floor, never reached from ELO_MIN with the constants above
SKILL_MULTIPV = 4         # Stockfish searches at least 4 lines with a skill level
MULTIPV_NODE_FACTOR = 2   # an estimate: lines 2-4 reuse the TT entries of line 1
NOISE_AT_MIN = 50         # centipawns of uniform noise per line at ELO_MIN
NOISE_END = 2000          # Elo from which the noise is 0 and one line is searched


def _clamp(elo):
    return min(max(int(elo), ELO_MIN), ELO_MAX)


def noise_for(elo):
    """Width (float, centipawns) of the uniform noise added to each root line at ``elo``
    (clamped to ELO_MIN .. ELO_MAX); 0 from NOISE_END up."""
    elo = _clamp(elo)
    return max(0.0, NOISE_AT_MIN * (NOISE_END - elo) / (NOISE_END - ELO_MIN))


def multipv_for(elo):
    """Root lines (int) searched at ``elo``: SKILL_MULTIPV while there is noise, else 1."""
    return SKILL_MULTIPV if noise_for(elo) > 0 else 1


def noise_node_factor(elo, elo_per_cp=None):
    """Node multiplier (float, >= 1 for a non-negative cost) that buys back the Elo the noisy
    pick costs at ``elo``: ``2 ** (elo_per_cp * noise_for(elo) / ELO_PER_NODE_DOUBLING)``,
    ``elo_per_cp`` defaulting to the fitted NOISE_ELO_PER_CP (Elo per centipawn of noise
    width); 1 where there is no noise."""
    cost = NOISE_ELO_PER_CP if elo_per_cp is None else elo_per_cp
    return 2 ** (cost * noise_for(elo) / ELO_PER_NODE_DOUBLING)


def nodes_for(elo):
    """Node limit (int) per move at ``elo`` (clamped to ELO_MIN .. ELO_MAX)."""
    elo = _clamp(elo)
    n = NODES_AT_ANCHOR * 2 ** ((elo - ELO_ANCHOR) / ELO_PER_NODE_DOUBLING)
    if multipv_for(elo) > 1:
        n *= MULTIPV_NODE_FACTOR * noise_node_factor(elo)
    return max(NODES_MIN, int(round(n)))


def pick(scores, noise, rng=random):
    """Index (int) of the root line to play among ``scores`` (centipawns, best first): the
    highest ``score + uniform(0, noise)``; 0 when ``noise`` <= 0 or there is one line."""
    if noise <= 0 or len(scores) < 2:
        return 0
    pushed = [s + rng.random() * noise for s in scores]
    return max(range(len(scores)), key=pushed.__getitem__)
