"""Match statistics: Elo and error bars, LOS, and the sequential probability ratio test.

Pure Python (``math`` and ``statistics`` only); independent of the engine and of python-chess.

Conventions
-----------
* Trinomial results are ``(wins, losses, draws)`` from the first player's point of view.
* Pentanomial results count game *pairs* (two games with the same opening, colours swapped) by
  the pair score 0, 0.5, 1, 1.5, 2: ``[LL, LD, WL+DD, WD, WW]`` (fishtest's order, lowest
  first). fastchess keeps WL and DD apart; they are merged here because only the pair score
  enters the statistics.
* "logistic Elo" is the usual Elo, ``score = 1 / (1 + 10**(-elo/400))``.
* "normalized Elo" (nElo) is ``(score - 1/2) / sigma_per_game * 800/ln(10)``
  (Michel Van den Bergh, "Comments on Normalized Elo",
  https://www.cantate.be/Fishtest/normalized_elo_practical.pdf).

The SPRT log-likelihood ratios are the generalized LLRs of fishtest's ``LLRcalc.py``
(``LLR_logistic`` / ``LLR_normalized``), computed with the exact maximum-likelihood estimates
(Van den Bergh, "Support MLE multinomial", section 1; normalized: section 4.1 of the paper
above), which is what fishtest and current fastchess compute for game pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Callable, Sequence

__all__ = [
    "score_to_elo",
    "elo_to_score",
    "EloEstimate",
    "elo_trinomial",
    "elo_pentanomial",
    "los_cutechess",
    "sprt_bounds",
    "llr_logistic",
    "llr_normalized",
    "sprt_llr",
    "SprtResult",
    "sprt_status",
    "pentanomial_from_pairs",
    "NELO_DIVIDED_BY_NT",
]

#: 800 / ln(10): converts a t-value per game to normalized Elo.
NELO_DIVIDED_BY_NT = 800.0 / math.log(10.0)
_Z975 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


def score_to_elo(score: float) -> float:
    """Logistic Elo difference for an expected score in (0, 1); +-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """Elo estimate with a 95 % confidence half-width.

    ``elo``/``error`` are logistic Elo, ``nelo``/``nelo_error`` normalized Elo, ``los`` the
    likelihood of superiority in [0, 1] from the normal approximation of the mean score,
    ``score`` the mean score per game and ``draw_ratio`` draws/games (trinomial) or the share of
    pairs scoring exactly 1 (pentanomial).
    """

    elo: float
    error: float
    nelo: float
    nelo_error: float
    los: float
    score: float
    draw_ratio: float


def _estimate(values: Sequence[float], counts: Sequence[float], per: float) -> EloEstimate:
    """Shared Elo/nElo computation for a discrete result distribution.

    ``values`` are the scores per sample (per game: 0, .5, 1; per pair: 0, .25, ..., 1 as a
    fraction of the pair's 2 points), ``counts`` their frequencies, ``per`` the number of games
    per sample (1 or 2) -- used to express sigma per game for nElo.
    """
    n = float(sum(counts))
    if n <= 0:
        return EloEstimate(0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0)
    probs = [c / n for c in counts]
    mu = sum(v * p for v, p in zip(values, probs))
    var = sum(p * (v - mu) ** 2 for v, p in zip(values, probs))
    var_n = var / n
    sd_n = math.sqrt(var_n)
    hi = mu + _Z975 * sd_n
    lo = mu - _Z975 * sd_n
    elo = score_to_elo(mu)
    error = (score_to_elo(hi) - score_to_elo(lo)) / 2.0
    sigma_game = math.sqrt(per * var)  # per-game standard deviation
    if sigma_game > 0:
        nelo = (mu - 0.5) / sigma_game * NELO_DIVIDED_BY_NT
        nelo_error = ((hi - 0.5) - (lo - 0.5)) / 2.0 / sigma_game * NELO_DIVIDED_BY_NT
        los = NormalDist().cdf((mu - 0.5) / sd_n)
    else:
        nelo = nelo_error = 0.0
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    mid = len(values) // 2
    return EloEstimate(elo, error, nelo, nelo_error, los, mu, probs[mid])


def elo_trinomial(wins: int, losses: int, draws: int) -> EloEstimate:
    """Elo difference and 95 % error bar from game results (cutechess's ``Elo`` class and
    fastchess's ``EloWDL``: normal approximation of the mean score, mapped to Elo).

    cutechess approximates the normal quantile (``Elo::phiInv``); we use the exact quantile,
    so error bars may differ from cutechess in the second decimal.
    """
    return _estimate((0.0, 0.5, 1.0), (losses, draws, wins), 1.0)


def elo_pentanomial(penta: Sequence[int]) -> EloEstimate:
    """Elo difference and 95 % error bar from game-pair results ``[LL, LD, WL+DD, WD, WW]``
    (fastchess ``EloPentanomial``). ``draw_ratio`` is the share of pairs scoring 1 of 2."""
    if len(penta) != 5:
        raise ValueError("pentanomial results need 5 counts [LL, LD, WL+DD, WD, WW]")
    return _estimate((0.0, 0.25, 0.5, 0.75, 1.0), penta, 2.0)


def los_cutechess(wins: int, losses: int) -> float:
    """Likelihood of superiority in percent as cutechess prints it (``Elo::LOS``):
    ``50 * (1 + erf((W - L) / sqrt(2 (W + L))))``; draws do not enter."""
    if wins + losses == 0:
        return 50.0
    return 50.0 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


# --------------------------------------------------------------------------------------------
# SPRT


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR stopping bounds ``(ln(beta/(1-alpha)), ln((1-beta)/alpha))``.
    For alpha = beta = 0.05 this is (-2.944, 2.944)."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("need 0 < alpha, beta < 1 and alpha + beta < 1")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _regularize(results: Sequence[float]) -> list[float]:
    """Replace empty cells by 1e-3 (fishtest ``LLRcalc.regularize``)."""
    return [r if r > 0 else 1e-3 for r in results]


def _results_to_pdf(results: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    res = _regularize(results)
    n = float(sum(res))
    k = len(res)
    return n, [(i / (k - 1), r / n) for i, r in enumerate(res)]


def _mean_var(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    s = sum(p * a for a, p in pdf)
    var = sum(p * (a - s) ** 2 for a, p in pdf)
    return s, var


def _root(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-14) -> float:
    """Root of a monotone function on (lo, hi) by bisection + secant (Illinois variant)."""
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if (flo > 0) == (fhi > 0):
        raise ValueError("root not bracketed")
    side = 0
    for _ in range(200):
        x = (lo * fhi - hi * flo) / (fhi - flo)
        if not (lo < x < hi):
            x = 0.5 * (lo + hi)
        fx = f(x)
        if fx == 0 or hi - lo < tol * max(1.0, abs(x)):
            return x
        if (fx > 0) == (fhi > 0):
            hi, fhi = x, fx
            if side == -1:
                flo /= 2
            side = -1
        else:
            lo, flo = x, fx
            if side == 1:
                fhi /= 2
            side = 1
    return 0.5 * (lo + hi)


def _secular(pdf: Sequence[tuple[float, float]]) -> float:
    """Solve ``sum_i p_i a_i / (1 + x a_i) = 0`` for x (fishtest ``LLRcalc.secular``)."""
    values = [a for a, _ in pdf]
    v, w = min(values), max(values)
    if not v * w < 0:
        raise ValueError("secular equation needs values of both signs")
    eps = 1e-9
    lo, hi = -1.0 / w + eps, -1.0 / v - eps

    def f(x: float) -> float:
        return sum(p * a / (1.0 + x * a) for a, p in pdf)

    return _root(f, lo, hi)


def _mle_expected(pdfhat: Sequence[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """MLE of a distribution on the same support with expectation ``s`` (Proposition 1.1 of
    Van den Bergh, "Support MLE multinomial")."""
    x = _secular([(a - s, p) for a, p in pdfhat])
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdfhat]


def _mle_t_value(pdfhat: Sequence[tuple[float, float]], ref: float, s: float) -> list[tuple[float, float]]:
    """MLE of a distribution with t-value ``(mu - ref) / sigma == s`` (section 4.1 of
    "Comments on Normalized Elo"); iterated from the uniform distribution."""
    n = len(pdfhat)
    pdf_mle = [(a, 1.0 / n) for a, _ in pdfhat]
    for _ in range(100):
        prev = pdf_mle
        mu, var = _mean_var(pdf_mle)
        sigma = math.sqrt(var)
        pdf1 = [(a - ref - s * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0, p) for a, p in pdfhat]
        x = _secular(pdf1)
        pdf_mle = [(pdfhat[i][0], pdfhat[i][1] / (1.0 + x * pdf1[i][0])) for i in range(n)]
        if max(abs(prev[i][1] - pdf_mle[i][1]) for i in range(n)) < 1e-12:
            break
    return pdf_mle


def _llr_from(pdf: Sequence[tuple[float, float]], p0: Sequence[tuple[float, float]],
              p1: Sequence[tuple[float, float]]) -> float:
    return sum(pdf[i][1] * (math.log(p1[i][1]) - math.log(p0[i][1])) for i in range(len(pdf)))


def llr_logistic(elo0: float, elo1: float, results: Sequence[int]) -> float:
    """Generalized LLR of H1: elo = elo1 against H0: elo = elo0 in logistic Elo.

    ``results``: trinomial ``[L, D, W]`` or pentanomial ``[LL, LD, WL+DD, WD, WW]`` counts
    (lowest score first, as fishtest). Equals fishtest ``LLRcalc.LLR_logistic``.
    """
    if len(results) not in (3, 5):
        raise ValueError("results must have 3 (L, D, W) or 5 (pentanomial) entries")
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    n, pdf = _results_to_pdf(results)
    p0, p1 = _mle_expected(pdf, s0), _mle_expected(pdf, s1)
    return n * _llr_from(pdf, p0, p1)


def llr_normalized(nelo0: float, nelo1: float, results: Sequence[int]) -> float:
    """Generalized LLR of H1: nelo = nelo1 against H0: nelo = nelo0 in normalized Elo, with
    the same ``results`` layout as :func:`llr_logistic`. Equals fishtest
    ``LLRcalc.LLR_normalized`` (t-values scaled by sqrt(2) for game pairs)."""
    if len(results) not in (3, 5):
        raise ValueError("results must have 3 (L, D, W) or 5 (pentanomial) entries")
    t0, t1 = nelo0 / NELO_DIVIDED_BY_NT, nelo1 / NELO_DIVIDED_BY_NT
    if len(results) == 5:
        t0, t1 = t0 * math.sqrt(2.0), t1 * math.sqrt(2.0)
    n, pdf = _results_to_pdf(results)
    p0, p1 = _mle_t_value(pdf, 0.5, t0), _mle_t_value(pdf, 0.5, t1)
    return n * _llr_from(pdf, p0, p1)


def sprt_llr(elo0: float, elo1: float, results: Sequence[int], model: str = "normalized") -> float:
    """LLR for ``model`` in ("normalized", "logistic"); 0.0 when there are no results yet."""
    if sum(results) == 0:
        return 0.0
    if model == "normalized":
        return llr_normalized(elo0, elo1, results)
    if model == "logistic":
        return llr_logistic(elo0, elo1, results)
    raise ValueError(f"unknown SPRT model {model!r} (use normalized or logistic)")


@dataclass(frozen=True)
class SprtResult:
    """Current SPRT state: ``llr`` with its ``lower``/``upper`` bounds and ``decision`` one of
    ``None`` (continue), ``"H0"`` (accepted H0, elo <= elo0) or ``"H1"`` (accepted H1)."""

    llr: float
    lower: float
    upper: float
    decision: str | None


def sprt_status(elo0: float, elo1: float, alpha: float, beta: float, results: Sequence[int],
                model: str = "normalized") -> SprtResult:
    """Evaluate the SPRT on ``results`` (pentanomial or trinomial, see :func:`llr_logistic`)."""
    lower, upper = sprt_bounds(alpha, beta)
    llr = sprt_llr(elo0, elo1, results, model)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtResult(llr, lower, upper, decision)


def pentanomial_from_pairs(pair_scores: Sequence[float]) -> list[int]:
    """Count pair scores (each 0, 0.5, 1, 1.5 or 2 points for the first player) into
    ``[LL, LD, WL+DD, WD, WW]``."""
    out = [0, 0, 0, 0, 0]
    for s in pair_scores:
        idx = int(round(s * 2))
        if not 0 <= idx <= 4:
            raise ValueError(f"pair score out of range: {s}")
        out[idx] += 1
    return out
