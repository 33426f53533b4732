"""Process-wide slider backend choice and Numba cache placement (plain Python, no numba import).

:func:`select` must run before any ``uci_engine.kernels`` module is imported: it fixes the
backend for the process through ``UCI_ENGINE_ACTIVE_SLIDERS`` and points ``NUMBA_CACHE_DIR`` at a
directory of that backend's own, so one backend's compiled code is never loaded for another.
"""
import os
import stat
import sys
import tempfile

from . import __version__

BACKENDS = ("pext", "magic", "rayscan")
_selected = None


def cache_root():
    """Per-user cache directory (str) shared by all backends: ``$NUMBA_CACHE_DIR`` if the user
    set one, else ``$XDG_CACHE_HOME`` or ``~/.cache`` plus ``uci_engine``; then
    ``<version>-<python>``. If that base is not writable (read-only home), a private per-user
    temp directory is used instead (:func:`_private_temp_base`). The base is pinned in
    ``UCI_ENGINE_USER_NUMBA_CACHE_DIR`` on first use, so the ``NUMBA_CACHE_DIR`` that
    :func:`select` sets (also in child processes) never becomes the base of a nested path."""
    base = os.environ.get("UCI_ENGINE_USER_NUMBA_CACHE_DIR")
    if not base:
        base = os.environ.get("NUMBA_CACHE_DIR")
        if not base:
            base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                    ".cache")
            base = os.path.join(base, "uci_engine")
        if not _writable(base):
            base = _private_temp_base()
    os.environ["UCI_ENGINE_USER_NUMBA_CACHE_DIR"] = base
    tag = f"{__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(base, tag)


def _writable(path):
    """True if ``path`` exists or can be made, and a file can be created in it (Numba needs a
    writable cache directory even to load from it)."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _private_temp_base():
    """Fallback cache base when the per-user one is not writable (read-only or missing home):
    ``<tmp>/uci_engine-<uid>``, used only if this user owns it and nobody else can write to it
    (cached machine code is executed); else a fresh private directory for this process."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    if uid is not None:
        path = os.path.join(tempfile.gettempdir(), f"uci_engine-{uid}")
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            st = os.lstat(path)
            if (stat.S_ISDIR(st.st_mode) and st.st_uid == uid
                    and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and _writable(path)):
                return path
        except OSError:
            pass
    return tempfile.mkdtemp(prefix="uci_engine-")


def kernels_digest():
    """Short hex digest (str) of the kernel sources (``uci_engine/kernels/*.py``).

    Numba checks a cached function only against its own source file, while compiled callers
    freeze in their callees and global tables: after an edit of ``movegen.py`` the cached
    ``negamax`` would still run the old move generator. Keying the cache directory on all
    kernel sources makes any edit start from a clean cache (about 1 ms to compute)."""
    import hashlib
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
    h = hashlib.blake2b(digest_size=6)
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            h.update(name.encode())
            with open(os.path.join(here, name), "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def cache_dir(backend):
    """Numba cache directory (str) for ``backend``: ``cache_root()/<backend>-<digest>``, with
    the digest of :func:`kernels_digest`."""
    return os.path.join(cache_root(), f"{backend}-{kernels_digest()}")


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
