"""A read-only install location with a fresh HOME: ``uci-engine --version``, ``warmup`` and
``bench`` and the OpenBench launcher work, and the Numba cache goes to the per-user directory
(``~/.cache/uci_engine/<version>-<python>/``), never into the install location.

Read-only for real: as root (CI), file modes do not stop writes, so each command runs in a
private mount namespace where the install directories are bind-mounted read-only
(``unshare --mount``); as another user, ``chmod -R a-w`` is enough. Where neither works the
test is skipped. Either way no file in the install location may change.
"""
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from test_install import (PYTAG, ROOT, VERSION, check_bench, check_version, clean_env,
                          copy_source, make_venv, run)

pytestmark = pytest.mark.slow

RO_WRAPPER = ('n=$1; shift; while [ "$n" -gt 0 ]; do '
              'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 97; '
              'shift; n=$((n - 1)); done; exec "$@"')


def _bind_ro_works(tmp):
    probe = Path(tmp) / "probe"
    probe.mkdir()
    if shutil.which("unshare") is None:
        return False
    proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           RO_WRAPPER, "sh", "1", str(probe), "touch", str(probe / "x")],
                          capture_output=True, timeout=60)
    return proc.returncode not in (0, 97) and not (probe / "x").exists()


def _snapshot(dirs):
    """{path: (size, mtime_ns)} of every file and directory under ``dirs``."""
    out = {}
    for d in dirs:
        for p in [Path(d)] + list(Path(d).rglob("*")):
            st = p.lstat()
            out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def _chmod_tree(dirs, writable):
    for d in dirs:
        for p in [Path(d)] + list(Path(d).rglob("*")):
            if p.is_symlink():
                continue
            mode = p.stat().st_mode
            mode = mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP
                                                                 | stat.S_IWOTH)
            os.chmod(p, mode)


class ReadOnly:
    """Runs commands with ``dirs`` read-only (see the module docstring)."""

    def __init__(self, dirs, mode):
        self.dirs, self.mode = [str(d) for d in dirs], mode

    def run(self, cmd, env, **kw):
        if self.mode == "bind":
            cmd = (["unshare", "--mount", "--propagation", "private", "sh", "-c", RO_WRAPPER,
                    "sh", str(len(self.dirs))] + self.dirs + [str(c) for c in cmd])
        return run(cmd, env, **kw)


@pytest.fixture(scope="module")
def ro(tmp_path_factory):
    """A venv with the package pip-installed, and a launcher made by ``make EXE=...`` from
    this checkout, both in install locations that are read-only while the tests run."""
    base = tmp_path_factory.mktemp("readonly")
    if os.geteuid() == 0:
        if not _bind_ro_works(base):
            pytest.skip("running as root without mount namespaces: cannot make a directory "
                        "read-only for root")
        mode = "bind"
    else:
        mode = "chmod"
    venv_bin = make_venv(base / "venv", copy_source(base / "src"))
    bindir = base / "opt-bin"
    launcher = bindir / "uci-engine-ob"
    run(["make", "-C", ROOT, f"EXE={launcher}", f"PYTHON={venv_bin / 'python'}", "WARMUP=0"],
        clean_env(home=base / "build-home"))
    dirs = [base / "venv", bindir]
    before = _snapshot(dirs)
    if mode == "chmod":
        _chmod_tree(dirs, writable=False)
    yield {"bin": venv_bin, "launcher": launcher, "ro": ReadOnly(dirs, mode), "mode": mode}
    if mode == "chmod":
        _chmod_tree(dirs, writable=True)
    assert _snapshot(dirs) == before, "files in the read-only install location changed"


def _cache(home):
    return home / ".cache" / "uci_engine" / f"{VERSION}-{PYTAG}"


def test_version_readonly(ro, tmp_path):
    home = tmp_path / "home"
    out, _, _ = ro["ro"].run([ro["bin"] / "uci-engine", "--version"], clean_env(home=home))
    check_version(out)
    # the CPU detection cache lands in the fresh HOME
    assert (_cache(home) / "cpu.json").is_file()


def test_warmup_then_bench_readonly(ro, tmp_path):
    home = tmp_path / "home"
    env = clean_env(home=home, tmpdir=tmp_path / "tmp")
    out, _, _ = ro["ro"].run([ro["bin"] / "uci-engine", "warmup"], env)
    assert out.decode().startswith("warmup done: sliders "), out
    backends = [p.name for p in _cache(home).iterdir() if p.is_dir()]
    # one directory per backend, keyed on the kernel sources: <backend>-<12 hex digits>
    assert len(backends) == 1 and re.fullmatch(r"(pext|magic|black|rayscan)-[0-9a-f]{12}",
                                               backends[0]), backends
    assert list((_cache(home) / backends[0]).rglob("*.nbi"))
    out, err, _ = ro["ro"].run([ro["bin"] / "uci-engine", "bench"], env)
    check_bench(out, err)


def test_launcher_readonly(ro, tmp_path):
    home = tmp_path / "home"
    env = clean_env(home=home, tmpdir=tmp_path / "tmp")
    out, _, _ = ro["ro"].run([ro["launcher"], "--version"], env, cwd=tmp_path)
    check_version(out)
    assert list((home / ".cache" / "uci_engine" / "launcher").glob("*/uci_engine/cli.py"))
    # the shipped NNUE nets travel with the sources (EvalFile's default is one of them)
    assert list((home / ".cache" / "uci_engine" / "launcher").glob("*/uci_engine/nets/*.nnue"))
    out, err, _ = ro["ro"].run([ro["launcher"], "bench", "4"], env, cwd=tmp_path)
    check_bench(out, err)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_readonly_home_falls_back_to_private_temp_dir(ro, tmp_path):
    """HOME read-only as well: the cache goes to ``$TMPDIR/uci_engine-<uid>`` (0700) instead
    of failing with Numba's "cannot cache function: no locator available"."""
    home = tmp_path / "home"
    home.mkdir()
    tmpdir = tmp_path / "tmp"
    env = clean_env(home=home, tmpdir=tmpdir)
    if ro["mode"] == "bind":
        guard = ReadOnly(ro["ro"].dirs + [str(home)], "bind")
    else:
        os.chmod(home, 0o555)
        guard = ro["ro"]
    try:
        out, _, _ = guard.run([ro["bin"] / "uci-engine", "perft", "--depth", "2"], env)
    finally:
        os.chmod(home, 0o755)
    assert out.decode().strip().endswith("Nodes searched: 400")
    fallback = tmpdir / f"uci_engine-{os.getuid()}"
    assert stat.S_IMODE(fallback.stat().st_mode) == 0o700
    assert list(fallback.rglob("*.nbi"))
    assert not list(home.iterdir())
