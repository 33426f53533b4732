"""cutechess-cli time controls: parsing, PGN formatting and the runner-side clock.

Accepted forms (as ``tc=`` value, cutechess syntax):

* ``inf``                    -- no clock at all (the engine gets ``go infinite`` semantics: it is
  simply never told a time; python-chess sends ``go`` with no limit).
* ``T`` / ``T+I``            -- sudden death: T seconds for the game, I seconds increment per move.
* ``M/T`` / ``M/T+I``        -- M moves in T seconds, repeating (classical "40/60").
* ``T`` may be ``MIN:SEC``   -- e.g. ``40/1:00+0.5`` = 40 moves in 60 s, 0.5 s increment.

``st=S`` (its own engine key in cutechess; ``tc=st=S`` is accepted as well) gives a fixed S
seconds per move. Internally every duration is kept in **milliseconds** (int).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TimeControl", "Clock", "parse_tc", "parse_st", "TimeControlError"]


class TimeControlError(ValueError):
    """A time-control string that cutechess would reject."""


def _parse_seconds(text: str, what: str) -> float:
    """Parse ``S``, ``S.s`` or ``MIN:SEC`` (also ``H:MIN:SEC``) into seconds (float)."""
    if not text:
        raise TimeControlError(f"empty {what}")
    parts = text.split(":")
    if len(parts) > 3:
        raise TimeControlError(f"bad {what}: {text!r}")
    total = 0.0
    for i, part in enumerate(parts):
        if not re.fullmatch(r"\d+(\.\d*)?|\.\d+", part):
            raise TimeControlError(f"bad {what}: {text!r}")
        value = float(part)
        if i > 0 and value >= 60:
            raise TimeControlError(f"bad {what}: {text!r} (seconds/minutes field must be < 60)")
        total = total * 60 + value
    return total


@dataclass(frozen=True)
class TimeControl:
    """A time control. All durations in milliseconds.

    ``moves`` is the number of moves per period (0 = whole game), ``base_ms`` the time per
    period, ``inc_ms`` the increment added after every move, ``per_move_ms`` a fixed time per
    move (``st``), ``infinite`` means no clock is kept at all.
    """

    moves: int = 0
    base_ms: int = 0
    inc_ms: int = 0
    per_move_ms: int = 0
    infinite: bool = False

    @property
    def is_per_move(self) -> bool:
        """True for ``st=`` (fixed time per move)."""
        return self.per_move_ms > 0

    def pgn_string(self) -> str:
        """The PGN ``TimeControl`` value as cutechess writes it (seconds): ``40/60+0.5``,
        ``10+0.1``, ``1/move`` for st, ``inf`` for no clock."""
        if self.infinite:
            return "inf"
        if self.is_per_move:
            return f"{_fmt_s(self.per_move_ms)}/move"
        s = _fmt_s(self.base_ms)
        if self.moves:
            s = f"{self.moves}/{s}"
        if self.inc_ms:
            s += f"+{_fmt_s(self.inc_ms)}"
        return s

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.pgn_string()


def _fmt_s(ms: int) -> str:
    """Format milliseconds as seconds without trailing zeros (``1500`` -> ``1.5``)."""
    if ms % 1000 == 0:
        return str(ms // 1000)
    return f"{ms / 1000:.3f}".rstrip("0").rstrip(".")


def parse_st(text: str) -> TimeControl:
    """Parse the value of ``st=`` (seconds per move, may be fractional) into a TimeControl."""
    seconds = _parse_seconds(text.strip(), "st value")
    ms = int(round(seconds * 1000))
    if ms <= 0:
        raise TimeControlError(f"st must be positive: {text!r}")
    return TimeControl(per_move_ms=ms)


def parse_tc(text: str) -> TimeControl:
    """Parse a cutechess ``tc=`` value (see module docstring) into a :class:`TimeControl`.

    Raises :class:`TimeControlError` with the offending text on malformed input.
    """
    t = text.strip()
    if not t:
        raise TimeControlError("empty time control")
    if t.lower() in ("inf", "infinite"):
        return TimeControl(infinite=True)
    if t.lower().startswith("st="):
        return parse_st(t[3:])
    moves = 0
    rest = t
    if "/" in t:
        m_text, rest = t.split("/", 1)
        if not m_text.isdigit() or int(m_text) <= 0:
            raise TimeControlError(f"bad moves-per-period in time control {text!r}")
        moves = int(m_text)
    inc = 0.0
    if "+" in rest:
        rest, inc_text = rest.split("+", 1)
        inc = _parse_seconds(inc_text, f"increment in time control {text!r}")
    base = _parse_seconds(rest, f"base time in time control {text!r}")
    base_ms = int(round(base * 1000))
    inc_ms = int(round(inc * 1000))
    if base_ms <= 0 and inc_ms <= 0:
        raise TimeControlError(f"time control {text!r} gives no time")
    return TimeControl(moves=moves, base_ms=base_ms, inc_ms=inc_ms)


class Clock:
    """The runner's clock for one side. Times in milliseconds.

    The runner measures how long the engine took (wall clock between sending ``go`` and
    receiving the move) and calls :meth:`consume`; a move that arrives after
    ``time_left_ms + margin_ms`` is a time forfeit, as in cutechess (``-timemargin``).

    ``lowest_ms`` is the least time (ms) this side had left right after a move was charged,
    before the increment (below 0 when only the margin saved it; for ``st``: the time per move
    minus the longest move). It starts at the full clock and is None for ``tc=inf``.
    """

    def __init__(self, tc: TimeControl, margin_ms: int = 0):
        self.tc = tc
        self.margin_ms = margin_ms
        self.time_left_ms: float = float(tc.per_move_ms if tc.is_per_move else tc.base_ms)
        self.moves_left: int = tc.moves
        self.lowest_ms: float | None = None if tc.infinite else self.time_left_ms

    @property
    def infinite(self) -> bool:
        """True when this side has no clock (``tc=inf``)."""
        return self.tc.infinite

    def think_budget_ms(self) -> float | None:
        """Milliseconds the engine may use for the coming move before it forfeits on time
        (time left plus the time margin); ``None`` for an infinite time control."""
        if self.tc.infinite:
            return None
        if self.tc.is_per_move:
            return self.tc.per_move_ms + self.margin_ms
        return self.time_left_ms + self.margin_ms

    def consume(self, elapsed_ms: float) -> bool:
        """Charge ``elapsed_ms`` for a move. Returns False if the flag fell (time forfeit);
        otherwise adds the increment and starts a new period when due."""
        if self.tc.infinite:
            return True
        if self.tc.is_per_move:
            self.lowest_ms = min(self.lowest_ms, self.tc.per_move_ms - elapsed_ms)
            return elapsed_ms <= self.tc.per_move_ms + self.margin_ms
        self.time_left_ms -= elapsed_ms
        self.lowest_ms = min(self.lowest_ms, self.time_left_ms)
        if self.time_left_ms + self.margin_ms < 0:
            return False
        self.time_left_ms += self.tc.inc_ms
        if self.tc.moves:
            self.moves_left -= 1
            if self.moves_left <= 0:
                self.time_left_ms += self.tc.base_ms
                self.moves_left = self.tc.moves
        return True
