"""The README's match commands: cutechess-cli and our runner take the same arguments, and ours
accepts them; the README's ladder listing runs; the README names only scripts and commands that
exist, and every console script starts. (The documented match itself is a 5000-game
SPRT; tests/test_match_faults.py plays real short matches.)"""
import importlib.metadata
import re
import shlex
import subprocess
import sys
from pathlib import Path

from uci_engine.tools.args import parse_args

ROOT = Path(__file__).resolve().parent.parent


def _sh_commands():
    """Commands of the README's ``sh`` blocks, with ``\\`` continuations joined."""
    cmds, in_sh, cur = [], False, ""
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            in_sh = line.strip() == "```sh"
            continue
        if not in_sh or (not cur and (not line.strip() or line.lstrip().startswith("#"))):
            continue
        cur += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            cmds.append(shlex.split(cur, comments=True))
            cur = ""
    return cmds


def test_cutechess_and_runner_lines_are_the_same_match():
    cmds = _sh_commands()
    ours = [c for c in cmds if c and c[0] == "uci-engine-match"]
    theirs = [c for c in cmds if c and c[0] == "cutechess-cli"]
    assert ours and theirs
    assert any(o[1:] == t[1:] for o in ours for t in theirs)


def test_runner_accepts_every_documented_command_line(tmp_path, monkeypatch):
    # the example compares against a previous build in ./old/bin and reads the book from
    # tests/data: provide both (the parser checks that engines and files exist)
    for exe in (tmp_path / "old" / "bin" / "uci-engine", tmp_path / "bin" / "uci-engine"):
        exe.parent.mkdir(parents=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{__import__('os').environ['PATH']}")
    for cmd in _sh_commands():
        if cmd and cmd[0] == "uci-engine-match":
            cfg = parse_args(cmd[1:])
            assert cfg.total_games() > 0
            assert len(cfg.engines) == 2


def _console_scripts():
    """Names of the installed distribution's console scripts (pyproject's [project.scripts])."""
    dist = importlib.metadata.distribution("uci_engine")
    return {ep.name for ep in dist.entry_points if ep.group == "console_scripts"}


def _installed(name):
    """Path of console script ``name`` as pip installed it next to this interpreter."""
    exe = Path(sys.executable).parent / name
    assert exe.exists(), f"{name} is not installed next to {sys.executable}: pip install -e ."
    return exe


def test_documented_ladder_listing_runs():
    cmds = [c for c in _sh_commands() if c and c[0] == "uci-engine-ladder"]
    assert any("--list" in c for c in cmds), "README: no `uci-engine-ladder --list` example"
    for c in cmds:
        if "--list" in c:
            proc = subprocess.run([_installed(c[0])] + c[1:], cwd=ROOT, capture_output=True,
                                  text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
            assert re.search(r"stockfish|fairymax|installed|opponent", proc.stdout, re.I)


def test_readme_names_only_existing_scripts_and_console_scripts():
    text = (ROOT / "README.md").read_text()
    missing = sorted({m for m in re.findall(r"scripts/\w+\.py", text) if not (ROOT / m).exists()})
    assert not missing, f"README names scripts that do not exist: {missing}"
    programs = {c[0] for c in _sh_commands() if c and c[0].startswith("uci-engine")}
    unknown = sorted(programs - _console_scripts())
    assert not unknown, f"README runs commands pyproject.toml does not install: {unknown}"


def test_every_console_script_answers_help():
    for name in _console_scripts():
        proc = subprocess.run([_installed(name), "--help"], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0 and "usage" in proc.stdout.lower(), (name, proc.stderr)
