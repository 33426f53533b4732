"""Load or compile the kernels the engine calls, so the first real command is fast.

On an empty cache (first start) the search's leaf kernels are compiled in a helper process
(``python -m uci_engine.warmup``; Numba's compiler holds the GIL, so a thread would not help)
while the engine process compiles position set-up and move generation; both write the same
per-backend cache directory, whose writes are atomic renames, and ``negamax`` then loads the
leaves from it. The helper compiles by signature (``dispatcher.compile``), without running
anything. ``negamax`` itself is compiled alone: it links and re-optimizes its callees' code.
Splitting the work further was measured and did not pay on two cores: a second helper repeats
Numba's start-up and every callee shared between groups.

Nothing that a search does not need is compiled before ``readyok``: the slider tables are built
in numpy, perft compiles on the first ``go perft`` and the evaluation breakdown on the first
``eval``; ``uci-engine warmup`` compiles everything.
"""
import os
import subprocess
import sys

import numpy as np

from .numba_cache import is_cold, mark_warm
from .timeman import Limits

def start_leaf_compiler():
    """On a cold cache (no marker in ``$NUMBA_CACHE_DIR``), start the helper process that
    compiles the search's leaf kernels (:func:`_leaf_jobs`); returns its ``Popen``, or None on
    a warm cache. Call after backend selection."""
    if not is_cold():
        return None
    argv, cwd = helper_command()
    try:
        return subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def helper_command():
    """``(argv, cwd)`` of the leaf-compiler helper process. ``python -m`` puts its working
    directory first on ``sys.path``, so the helper runs in the directory that holds this
    package: started from a source checkout (a shell in another version's project root), it
    would otherwise import that tree's ``uci_engine``, key its cache on those kernels and
    compile them into a directory the engine never reads."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [sys.executable, "-m", "uci_engine.warmup"], os.path.dirname(here)


def _leaf_jobs():
    """The ``(dispatcher, args)`` pairs the helper compiles: the leaf kernels of ``negamax``
    (check test, evaluation, draw and TT helpers, SEE, TT store, hashfull) with arguments of
    the types it passes (arrays shaped like the engine's), in the order ``negamax`` calls
    them. Shorter to compile (4 s of CPU here) than what the engine process compiles meanwhile
    (position set-up and legal-move generation), so the engine does not wait for it, and
    neither compiles a kernel twice.

    A kernel loaded from the cache reaches ``negamax`` as machine code, which LLVM cannot
    inline; one compiled in the same process comes with its IR and can be. That matters for
    the move scorer ``movepick.score_moves`` only, so it is left to the engine process: loaded from
    the helper's cache it made the whole search about 10 % slower (1.59-1.65 M against
    1.76-1.85 M nps, 12 bench positions at 400k nodes, alternated runs); all the other
    leaves loaded from the cache together measured at the in-process speed.

    The evaluation's leaves are those of the default one
    (:data:`uci_engine.nnue_file.USE_NNUE_DEFAULT`): the NNUE's static eval, child
    accumulator and root refresh, or the hand-crafted ``evaluate``."""
    from .kernels import evaluate as E
    from .kernels import nnue as N
    from .kernels import position as P
    from .kernels import draw as D
    from .kernels import search as S
    from .kernels import see as SEE
    from .kernels import state as SS
    from .kernels import static_eval as SE
    from .kernels import tt as TT
    from .kernels.nnue_consts import PACKED_ROWS, PARAMS_LEN, P_OUT_BUCKETS
    from .nnue_file import USE_NNUE_DEFAULT
    st, mb = P.new_stack(8)
    mv = SS.new_move_buffers()
    ctl = SS.new_control()
    ss = SS.new_stack()
    tt = TT.new_tt(1)
    i = np.int64(0)
    key = st[0, P.KEY]                                   # uint64
    if USE_NNUE_DEFAULT:
        net = np.zeros((PACKED_ROWS, 8), dtype=np.int16)
        acc = N.new_search_accumulators(net, 2)
        params = np.zeros(PARAMS_LEN, dtype=np.int64)
        params[P_OUT_BUCKETS] = 1
        evaluation = [(SE.nnue_static_eval, (st, mb, i, ctl, acc, i, net, params)),
                      (SE.nnue_materialize, (st, mb, i, acc, i, net, params)),
                      (SE.nnue_push_move, (acc, i, i)),
                      (N.nnue_refresh, (st, i, net, acc[0], i, params))]
    else:
        evaluation = [(E.evaluate, (st, i))]
    return [
        (S.in_check_of, (st, i, i)),
        *evaluation,
        (D.is_draw, (st, i, i)),
        (TT.tt_probe, (tt, key)),
        (SEE.see, (st, mb, ss, i, i)),
        (TT.tt_store, (tt, key, i, i, i, i, i, i)),
        (TT.hashfull, (tt, i)),
    ]


def _compile_leaves():
    """Compile (without running) the kernels of :func:`_leaf_jobs`; a kernel whose signature
    no longer matches is skipped (the engine compiles it when it needs it)."""
    from numba import typeof
    for fn, args in _leaf_jobs():
        try:
            fn.compile(tuple(typeof(a) for a in args))
        except Exception:  # noqa: BLE001 - best effort: a typing error only costs time
            pass


def warm_up(engine, perft=True):
    """Run each kernel once on small inputs through ``engine`` (an
    :class:`uci_engine.engine.Engine`), then clear its TT and heuristics, and mark the cache
    warm.

    ``perft=False`` compiles the search of the evaluation ``engine`` uses (the NNUE by default,
    :data:`uci_engine.nnue_file.USE_NNUE_DEFAULT`) and leaves out what a game does not need by
    default, the perft kernels, the hand-crafted evaluation breakdown (``eval_terms``), the
    search of the other evaluation and the Syzygy probers (:func:`warm_tablebases`, which
    ``SyzygyPath`` loads in the background): the UCI loop answers ``readyok`` once the search is
    compiled, and ``go perft``, ``eval`` and the first search after ``Use NNUE`` changes
    compile theirs on first use. ``uci-engine warmup`` (``perft=True``) compiles
    everything."""
    engine.legal_moves()
    engine.search(Limits(depth=3))
    engine.static_eval()
    engine.hashfull()
    if perft:
        from .kernels.evaluate import format_eval
        engine.perft(2)
        engine.perft_divide(2)
        format_eval(engine.st, engine.root)
        was = engine.use_nnue
        engine.set_use_nnue(not was)                 # the other evaluation's search
        engine.search(Limits(depth=2))
        engine.static_eval()
        engine.set_use_nnue(was)
        warm_tablebases()
    engine.clear()
    mark_warm()


def warm_tablebases():
    """Compile or load the Syzygy probers (:mod:`.kernels.tbprobe`, :mod:`.kernels.tbdtz`) by
    probing KvK with no tables: ``uci-engine warmup`` (so the prebuilt cache has them) and
    :meth:`uci_engine.syzygy.Tablebases.load`, where a cold cache costs about 18 s of CPU on
    the 2-core host (38 s of wall time beside a running match)."""
    from .fen import parse_fen
    from .kernels import position as P
    from .kernels import state as SS
    from .kernels import tbdtz, tbprobe
    from .tbfiles import NO_TABLES
    st, mb = P.new_stack(32)
    parse_fen("8/8/8/8/8/8/8/K1k5 w - - 0 1", st, mb, 0)
    mv, pos, none = SS.new_move_buffers(), np.zeros(8, dtype=np.int64), NO_TABLES
    tbprobe.probe_wdl(none, st, mb, np.int64(0), mv, np.int64(0), pos)
    tbdtz.probe_dtz(none, none, st, mb, np.int64(0), mv, np.int64(0), pos)


if __name__ == "__main__":
    from . import backend
    backend.select(os.environ.get("UCI_ENGINE_ACTIVE_SLIDERS", "magic"))
    _compile_leaves()
