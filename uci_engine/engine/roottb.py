"""Tablebases at the root: only the moves of the best Syzygy rank are searched, and their scores
replace non-mate scores (:class:`uci_engine.syzygy.Tablebases`). Part of
:class:`uci_engine.engine.Engine`."""
from ..kernels import state as SS

#: The root's DTZ ranking (python-chess, pure Python) may take at most 1/DTZ_SHARE of the move's
#: hard time limit, judged by what the last rankings cost; otherwise the root moves are ranked
#: by WDL through the compiled prober, in microseconds. Without this, a KQvKR root cost 0.1-0.23 s
#: a move whatever the clock, and at 5+0.05 with 14 games on 16 cores two games of 600 were lost
#: on time with a TB win on the board (2026-11-27, docs/strength.md).
DTZ_SHARE = 4

#: Score (centipawns) of a tablebase win at the root: just below the mate range, as Stockfish's
#: VALUE_TB = VALUE_MATE_IN_MAX_PLY - 1 (see uci_engine/syzygy.py); a TB loss is its negative.
TB_WIN = SS.MATE_BOUND - 1


def use_dtz(hard_ms, dtz_cost_ms):
    """Whether the root may be ranked by DTZ (bool): with no time limit (``hard_ms`` None) or
    when ``dtz_cost_ms`` (float, the expected cost of the ranking) fits DTZ_SHARE times into
    ``hard_ms`` (the move's hard limit, milliseconds)."""
    return hard_ms is None or dtz_cost_ms * DTZ_SHARE <= hard_ms


class RootTablebases:
    """Root move filtering by tablebase rank (a mixin of :class:`uci_engine.engine.Engine`;
    the repetitions come from :class:`uci_engine.engine.game.GameState`)."""

    def _tb_filter(self, tablebases, allowed, hard_ms=None):
        """The moves of ``allowed`` (ints) with the best tablebase rank, or ``allowed`` itself
        when the root is not probed or a table is missing. Ranked by DTZ when :func:`use_dtz`
        allows it for the move's hard limit ``hard_ms`` (milliseconds, None: no limit), else by
        WDL. Sets ``tb_hits`` and the TB scores used by :meth:`_info`."""
        self.tb_hits = 0
        self._tb_scores = None
        board = tablebases.root_board(self.fen())
        if board is None:
            return allowed
        repeated, threefold = self._repetitions(allowed)
        before = tablebases.hits
        ranked = tablebases.rank_root(board, [self.move_to_uci(m) for m in allowed], TB_WIN,
                                      repeated, {self.move_to_uci(m) for m in threefold},
                                      dtz=use_dtz(hard_ms, tablebases.dtz_cost_ms))
        self.tb_hits = tablebases.hits - before
        if not ranked:
            return allowed
        best = max(r for r, _ in ranked.values())
        self._tb_scores = {m: ranked[self.move_to_uci(m)][1] for m in allowed}
        return [m for m in allowed if ranked[self.move_to_uci(m)][0] == best]
