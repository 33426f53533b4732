"""Process-wide slider backend choice and Numba cache placement.

:func:`select` must run before any ``uci_engine.kernels`` module with compiled code is imported:
it fixes the backend for the process through ``UCI_ENGINE_ACTIVE_SLIDERS``, points
``NUMBA_CACHE_DIR`` at a directory of that backend's own, so one backend's compiled code is never
loaded for another, and installs the cache locator of :mod:`uci_engine.numba_cache`. Importing
this module imports no Numba; :func:`select` does.
"""
import os

from .cachedir import PREBUILT_BASE, cache_root, cache_tag
from . import cpu

BACKENDS = ("pext", "magic", "black", "rayscan")
_selected = None


def kernels_digest():
    """Short hex digest (str) of the kernel sources (``uci_engine/kernels/*.py``, and
    ``uci_engine/params.py``, whose parameter indices the kernels freeze in).

    Numba checks a cached function only against its own source file, while compiled callers
    freeze in their callees and global tables: after an edit of ``movegen.py`` the cached
    ``negamax`` would still run the old move generator. Keying the cache directory on all
    kernel sources makes any edit start from a clean cache (about 1 ms to compute)."""
    import hashlib
    package = os.path.dirname(os.path.abspath(__file__))
    here = os.path.join(package, "kernels")
    h = hashlib.blake2b(digest_size=6)
    paths = [os.path.join(here, name) for name in sorted(os.listdir(here))
             if name.endswith(".py")] + [os.path.join(package, "params.py")]
    for path in paths:
        h.update(os.path.basename(path).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def cache_dir(backend):
    """Numba cache directory (str) for ``backend``: ``cache_root()/<backend>-<digest>``, with
    the digest of :func:`kernels_digest`."""
    return os.path.join(cache_root(), f"{backend}-{kernels_digest()}")


def prebuilt_dir(backend):
    """The prebuilt cache directory (str) that ``pip install .`` compiles for ``backend``
    inside the package (it exists only for the backend chosen on the installing machine)."""
    return os.path.join(PREBUILT_BASE, cache_tag(), f"{backend}-{kernels_digest()}")


def select(backend):
    """Fix the slider backend (``"pext"``, ``"magic"``, ``"black"`` or ``"rayscan"``) for this
    process.

    Installs :class:`uci_engine.numba_cache.PortableCacheLocator` (so it imports Numba), and
    fills an empty cache directory from the prebuilt cache of the installed package
    when that fits this machine (:func:`uci_engine.numba_cache.seed_from_prebuilt`).

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
    from .numba_cache import seed_from_prebuilt     # installs the kernels' cache locator
    seed_from_prebuilt(prebuilt_dir(backend), os.environ["NUMBA_CACHE_DIR"])
    return backend


def choose_and_select(requested=None):
    """Pick the backend for this CPU (:func:`uci_engine.cpu.choose`) and :func:`select` it.

    ``requested`` is the ``--sliders`` value or None. Returns ``(backend, info_text, warning)``:
    ``info_text`` follows ``info string sliders`` (e.g. ``"magic (override UCI_ENGINE_SLIDERS)"``),
    ``warning`` is None or a message for the user. Raises ValueError for an unknown name."""
    backend, text, warning = cpu.choose(requested)
    select(backend)
    return backend, text, warning


def selected():
    """The backend fixed by :func:`select`, or None."""
    return _selected
