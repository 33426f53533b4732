"""Numba cache that survives being copied: the prebuilt cache a wheel ships, its fingerprint, and
the state of a cache directory (warm-up marker, seeding from the prebuilt cache, compile lock).

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
import contextlib
import functools
import hashlib
import json
import os
import tempfile
import threading

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


# --- the state of a cache directory: warm-up marker, prebuilt seed, compile lock ---------------
MARKER = "warm.ok"           # written once a cache directory's kernels are compiled
LOCK = "compile.lock"        # held by the one process that compiles an empty cache directory


def _marker_path(cache_dir=None):
    return os.path.join(cache_dir or os.environ.get("NUMBA_CACHE_DIR", ""), MARKER)


def _read_marker(path):
    """The fingerprint (dict) a warm-up marker records, or None (no marker, or an old one)."""
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_cold():
    """True if the kernels of this cache directory (``$NUMBA_CACHE_DIR``, set by
    :func:`uci_engine.backend.select`) must be compiled: its warm-up marker is missing, or was
    written for another Numba version or CPU (a home directory shared between machines), whose
    cache entries Numba refuses (:func:`uci_engine.numba_cache.fingerprint`)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        return False
    found = _read_marker(_marker_path())
    return found is None or found != fingerprint()


def mark_warm():
    """Record that ``$NUMBA_CACHE_DIR`` holds compiled kernels, for this fingerprint."""
    try:
        _write_atomic(_marker_path(), json.dumps(fingerprint()).encode())
    except OSError:
        pass


def _write_atomic(path, data):
    """Write ``data`` (bytes) to ``path`` through a temporary file and a rename, so a reader
    never sees half a file. Raises OSError."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _link_or_copy(src, dest):
    """Make ``dest`` a hard link to ``src`` (instant; Numba never writes a cache file in place,
    it renames new ones over it), or a copy where links fail (another file system); either
    through a temporary name and a rename. Raises OSError."""
    folder = os.path.dirname(dest)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".tmp-{os.getpid()}-{threading.get_ident()}-"
                               f"{os.path.basename(dest)}")
    try:
        os.link(src, tmp)
        os.replace(tmp, dest)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        with open(src, "rb") as fh:
            _write_atomic(dest, fh.read())


def seed_from_prebuilt(prebuilt, cache_dir):
    """Fill the empty cache directory ``cache_dir`` from ``prebuilt``, the cache that
    ``pip install .`` compiled into the package (:mod:`uci_engine.prebuild`), when that was
    compiled by this Numba version for this CPU; returns True if it copied.

    Does nothing if ``cache_dir`` is already warm from the same build or nothing prebuilt
    fits. Every file is linked or copied through a rename (:func:`_link_or_copy`) and the marker
    last, so processes starting together may all do it, and a process loading meanwhile sees
    whole files. Errors only leave the cache cold."""
    shipped = _read_marker(_marker_path(prebuilt))
    if shipped is None or _read_marker(_marker_path(cache_dir)) == shipped:
        return False
    try:
        if shipped != fingerprint():
            return False
        files = [os.path.relpath(os.path.join(folder, name), prebuilt)
                 for folder, _, names in os.walk(prebuilt) for name in names]
        for rel in sorted(files, key=lambda f: f == MARKER):          # the marker last
            _link_or_copy(os.path.join(prebuilt, rel), os.path.join(cache_dir, rel))
        return True
    except OSError:
        return False


@contextlib.contextmanager
def compile_lock():
    """Hold the compile lock of ``$NUMBA_CACHE_DIR`` (an exclusive ``flock`` on its
    ``compile.lock``; released when the block ends or the process dies), so processes that
    start together on an empty cache compile its kernels once: the first one compiles, the
    others wait here, then load what it cached. A no-op where ``fcntl`` or the directory is
    unavailable."""
    try:
        import fcntl
        folder = os.environ["NUMBA_CACHE_DIR"]
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    except (ImportError, KeyError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


install()
