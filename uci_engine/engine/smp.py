"""Lazy SMP (chessprogramming wiki "Lazy SMP"): helper threads search the same root with their
own stacks and histories, sharing the TT, and the best thread is chosen by Stockfish's vote. Part
of :class:`uci_engine.engine.Engine`."""
import threading

from ..kernels import nnue as N
from ..kernels import position as P
from ..kernels import state as SS
from ..options import MAX_THREADS

#: helper k starts iterative deepening at depth 1 + k % HELPER_DEPTH_STAGGER, so helpers do not
#: all search the same depth as the main thread (a light form of Stockfish's old skip blocks)
HELPER_DEPTH_STAGGER = 2
#: vote weight offset of Stockfish's get_best_thread: (score - min score + 14) * depth
VOTE_SCORE_OFFSET = 14


def _new_search(ctl, ss, age, node_limit):
    """Reset a thread's control block ``ctl`` and search stack ``ss`` for a new search: stop
    flag, counters, root best move and killers cleared; TT generation ``age``; node limit
    ``node_limit`` (0 = none)."""
    ctl[SS.STOP] = 0
    ctl[SS.NODES] = 0
    ctl[SS.TB_HITS] = 0
    ctl[SS.SELDEPTH] = 0
    ctl[SS.BEST_MOVE] = 0
    ctl[SS.AGE] = age
    ss[SS.KILLERS:SS.KILLERS + 2 * SS.MAX_PLY] = 0
    ss[SS.EXCLUDED:SS.EXCLUDED + SS.MAX_PLY + 4] = 0
    ctl[SS.NODE_LIMIT] = node_limit
    ctl[SS.SOFT_STOP] = 0


class SearchThread:
    """The private search state of one Lazy SMP thread: position rows (``st``, ``mb``, a copy of
    the game history), the control block ``ctl``, histories ``hist``, search stack ``ss`` and
    move buffers ``mv`` (:mod:`uci_engine.kernels.state`), the last completed iteration
    ``(depth, score, pv)``, and its NNUE accumulator stack and Finny table ``acc``
    (:func:`uci_engine.kernels.nnue.new_search_accumulators` of the packed ``net``). All
    threads share the engine's TT and net."""

    def __init__(self, rows, net):
        self.acc = N.new_search_accumulators(net)
        self.st, self.mb = P.new_stack(rows)
        self.ctl = SS.new_control()
        self.hist = SS.new_histories()
        self.ss = SS.new_stack()
        self.mv = SS.new_move_buffers()
        self.root = 0
        self.completed = None
        self.thread = None


class LazySmp:
    """Threads and the vote (a mixin of :class:`uci_engine.engine.Engine`)."""

    @property
    def threads(self):
        """Search threads (int): the main thread plus the Lazy SMP helpers."""
        return 1 + len(self.helpers)

    def set_threads(self, n):
        """Use ``n`` (1 .. MAX_THREADS) search threads (Lazy SMP, chessprogramming wiki "Lazy
        SMP"): helpers search the same root in Python threads running the ``nogil`` kernels,
        each with its own stacks and heuristics, all sharing the TT. Raises ValueError."""
        n = int(n)
        if not 1 <= n <= MAX_THREADS:
            raise ValueError(f"threads must be 1..{MAX_THREADS}, not {n}")
        self.helpers = self.helpers[:n - 1]
        while len(self.helpers) < n - 1:
            self.helpers.append(SearchThread(self.st.shape[0], self.net_packed))

    def _search_tb_hits(self):
        """Tablebase probes (int) made inside the search by all threads in the current
        search (the root's probes are in ``tb_hits``)."""
        return int(self.ctl[SS.TB_HITS]) + sum(int(w.ctl[SS.TB_HITS]) for w in self.helpers)

    def _nodes(self):
        """Nodes (int) searched by all threads in the current search."""
        return int(self.ctl[SS.NODES]) + sum(int(w.ctl[SS.NODES]) for w in self.helpers)

    def _start_helpers(self, root_moves, max_depth):
        """Start every helper on the current root (``root_moves``: the allowed root moves, or
        empty for all legal moves)."""
        n = self.root + 1
        for k, w in enumerate(self.helpers, start=1):
            w.st[:n] = self.st[:n]
            w.mb[:n] = self.mb[:n]
            w.root = self.root
            w.completed = None
            h = w.ctl
            _new_search(h, w.ss, self.ctl[SS.AGE], 0)   # the main thread alone counts nodes
            h[SS.ROOT_N] = len(root_moves)
            h[SS.ROOT_MOVES:SS.ROOT_MOVES + len(root_moves)] = root_moves
            w.thread = threading.Thread(target=self._helper_loop, args=(w, k, max_depth),
                                        daemon=True, name=f"lazy-smp-{k}")
            w.thread.start()

    def _helper_loop(self, w, k, max_depth):
        """A helper's iterative deepening: aspiration searches of the whole root, from a
        staggered first depth, until the main thread stops it."""
        prev = None
        depth = 1 + k % HELPER_DEPTH_STAGGER
        while depth <= max_depth and not w.ctl[SS.STOP]:
            w.ctl[SS.BEST_MOVE] = w.completed[2][0] if w.completed else 0
            score, pv, complete = self._aspiration(depth, prev, 0.0, None, 1, None, w)
            if not complete:
                break
            w.completed = (depth, score, pv)
            prev = score
            depth += 1

    def _stop_helpers(self):
        for w in self.helpers:
            w.ctl[SS.STOP] = 1
        for w in self.helpers:
            if w.thread is not None:
                w.thread.join()
                w.thread = None

    def _vote(self, depth, score, pv):
        """The best ``(score, pv)`` among the threads' last completed iterations, by Stockfish's
        vote (``Search::Worker::get_best_thread``): each thread votes for its move with weight
        (score - lowest score + VOTE_SCORE_OFFSET) x depth; a proven mate wins outright."""
        results = [(depth, score, pv)] + [w.completed for w in self.helpers if w.completed]
        low = min(r[1] for r in results)
        votes = {}
        for d, sc, p in results:
            votes[p[0]] = votes.get(p[0], 0) + (sc - low + VOTE_SCORE_OFFSET) * d
        best = results[0]
        for r in results[1:]:
            if abs(best[1]) >= SS.MATE_BOUND:
                if r[1] > best[1]:
                    best = r                            # a shorter mate, or no longer mated
            elif r[1] >= SS.MATE_BOUND:
                best = r                                # a mate the main thread has not seen
            elif votes[r[2][0]] > votes[best[2][0]] or (
                    votes[r[2][0]] == votes[best[2][0]] and r[0] > best[0]):
                best = r
        return best[1], best[2]
