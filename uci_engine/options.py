"""UCI options as data: each option's name, type, default, range, parser and effect in one row.

As in Stockfish's ``src/engine.cpp`` (each option is registered with its on-change action) and
python-chess's ``chess.engine.Option.parse`` (validation stays with the option): the UCI loop
only looks a name up. :meth:`Options.set` parses and range-checks a ``setoption`` value and then
runs the option's effect; a value that fails either keeps the previous one and raises
:class:`OptionError` with the message for ``info string error:``.

An effect comes in two parts. ``on_set(value)`` runs when the option is set (loading a book, a
tablebase directory or a net: file errors belong to the ``setoption`` that named the file).
``on_engine(engine, value)`` applies the value to an :class:`uci_engine.engine.Engine`; it runs
at once when there is one, and for every option when the engine is handed over after the kernels
load (:meth:`Options.apply_to`), so a value set while they load takes the same path.
"""
from dataclasses import dataclass
from typing import Any, Callable, Optional

EMPTY = "<empty>"     # default of a string option with no value (Stockfish's spelling)
MAX_THREADS = 256     # the Threads option's upper bound (Stockfish allows 1024)
MAX_HASH = 4096       # the Hash option's upper bound, MiB
KINDS = ("spin", "check", "string", "button")


class OptionError(ValueError):
    """A ``setoption`` that was refused; its message is the reason (for ``info string error:``)."""


@dataclass
class Option:
    """One UCI option. ``kind`` is ``spin`` (int in ``lo .. hi``), ``check`` (bool), ``string``
    (str; an empty value means ``empty``, :data:`EMPTY` unless given) or ``button`` (no
    value). ``on_set(value)`` and
    ``on_engine(engine, value)`` are the effects (see the module docstring); either may raise
    :class:`OptionError` (or ``ValueError`` / ``OSError``) to refuse the value."""
    name: str
    kind: str
    default: Any = None
    lo: Optional[int] = None
    hi: Optional[int] = None
    on_set: Optional[Callable[[Any], None]] = None
    on_engine: Optional[Callable[[Any, Any], None]] = None
    empty: str = EMPTY

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown option type {self.kind!r}")
        self.value = self.default

    def describe(self):
        """The option's line in the ``uci`` reply."""
        s = f"option name {self.name} type {self.kind}"
        if self.kind == "spin":
            s += f" default {self.default} min {self.lo} max {self.hi}"
        elif self.kind == "check":
            s += f" default {'true' if self.default else 'false'}"
        elif self.kind == "string":
            s += f" default {self.default}"
        return s

    def parse(self, raw):
        """The value (int, bool, str or None for a button) of ``raw`` (str, or None when the
        ``setoption`` had no ``value``). Raises :class:`OptionError`."""
        if self.kind == "button":
            return None
        if self.kind == "string":
            return raw.strip() if raw and raw.strip() else self.empty
        if raw is None or not raw.strip():
            raise OptionError(f"option {self.name} needs a value")
        raw = raw.strip()
        if self.kind == "check":
            if raw.lower() not in ("true", "false"):
                raise OptionError(f"option {self.name} value {raw!r} is not true or false")
            return raw.lower() == "true"
        try:
            v = int(raw)
        except ValueError:
            raise OptionError(f"option {self.name} value {raw!r} is not an integer") from None
        if not self.lo <= v <= self.hi:
            raise OptionError(f"option {self.name} value {v} out of range "
                              f"[{self.lo}, {self.hi}]")
        return v


class Options:
    """The table of a session's options, looked up by name without regard to case."""

    def __init__(self, rows):
        self._rows = {o.name.lower(): o for o in rows}

    def __getitem__(self, name):
        return self._rows[name.lower()]

    def get(self, name):
        """The :class:`Option` called ``name``, or None."""
        return self._rows.get(name.lower())

    def __iter__(self):
        return iter(self._rows.values())

    def set(self, name, raw, engine=None):
        """Parse ``raw`` for the option ``name``, run its effects (its engine effect on
        ``engine`` when that is not None) and keep the value; returns the :class:`Option`.
        Raises :class:`OptionError` for an unknown name or a refused value, which leaves the
        previous value and state."""
        opt = self.get(name)
        if opt is None:
            raise OptionError(f"unknown option {name!r}")
        value = opt.parse(raw)
        try:
            if opt.on_set is not None:
                opt.on_set(value)
            if engine is not None and opt.on_engine is not None:
                opt.on_engine(engine, value)
        except OptionError:
            raise
        except (OSError, ValueError) as exc:
            keep = "" if opt.kind == "button" else f"; keeping {opt.name} {opt.value}"
            raise OptionError(f"{exc}{keep}") from None
        if opt.kind != "button":
            opt.value = value
        return opt

    def apply_to(self, engine):
        """Run every option's engine effect with its current value on ``engine`` (the hand-over
        after the kernels load; buttons are skipped)."""
        for opt in self:
            if opt.on_engine is not None and opt.kind != "button":
                opt.on_engine(engine, opt.value)
