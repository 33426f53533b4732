"""Compile the Numba cache into a built copy of the package: the build step of ``pip install .``.

``setup.py`` runs ``python -m uci_engine.prebuild`` in the build directory after setuptools has
copied the package there, so the wheel carries the kernels compiled for the installing machine
in ``uci_engine/prebuilt/<version>-py<XY>/<backend>-<digest>/``. The engine's first start copies
them into the per-user cache (:func:`uci_engine.numba_cache.seed_from_prebuilt`) and answers
``readyok`` as on a warm cache, instead of compiling for about 15 s. The cache is only used
where it loads: the same Numba version and compile target (the marker records both); anywhere
else the engine compiles on its first start as before.

Everything ``uci-engine warmup`` compiles is compiled, for the slider backend this machine
chooses (``--sliders`` / ``UCI_ENGINE_SLIDERS`` pick another). ``UCI_ENGINE_PREBUILD=0`` skips
the step (setup.py).
"""
import os
import shutil
import sys

from .cachedir import PREBUILT_BASE, cache_tag


def main(argv=None):
    """Compile into :data:`uci_engine.cachedir.PREBUILT_BASE`; returns the exit status."""
    shutil.rmtree(PREBUILT_BASE, ignore_errors=True)   # setuptools reuses build/lib
    os.environ["UCI_ENGINE_USER_NUMBA_CACHE_DIR"] = PREBUILT_BASE
    from .cli import main as cli_main
    status = cli_main(list(argv or []) + ["warmup"])
    tagged = os.path.join(PREBUILT_BASE, cache_tag())
    for name in os.listdir(tagged):                # only the compiled backend's directory
        path = os.path.join(tagged, name)
        if not os.path.isdir(path):
            os.unlink(path)                        # cpu.json: this machine's detection cache
    for folder, _, names in os.walk(tagged):
        for name in names:
            if name.startswith((".tmp-", "compile.lock")):
                os.unlink(os.path.join(folder, name))
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as exc:  # noqa: BLE001 - the install goes on; the first start compiles
        shutil.rmtree(PREBUILT_BASE, ignore_errors=True)
        print(f"uci_engine.prebuild: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
