"""Install paths, run as a user would: ``pip install .`` into a fresh venv, ``pipx install .``,
and the OpenBench build (``make EXE=...`` then ``<EXE> bench``).

Every run uses a fresh HOME, so the per-user Numba cache starts empty. ``pip install .``
compiles the kernels into the package (about a minute on two cores), and a first start loads
them from there; the OpenBench launcher compiles in its ``make``. The helpers here are shared
with test_readonly.py.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
VERSION = re.search(r'^__version__\s*=\s*"([^"]+)"',
                    (ROOT / "uci_engine" / "__init__.py").read_text(), re.M).group(1)
PYTAG = f"py{sys.version_info[0]}{sys.version_info[1]}"
#: Variables that would steer the engine or the installers away from what a new user has.
ENGINE_VARS = ("NUMBA_CACHE_DIR", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "UCI_ENGINE_SLIDERS",
               "UCI_ENGINE_ACTIVE_SLIDERS", "UCI_ENGINE_USER_NUMBA_CACHE_DIR", "XDG_CACHE_HOME",
               "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIPX_HOME", "PIPX_BIN_DIR")
VERSION_RE = re.compile(r"uci_engine (\S+) \(sliders (pext|magic|black|rayscan) \(.+\)\)")
INSTALL_TIMEOUT = 1200
ENGINE_TIMEOUT = 900
#: OpenBench's client gives one ``bench`` this long (Client/bench.py, MAX_BENCH_TIME_SECONDS).
OPENBENCH_BENCH_SECONDS = 60


def clean_env(home=None, path_prefix=None, tmpdir=None):
    """os.environ without the engine's and installers' steering variables; HOME (and TMPDIR)
    replaced when given; ``path_prefix`` put in front of PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ENGINE_VARS}
    if home is not None:
        Path(home).mkdir(parents=True, exist_ok=True)
        env["HOME"] = str(home)
    if tmpdir is not None:
        Path(tmpdir).mkdir(parents=True, exist_ok=True)
        env["TMPDIR"] = str(tmpdir)
    if path_prefix is not None:
        env["PATH"] = f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
    return env


def copy_source(dst, with_makefile=False):
    """Copy what ``pip install .`` (and ``make``) need into ``dst``: a checkout without caches."""
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    names = ["pyproject.toml", "setup.py", "README.md", "LICENSE"] + \
        (["Makefile"] if with_makefile else [])
    for name in names:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dst / name)
    shutil.copytree(ROOT / "uci_engine", dst / "uci_engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    return dst


def run(cmd, env, timeout=ENGINE_TIMEOUT, cwd=None):
    """Run ``cmd``; return (stdout bytes, stderr text, seconds). Fails the test on a non-zero
    exit, with both streams in the message."""
    t = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    secs = time.perf_counter() - t
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, (f"{cmd} exited {proc.returncode}\n--- stdout\n"
                                  f"{proc.stdout.decode(errors='replace')[-3000:]}\n"
                                  f"--- stderr\n{err[-3000:]}")
    return proc.stdout, err, secs


def make_venv(where, src):
    """A fresh venv at ``where`` (no system site-packages) with ``src`` pip-installed; returns
    its bin directory."""
    where = Path(where)
    run([sys.executable, "-m", "venv", where], clean_env(), timeout=300)
    bindir = where / "bin"
    run([bindir / "python", "-m", "pip", "install", "--quiet", src], clean_env(),
        timeout=INSTALL_TIMEOUT)
    return bindir


def openbench_parse(output):
    """(bench nodes, nps) the way OpenBench's client reads ``<engine> bench``: stdout+stderr
    decoded as ASCII, lines searched from the end, non-alphanumerics turned into spaces."""
    bench = nps = None
    for line in reversed(output.decode("ascii").strip().split("\n")):
        line = re.sub(r"[^a-zA-Z0-9 ]+", " ", line)
        m_nps = re.search(r"(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)", line, re.I)
        m_bench = re.search(r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)", line, re.I)
        if m_nps and nps is None:
            nps = int(re.search(r"\d+", m_nps.group()).group())
        if m_bench and bench is None:
            bench = int(re.search(r"\d+", m_bench.group()).group())
    return bench, nps


def check_bench(stdout, stderr=""):
    """Assert the OpenBench summary ends the output; return the node count."""
    lines = stdout.decode("ascii").strip().splitlines()
    assert re.fullmatch(r"Nodes searched: \d+", lines[-2]), lines[-3:]
    assert re.fullmatch(r"Nodes/second: \d+", lines[-1]), lines[-3:]
    nodes = int(lines[-2].split(":")[1])
    assert nodes > 0
    # OpenBench reads stdout and stderr together, as ASCII.
    bench, nps = openbench_parse(stdout + stderr.encode("ascii"))
    assert bench == nodes and nps == int(lines[-1].split(":")[1])
    return nodes


def check_version(stdout):
    text = stdout.decode().strip()
    m = VERSION_RE.fullmatch(text)
    assert m, text
    assert m.group(1) == VERSION
    return m.group(2)


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    return make_venv(base / "venv", copy_source(base / "src"))


BENCH_NODES = {}


def test_pip_install_version(venv_bin, tmp_path):
    env = clean_env(home=tmp_path / "home")
    out, _, _ = run([venv_bin / "uci-engine", "--version"], env)
    check_version(out)
    # the package came from the venv, not from the checkout
    out, _, _ = run([venv_bin / "python", "-c", "import uci_engine; print(uci_engine.__file__)"],
                    env, cwd=tmp_path)
    assert str(venv_bin.parent) in out.decode()


@pytest.fixture(scope="module")
def venv_home(tmp_path_factory):
    """One fresh HOME shared by the venv tests that compile, so they compile only once."""
    return tmp_path_factory.mktemp("venv-home")


def test_pip_install_first_start_loads_the_prebuilt_cache(venv_bin, tmp_path):
    """After ``pip install .`` the package holds the kernels compiled for this machine, and a
    first start on an empty per-user cache loads them: no compile announced, the marker in
    the user's cache, a legal move from the engine's own search (a depth-limited ``go`` waits
    for the kernels, so no fallback move can stand in)."""
    from uci_engine.startup import COLD_START_TEXT, FALLBACK_TEXT
    site = venv_bin.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    markers = list((site / "site-packages" / "uci_engine" / "prebuilt").rglob("warm.ok"))
    assert len(markers) == 1, markers
    home = tmp_path / "home"
    proc = subprocess.run([str(venv_bin / "uci-engine")], env=clean_env(home=home),
                          input="uci\nisready\nposition startpos\ngo depth 6\n",
                          capture_output=True, text=True, timeout=ENGINE_TIMEOUT)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and "readyok" in lines, proc.stdout[-2000:]
    assert f"info string {COLD_START_TEXT}" not in lines
    assert f"info string {FALLBACK_TEXT}" not in lines
    assert any(ln.startswith("info depth 6 ") for ln in lines), lines[-5:]
    best = lines[-1].split()[1]
    import chess
    assert chess.Move.from_uci(best) in chess.Board().legal_moves
    user = home / ".cache" / "uci_engine" / f"{VERSION}-{PYTAG}" / markers[0].parent.name
    assert (user / "warm.ok").read_text() == markers[0].read_text()


def test_pip_install_bench_default_depth(venv_bin, venv_home):
    """Plain ``uci-engine bench`` (default depth) on an empty per-user cache, as after a fresh
    install."""
    home = venv_home
    out, err, secs = run([venv_bin / "uci-engine", "bench"], clean_env(home=home))
    BENCH_NODES["venv"] = check_bench(out, err)
    # the compiled kernels went to the per-user cache under the fresh HOME
    assert list((home / ".cache" / "uci_engine" / f"{VERSION}-{PYTAG}").rglob("*.nbi"))


def test_openbench_make_launcher(venv_bin, tmp_path):
    """OpenBench's way: ``make -j EXE=<name>`` in a temporary checkout, move the file to its
    Engines/ folder, delete the checkout, then run ``./<name> bench`` there."""
    checkout = copy_source(tmp_path / "checkout", with_makefile=True)
    home = tmp_path / "home"
    # OpenBench's machine: a python with numba first on PATH (here the venv's)
    env = clean_env(home=home, path_prefix=venv_bin)
    out, err, _ = run(["make", "-j", "EXE=uci_engine-1234abcd"], env, cwd=checkout)
    text = out.decode() + err
    assert "warmup done" in text, text
    engines = tmp_path / "Engines"
    engines.mkdir()
    shutil.move(str(checkout / "uci_engine-1234abcd"), str(engines))
    shutil.rmtree(checkout)
    exe = engines / "uci_engine-1234abcd"
    assert os.access(exe, os.X_OK)
    head = exe.read_text().splitlines()[:6]
    assert any(str(venv_bin / "python") in line for line in head), head
    env = clean_env(home=home)  # the engine does not need the venv on PATH
    out, err, secs = run(["./uci_engine-1234abcd", "bench"], env, cwd=engines)
    nodes = check_bench(out, err)
    assert secs < OPENBENCH_BENCH_SECONDS, secs
    if "venv" in BENCH_NODES:
        assert nodes == BENCH_NODES["venv"]  # same code, same depth: same signature
    out, _, _ = run([exe, "--version"], env)
    check_version(out)


def test_make_fails_clearly_without_numba(tmp_path):
    """A python without numba is refused at build time, with the fix in the message."""
    bare = tmp_path / "bare"
    run([sys.executable, "-m", "venv", "--without-pip", bare], clean_env(), timeout=300)
    proc = subprocess.run(["make", "-C", ROOT, f"EXE={tmp_path / 'x'}",
                           f"PYTHON={bare / 'bin' / 'python'}", "WARMUP=0"],
                          env=clean_env(home=tmp_path / "home"), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode != 0
    assert "numba" in proc.stderr and "PYTHON=" in proc.stderr, proc.stderr
    assert not (tmp_path / "x").exists()


def test_pipx_install(tmp_path):
    """``pipx install .`` (pipx itself pip-installed into a throwaway venv)."""
    tools = tmp_path / "tools"
    run([sys.executable, "-m", "venv", tools], clean_env(), timeout=300)
    run([tools / "bin" / "python", "-m", "pip", "install", "--quiet", "pipx"], clean_env(),
        timeout=INSTALL_TIMEOUT)
    src = copy_source(tmp_path / "src")
    env = clean_env(home=tmp_path / "home")
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"),
               PIPX_MAN_DIR=str(tmp_path / "man"))
    run([tools / "bin" / "pipx", "install", src], env, timeout=INSTALL_TIMEOUT)
    out, _, _ = run([tmp_path / "bin" / "uci-engine", "--version"], env)
    check_version(out)



def _documented_commands():
    """``uci-engine ...`` lines of the ``sh`` code blocks in README.md, as argument lists; also
    the engine step of a ``&&`` chain (the newcomer's ``... && .venv/bin/uci-engine``), with its
    path dropped so that it runs as the installed ``uci-engine``."""
    doc = ROOT / "README.md"
    cmds, in_sh = [], False
    for line in doc.read_text().splitlines():
        if line.startswith("```"):
            in_sh = line.strip() == "```sh"
            continue
        if not in_sh:
            continue
        if re.match(r"uci-engine(\s|$)", line):  # not uci-engine-match
            cmds.append(shlex.split(line, comments=True))
        elif "&&" in line:
            for step in line.split("&&"):
                argv = shlex.split(step, comments=True)
                if argv and Path(argv[0]).name == "uci-engine":
                    cmds.append(["uci-engine"] + argv[1:])
    return doc, cmds


def test_documented_cli_commands(venv_bin, venv_home):
    """Every ``uci-engine ...`` command line of the README's shell blocks runs and exits 0
    (the UCI forms get ``uci``, ``isready`` and ``quit`` on stdin)."""
    doc, cmds = _documented_commands()
    assert len(cmds) >= 8, (doc, cmds)
    env = clean_env(home=venv_home)
    for argv in cmds:
        proc = subprocess.run([str(venv_bin / "uci-engine")] + argv[1:], env=env,
                              input=b"uci\nisready\nquit\n", capture_output=True,
                              timeout=ENGINE_TIMEOUT)
        out = proc.stdout.decode(errors="replace")
        assert proc.returncode == 0, (argv, out[-2000:], proc.stderr.decode()[-2000:])
        # the subcommand as the engine's own parser reads it (option values are not one)
        from uci_engine.cli import _build_parser
        sub = [_build_parser().parse_args(argv[1:]).command]
        if "bench" in sub:
            check_bench(proc.stdout, proc.stderr.decode("ascii"))
        elif "perft" in sub:
            assert "Nodes searched: " in out, out[-500:]
        elif "--version" in argv:
            sliders = check_version(proc.stdout)
            if "--sliders" in argv:
                assert sliders == argv[argv.index("--sliders") + 1]
        elif "warmup" in sub:
            assert out.startswith("warmup done"), out
        elif "datagen" in sub:
            # a rerun of the same command resumes: it may find every game already played
            assert re.search(r"^datagen: \d+ games, \d+ positions in ", out, re.M), out
        else:  # UCI
            assert "uciok" in out and "readyok" in out, out[-2000:]
