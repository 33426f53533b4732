"""The single switch point that binds the slider backend, plus leaper attack lookups.

The backend name comes from ``UCI_ENGINE_ACTIVE_SLIDERS`` ("pext", "magic", "black" or
"rayscan"), which :func:`uci_engine.backend.select` sets before this module is first imported,
together with a Numba cache directory of that backend's own: compiled callers freeze
``rook_attacks`` and ``bishop_attacks`` in, so each backend's cache must live apart.
"""
import os

from numba import njit

from .rays import (BETWEEN, KING_ATTACKS, KNIGHT_ATTACKS, LINE, PAWN_ATTACKS,  # noqa: F401
                   bishop_attacks_slow, rook_attacks_slow)

BACKEND = os.environ.get("UCI_ENGINE_ACTIVE_SLIDERS", "magic")

if BACKEND == "pext":
    from .sliders_pext import bishop_attacks, rook_attacks
elif BACKEND == "magic":
    from .sliders_magic import bishop_attacks, rook_attacks
elif BACKEND == "black":
    from .sliders_black import bishop_attacks, rook_attacks
elif BACKEND == "rayscan":
    bishop_attacks, rook_attacks = bishop_attacks_slow, rook_attacks_slow
else:
    raise ValueError(f"unknown slider backend {BACKEND!r}")


@njit(cache=True)
def queen_attacks(sq, occ):
    """Queen attacks (uint64) from ``sq`` over occupancy ``occ``: rook | bishop."""
    return rook_attacks(sq, occ) | bishop_attacks(sq, occ)
