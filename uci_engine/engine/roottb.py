"""Tablebases at the root: only the moves of the best Syzygy rank are searched, and their scores
replace non-mate scores (:class:`uci_engine.syzygy.Tablebases`). Part of
:class:`uci_engine.engine.Engine`."""
from ..kernels import state as SS

#: Score (centipawns) of a tablebase win at the root: just below the mate range, as Stockfish's
#: VALUE_TB = VALUE_MATE_IN_MAX_PLY - 1 (see uci_engine/syzygy.py); a TB loss is its negative.
TB_WIN = SS.MATE_BOUND - 1


class RootTablebases:
    """Root move filtering by tablebase rank (a mixin of :class:`uci_engine.engine.Engine`;
    the repetitions come from :class:`uci_engine.engine.game.GameState`)."""

    def _tb_filter(self, tablebases, allowed):
        """The moves of ``allowed`` (ints) with the best tablebase rank, or ``allowed`` itself
        when the root is not probed or a table is missing. Sets ``tb_hits`` and the TB scores
        used by :meth:`_info`."""
        self.tb_hits = 0
        self._tb_scores = None
        board = tablebases.root_board(self.fen())
        if board is None:
            return allowed
        repeated, threefold = self._repetitions(allowed)
        before = tablebases.hits
        ranked = tablebases.rank_root(board, [self.move_to_uci(m) for m in allowed], TB_WIN,
                                      repeated, {self.move_to_uci(m) for m in threefold})
        self.tb_hits = tablebases.hits - before
        if not ranked:
            return allowed
        best = max(r for r, _ in ranked.values())
        self._tb_scores = {m: ranked[self.move_to_uci(m)][1] for m in allowed}
        return [m for m in allowed if ranked[self.move_to_uci(m)][0] == best]
