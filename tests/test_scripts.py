"""The scripts in scripts/ use the installed package: none patches ``sys.path`` or imports a
sibling script, and each starts (``--help``) from outside the repository with no PYTHONPATH."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parent.parent / "scripts").glob("*.py"))


def _imported_modules(path):
    """Top-level names of every module ``path`` imports (absolute imports)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_uses_the_installed_package(script, tmp_path):
    assert "sys.path" not in script.read_text()
    assert not _imported_modules(script) & {p.stem for p in SCRIPTS}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "usage" in proc.stdout.lower(), proc.stderr
