"""Test-process setup: fix the slider backend once, before any test module imports kernels.

``uci_engine.backend.select`` binds the backend for the whole process (compiled callers freeze
the slider functions in), so it has to run here, at conftest import time, which pytest does
before it imports the test modules. ``UCI_ENGINE_SLIDERS`` (pext, magic, black, rayscan or auto) picks
the backend for a run, e.g. ``UCI_ENGINE_SLIDERS=rayscan pytest``; without it the CPU-based
choice of :func:`uci_engine.cpu.choose` is used (pext with fast BMI2, else magic). A requested
``pext`` on a CPU without BMI2 falls back to magic with a warning instead of crashing the JIT.

Test modules that call ``backend.select`` themselves get ``RuntimeError`` for a different name
and keep this choice (see tests/test_evaluate.py).
"""
import importlib.util
import warnings
from pathlib import Path

import pytest

from uci_engine import backend

if backend.selected() is None:
    # reads UCI_ENGINE_SLIDERS itself (an unknown name raises ValueError), else detects the CPU
    SLIDERS, SLIDERS_TEXT, _warning = backend.choose_and_select()
    if _warning:
        warnings.warn(_warning)
else:  # pragma: no cover - only if something selected before conftest was imported
    SLIDERS = SLIDERS_TEXT = backend.selected()


#: the repository's scripts/ (not a package: the tests load a script by its path)
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name):
    """``scripts/<name>.py`` loaded as a fresh module named ``name`` (its ``__main__`` guard
    does not run). Raises FileNotFoundError for a missing script."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def search_node(e, depth, alpha=None, beta=None, ply=0, params=None):
    """A direct call of the search kernel (``uci_engine.kernels.search.negamax``) on the current
    position of ``e`` (a ``uci_engine.engine.Engine``; its row ``e.root``) as a node ``ply``
    plies below the root (``ctl[ROOT_ROW]`` is set to ``e.root - ply``; 0 is the root itself),
    ``depth`` plies deep, with the window (``alpha``, ``beta``) in centipawns (default: the full
    window), the hand-crafted evaluation and ``params`` (int64[PARAMS_LEN], default
    ``e.params``). Returns the score (int, centipawns); the nodes it visited are added to
    ``e.ctl[SS.NODES]``."""
    import numpy as np
    from uci_engine.kernels import search as S
    from uci_engine.kernels import state as SS
    from uci_engine.kernels import static_eval as SE
    alpha = -SS.INF if alpha is None else alpha
    beta = SS.INF if beta is None else beta
    e.ctl[SS.ROOT_ROW] = e.root - ply
    return int(S.negamax(e.st, e.mb, e.tt, e.ctl, e.hist, e.ss, e.mv, SE.HCE_ACC, e.net_packed,
                         e.net_params, e.params if params is None else params, e.tb_array,
                         np.int64(e.root), np.int64(depth), np.int64(alpha), np.int64(beta),
                         S.ZERO))


def pytest_report_header(config):
    return f"uci_engine sliders: {SLIDERS_TEXT}"


@pytest.fixture(scope="session")
def new_stack():
    """Factory for fresh (st, mb) stacks: ``new_stack(rows=64)`` returns a zeroed
    uint64[rows, STATE_LEN] state stack and an int8[rows, 64] mailbox of NO_PIECE. Each call
    returns new arrays, so tests never share rows."""
    from uci_engine.kernels import position as P

    def make(rows=64):
        return P.new_stack(rows)
    return make


def gated_uci_session(monkeypatch, cold):
    """A UCI session (``uci_engine.uci.UCI`` writing to a StringIO) whose kernel loading waits
    for the returned ``gate`` event, with the cache taken as cold or warm (``cold``) and no
    leaf-compiler helper or compile lock; ``arrived`` is set once the loader has built the
    engine object and waits there. Returns ``(session, out, gate, arrived)``."""
    import contextlib
    import io
    import threading

    from uci_engine import numba_cache, warmup
    from uci_engine import uci as uci_mod
    gate, arrived = threading.Event(), threading.Event()
    real = warmup.warm_up

    def slow_warm_up(engine, perft=True):
        arrived.set()
        assert gate.wait(60)
        real(engine, perft)
    monkeypatch.setattr(numba_cache, "is_cold", lambda: cold)
    monkeypatch.setattr(warmup, "start_leaf_compiler", lambda: None)
    monkeypatch.setattr(numba_cache, "compile_lock", contextlib.nullcontext)
    monkeypatch.setattr(warmup, "warm_up", slow_warm_up)
    out = io.StringIO()
    return uci_mod.UCI(out=out), out, gate, arrived
