"""Engine facade (plain Python): owns the position history, TT, histories and search control.

Import only after :func:`uci_engine.backend.select`. The UCI layer (``uci.py``) parses and
formats; :class:`Engine` holds the state and combines one part per concern:

* :mod:`.game`: the position history, moves in UCI text, repetitions, perft;
* :mod:`.driver`: iterative deepening with aspiration windows and MultiPV over the recursive
  ``negamax`` kernel (:mod:`uci_engine.kernels.search`, which searches the root itself,
  restricted to ``ctl[ROOT_MOVES]`` for searchmoves and MultiPV), reported through a callback;
* :mod:`.smp`: Lazy SMP helper threads and their vote;
* :mod:`.timing`: time limits, stop rules and timers;
* :mod:`.roottb`: tablebase filtering of the root moves.
"""
import random

import numpy as np

from .. import params as SP
from .. import strength
from ..fen import STARTPOS
from ..kernels import nnue as N
from ..kernels import position as P
from ..kernels import state as SS
from ..kernels import static_eval as SE
from ..kernels import tt as TT
from ..nnue_file import DEFAULT_NET, USE_NNUE_DEFAULT, find_net, load_net, random_net
from ..options import MAX_THREADS  # noqa: F401  (re-exported: the Threads option's bound)
from ..tbfiles import NO_TABLES
from .driver import SearchDriver
from .game import HISTORY_ROWS, GameState
from .roottb import TB_WIN, RootTablebases  # noqa: F401  (TB_WIN re-exported)
from .smp import LazySmp
from .timing import StopControl


class Engine(GameState, SearchDriver, LazySmp, StopControl, RootTablebases):
    """Position, transposition table and search for one UCI session.

    ``hash_mib`` sizes the TT in MiB. The engine starts with the shipped net
    (:data:`uci_engine.nnue_file.DEFAULT_NET`) and evaluates with it when
    :data:`uci_engine.nnue_file.USE_NNUE_DEFAULT` is set; when that net cannot be loaded it
    evaluates with the hand-crafted evaluation and ``default_net_error`` (str, else None) says
    why. Methods raise ``ValueError`` on bad input and then leave the previous state
    untouched."""

    def __init__(self, hash_mib=16):
        self.st, self.mb = P.new_stack(HISTORY_ROWS + SS.MAX_PLY + 16)
        self.root = 0
        self.chess960 = False
        self.ctl = SS.new_control()
        self.hist = SS.new_histories()
        self.ss = SS.new_stack()
        self.mv = SS.new_move_buffers()
        self.helpers = []
        self.params = SP.pack()               # search parameters (shared by every thread)
        self.limit_strength = False           # UCI_LimitStrength
        self.uci_elo = strength.ELO_DEFAULT   # UCI_Elo
        self.skill_rng = random.Random()
        self._game = None                     # (fen, chess960), moves of the last set_position
        self._timer = None                    # StopTimer, started on the first timed search
        self._soft_timer = None               # StopTimer of the (scaled) soft limit
        self.use_nnue = False                 # Use NNUE
        try:
            net = load_net(find_net(DEFAULT_NET))
            self.default_net_error = None
        except (OSError, ValueError) as exc:
            # an install without the shipped net still plays with the hand-crafted evaluation;
            # until an EvalFile loads, the NNUE is a zero net (every position scores its bias)
            net = random_net(8, seed=0, ft_range=0.0, out_range=0.0)
            self.default_net_error = f"{DEFAULT_NET}: {exc}"
        self.set_net(net)
        # set before the TT exists (set_hash below), so nothing needs clearing
        self.use_nnue = USE_NNUE_DEFAULT and self.default_net_error is None
        self.set_hash(hash_mib)
        self.set_position(STARTPOS, [])
        self.tb_hits = 0
        self._tb_scores = None
        self.tb_array = NO_TABLES             # the WDL tables the search probes (driver.py)
        self._tb_held = None                  # ... and their owner, kept while it searches
        self.tablebases = None                # tables for bench (uci.configured_engine)

    def set_net(self, net):
        """Evaluate with ``net`` (a :class:`uci_engine.nnue_file.Net`) while ``use_nnue`` is
        on: its packed weights and parameters go to the kernels, every thread gets accumulators
        of its hidden size and an empty Finny table
        (:func:`uci_engine.kernels.nnue.new_search_accumulators`). The TT and histories are
        cleared when the NNUE is in use (their static evals came from the previous net)."""
        self.net = net
        self.net_packed = net.packed()
        self.net_params = net.params
        self.acc = N.new_search_accumulators(self.net_packed)
        for w in self.helpers:
            w.acc = N.new_search_accumulators(self.net_packed)
        if self.use_nnue and hasattr(self, "tt"):
            self.clear()

    def set_use_nnue(self, on):
        """Evaluate with the loaded net (``on`` True) or the hand-crafted evaluation; a change
        clears the TT and histories (their static evals came from the other evaluation)."""
        on = bool(on)
        if on != self.use_nnue:
            self.use_nnue = on
            self.clear()

    def set_hash(self, mib):
        """Resize (and clear) the TT to ``mib`` MiB (kept in ``hash_mib``)."""
        self.hash_mib = mib
        self.tt = TT.new_tt(mib)

    def clear(self):
        """Forget TT contents and move-ordering history (``ucinewgame``, ``Clear Hash``)."""
        self.tt[:] = 0
        for w in [self] + self.helpers:
            w.ctl[:] = 0
            w.hist[:] = 0
            w.ss[:] = 0

    def static_eval(self):
        """Static evaluation (int, centipawns, side to move's view) of the current position by
        the evaluation in use (NNUE or hand-crafted)."""
        acc = self._root_acc(self.st, self.root, self.acc)
        return int(SE.static_eval(self.st, self.mb, np.int64(self.root), self.ctl, acc,
                                  np.int64(0), self.net_packed, self.net_params))

    def _root_acc(self, st, root, acc):
        """The ``acc`` argument of the kernels for a search from row ``root`` of ``st``: the
        thread's ``(stack, cache, pieces, pending)`` with the stack's row 0 refreshed for the
        root (and marked computed) while the NNUE is in use, else :data:`search.HCE_ACC` (the
        hand-crafted search, no NNUE code)."""
        if not self.use_nnue:
            return SE.HCE_ACC
        pk = self.net_packed
        N.nnue_refresh(st, np.int64(root), pk, acc[0], np.int64(0), self.net_params)
        acc[3][0] = N.ACC_CLEAN
        return acc

    def hashfull(self):
        return int(TT.hashfull(self.tt, self.ctl[SS.AGE]))
