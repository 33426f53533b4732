"""Process-wide slider backend choice and Numba cache placement (plain Python, no numba import).

:func:`select` must run before any ``uci_engine.kernels`` module is imported: it fixes the
backend for the process through ``UCI_ENGINE_ACTIVE_SLIDERS`` and points ``NUMBA_CACHE_DIR`` at a
directory of that backend's own, so one backend's compiled code is never loaded for another.
"""
import os
import sys

from . import __version__

BACKENDS = ("pext", "magic", "rayscan")
_selected = None


def cache_root():
    """Per-user cache directory (str) shared by all backends: ``$NUMBA_CACHE_DIR`` if the user
    set one, else ``$XDG_CACHE_HOME`` or ``~/.cache`` plus ``uci_engine``; then
    ``<version>-<python>``. The base is pinned in ``UCI_ENGINE_USER_NUMBA_CACHE_DIR`` on first
    use, so the ``NUMBA_CACHE_DIR`` that :func:`select` sets (also in child processes) never
    becomes the base of a nested path."""
    base = os.environ.get("UCI_ENGINE_USER_NUMBA_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(base, "uci_engine")
    os.environ["UCI_ENGINE_USER_NUMBA_CACHE_DIR"] = base
    tag = f"{__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(base, tag)


def cache_dir(backend):
    """Numba cache directory (str) for ``backend``: ``cache_root()/<backend>``."""
    return os.path.join(cache_root(), backend)


def select(backend):
    """Fix the slider backend (``"pext"``, ``"magic"`` or ``"rayscan"``) for this process.

    Raises ``ValueError`` for an unknown name, and ``RuntimeError`` if a different backend was
    already selected (compiled kernels cannot be rebound within one process)."""
    global _selected
    if backend not in BACKENDS:
        raise ValueError(f"unknown slider backend {backend!r}; expected one of {BACKENDS}")
    if _selected is not None:
        if _selected != backend:
            raise RuntimeError(f"slider backend already fixed to {_selected!r}")
        return backend
    os.environ["UCI_ENGINE_ACTIVE_SLIDERS"] = backend
    os.environ["NUMBA_CACHE_DIR"] = cache_dir(backend)
    _selected = backend
    return backend


def choose_and_select(requested=None):
    """Pick the backend for this CPU (:func:`uci_engine.cpu.choose`) and :func:`select` it.

    ``requested`` is the ``--sliders`` value or None. Returns ``(backend, info_text, warning)``:
    ``info_text`` follows ``info string sliders`` (e.g. ``"magic (override UCI_ENGINE_SLIDERS)"``),
    ``warning`` is None or a message for the user. Raises ValueError for an unknown name."""
    from .cpu import choose
    backend, text, warning = choose(requested)
    select(backend)
    return backend, text, warning


def selected():
    """The backend fixed by :func:`select`, or None."""
    return _selected
