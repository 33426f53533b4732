"""Load or compile the kernels the engine calls, so the first real command is fast.

On an empty cache the search's leaf kernels are compiled in a second process while this one
compiles move generation (Numba's compiler holds the GIL, so a thread would not help); both
write the same per-backend cache directory, whose writes are atomic renames, and the search
kernel then loads the leaves from it. ``python -m uci_engine.warmup`` is that second process.
"""
import os
import subprocess
import sys

import numpy as np

from .timeman import Limits

MARKER = "warm.ok"


def _marker_path():
    return os.path.join(os.environ.get("NUMBA_CACHE_DIR", ""), MARKER)


def is_cold():
    """True if the kernels of this cache directory (``$NUMBA_CACHE_DIR``, set by
    :func:`uci_engine.backend.select`) have not been compiled yet: no warm-up marker."""
    return bool(os.environ.get("NUMBA_CACHE_DIR")) and not os.path.exists(_marker_path())


def start_leaf_compiler():
    """On a cold cache (no marker in ``$NUMBA_CACHE_DIR``), start a process compiling the
    search's leaf kernels; returns the ``Popen`` or None. Call after backend selection."""
    if not is_cold():
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "uci_engine.warmup"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _compile_leaves():
    """Call each leaf kernel of ``negamax`` once with the argument types negamax uses."""
    from .fen import STARTPOS, parse_fen
    from .kernels import evaluate as E
    from .kernels import position as P
    from .kernels import search as S
    st, mb = P.new_stack(8)
    parse_fen(STARTPOS, st, mb)
    mv = S.new_move_buffers()
    heur = S.new_heur()
    tt, mask = S.new_tt(1)
    heur[S.TT_MASK] = mask
    row = np.int64(0)
    m = np.int64(12 | (28 << 6))                        # e2e4
    E.evaluate(st, row)
    S.see(st, mb, heur, row, m)
    S._score_moves(st, mb, heur, mv, row, row, np.int64(0), np.int64(0))
    S.is_draw(st, row, np.int64(0))
    S.tt_probe(tt, heur, st[0, P.KEY])
    S.tt_store(tt, heur, st[0, P.KEY], np.int64(0), np.int64(0), np.int64(0), np.int64(1),
               np.int64(1))
    S.hashfull(tt, heur)


def warm_up(engine, perft=True):
    """Run each kernel once on small inputs through ``engine`` (an
    :class:`uci_engine.engine.Engine`), then clear its TT and heuristics, and mark the cache
    warm.

    ``perft=False`` leaves out the perft kernels: the UCI loop answers ``readyok`` once what a
    game needs is compiled, and ``go perft`` compiles perft on first use. ``uci-engine warmup``
    compiles everything."""
    engine.legal_moves()
    engine.search(Limits(depth=3))
    engine.static_eval()
    engine.hashfull()
    if perft:
        engine.perft(2)
        engine.perft_divide(2)
    engine.clear()
    try:
        with open(_marker_path(), "w") as f:
            f.write("ok\n")
    except OSError:
        pass


if __name__ == "__main__":
    from . import backend
    backend.select(os.environ.get("UCI_ENGINE_ACTIVE_SLIDERS", "magic"))
    _compile_leaves()
