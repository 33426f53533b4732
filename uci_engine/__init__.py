"""uci_engine: a UCI chess engine whose hot paths are Numba-compiled bitboard kernels.

This module imports no numba: the slider backend (and with it the Numba cache directory) is
chosen in :mod:`uci_engine.backend` before any kernel module is imported.
"""

__version__ = "0.1.0"
