"""Choose the slider backend for this CPU: ``"pext"``, ``"black"`` or ``"magic"`` (plain
Python, no numba).

Policy (Stockfish's CPU gating; chessprogramming wiki "BMI2"):

* ``pext`` when the CPU reports BMI2 and LLVM confirms it for the host, except on AMD family
  0x17 (Zen 1/Zen 2) and Hygon family 0x18 (Zen 1 based), whose PEXT is microcoded and slow;
* ``black`` (fixed-shift black magics) on the other x86 machines: without BMI2, with slow PEXT,
  or when LLVM does not confirm BMI2. Measured against ``magic`` in the same run with no BMI2
  in the target (the Docker image's generic x86-64 build), its lookups took 0.73x the time and
  perft and ``bench`` ran as fast or faster (docs/performance.md, "Slider backends");
* ``magic`` on non-x86 machines (no measurement there) and when detection fails;
* an override (the ``--sliders`` argument, else ``UCI_ENGINE_SLIDERS``) picks ``pext``,
  ``magic``, ``black`` (fixed-shift black magics, a smaller table) or ``rayscan``; ``pext``
  without BMI2 falls back to the automatic choice (``black`` on x86) with a warning, because
  compiling PEXT for a CPU without it aborts the process.

``py-cpuinfo``'s ``get_cpu_info()`` runs a subprocess (about 1 s), so the few fields used here
are cached as JSON in the per-user cache directory (:func:`uci_engine.cachedir.cache_root`), keyed
on LLVM's host CPU name and a hash of its feature string. On Linux a miss reads
``/proc/cpuinfo`` through py-cpuinfo's fast path first (a few ms). A read-only or missing cache
directory only disables the cache.
"""
import hashlib
import json
import os
import platform
import tempfile

from .cachedir import cache_root

OVERRIDE_ENV = "UCI_ENGINE_SLIDERS"
CHOICES = ("pext", "magic", "black", "rayscan")
_AUTO = ("", "auto")
#: (vendor_id_raw, family) pairs with slow, microcoded PEXT.
SLOW_PEXT = {("AuthenticAMD", 0x17), ("HygonGenuine", 0x18)}
#: The automatic choice on x86 without fast PEXT: black magics beat fancy magics there.
NO_PEXT = "black"
_FIELDS = ("arch", "arch_string_raw", "vendor_id_raw", "brand_raw", "family", "model", "flags")
_CACHE_NAME = "cpu.json"
_CACHE_VERSION = 1
#: platform.machine() spellings to py-cpuinfo's ``arch`` names (when the fast path lacks it).
_ARCH = {"x86_64": "X86_64", "amd64": "X86_64", "i386": "X86_32", "i686": "X86_32",
         "x86": "X86_32", "aarch64": "ARM_8", "arm64": "ARM_8"}


def _llvm_host():
    """(cpu_name, features_dict) as LLVM sees the host; ("", {}) if unavailable."""
    try:
        import llvmlite.binding as llvm
        return llvm.get_host_cpu_name(), dict(llvm.get_host_cpu_features())
    except Exception:  # noqa: BLE001 - no LLVM view means: never claim BMI2
        return "", {}


def host_has_bmi2():
    """True if LLVM reports BMI2 for the host and Numba's compile target includes it.

    Numba's target features follow ``numba.core.config``: ``NUMBA_CPU_FEATURES`` when set (even
    to an empty string: no features), else none when ``NUMBA_CPU_NAME=generic``, else the
    host's. PEXT code may only be compiled when that set has ``+bmi2`` and the host runs it."""
    _, features = _llvm_host()
    if not features.get("bmi2", False):
        return False
    forced = os.environ.get("NUMBA_CPU_FEATURES")
    if forced is None and os.environ.get("NUMBA_CPU_NAME", "").lower() == "generic":
        forced = ""
    if forced is not None:
        return "+bmi2" in forced.replace(" ", "").split(",")
    return True


def _cache_path():
    return os.path.join(cache_root(), _CACHE_NAME)


def _cache_key():
    name, features = _llvm_host()
    flat = ",".join(("+" if v else "-") + k for k, v in sorted(features.items()))
    digest = hashlib.sha1(flat.encode()).hexdigest()[:16]
    return f"{_CACHE_VERSION}:{platform.machine()}:{name}:{digest}"


def _read_cpu_info():
    """The fields of py-cpuinfo's info dict used here; fast /proc/cpuinfo path on Linux."""
    from cpuinfo import cpuinfo as _ci
    info = {}
    fast = getattr(_ci, "_get_cpu_info_from_proc_cpuinfo", None)
    if fast is not None and os.path.exists("/proc/cpuinfo"):
        try:
            info = fast() or {}
        except Exception:  # noqa: BLE001 - private helper; fall back to the public call
            info = {}
    if not all(k in info for k in ("vendor_id_raw", "family", "flags")):
        info = _ci.get_cpu_info()
    out = {k: info[k] for k in _FIELDS if k in info}
    out.setdefault("arch_string_raw", platform.machine())
    raw = out["arch_string_raw"]
    out.setdefault("arch", _ARCH.get(raw.lower(), raw.upper()))
    return out


def cpu_info(use_cache=True):
    """dict with py-cpuinfo's ``arch``, ``vendor_id_raw``, ``family``, ``model``, ``flags``,
    ``brand_raw`` (those present), from the per-user cache when its key matches this host."""
    key = _cache_key() if use_cache else None
    path = None
    if use_cache:
        try:
            path = _cache_path()
            with open(path) as fh:
                data = json.load(fh)
            if data.get("key") == key and isinstance(data.get("info"), dict):
                return data["info"]
        except (OSError, ValueError, ImportError):
            pass
    info = _read_cpu_info()
    if path is not None:
        _write_cache(path, {"key": key, "info": info})
    return info


def _write_cache(path, data):
    """Write ``data`` as JSON atomically; silently skip on any OS error (read-only home etc.)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cpu-", suffix=".json", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(data, fh)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _describe(info):
    return f"{info.get('vendor_id_raw') or 'unknown vendor'} family {info.get('family', '?')}"


def _is_x86(info):
    arch = str(info.get("arch", "")).upper()
    if arch:
        return arch.startswith("X86")
    raw = str(info.get("arch_string_raw", "")).lower()
    return _ARCH.get(raw, "").startswith("X86")


def detect(info=None):
    """Automatic choice: ``(backend, reason)`` with backend ``"pext"``, ``"black"`` (x86
    without fast PEXT) or ``"magic"`` (non-x86, or detection failed).

    ``info`` is a py-cpuinfo style dict (default: :func:`cpu_info`). ``reason`` is the text shown
    after the backend name, e.g. ``"bmi2, AuthenticAMD family 26"``."""
    if info is None:
        try:
            info = cpu_info()
        except Exception as exc:  # noqa: BLE001 - detection must never stop the engine
            return "magic", f"cpu detection failed: {type(exc).__name__}"
    if not _is_x86(info):
        return "magic", f"non-x86 {info.get('arch_string_raw') or info.get('arch') or 'cpu'}"
    desc = _describe(info)
    if "bmi2" not in info.get("flags", ()):
        return NO_PEXT, f"no bmi2, {desc}"
    if (info.get("vendor_id_raw"), info.get("family")) in SLOW_PEXT:
        return NO_PEXT, f"slow microcoded pext, {desc}"
    if not host_has_bmi2():
        return NO_PEXT, f"bmi2 not confirmed by LLVM, {desc}"
    return "pext", f"bmi2, {desc}"


def choose(requested=None):
    """Backend for this process: ``(backend, text, warning)``.

    ``requested`` is the ``--sliders`` value (None, "" or "auto" for no request); otherwise
    ``UCI_ENGINE_SLIDERS`` is consulted, then :func:`detect`. ``text`` is what follows
    ``info string sliders``, e.g. ``"pext (bmi2, AuthenticAMD family 26)"`` or
    ``"magic (override UCI_ENGINE_SLIDERS)"``. ``warning`` is None or a message to show the
    user (pext requested without BMI2). Raises ValueError for an unknown backend name."""
    source = None
    name = (requested or "").strip().lower()
    if name not in _AUTO:
        source = "--sliders"
    else:
        name = os.environ.get(OVERRIDE_ENV, "").strip().lower()
        if name not in _AUTO:
            source = OVERRIDE_ENV
    if source is None:
        backend, reason = detect()
        return backend, f"{backend} ({reason})", None
    if name not in CHOICES:
        raise ValueError(f"unknown slider backend {name!r} from {source}; "
                         f"expected one of {', '.join(CHOICES)} or auto")
    if name == "pext" and not host_has_bmi2():
        fallback, _ = detect()          # the automatic choice, never pext without BMI2
        warning = (f"pext requested by {source} but BMI2 is not available "
                   f"(CPU or NUMBA_CPU_FEATURES); using {fallback}")
        return fallback, f"{fallback} (override {source}: pext unavailable, no bmi2)", warning
    return name, f"{name} (override {source})", None
