"""The game list of a match in cutechess's order, and its tallies (plain Python)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import stats
from .args import MatchConfig


@dataclass
class Scheduled:
    """One scheduled game: 1-based ``number``, player indices, the round, the opening index
    and the index of the game pair it belongs to (for pentanomial statistics)."""

    number: int
    white: int
    black: int
    round: int
    opening: int
    pair: int


def build_schedule(cfg: MatchConfig) -> list[Scheduled]:
    """The full game list in cutechess order.

    Round-robin plays every pair (gauntlet: engine 1 against each other engine) ``-games``
    times per round; colours alternate within a pair (unless ``-noswap``); a new opening is
    taken every ``-repeat`` games; consecutive games 2k, 2k+1 of a pair form a game pair.
    """
    n = len(cfg.engines)
    if cfg.tournament == "gauntlet":
        pairs = [(0, j) for j in range(1, n)]
    else:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    out: list[Scheduled] = []
    pair_game_count = {p: 0 for p in pairs}
    pair_ids: dict[tuple, int] = {}
    k = 0
    for rnd in range(1, cfg.rounds + 1):
        for p in pairs:
            for _g in range(cfg.games):
                c = pair_game_count[p]
                pair_game_count[p] += 1
                a, b = p
                white, black = (a, b) if (cfg.noswap or c % 2 == 0) else (b, a)
                key = (p, c // 2)
                pid = pair_ids.setdefault(key, len(pair_ids))
                out.append(Scheduled(k + 1, white, black, rnd, k // cfg.repeat, pid))
                k += 1
    return out


@dataclass
class PlayerStats:
    """Per-player tallies (cutechess ``TournamentPlayer``)."""

    name: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    white_wins: int = 0
    white_losses: int = 0
    white_draws: int = 0

    @property
    def games(self) -> int:
        """Finished games."""
        return self.wins + self.losses + self.draws

    @property
    def black_wins(self) -> int:  # noqa: D401
        """Wins with Black."""
        return self.wins - self.white_wins

    @property
    def black_losses(self) -> int:
        """Losses with Black."""
        return self.losses - self.white_losses

    @property
    def black_draws(self) -> int:
        """Draws with Black."""
        return self.draws - self.white_draws


@dataclass
class MatchResult:
    """What :func:`run_match` returns: per-player stats, the game records by number
    (compacted: each ``board`` holds the start position only, :meth:`GameRecord.compact`), the
    pentanomial of player 1 (two-player matches), the SPRT decision, and why it stopped."""

    players: list[PlayerStats]
    records: dict = field(default_factory=dict)
    penta: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    sprt: stats.SprtResult | None = None
    stopped: str | None = None
    error: str | None = None
