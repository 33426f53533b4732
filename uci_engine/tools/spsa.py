"""SPSA over integer engine parameters, as fishtest runs it (plain Python and numpy).

Simultaneous Perturbation Stochastic Approximation (J. C. Spall, "Multivariate Stochastic
Approximation Using a Simultaneous Perturbation Gradient Approximation", IEEE TAC 37(3), 1992),
in fishtest's form (official-stockfish/fishtest, ``spsa_handler.py``; chessprogramming wiki
"SPSA"). Each parameter row gives ``start, min, max, c_end, r_end``; a run has ``num_games``
games, ``num_iter = num_games // 2`` game pairs, and the global ``A``, ``alpha``, ``gamma``:

* ``c = c_end * num_iter ** gamma`` and, at pair counter ``K``, ``c_k = c / (K + 1) ** gamma``:
  the perturbation, ``c_end`` exactly at the last pair;
* ``a_end = r_end * c_end ** 2``, ``a = a_end * (A + num_iter) ** alpha`` and
  ``a_k = a / (A + K + 1) ** alpha``;
* one step plays ``theta + c_k * flip`` against ``theta - c_k * flip`` (``flip`` a vector of
  random signs, values rounded to integers and clipped to the range) for ``N`` game pairs, and
  with ``result = wins - losses`` of the plus side moves ``theta += a_k / c_k * result * flip``
  (clipped), then ``K += N``.

Nothing here plays games: :class:`Spsa` proposes a step (:meth:`Spsa.propose`), the caller plays
it and reports the result (:meth:`Spsa.update`); the whole state is a JSON-able dict
(:meth:`Spsa.state`) so a run resumes after an interruption. ``scripts/tune_search.py`` drives
it with our match runner. The flips of pair counter ``K`` come from ``(seed, K)`` alone, so a
step replayed after an interruption is the same step.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: fishtest's defaults: a_k's decay exponent, c_k's decay exponent, and A as a share of the run
ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
#: OpenBench's and fishtest's default learning rate at the end of a run
R_END = 0.002


@dataclass(frozen=True)
class Row:
    """One tuned parameter: its name, start value, inclusive range, ``c_end`` (the
    perturbation at the end of the run, in the parameter's units) and ``r_end``."""
    name: str
    start: float
    min: float
    max: float
    c_end: float
    r_end: float = R_END


@dataclass
class Step:
    """One proposed SPSA step: pair counter ``k`` (the state's ``K`` when proposed), the
    ``flip`` signs (int array), the perturbations ``c`` and gains ``a`` (float arrays, one per
    row) and the integer values the plus and minus engines play (dicts name -> int)."""
    k: int
    flip: np.ndarray
    c: np.ndarray
    a: np.ndarray
    plus: dict
    minus: dict


class Spsa:
    """fishtest's SPSA over ``rows`` (list of :class:`Row`) for a run of ``num_games`` games.
    Raises ValueError for an empty row list, a run shorter than one pair, a start outside its
    range or a non-positive ``c_end``."""

    def __init__(self, rows, num_games, seed=0, alpha=ALPHA, gamma=GAMMA, a_ratio=A_RATIO):
        if not rows:
            raise ValueError("no parameters to tune")
        self.num_iter = int(num_games) // 2
        if self.num_iter < 1:
            raise ValueError(f"num_games {num_games}: a run needs at least one game pair")
        for r in rows:
            if not r.min <= r.start <= r.max:
                raise ValueError(f"{r.name}: start {r.start} outside [{r.min}, {r.max}]")
            if r.c_end <= 0:
                raise ValueError(f"{r.name}: c_end {r.c_end} must be positive")
        self.rows = list(rows)
        self.seed = int(seed)
        self.alpha, self.gamma = float(alpha), float(gamma)
        self.big_a = a_ratio * self.num_iter
        self.lo = np.array([r.min for r in rows], dtype=np.float64)
        self.hi = np.array([r.max for r in rows], dtype=np.float64)
        c_end = np.array([r.c_end for r in rows], dtype=np.float64)
        r_end = np.array([r.r_end for r in rows], dtype=np.float64)
        self.c_base = c_end * self.num_iter ** self.gamma
        self.a_base = r_end * c_end ** 2 * (self.big_a + self.num_iter) ** self.alpha
        self.theta = np.array([r.start for r in rows], dtype=np.float64)
        self.k = 0                      # game pairs played so far (fishtest's "iter")

    @property
    def done(self):
        """True once the run's game pairs are all played."""
        return self.k >= self.num_iter

    def values(self, theta=None):
        """Integer engine values (dict name -> int) of ``theta`` (default: the current one),
        rounded and clipped to each row's range."""
        t = self.theta if theta is None else theta
        t = np.clip(np.rint(t), self.lo, self.hi)
        return {r.name: int(v) for r, v in zip(self.rows, t)}

    def propose(self):
        """The next :class:`Step` at the current pair counter (the same step again until
        :meth:`update` is called)."""
        it = self.k + 1                 # fishtest evaluates with K + 1 (no k = 0)
        rng = np.random.default_rng([self.seed, self.k])
        flip = rng.choice(np.array([-1, 1]), size=len(self.rows))
        c = self.c_base / it ** self.gamma
        a = self.a_base / (self.big_a + it) ** self.alpha
        return Step(self.k, flip, c, a, self.values(self.theta + c * flip),
                    self.values(self.theta - c * flip))

    def update(self, step, result, pairs):
        """Apply the outcome of ``step``: ``result`` = the plus side's wins minus losses over
        ``pairs`` game pairs. Returns the new theta (float array). Raises ValueError when
        ``step`` is not the current one (a stale or replayed report)."""
        if step.k != self.k:
            raise ValueError(f"step for pair {step.k}, the run is at pair {self.k}")
        self.theta = np.clip(self.theta + step.a / step.c * result * step.flip, self.lo, self.hi)
        self.k += int(pairs)
        return self.theta.copy()

    # --- resuming ----------------------------------------------------------------------------
    def config(self):
        """What defines the run (dict): a saved state resumes only under the same config."""
        return {"rows": [[r.name, r.start, r.min, r.max, r.c_end, r.r_end] for r in self.rows],
                "num_iter": self.num_iter, "seed": self.seed, "alpha": self.alpha,
                "gamma": self.gamma, "A": self.big_a}

    def state(self):
        """The run as a JSON-able dict: its config, pair counter and theta."""
        return {"config": self.config(), "k": self.k, "theta": self.theta.tolist()}

    def restore(self, state):
        """Continue from ``state`` (:meth:`state`'s dict). Raises ValueError when it belongs
        to another run (other rows, length, seed or schedule)."""
        if state.get("config") != self.config():
            raise ValueError("the saved SPSA state is of another run (parameters, games, seed "
                             "or schedule differ)")
        self.k = int(state["k"])
        self.theta = np.array(state["theta"], dtype=np.float64)
