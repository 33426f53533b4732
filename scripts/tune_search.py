#!/usr/bin/env python3
"""Tune the search parameters (uci_engine/params.py) by games: fishtest's SPSA with our runner.

Each step of :class:`uci_engine.tools.spsa.Spsa` plays ``--pairs`` game pairs (``-repeat``,
random noob_2moves openings, colours swapped) between ``uci-engine --tune`` with
``theta + c_k * flip`` and the same engine with ``theta - c_k * flip``, at ``--tc`` on
``--concurrency`` games at once, through our runner in this process
(:func:`uci_engine.tools.match.play_match`), and moves theta by the plus side's wins minus
losses. Each parameter's ``c_end`` is its table ``step``; ``r_end`` is ``--r-end`` (0.002, as
OpenBench and fishtest).

After every step the state (theta, pair counter, the run's config) is written atomically to
``--state`` and one JSON line to ``--log`` (the step's flips, values played, result, faults and
the new theta), so an interrupted run (Ctrl-C, a reboot) resumes with the step it was playing
when the same command is given again; a state of another run (other parameters, games, seed)
is refused. The tuned values become the defaults only after an SPRT at 10+0.1 against the
untuned engine: the script prints that command at the end (and with ``--show``).

Usage:
  python scripts/tune_search.py --games 20000 --tc 5+0.05            # all parameters
  python scripts/tune_search.py --params RFP_MARGIN,NMP_EVAL_DIV ...  # a subset
  python scripts/tune_search.py --show                               # the run so far
The state and log default to tune/spsa_state.json and tune/spsa_log.jsonl (data: keep them
out of git).
"""
import argparse
import json
import os
import shlex
import sys
import time

from uci_engine import params as SP
from uci_engine.tools import spsa
from uci_engine.tools.match import pairs_argv, play_match

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT_BOOK = os.path.join(ROOT, "tests", "data", "openings", "noob_2moves.epd")
#: the engine with its tunables as UCI options
DEFAULT_ENGINE = "uci-engine --tune"
#: issue 31: at least 20,000 games
DEFAULT_GAMES = 20000
DEFAULT_TC = "5+0.05"
#: game pairs a step: two games at once on 2 cores, engines started once per step
DEFAULT_PAIRS = 2
#: the SPRT that makes tuned values the defaults (issue 31)
SPRT_TC = "10+0.1"


def rows_for(names, r_end):
    """SPSA rows (list of :class:`spsa.Row`) of the named table parameters (all when
    ``names`` is empty). Raises ValueError on an unknown name."""
    table = {p.name: p for p in SP.TABLE}
    for n in names:
        if n not in table:
            raise ValueError(f"unknown search parameter {n!r} (uci-engine --tune lists them)")
    chosen = [table[n] for n in names] if names else SP.TABLE
    return [spsa.Row(p.name, p.default, p.min, p.max, p.step, r_end) for p in chosen]


def option_args(values):
    """Our runner's ``option.NAME=VALUE`` arguments (list of str) of a dict of values."""
    return [f"option.{k}={v}" for k, v in values.items()]


def match_argv(engine, step, pairs, tc, concurrency, book, seed, maxmoves=None):
    """Our runner's (cutechess-cli) arguments for one SPSA step: the plus engine is engine 1."""
    return ["-engine", f"cmd={engine}", "name=plus", *option_args(step.plus),
            "-engine", f"cmd={engine}", "name=minus", *option_args(step.minus),
            "-each", "proto=uci", f"tc={tc}", "option.Hash=16",
            *pairs_argv(pairs, concurrency, seed, book, maxmoves=maxmoves)]


def sprt_command(engine, values):
    """The SPRT command (str) that tests ``values`` against the untuned engine."""
    changed = {k: v for k, v in values.items() if v != SP.TABLE[SP.BY_NAME[k]].default}
    return shlex.join(["uci-engine-match", "-engine", f"cmd={engine}", "name=tuned",
                       *option_args(changed), "-engine", f"cmd={engine}", "name=untuned",
                       "-each", "proto=uci", f"tc={SPRT_TC}", "option.Hash=16",
                       "-games", "2", "-rounds", "20000", "-repeat", "-concurrency", "2",
                       "-openings", "file=tests/data/openings/noob_2moves.epd", "format=epd",
                       "order=random", "-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"])


def _write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def report(run, engine, out=print):
    """Print the run's progress, the values that moved and the SPRT command."""
    values = run.values()
    out(f"pairs {run.k} of {run.num_iter} ({2 * run.k} games)")
    for r, t in zip(run.rows, run.theta):
        if values[r.name] != r.start or abs(t - r.start) >= 0.5 * r.c_end:
            out(f"  {r.name}: {r.start} -> {t:.2f} ({values[r.name]})")
    out("SPRT against the untuned engine:")
    out("  " + sprt_command(engine, values))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games of the whole run")
    ap.add_argument("--tc", default=DEFAULT_TC, help="time control (5+0.05)")
    ap.add_argument("--pairs", type=int, default=DEFAULT_PAIRS, help="game pairs a step (2)")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--params", default="", help="comma-separated names (default: all)")
    ap.add_argument("--r-end", type=float, default=spsa.R_END)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", default=DEFAULT_ENGINE, help="engine command (with --tune)")
    ap.add_argument("--book", default=DEFAULT_BOOK)
    ap.add_argument("--state", default=os.path.join("tune", "spsa_state.json"))
    ap.add_argument("--log", default=os.path.join("tune", "spsa_log.jsonl"))
    ap.add_argument("--steps", type=int, default=None, help="stop after this many steps")
    ap.add_argument("--maxmoves", type=int, default=None, help="adjudicate a draw (smoke tests)")
    ap.add_argument("--show", action="store_true", help="print the saved run and exit")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.params.split(",") if n.strip()]
    try:
        run = spsa.Spsa(rows_for(names, args.r_end), args.games, seed=args.seed)
        if os.path.exists(args.state):
            with open(args.state, encoding="utf-8") as f:
                run.restore(json.load(f))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.show:
        report(run, args.engine)
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.state)), exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
    steps = 0
    try:
        while not run.done and (args.steps is None or steps < args.steps):
            step = run.propose()
            pairs = min(args.pairs, run.num_iter - run.k)
            t0 = time.time()
            res = play_match(match_argv(args.engine, step, pairs, args.tc, args.concurrency,
                                        args.book, args.seed * 1_000_003 + step.k,
                                        args.maxmoves), log=lambda line: None)
            played = (res["wins"] + res["losses"] + res["draws"]) // 2
            if res["stopped"] or played < pairs:
                print(f"step at pair {step.k}: only {played} of {pairs} pairs finished; "
                      f"it is played again", file=sys.stderr)
                if res["stopped"]:
                    break
                continue
            result = res["wins"] - res["losses"]
            theta = run.update(step, result, pairs)
            _write_json(args.state, run.state())
            with open(args.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"k": step.k, "pairs": pairs, "flip": step.flip.tolist(),
                                    "plus": step.plus, "minus": step.minus,
                                    "result": result, "penta": res["penta"],
                                    "faults": res["faults"], "seconds": round(time.time() - t0, 1),
                                    "theta": [round(t, 3) for t in theta]}) + "\n")
            steps += 1
            print(f"pairs {run.k}/{run.num_iter}: result {result:+d}, "
                  f"faults {res['faults'] or 'none'}", flush=True)
    except KeyboardInterrupt:
        print("interrupted: the same command resumes the run", file=sys.stderr)
    report(run, args.engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
