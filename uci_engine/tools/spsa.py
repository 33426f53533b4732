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

Nothing here plays games: :class:`Spsa` issues a step (:meth:`Spsa.issue`), the caller plays it
and reports the result (:meth:`Spsa.update`) or gives it back unplayed (:meth:`Spsa.abandon`).
Steps may be in flight side by side and finish in any order, as fishtest's workers do: each
step is issued at the next free pair index ``K`` (its ``c_k``, ``a_k`` and flips), its values
are those of theta when issued, and its result moves the theta of the time it arrives. The
whole state is a JSON-able dict (:meth:`Spsa.state`) holding the steps in flight, so a run
resumes after an interruption and plays them first. ``scripts/tune_search.py`` drives it with
our match runner. The flips of pair index ``K`` come from ``(seed, K)`` alone, so a step played
again (abandoned, or in flight at an interruption) is the same step.
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
    """One issued SPSA step: its first pair index ``k`` and its number of game pairs
    ``pairs``, the ``flip`` signs (int array), the perturbations ``c`` and gains ``a`` (float
    arrays, one per row) and the integer values the plus and minus engines play (dicts name ->
    int)."""
    k: int
    pairs: int
    flip: np.ndarray
    c: np.ndarray
    a: np.ndarray
    plus: dict
    minus: dict


class Spsa:
    """fishtest's SPSA over ``rows`` (list of :class:`Row`) for a run of ``num_games`` games.
    ``extra`` (a JSON-able dict, e.g. the time control) joins the run's config, so a state of
    a run played otherwise is refused. Raises ValueError for an empty row list, a run shorter
    than one pair, a start outside its range or a non-positive ``c_end``."""

    def __init__(self, rows, num_games, seed=0, alpha=ALPHA, gamma=GAMMA, a_ratio=A_RATIO,
                 extra=None):
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
        self.extra = dict(extra or {})
        self.theta = np.array([r.start for r in rows], dtype=np.float64)
        self.k = 0                      # game pairs played and reported (fishtest's "iter")
        self.issued = 0                 # the next free pair index
        self.open = {}                  # pair index -> pairs of the steps in flight
        self.again = []                 # [pair index, pairs] to issue again first, in order

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

    def _step(self, k, pairs):
        it = k + 1                      # fishtest evaluates with K + 1 (no k = 0)
        rng = np.random.default_rng([self.seed, k])
        flip = rng.choice(np.array([-1, 1]), size=len(self.rows))
        c = self.c_base / it ** self.gamma
        a = self.a_base / (self.big_a + it) ** self.alpha
        return Step(k, pairs, flip, c, a, self.values(self.theta + c * flip),
                    self.values(self.theta - c * flip))

    def issue(self, pairs=1):
        """The next :class:`Step` to play, now in flight: a step given back (:meth:`abandon`,
        or in flight when the state was saved) first, with its own pair count; else ``pairs``
        (int >= 1) game pairs at the next free pair index, fewer at the run's end. None when
        every pair of the run is issued."""
        if self.again:
            k, n = self.again.pop(0)
        elif self.issued < self.num_iter:
            k, n = self.issued, min(int(pairs), self.num_iter - self.issued)
            if n < 1:
                raise ValueError(f"pairs {pairs}: a step plays at least one game pair")
            self.issued += n
        else:
            return None
        self.open[k] = n
        return self._step(k, n)

    def abandon(self, step):
        """Give back ``step``, in flight and not played to its end: the next :meth:`issue`
        returns it again (the same pair index and flips). Raises ValueError when it is not in
        flight."""
        if self.open.pop(step.k, None) is None:
            raise ValueError(f"step at pair {step.k} is not in flight")
        self.again.insert(0, [step.k, step.pairs])

    def update(self, step, result):
        """Apply the outcome of ``step``: ``result`` = the plus side's wins minus losses over
        its ``step.pairs`` game pairs. Returns the new theta (float array). Raises ValueError
        when ``step`` is not in flight (a stale or repeated report)."""
        if self.open.get(step.k) != step.pairs:
            raise ValueError(f"step at pair {step.k} is not in flight")
        del self.open[step.k]
        self.theta = np.clip(self.theta + step.a / step.c * result * step.flip, self.lo, self.hi)
        self.k += step.pairs
        return self.theta.copy()

    # --- resuming ----------------------------------------------------------------------------
    def config(self):
        """What defines the run (dict): a saved state resumes only under the same config."""
        cfg = {"rows": [[r.name, r.start, r.min, r.max, r.c_end, r.r_end] for r in self.rows],
               "num_iter": self.num_iter, "seed": self.seed, "alpha": self.alpha,
               "gamma": self.gamma, "A": self.big_a}
        if self.extra:
            cfg["extra"] = self.extra
        return cfg

    def state(self):
        """The run as a JSON-able dict: its config, the pairs played, theta, the next free pair
        index and the steps not played yet (in flight or given back), as [pair index, pairs]."""
        pending = sorted([[k, n] for k, n in self.open.items()] + self.again)
        return {"config": self.config(), "k": self.k, "theta": self.theta.tolist(),
                "issued": self.issued, "pending": pending}

    @classmethod
    def from_state(cls, state):
        """The run that saved ``state`` (:meth:`state`'s dict), rebuilt from its own config and
        restored: reading a finished run needs no table of today's defaults (they may have
        become its tuned values since). Raises ValueError (or KeyError, TypeError) on a state
        that is not one."""
        cfg = state["config"]
        rows = [Row(str(n), start, lo, hi, c_end, r_end)
                for n, start, lo, hi, c_end, r_end in cfg["rows"]]
        num_iter = int(cfg["num_iter"])
        run = cls(rows, 2 * num_iter, seed=cfg["seed"], alpha=cfg["alpha"], gamma=cfg["gamma"],
                  a_ratio=cfg["A"] / num_iter, extra=cfg.get("extra"))
        run.restore(state)              # checks the rebuilt config against the saved one
        return run

    def restore(self, state):
        """Continue from ``state`` (:meth:`state`'s dict): its pending steps are issued again
        first. Raises ValueError when it belongs to another run (other rows, length, seed,
        schedule or ``extra``)."""
        if state.get("config") != self.config():
            raise ValueError("the saved SPSA state is of another run (parameters, games, seed, "
                             "schedule or time control differ)")
        self.k = int(state["k"])
        self.theta = np.array(state["theta"], dtype=np.float64)
        self.issued = int(state.get("issued", self.k))
        self.open = {}
        self.again = [[int(k), int(n)] for k, n in state.get("pending", [])]
