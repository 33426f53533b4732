"""Load or compile the kernels the engine calls, so the first real command is fast.

On an empty cache (first start) the kernels ``negamax`` calls are compiled in a helper process
(``python -m uci_engine.warmup``; Numba's compiler holds the GIL, so a thread would not help)
while the engine process compiles move generation (:func:`compile_movegen`) and position
set-up; both write the same per-backend cache directory, whose writes are atomic renames, and
``negamax`` then loads its callees from it instead of compiling them. Only ``negamax`` itself
is compiled alone (it links and re-optimizes its callees' code). More helper processes were
tried: each repeats Numba's start-up and the compilation of callees shared between groups,
which cost more CPU than they saved on two cores.

Nothing that a search does not need is compiled before ``readyok``: the slider tables are built
in numpy, perft compiles on the first ``go perft`` and the evaluation breakdown on the first
``eval``; ``uci-engine warmup`` compiles everything.
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
    """On a cold cache (no marker in ``$NUMBA_CACHE_DIR``), start the helper process that
    compiles the search's leaf kernels (:func:`_leaf_jobs`); returns its ``Popen``, or None on
    a warm cache. Call after backend selection."""
    if not is_cold():
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "uci_engine.warmup"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _movegen_args():
    from .kernels import position as P
    st, _ = P.new_stack(8)
    return st, np.int64(0), np.zeros(256, dtype=np.int32)


def compile_movegen():
    """Compile ``generate_legal`` and ``generate_noisy`` for the engine's argument types. The
    engine process does this first on a cold start (then position set-up) while the helper
    compiles the rest: both generators share one compiled ``_generate``, so they belong to the
    same process. (On a warm cache, skip it: a cached ``negamax`` needs no callee loaded.)"""
    from numba import typeof
    from .kernels.movegen import generate_legal, generate_noisy
    sig = tuple(typeof(a) for a in _movegen_args())
    generate_legal.compile(sig)
    generate_noisy.compile(sig)


def _leaf_jobs():
    """The ``(dispatcher, args)`` pairs the helper compiles: the kernels ``negamax`` calls
    (except move generation, :func:`compile_movegen`), with arguments of the types it passes
    (arrays shaped like the engine's), in the order ``negamax`` calls them. Private helpers of
    the search module are looked up by name and skipped if renamed: a kernel missing here is
    only compiled later by the engine itself."""
    from .kernels import evaluate as E
    from .kernels import position as P
    from .kernels import search as S
    st, mb = P.new_stack(8)
    mv = S.new_move_buffers()
    heur = S.new_heur()
    tt, _ = S.new_tt(1)
    i = np.int64(0)
    key = st[0, P.KEY]                                   # uint64

    def fn(name):
        return getattr(S, name, None)
    return [
        (S._in_check, (st, i, i)),
        (fn("_check_stop"), (heur,)),
        (E.evaluate, (st, i)),
        (S.is_draw, (st, i, i)),
        (S.tt_probe, (tt, heur, key)),
        (fn("_tt_move"), (i,)), (fn("_tt_score"), (i,)), (fn("_tt_bound"), (i,)),
        (fn("_tt_eval"), (i,)), (fn("_tt_depth"), (i,)), (fn("score_from_tt"), (i, i)),
        (S._score_moves, (st, mb, heur, mv, i, i, i, i)),
        (fn("_pick"), (mv, i, i, i)),
        (P.make_move, (st, mb, i, i)),
        (P.make_null_move, (st, mb, i)),
        (S.see, (st, mb, heur, i, i)),
        (fn("_update_history"), (heur, i, i)),
        (fn("score_to_tt"), (i, i)),
        (S.tt_store, (tt, heur, key, i, i, i, i, i)),
        (S.hashfull, (tt, heur)),
    ]


def _compile_leaves():
    """Compile (without running) the kernels of :func:`_leaf_jobs`; a kernel whose signature
    no longer matches is skipped (the engine compiles it when it needs it)."""
    from numba import typeof
    for fn, args in _leaf_jobs():
        if fn is None:
            continue
        try:
            fn.compile(tuple(typeof(a) for a in args))
        except Exception:  # noqa: BLE001 - best effort: a typing error only costs time
            pass


def warm_up(engine, perft=True):
    """Run each kernel once on small inputs through ``engine`` (an
    :class:`uci_engine.engine.Engine`), then clear its TT and heuristics, and mark the cache
    warm.

    ``perft=False`` leaves out what a game does not need, the perft kernels and the evaluation
    breakdown (``eval_terms``): the UCI loop answers ``readyok`` once the search is compiled,
    and ``go perft`` / ``eval`` compile theirs on first use. ``uci-engine warmup`` (``perft=True``)
    compiles everything."""
    engine.legal_moves()
    engine.search(Limits(depth=3))
    engine.static_eval()
    engine.hashfull()
    if perft:
        from .kernels.evaluate import format_eval
        engine.perft(2)
        engine.perft_divide(2)
        format_eval(engine.st, engine.root)
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
