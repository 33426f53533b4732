#!/usr/bin/env python3
"""Calibrate UCI_Elo against Debian Stockfish 15.1's UCI_Elo; write uci_engine/strength_params.py.

Method (docs/calibration.md, which has the last calibration's matches and commands):

1. **Node law.** Our engine at a fixed node limit per move (full-strength move choice, ``nodes=``
   in our runner, no clock: ``tc=inf``) plays Stockfish at ``UCI_LimitStrength=true
   UCI_Elo=S`` (Threads 1, ``Move Overhead`` 100, the given time control), one match per
   ``S:NODES`` pair of ``--plan``, ``--games`` games each (game pairs with colours swapped,
   noob_2moves openings). The Elo of a match is ``S`` plus the pentanomial Elo difference
   (:func:`uci_engine.tools.stats.elo_pentanomial`), with its 95 % half-width.
2. **Fit.** Weighted least squares (weights 1 / sigma^2, sigma = half-width / 1.96) of
   ``Elo = ELO_ANCHOR + ELO_PER_NODE_DOUBLING * log2(nodes / NODES_AT_ANCHOR)``, the node law of
   :mod:`uci_engine.strength`. A match that scored 0 % or 100 %, or whose pairs all scored the
   same, has no finite Elo or no spread; it enters the fit with one lost and one won game pair
   added (add-one smoothing) and is marked ``smoothed``.
3. **Range.** An Elo level is supported when the fitted line's 95 % confidence interval at that
   level lies inside the span of the measured match Elos; ``ELO_MIN`` and ``ELO_MAX`` are the
   ends of the supported span (rounded inward to ``ELO_ROUNDING``), so the range reaches as far
   as the games back it, beyond Stockfish's top level if our engine beats it.
4. **Verify** (``--verify``): our engine at ``UCI_LimitStrength=true UCI_Elo=E`` (the node law
   plus the noisy pick of :mod:`uci_engine.strength`) against Stockfish at the same ``E`` and
   the same clock, for each level of ``--levels``; a level passes when 0 lies in the 95 %
   interval of the Elo difference.
5. **Noise cost** (``--fit-noise``): the levels below ``strength.NOISE_END`` pick among several
   lines with noise, which costs Elo the node law does not see. Their verify matches under the
   current law give ``level - measured = (c - c_played) * noise``, ``noise`` the level's noise
   width in centipawns and ``c_played`` the cost per centipawn the engine compensated when the
   match was played; weighted least squares through the origin gives ``c``, written as
   ``NOISE_ELO_PER_CP`` (:func:`uci_engine.strength.noise_node_factor` turns it into extra
   nodes). Without ``--fit-noise`` the current value is carried over. Verify the fitted value
   with new games (``--seed``): a refit on the matches it was fitted to proves nothing.

Every finished match is appended as one JSON line to ``--results`` (default
calib/elo_results.jsonl, not committed); a rerun skips the matches already there (same mode,
levels, games, time control, engines and net digest), so an interrupted run resumes with the
match it was playing. The generated module's ``RECORD`` holds the engine commit, the default
net and its SHA-256, the bench signature, the date, the command, the games per level and every
match; tests/test_calibration_records.py fails when its net digest is not the default net's.

``--small`` is the smoke-test mode the test suite runs against fake engines: a two-match plan,
2 games a match, ``tc=1+0.01``, ``-maxmoves 20``.
"""
import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys

import numpy as np

from uci_engine import provenance, strength, strength_params
from uci_engine.bench import parse_bench
from uci_engine.nnue_file import DEFAULT_NET, USE_NNUE_DEFAULT
from uci_engine.tools import stats
from uci_engine.tools.match import pairs_argv, play_match

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

#: Debian Stockfish 15.1's UCI_Elo range, as its ``uci`` answer declares it (``option name
#: UCI_Elo type spin default 1350 min 1350 max 2850``; 1320..3190 came with Stockfish 16). The
#: script reads the range from the opponent's ``uci`` answer and checks the plan against it.
SF_ELO_MIN, SF_ELO_MAX = 1350, 2850
#: the node law's reference point: ELO_ANCHOR is the fitted Elo at this many nodes per move
NODES_AT_ANCHOR = 1000
#: two-sided 95 % normal quantile
Z95 = 1.959963984540054
#: UCI_Elo range ends are rounded inward to a multiple of this
ELO_ROUNDING = 10
#: ``S:NODES`` pairs of the node-law pass: each node count is where the 2026-11-25 law (gen2_h128,
#: 1,000 nodes at 1570, 91 Elo a doubling; docs/calibration.md) scores about 50 % against
#: Stockfish at S. Matches near 50 % say the most: Stockfish's levels are further apart than
#: their labels at 10+0.1, so lopsided matches misread the scale. A stronger net scores above
#: 50 % in each; the fit needs the pairs spread, not exact
DEFAULT_PLAN = ((1350, 200), (1600, 1250), (1800, 6000), (2000, 25000), (2200, 120000),
                (2400, 500000))
#: games per match (the issue asks for at least 40 a level)
DEFAULT_GAMES = 40
#: Stockfish's clock (and ours in --verify); Stockfish's UCI_Elo is anchored at 60+0.6
#: (src/search.cpp), 10+0.1 is the longest our 2-core budget affords
DEFAULT_TC = "10+0.1"
#: games at once: one engine thinks while the other waits, so 2 on 2 cores
DEFAULT_CONCURRENCY = 2
DEFAULT_BOOK = os.path.join("tests", "data", "openings", "noob_2moves.epd")
DEFAULT_RESULTS = os.path.join("calib", "elo_results.jsonl")
DEFAULT_OUT = os.path.join(ROOT, "uci_engine", "strength_params.py")
#: the planning estimate behind --help's hours: moves per side of a game, our search speed on
#: the development machine (docs/performance.md: 1.86 M nps, rounded down for the concurrency),
#: and the share of Stockfish's clock it uses
MOVES_PER_GAME = 60
OUR_NPS = 1_500_000
CLOCK_SHARE = 0.8
#: --small: a plan, games, clock and game length the test suite can afford with fake engines
SMALL_PLAN = ((1350, 100), (1600, 400))
SMALL_GAMES = 2
SMALL_TC = "1+0.01"
SMALL_MAXMOVES = 20
#: the fitted noise cost is kept below this share of noise_cost_bound's limit, so each line's
#: nodes still rise with the level (tests/test_strength.py requires it)
NOISE_COST_MARGIN = 0.9
#: Stockfish's options for every match (docs/calibration.md: its clock must not decide games)
SF_OPTIONS = ("option.UCI_LimitStrength=true", "option.Threads=1", "option.Move Overhead=100")


def parse_plan(text):
    """``S:NODES`` pairs (tuple of (int, int)) of a comma-separated plan string; ValueError for
    a node count below 1."""
    plan = []
    for item in text.split(","):
        s, _, n = item.strip().partition(":")
        sf_elo, nodes = int(s), int(n)
        if nodes < 1:
            raise ValueError(f"{item!r}: nodes from 1")
        plan.append((sf_elo, nodes))
    return tuple(plan)


def uci_elo_range(cmd):
    """(min, max) of the ``UCI_Elo`` option engine ``cmd`` declares in its ``uci`` answer; None
    when it declares none (or does not start)."""
    try:
        out = subprocess.run(shlex.split(cmd), input="uci\nquit\n", capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"option name UCI_Elo type spin .*?min (-?\d+) max (-?\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def tc_seconds(tc):
    """(base seconds, increment seconds) of a ``BASE+INC`` clock; (0, 0) for ``inf``."""
    if tc == "inf":
        return 0.0, 0.0
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


def estimated_hours(plan, games, tc, concurrency, verify_levels=()):
    """Planning estimate (float, hours) of the node-law matches of ``plan`` and the verify
    matches at ``verify_levels`` on 2 cores: per game, Stockfish's share of its clock plus our
    ``nodes / OUR_NPS`` per move (verify: both clocks), divided by ``concurrency``."""
    base, inc = tc_seconds(tc)
    clock = CLOCK_SHARE * (base + inc * MOVES_PER_GAME)
    seconds = sum(games * (clock + MOVES_PER_GAME * n / OUR_NPS) for _, n in plan)
    seconds += len(verify_levels) * games * 2 * clock
    return seconds / concurrency / 3600


def default_verify_levels(elo_min, elo_max, sf_range, step=200):
    """UCI_Elo levels (list of int) for --verify: every ``step`` from ``elo_min``, and
    ``elo_max``, each within Stockfish's ``sf_range`` (a level beyond it has no opponent)."""
    levels = list(range(elo_min, elo_max, step)) + [elo_max]
    return [e for e in levels if sf_range[0] <= e <= sf_range[1]]


def runner_argv(ours, sf, sf_elo, ours_opts, games, tc, ours_tc, concurrency, book, seed, pgn,
                maxmoves=None):
    """Our runner's (cutechess-cli) arguments for one match: ours is engine 1, Stockfish at
    UCI_Elo ``sf_elo`` engine 2."""
    return ["-engine", f"cmd={ours}", "name=ours", f"tc={ours_tc}", *ours_opts,
            "-engine", f"cmd={sf}", "name=sf", f"tc={tc}", *SF_OPTIONS,
            f"option.UCI_Elo={sf_elo}",
            "-each", "proto=uci", "option.Hash=16",
            *pairs_argv(max(1, games // 2), concurrency, seed, book, pgn, maxmoves)]


def match_elo(penta):
    """(difference, 95 % half-width, smoothed) in Elo of a pentanomial ``[LL, LD, WL+DD, WD,
    WW]``; a degenerate one (0 %, 100 % or no spread) gets one LL and one WW pair added."""
    e = stats.elo_pentanomial(penta)
    if math.isfinite(e.elo) and math.isfinite(e.error) and e.error > 0:
        return e.elo, e.error, False
    smoothed = [penta[0] + 1, *penta[1:4], penta[4] + 1]
    pairs = sum(smoothed)
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    mu = sum(v * c for v, c in zip(values, smoothed)) / pairs
    sd = math.sqrt(sum(c * (v - mu) ** 2 for v, c in zip(values, smoothed)) / pairs / pairs)
    # the delta method (d Elo / d score = 400 / (ln 10 * s * (1 - s))): finite where the
    # normal interval of a score near 0 or 1 would cross the end of the scale
    return (stats.score_to_elo(mu), Z95 * sd * 400 / (math.log(10) * mu * (1 - mu)), True)


def fit_node_law(nodes, elo, half_width, anchor_nodes=NODES_AT_ANCHOR):
    """Weighted least squares of ``elo = anchor + per_doubling * log2(nodes / anchor_nodes)``.

    ``nodes``, ``elo``, ``half_width`` are sequences (one entry per match; half_width the 95 %
    half-width in Elo, weight ``(Z95 / half_width)^2``). Returns ``(anchor, per_doubling, cov)``
    with ``cov`` the 2x2 covariance (float64) of the two estimates, scaled by the reduced
    chi-square when it exceeds 1 (more scatter than the error bars say). Needs two distinct
    node counts."""
    x = np.log2(np.asarray(nodes, dtype=np.float64) / anchor_nodes)
    y = np.asarray(elo, dtype=np.float64)
    w = (Z95 / np.asarray(half_width, dtype=np.float64)) ** 2
    if len(set(x.tolist())) < 2:
        raise ValueError("the node law needs matches at two node counts at least")
    design = np.stack([np.ones_like(x), x], axis=1)
    normal = design.T @ (w[:, None] * design)
    cov = np.linalg.inv(normal)
    beta = cov @ (design.T @ (w * y))
    dof = len(x) - 2
    if dof > 0:
        chi2 = float(np.sum(w * (y - design @ beta) ** 2)) / dof
        cov = cov * max(1.0, chi2)
    return float(beta[0]), float(beta[1]), cov


def supported_range(anchor, per_doubling, cov, elos, anchor_nodes=NODES_AT_ANCHOR):
    """(lowest, highest) UCI_Elo (ints, multiples of ELO_ROUNDING) whose 95 % interval on the
    fitted line lies inside [min(elos), max(elos)], the span of the measured match Elos; None
    when no level is supported (or the law does not rise with nodes)."""
    lo_data, hi_data = min(elos), max(elos)
    if per_doubling <= 0:
        return None
    supported = []
    start = int(math.ceil(lo_data / ELO_ROUNDING)) * ELO_ROUNDING
    for level in range(start, int(hi_data) + 1, ELO_ROUNDING):
        x = (level - anchor) / per_doubling            # log2(nodes / anchor_nodes) at level
        g = np.array([1.0, x])
        half = Z95 * math.sqrt(float(g @ cov @ g))
        if level - half >= lo_data and level + half <= hi_data:
            supported.append(level)
    return (supported[0], supported[-1]) if supported else None


def fit_noise_cost(levels, measured, half_width, noise, played):
    """Weighted least squares through the origin of ``level - measured + played * noise =
    c * noise`` over verify matches of noisy levels (sequences, one entry per match: the
    level, its measured Elo, its 95 % half-width, the level's noise width in centipawns and the
    Elo per centipawn compensated when it was played). Returns ``(c, se)`` in Elo per
    centipawn, ``se`` scaled by the reduced chi-square when it exceeds 1. Raises ValueError
    without a match with noise."""
    n = np.asarray(noise, dtype=np.float64)
    if not np.any(n > 0):
        raise ValueError("the noise cost needs verify matches at levels with noise")
    y = (np.asarray(levels, dtype=np.float64) - np.asarray(measured, dtype=np.float64)
         + np.asarray(played, dtype=np.float64) * n)
    w = (Z95 / np.asarray(half_width, dtype=np.float64)) ** 2
    sxx = float(np.sum(w * n * n))
    c = float(np.sum(w * n * y)) / sxx
    var = 1.0 / sxx
    if len(n) > 1:
        var *= max(1.0, float(np.sum(w * (y - c * n) ** 2)) / (len(n) - 1))
    return c, math.sqrt(var)


def law_of(r):
    """The node law ``[NODES_AT_ANCHOR, ELO_ANCHOR, ELO_PER_NODE_DOUBLING]`` a verify match
    was played under (list of int; [] for a node-law match)."""
    return list(r.get("law") or ())


def noise_cost_of(r):
    """Elo per centipawn of noise (float) the engine compensated in verify match ``r``: its
    ``noise_elo_per_cp`` field, 0.0 for a match played before NOISE_ELO_PER_CP existed."""
    return float(r.get("noise_elo_per_cp", 0.0))


def noise_width_of(r):
    """Noise width (float, centipawns) of verify match ``r``'s level; a match recorded before
    ``noise_cp`` takes the current ``strength.noise_for`` of its level, the same width under
    the same law."""
    return r.get("noise_cp", strength.noise_for(r["uci_elo"]))


def noise_summary(verify_rows):
    """The noise-cost fit over ``verify_rows`` (matches under one law; the levels with noise
    enter): dict with ``elo_per_cp``, ``se`` and the levels, or None when no level has
    noise."""
    rows = [r for r in verify_rows if noise_width_of(r) > 0]
    if not rows:
        return None
    c, se = fit_noise_cost([r["uci_elo"] for r in rows], [r["elo"] for r in rows],
                           [r["elo_error"] for r in rows], [noise_width_of(r) for r in rows],
                           [noise_cost_of(r) for r in rows])
    return {"elo_per_cp": c, "se": se, "levels": [r["uci_elo"] for r in rows],
            "games": sum(r["games"] for r in rows)}


def noise_cost_bound(elo_min):
    """The largest Elo per centipawn (float) that keeps one line's nodes rising with the
    level: the compensation falls by ``c * NOISE_AT_MIN`` Elo over the noisy span, which must
    stay below the span itself."""
    return max(0.0, (strength.NOISE_END - elo_min) / strength.NOISE_AT_MIN * NOISE_COST_MARGIN)


def load_results(path):
    """Finished matches (list of dict) of a results file; [] when it does not exist."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def append_result(path, result):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(result, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def bench_signature(cmd):
    """Nodes (int) that ``<cmd> bench`` prints as ``Nodes searched``; None when the engine has
    no such command (a fake engine) or it fails."""
    try:
        out = subprocess.run(shlex.split(cmd) + ["bench"], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=900).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_bench(out)[0]


def key_of(r):
    """What makes two matches the same (for resuming)."""
    return (r["mode"], r["sf_elo"], r.get("nodes"), r.get("uci_elo"), r["games"], r["tc"],
            r["ours_cmd"], r["sf_cmd"], r["net_sha256"], tuple(law_of(r)), noise_cost_of(r),
            r.get("seed", r["sf_elo"]))


def node_law_summary(results):
    """The fit over the node-law matches of ``results``: dict with anchor, per_doubling,
    their standard errors, the supported range and the matches (with their Elo)."""
    rows = [r for r in results if r["mode"] == "nodes"]
    fit_anchor, fit_slope, cov = fit_node_law([r["nodes"] for r in rows],
                                              [r["elo"] for r in rows],
                                              [r["elo_error"] for r in rows])
    rng = supported_range(fit_anchor, fit_slope, cov, [r["elo"] for r in rows])
    return {"anchor": fit_anchor, "per_doubling": fit_slope,
            "anchor_se": math.sqrt(cov[0, 0]), "per_doubling_se": math.sqrt(cov[1, 1]),
            "range": rng, "matches": rows}


def write_params(path, summary, verify, info, noise):
    """Write the generated strength_params module from a node-law ``summary`` (see
    :func:`node_law_summary`), the ``verify`` matches of these constants, ``info`` (engine
    commit, net, bench, command...) and ``noise``, the noise cost: dict with ``elo_per_cp``
    and ``fitted`` (and the fit's ``se``, levels and games when fitted)."""
    lo, hi = summary["range"]
    record = dict(info)
    record.update({
        "fit": {"anchor": round(summary["anchor"], 1),
                "anchor_se": round(summary["anchor_se"], 1),
                "per_doubling": round(summary["per_doubling"], 1),
                "per_doubling_se": round(summary["per_doubling_se"], 1),
                "supported": [lo, hi]},
        "games_per_level": {f"{r['sf_elo']}:{r['nodes']}": r["games"]
                            for r in summary["matches"]},
        "matches": [_brief(r) for r in summary["matches"]],
        "verify": [_brief(r) for r in verify],
        "noise": {k: (round(v, 2) if isinstance(v, float) else v) for k, v in noise.items()},
    })
    constants = {"NODES_AT_ANCHOR": NODES_AT_ANCHOR,
                 "ELO_ANCHOR": int(round(summary["anchor"])),
                 "ELO_PER_NODE_DOUBLING": int(round(summary["per_doubling"])),
                 "ELO_MIN": lo, "ELO_MAX": hi,
                 "NOISE_ELO_PER_CP": round(noise["elo_per_cp"], 2)}
    doc = ("UCI_Elo node-law constants for :mod:`uci_engine.strength` (generated by "
           "scripts/calibrate_elo.py; do not edit).\n\n"
           f"Fitted on {len(summary['matches'])} node-limited matches against Stockfish's "
           f"UCI_Elo ({record['evaluation']}"
           f"{'' if record['net'] is None else ' ' + record['net']}, commit "
           f"{record['engine_commit']}, {record['date']}).\nCommand: {record['command']}\n"
           "``RECORD`` is the calibration's record: what was measured, with what, and every "
           "match.")
    provenance.write_generated_module(path, doc, record, constants)


def _brief(r):
    """Match ``r`` as the record keeps it: Elo figures to 0.1, the noise cost as written."""
    keep = ("mode", "sf_elo", "nodes", "uci_elo", "law", "noise_elo_per_cp", "noise_cp", "games",
            "tc", "wins", "losses", "draws", "penta", "elo", "elo_error", "smoothed", "faults",
            "seed", "date")
    return {k: (round(r[k], 1) if isinstance(r.get(k), float) and k != "noise_elo_per_cp"
                else r.get(k))
            for k in keep if k in r}


#: verify levels the --help estimate assumes (every 200 Elo of a range of about 1,500 Elo)
HELP_VERIFY_LEVELS = 8


def main(argv=None):
    hours = estimated_hours(DEFAULT_PLAN, DEFAULT_GAMES, DEFAULT_TC, DEFAULT_CONCURRENCY)
    verify_hours = estimated_hours((), DEFAULT_GAMES, DEFAULT_TC, DEFAULT_CONCURRENCY,
                                   range(HELP_VERIFY_LEVELS))
    plan_text = ", ".join(f"{s}:{n}" for s, n in DEFAULT_PLAN)
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(f"Default plan: Stockfish UCI_Elo:our nodes {plan_text}; {DEFAULT_GAMES} games "
                f"a match at tc={DEFAULT_TC} (ours: nodes, tc=inf), concurrency "
                f"{DEFAULT_CONCURRENCY}: about {hours:.1f} hours on 2 cores "
                f"({MOVES_PER_GAME} moves a side, {OUR_NPS:,} nps, {CLOCK_SHARE:.0%} of "
                f"Stockfish's clock). --verify then plays each level of the new range every 200 "
                f"Elo at the same games and clock (about {verify_hours:.1f} hours for "
                f"{HELP_VERIFY_LEVELS} levels). docs/calibration.md has the method, the last "
                f"calibration and its commands."))
    ap.add_argument("--ours", default="uci-engine", help="our engine's command")
    ap.add_argument("--stockfish", default="/usr/games/stockfish",
                    help="Stockfish's command (Debian's stockfish 15.1: install-opponents)")
    ap.add_argument("--plan", type=parse_plan, default=None,
                    help="node-law matches: comma-separated STOCKFISH_ELO:OUR_NODES")
    ap.add_argument("--games", type=int, default=None,
                    help=f"games a match (even; default {DEFAULT_GAMES})")
    ap.add_argument("--tc", default=None, help="Stockfish's clock (and ours in --verify)")
    ap.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    ap.add_argument("--book", default=DEFAULT_BOOK, help="EPD openings ('' for none)")
    ap.add_argument("--results", default=DEFAULT_RESULTS,
                    help="JSON-lines file the matches are appended to (resume)")
    ap.add_argument("--pgn-dir", default=None, help="write each match's PGN here")
    ap.add_argument("--out", default=None,
                    help="the generated constants module (default uci_engine/strength_params.py;"
                         " required with --small)")
    ap.add_argument("--verify", action="store_true",
                    help="play our UCI_Elo levels against Stockfish at the same UCI_Elo")
    ap.add_argument("--levels", default=None,
                    help="--verify's levels, comma-separated (default: every 200 Elo of the "
                         "current range and its top)")
    ap.add_argument("--runner-args", default="",
                    help="more arguments for our runner, e.g. '-resign movecount=3 score=1000'")
    ap.add_argument("--seed", type=int, default=None,
                    help="the runner's -srand (openings and colours) for every match; default: "
                         "Stockfish's level, so a rerun replays the same openings. Another seed "
                         "plays a level again on other openings")
    ap.add_argument("--fit-only", action="store_true", help="play nothing; fit the results file")
    ap.add_argument("--fit-noise", action="store_true",
                    help="fit NOISE_ELO_PER_CP (the Elo the noisy multi-line pick costs per "
                         "centipawn) from the verify matches of the noisy levels under the "
                         "current law; without it the current value is kept")
    ap.add_argument("--small", action="store_true",
                    help=f"smoke test: plan {','.join(f'{s}:{n}' for s, n in SMALL_PLAN)}, "
                         f"{SMALL_GAMES} games, tc={SMALL_TC}, "
                         f"-maxmoves {SMALL_MAXMOVES}")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the matches and the estimate; play and write nothing")
    args = ap.parse_args(argv)
    command = "python scripts/calibrate_elo.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    maxmoves = None
    if args.out is None:
        if args.small:
            ap.error("--small needs --out: it must not overwrite the shipped constants")
        args.out = DEFAULT_OUT
    if args.small:                      # the small mode's values, unless given explicitly
        small = {"plan": SMALL_PLAN, "games": SMALL_GAMES, "tc": SMALL_TC}
        for name, value in small.items():
            if getattr(args, name) is None:
                setattr(args, name, value)
        maxmoves = SMALL_MAXMOVES
    defaults = {"plan": DEFAULT_PLAN, "games": DEFAULT_GAMES, "tc": DEFAULT_TC}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.games < 2 or args.games % 2:
        ap.error("--games must be even (game pairs)")
    net_sha = provenance.net_sha256(DEFAULT_NET) if USE_NNUE_DEFAULT else None
    base = {"tc": args.tc, "games": args.games, "ours_cmd": args.ours, "sf_cmd": args.stockfish,
            "net_sha256": net_sha}
    if args.seed is not None:
        base["seed"] = args.seed

    # the opponent's own UCI_Elo range; a level outside it would be refused by the engine
    # (our runner warns and Stockfish then plays at its default): stop before playing
    declared = uci_elo_range(args.stockfish)
    sf_range = declared or (SF_ELO_MIN, SF_ELO_MAX)
    if args.verify:
        levels = ([int(x) for x in args.levels.split(",")] if args.levels
                  else default_verify_levels(strength.ELO_MIN, strength.ELO_MAX, sf_range))
        law = [strength.NODES_AT_ANCHOR, strength.ELO_ANCHOR, strength.ELO_PER_NODE_DOUBLING]
        noise_cost = float(strength.NOISE_ELO_PER_CP)
        todo = [dict(base, mode="verify", sf_elo=e, uci_elo=e, law=law,
                     noise_elo_per_cp=noise_cost, noise_cp=round(strength.noise_for(e), 2))
                for e in levels]
    else:
        todo = [dict(base, mode="nodes", sf_elo=s, nodes=n) for s, n in args.plan]
    outside = sorted({t["sf_elo"] for t in todo if not sf_range[0] <= t["sf_elo"] <= sf_range[1]})
    if declared and outside:
        ap.error(f"Stockfish levels {outside} are outside {args.stockfish}'s UCI_Elo range "
                 f"{declared[0]}..{declared[1]}")
    if args.verify:
        hours = estimated_hours((), args.games, args.tc, args.concurrency, levels)
    else:
        hours = estimated_hours(args.plan, args.games, args.tc, args.concurrency)
    print(f"{len(todo)} matches of {args.games} games, tc={args.tc}: about {hours:.2f} hours "
          f"on 2 cores")
    done = load_results(args.results)
    done_keys = {key_of(r) for r in done}
    if args.dry_run:
        for t in todo:
            state = "done" if key_of(t) in done_keys else "to play"
            print(f"  {t['mode']} sf {t['sf_elo']} ours {t.get('nodes') or t.get('uci_elo')}: "
                  f"{state}")
        return 0
    if not args.fit_only:
        for t in todo:
            if key_of(t) in done_keys:
                print(f"skip (already played): {t['mode']} sf {t['sf_elo']}")
                continue
            # UCI_Opponent (UCI's standard "title elo computer|human name"; our engine has no
            # such option, the runner then skips it) tells a fake engine its opponent's level
            ours_opts = [f"option.UCI_Opponent=none {t['sf_elo']} computer stockfish"]
            if t["mode"] == "nodes":
                ours_opts, ours_tc = ours_opts + [f"nodes={t['nodes']}"], "inf"
            else:
                ours_opts += ["option.UCI_LimitStrength=true", f"option.UCI_Elo={t['uci_elo']}"]
                ours_tc = args.tc
            pgn = None
            if args.pgn_dir:
                os.makedirs(args.pgn_dir, exist_ok=True)
                pgn = os.path.join(args.pgn_dir, f"{t['mode']}_{t['sf_elo']}_"
                                   f"{t.get('nodes') or t.get('uci_elo')}.pgn")
            seed = t.get("seed", t["sf_elo"])
            match_argv = runner_argv(args.ours, args.stockfish, t["sf_elo"], ours_opts,
                                     args.games, args.tc, ours_tc, args.concurrency, args.book,
                                     seed, pgn, maxmoves) + shlex.split(args.runner_args)
            print(f"playing {t['mode']} sf {t['sf_elo']} ours "
                  f"{t.get('nodes') or t.get('uci_elo')} ...", flush=True)
            res = play_match(match_argv, log=lambda line: None)
            if res["stopped"]:
                # Ctrl-C: the runner ends the match early; a part of a match is not a result
                played = res["wins"] + res["losses"] + res["draws"]
                print(f"  stopped ({res['stopped']}) after {played} games: not recorded, a "
                      f"rerun plays the match again", flush=True)
                return 130 if res["stopped"] == "interrupted" else 1
            elo_diff, err, smoothed = match_elo(res["penta"])
            t.update(res, elo=t["sf_elo"] + elo_diff, elo_diff=elo_diff, elo_error=err,
                     smoothed=smoothed, date=provenance.utc_now())
            append_result(args.results, t)
            done.append(t)
            print(f"  +{res['wins']} -{res['losses']} ={res['draws']} penta {res['penta']}: "
                  f"{elo_diff:+.0f} +- {err:.0f}{' (smoothed)' if smoothed else ''}, "
                  f"faults {res['faults'] or 'none'}", flush=True)
    mine = [r for r in done if r["net_sha256"] == net_sha and r["ours_cmd"] == args.ours]
    if args.verify:
        # the levels as the engine plays them now: the same law and noise compensation
        rows = [r for r in mine if r["mode"] == "verify" and law_of(r) == law
                and noise_cost_of(r) == noise_cost]
        bad = 0
        for r in rows:
            ok = abs(r["elo_diff"]) <= r["elo_error"]
            bad += not ok
            print(f"UCI_Elo {r['uci_elo']}: {r['elo_diff']:+.0f} +- {r['elo_error']:.0f} "
                  f"({r['games']} games) {'within' if ok else 'OUTSIDE'} its 95 % interval")
        print(f"{len(rows) - bad} of {len(rows)} levels within their 95 % interval")
    nodes_rows = [r for r in mine if r["mode"] == "nodes"]
    if len({r["nodes"] for r in nodes_rows}) < 2:
        print("not enough node-law matches to fit (need two node counts)")
        return 0 if args.verify else 1
    summary = node_law_summary(nodes_rows)
    print(f"node law: {summary['anchor']:.0f} +- {summary['anchor_se']:.0f} Elo at "
          f"{NODES_AT_ANCHOR} nodes, {summary['per_doubling']:.1f} +- "
          f"{summary['per_doubling_se']:.1f} per doubling; supported range {summary['range']}")
    if summary["range"] is None:
        print("no level is supported by the data: constants not written")
        return 1
    law = [NODES_AT_ANCHOR, int(round(summary["anchor"])), int(round(summary["per_doubling"]))]
    verify = [r for r in mine if r["mode"] == "verify" and law_of(r) == law]
    # carried over with the record of its fit (which names the law it was fitted under)
    noise = dict(strength_params.RECORD.get("noise")
                 or {"elo_per_cp": float(strength.NOISE_ELO_PER_CP), "fitted": False})
    noise["elo_per_cp"] = float(strength.NOISE_ELO_PER_CP)
    if args.fit_noise:
        fit = noise_summary(verify)
        if fit is None:
            print("no verify match at a level with noise under this law: the noise cost is "
                  "not fitted, constants not written")
            return 1
        bound = noise_cost_bound(summary["range"][0])
        c = min(max(fit["elo_per_cp"], 0.0), bound)
        kept = "" if c == fit["elo_per_cp"] else f"; written as {c:.2f} (kept in 0 .. {bound:.2f})"
        print(f"noise cost: {fit['elo_per_cp']:.2f} +- {fit['se']:.2f} Elo per centipawn of "
              f"noise ({len(fit['levels'])} matches, {fit['games']} games){kept}")
        noise = dict(fit, elo_per_cp=c, fitted=True, law=law)
    info = {"evaluation": "nnue" if USE_NNUE_DEFAULT else "hand-crafted",
            "net": DEFAULT_NET if USE_NNUE_DEFAULT else None, "net_sha256": net_sha,
            "engine_commit": provenance.git_commit(), "bench": bench_signature(args.ours),
            "date": provenance.utc_now(), "command": command, "ours_cmd": args.ours,
            "opponent": f"{args.stockfish} (UCI_LimitStrength, Threads 1, Move Overhead 100)",
            "tc": args.tc}
    write_params(args.out, summary, verify, info, noise)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
