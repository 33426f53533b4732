"""setuptools hook (the rest of the metadata is in pyproject.toml): ``pip install .`` compiles
the Numba kernels into the wheel, so the engine's first start loads them instead of compiling
(:mod:`uci_engine.prebuild`). Editable installs (``pip install -e .``) and
``UCI_ENGINE_PREBUILD=0`` skip it; a failed compile only warns: the first start compiles."""
import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithKernels(build_py):
    """``build_py`` followed by ``python -m uci_engine.prebuild`` in the build directory."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False) or os.environ.get("UCI_ENGINE_PREBUILD") == "0":
            return
        print("uci_engine: compiling the Numba kernels for this machine (about a minute)",
              file=sys.stderr)
        done = subprocess.run([sys.executable, "-m", "uci_engine.prebuild"], cwd=self.build_lib)
        if done.returncode != 0:
            print("uci_engine: warning: kernels not prebuilt; the first start compiles them",
                  file=sys.stderr)


setup(cmdclass={"build_py": BuildPyWithKernels})
