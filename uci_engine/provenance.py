"""Provenance of fitted constants: which net, which commit, which build (plain Python).

The calibration scripts (scripts/calibrate_elo.py, scripts/fit_wdl.py) write generated
modules (:mod:`uci_engine.strength_params`, :mod:`uci_engine.wdl_params`) whose ``RECORD``
dict says what the constants were measured with; the tests compare that record with the engine
as shipped (tests/test_calibration_records.py), so a new default net without a new calibration
fails the test suite.
"""
import datetime
import hashlib
import os
import pprint
import subprocess

from .nnue_file import DEFAULT_NET, find_net

#: bytes read at a time when hashing a file
_CHUNK = 1 << 20


def file_sha256(path):
    """Hex SHA-256 digest (str, 64 characters) of the file at ``path``."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def net_sha256(name=DEFAULT_NET):
    """SHA-256 (str) of net file ``name`` as the engine finds it (:func:`find_net`: a path, or
    a file of that name among the shipped nets); None when there is no such file."""
    path = find_net(name)
    return file_sha256(path) if os.path.isfile(path) else None


def git_commit(short=True):
    """Commit (str) of the source tree this module is in, with ``-dirty`` when the working tree
    has changes; ``"unknown"`` outside a git checkout."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        rev = subprocess.run(["git", "rev-parse", "--short" if short else "--verify", "HEAD"],
                             capture_output=True, text=True, cwd=root, timeout=30)
        if rev.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, cwd=root, timeout=30)
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def utc_now():
    """The current UTC time (str, ISO 8601 to the second, ``Z`` suffix)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_generated_module(path, docstring, record, constants):
    """Write a generated Python module at ``path``: ``docstring``, then ``RECORD = record``
    (a dict of plain literals, pretty-printed) and one ``NAME = value`` line per item of
    ``constants`` (a dict, in order). The module is valid Python that imports nothing."""
    body = ['"""' + docstring.rstrip().replace('"""', "'''") + '\n"""\n',
            "RECORD = " + pprint.pformat(record, width=96, sort_dicts=False) + "\n"]
    body += [f"{name} = {value!r}\n" for name, value in constants.items()]
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(body[:2]) + "\n" + "".join(body[2:]))
    os.replace(tmp, path)
