"""Numba-compiled kernels: only ``@njit(cache=True)`` code over numpy arrays, no I/O.

Import :func:`uci_engine.backend.select` before importing any module here: it fixes the slider
backend and the Numba cache directory for the whole process.
"""
