"""Win/draw/loss estimates for ``UCI_ShowWDL`` (plain Python).

The model is Stockfish's ``win_rate_model`` (src/uci.cpp, since Stockfish 15.1): the chance
that the side to move wins with a score of ``v`` centipawns is the logistic
``1 / (1 + exp((a - v) / b))``, where ``a`` and ``b`` are cubic polynomials in the material
left on the board, ``m = clamp(material, MATERIAL_MIN, MATERIAL_MAX) / MATERIAL_REF`` (pawn 1,
knight and bishop 3, rook 5, queen 9, both sides). The loss chance is the same curve at
``-v``; the draw chance is what remains. The coefficients are fitted to our own self-play
games by ``scripts/fit_wdl.py`` and written to :mod:`uci_engine.wdl_params`, whose header
names the data and the command.
"""
import math

from . import wdl_params

#: material (pawn units, both sides) below / above which the model is clamped (Stockfish)
MATERIAL_MIN, MATERIAL_MAX = 17, 78
#: material that maps to m = 1 (Stockfish's normalisation)
MATERIAL_REF = 58
#: material weights per piece type P N B R Q K (Stockfish's win_rate_model)
MATERIAL_WEIGHTS = (1, 3, 3, 5, 9, 0)


def model_params(material, coeffs=None):
    """``(a, b)`` (centipawns) of the logistic win-rate curve for ``material`` (int, pawn
    units on the board). ``coeffs`` is ``(as_, bs)``, two 4-tuples, highest power first
    (default: the fitted :mod:`uci_engine.wdl_params`)."""
    as_, bs = coeffs or (wdl_params.AS, wdl_params.BS)
    m = min(max(material, MATERIAL_MIN), MATERIAL_MAX) / MATERIAL_REF
    a = ((as_[0] * m + as_[1]) * m + as_[2]) * m + as_[3]
    b = ((bs[0] * m + bs[1]) * m + bs[2]) * m + bs[3]
    return a, b


def win_rate(score, material, coeffs=None):
    """Win chance (float, 0..1) of the side to move at ``score`` centipawns."""
    a, b = model_params(material, coeffs)
    x = (a - score) / b
    if x > 700:
        return 0.0
    return 1.0 / (1.0 + math.exp(x))


def wdl(score, material, mate=None):
    """``(w, d, l)`` per mille (ints summing to 1000) for the side to move at ``score``
    centipawns with ``material`` on the board; a ``mate`` in N moves (N > 0 for the side to
    move, N < 0 against it) is a certain win or loss."""
    if mate is not None:
        return (1000, 0, 0) if mate > 0 else (0, 0, 1000)
    w = round(1000 * win_rate(score, material))
    lo = round(1000 * win_rate(-score, material))
    return w, 1000 - w - lo, lo


def material_of_counts(counts):
    """Material (int, pawn units) of piece counts by type P N B R Q K (both colours)."""
    return sum(c * v for c, v in zip(counts, MATERIAL_WEIGHTS))
