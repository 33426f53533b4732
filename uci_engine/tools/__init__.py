"""Match tooling: a cutechess-cli compatible match runner, statistics and a strength ladder.

Plain Python on top of python-chess (``chess.engine``); nothing here imports numba or
:mod:`uci_engine.kernels`, so the tools can drive any UCI or XBoard engine, ours included.

Modules:

* :mod:`uci_engine.tools.stats`   -- Elo, error bars, LOS, pentanomial/trinomial SPRT (no deps).
* :mod:`uci_engine.tools.tc`      -- cutechess time-control strings and the runner's clock.
* :mod:`uci_engine.tools.args`    -- the cutechess-cli command line (parsing and validation).
* :mod:`uci_engine.tools.openings`-- EPD/PGN opening suites.
* :mod:`uci_engine.tools.game`    -- one game between two engines, faults and adjudication.
* :mod:`uci_engine.tools.match`   -- tournaments, output, PGN, SPRT stop (``uci-engine-match``).
* :mod:`uci_engine.tools.ladder`  -- gauntlet against installed Debian engines
  (``uci-engine-ladder``).
* :mod:`uci_engine.tools.uci_driver` -- a UCI engine's raw lines with timeouts (tests, benches).
"""
