"""Per-user cache directory of uci_engine (plain Python, no numba import).

The lowest layer of the start-up modules: :mod:`uci_engine.cpu` keeps its CPU-detection cache
here and :mod:`uci_engine.backend` puts each backend's Numba cache below it; both import this
module, it imports neither.
"""
import os
import stat
import sys
import tempfile

from . import __version__


def cache_root():
    """Per-user cache directory (str) shared by all backends: ``$NUMBA_CACHE_DIR`` if the user
    set one, else ``$XDG_CACHE_HOME`` or ``~/.cache`` plus ``uci_engine``; then
    ``<version>-<python>``. If that base is not writable (read-only home), a private per-user
    temp directory is used instead (:func:`_private_temp_base`). The base is pinned in
    ``UCI_ENGINE_USER_NUMBA_CACHE_DIR`` on first use, so the ``NUMBA_CACHE_DIR`` that
    :func:`uci_engine.backend.select` sets (also in child processes) never becomes the base of a nested path."""
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
    return os.path.join(base, cache_tag())


def cache_tag():
    """``<version>-py<major><minor>`` (str): the subdirectory of a cache base for this package
    version and Python (compiled kernels fit one of each)."""
    return f"{__version__}-py{sys.version_info[0]}{sys.version_info[1]}"


#: where ``pip install .`` leaves the prebuilt Numba cache inside the installed package
#: (:mod:`uci_engine.prebuild`): ``PREBUILT_BASE/<cache_tag()>/<backend>-<digest>``, the same
#: layout as below :func:`cache_root`
PREBUILT_BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prebuilt")


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
