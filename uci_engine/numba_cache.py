"""Numba cache that survives being copied: the prebuilt cache a wheel ships, and its fingerprint.

Numba's own locator for a ``NUMBA_CACHE_DIR`` (``numba.core.caching.UserProvidedCacheLocator``)
files a kernel's cache under ``<dir>/<parent>_<sha1 of the source file's absolute directory>``:
the same kernels installed in another place (a wheel built in ``build/lib``, then installed in
``site-packages``) never find it. :class:`PortableCacheLocator` files it under
``<dir>/kernels`` instead and stamps it by the source file's content, so a cache compiled by
``pip install .`` (:mod:`uci_engine.prebuild`) is valid wherever the package lands. Every
cache directory is already private to one version of the kernel sources
(:func:`uci_engine.backend.cache_dir` keys it on their digest), so the location adds nothing.

Numba still refuses a cache entry compiled by another Numba version or for another CPU (its
index is keyed on ``codegen.magic_tuple()``: the target triple, CPU name and features); a
kernel then compiles again, as on an empty cache. :func:`fingerprint` names those inputs, so
the prebuilt cache is only used where it loads (:func:`uci_engine.cachedir.seed_from_prebuilt`).

Import this module before any ``uci_engine.kernels`` module with compiled code
(:func:`uci_engine.backend.select` does): a kernel's locator is chosen when its
``@njit(cache=True)`` decorator runs.
"""
import functools
import hashlib
import os

from numba.core import caching, config

#: the one package directory whose kernels this locator files (``uci_engine/kernels``)
KERNELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")


@functools.lru_cache(maxsize=None)
def _content_digest(path, mtime, size):
    """sha256 digest (bytes) of the file at ``path``; ``mtime`` and ``size`` only key the
    memo, so an edit during the process is hashed again."""
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).digest()


def _cache_dir():
    """``$NUMBA_CACHE_DIR`` as it is now: :func:`uci_engine.backend.select` sets it after Numba
    may have been imported, and Numba's ``config.CACHE_DIR`` follows the environment only when
    its compiler next reloads the configuration."""
    return os.environ.get("NUMBA_CACHE_DIR") or config.CACHE_DIR


class PortableCacheLocator(caching._CacheLocator):
    """Cache locator for ``uci_engine/kernels/*.py``: ``$NUMBA_CACHE_DIR/kernels``, stamped by
    each source file's content (not its modification time, which a copy changes)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(_cache_dir(), os.path.basename(KERNELS_DIR))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        st = os.stat(self._py_file)
        return _content_digest(self._py_file, st.st_mtime, st.st_size)

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _cache_dir() or not os.path.exists(py_file):
            return None
        if os.path.dirname(os.path.abspath(py_file)) != KERNELS_DIR:
            return None
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:            # not writable: Numba's own locators decide
            return None
        return self


def install():
    """Put :class:`PortableCacheLocator` first among Numba's cache locators (once)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # renamed in Numba 0.61
    classes = impl._locator_classes
    if PortableCacheLocator not in classes:
        classes.insert(0, PortableCacheLocator)


def fingerprint():
    """dict of what a compiled kernel's validity depends on besides its source: the Numba
    version and Numba's ``magic_tuple`` (target triple, CPU name, CPU features: the host's, or
    ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` when set), which keys every cache index entry."""
    import numba
    from numba.core.registry import cpu_target
    triple, cpu_name, features = cpu_target.target_context.codegen().magic_tuple()
    return {"numba": numba.__version__, "triple": triple, "cpu_name": cpu_name,
            "cpu_features": features}


install()
