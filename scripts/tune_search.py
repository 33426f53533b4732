#!/usr/bin/env python3
"""Tune the search parameters (uci_engine/params.py) by games: fishtest's SPSA with our runner.

Each step of :class:`uci_engine.tools.spsa.Spsa` plays ``--pairs`` game pairs (``-repeat``,
random noob_2moves openings, colours swapped) between ``uci-engine --tune`` with
``theta + c_k * flip`` and the same engine with ``theta - c_k * flip``, at ``--tc``, one game
at a time, through our runner in this process (:func:`uci_engine.tools.match.run_match`), and
moves theta by the plus side's wins minus losses. ``--concurrency`` steps run side by side on
one event loop, as fishtest's workers do: each worker issues its next step the moment its last
one ends, so no core waits for the slowest game of a batch. A worker's two engines run on from
step to step (:class:`uci_engine.tools.tournament.EngineKeeper`): each step sends both their
values, and each game begins with ``ucinewgame``. Each parameter's ``c_end`` is its
table ``step``; ``r_end`` is ``--r-end`` (0.002, as OpenBench and fishtest).

After every step the state (theta, pairs played, the steps in flight, the run's config with its
time control) is written atomically to ``--state`` and one JSON line to ``--log``: the step's
flips, values played, result, each side's games lost by a fault (time, illegal move, crash,
stall; ``faults`` the plus side's, ``minus_faults`` the other's) and the new theta. So an
interrupted run (Ctrl-C, a reboot) resumes when the same command is given again: the steps that
were in flight are played first, with the same flips. A state of another run (other
parameters, games, seed, time control) is refused. The tuned values become the defaults only
after an SPRT at 10+0.1 against the untuned engine: the script prints that command at the end
(and with ``--show``). ``--pgnout FILE`` appends every game, with its clock comments, to
``FILE`` (to look into a fault; a cache, not a record).

Usage:
  python scripts/tune_search.py --games 20000                        # all parameters, 3+0.03
  python scripts/tune_search.py --params RFP_MARGIN,NMP_EVAL_DIV ...  # a subset
  python scripts/tune_search.py --show                               # the run so far
  python scripts/tune_search.py --show --since 882                   # and a slice's figures
  python scripts/tune_search.py --options                            # the tuned values' options
The state and log default to tune/spsa_state.json and tune/spsa_log.jsonl (data: keep them
out of git).
"""
import argparse
import asyncio
import hashlib
import json
import os
import shlex
import sys
import tempfile
import time

from uci_engine import params as SP
from uci_engine.tools import spsa
from uci_engine.tools.args import ArgError, parse_args
from uci_engine.tools.match import match_summary, pairs_argv, quiet_engine_logs, run_match
from uci_engine.tools.tournament import EngineKeeper, on_sigint

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT_BOOK = os.path.join(ROOT, "tests", "data", "openings", "noob_2moves.epd")
#: the engine with its tunables as UCI options
DEFAULT_ENGINE = "uci-engine --tune"
#: issue 31: at least 20,000 games
DEFAULT_GAMES = 20000
#: the campaign's SPSA time control (docs/campaign.md, "SPSA", gives the games a minute that
#: chose it over 5+0.05)
DEFAULT_TC = "3+0.03"
#: game pairs a step, played one game at a time by one worker
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


def match_argv(engine, step, pairs, tc, concurrency, book, seed, maxmoves=None, pgn=None):
    """Our runner's (cutechess-cli) arguments for one SPSA step: the plus engine is engine 1;
    its games are appended to ``pgn`` when given."""
    return ["-engine", f"cmd={engine}", "name=plus", *option_args(step.plus),
            "-engine", f"cmd={engine}", "name=minus", *option_args(step.minus),
            "-each", "proto=uci", f"tc={tc}", "option.Hash=16",
            *pairs_argv(pairs, concurrency, seed, book, pgn=pgn, maxmoves=maxmoves)]


def changed_values(run):
    """The run's rounded values (dict name -> int) that differ from its start values (the
    defaults of the build it tuned)."""
    return {k: v for (k, v), r in zip(run.values().items(), run.rows) if v != r.start}


def sprt_command(engine, run):
    """The SPRT command (str) that tests the run's values against the untuned engine."""
    changed = changed_values(run)
    return shlex.join(["uci-engine-match", "-engine", f"cmd={engine}", "name=tuned",
                       *option_args(changed), "-engine", f"cmd={engine}", "name=untuned",
                       "-each", "proto=uci", f"tc={SPRT_TC}", "option.Hash=16",
                       "-games", "2", "-rounds", "20000", "-repeat", "-concurrency", "2",
                       "-openings", "file=tests/data/openings/noob_2moves.epd", "format=epd",
                       "order=random", "-sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"])


def lock_state(path):
    """Lock the run of state file ``path`` for this process: returns an open file to close when
    done (closing it, or the process ending however it ends, releases the lock), or None when
    another process holds it. The lock is an exclusive ``flock`` on a file in the temporary
    directory named after the state's absolute path. Without ``fcntl`` (Windows) nothing is
    locked and the file is still returned."""
    digest = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:16]
    lock_path = os.path.join(tempfile.gettempdir(), f"tune_search-{digest}.lock")
    fh = open(lock_path, "a")  # noqa: SIM115 - held open while the run plays
    try:
        import fcntl
    except ImportError:
        return fh
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return None
    return fh


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
    out("  " + sprt_command(engine, run))


def slice_summary(run, log_path, since, out=print):
    """Print what the steps of the run logged in ``log_path`` from pair ``since`` on played (a
    ledger row's figures, docs/campaign.md): games, the plus side's pentanomial counts against
    the minus side, each side's games lost by a fault, the mean seconds a step, and how far
    theta now stands from the start values, in units of each row's ``c_end``: the largest
    three moves. Steps logged twice (replayed after a stop) count once, the last time.
    Raises OSError (no log) and ValueError (a line that is not JSON)."""
    steps = {}
    with open(log_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                step = json.loads(line)
                if step["k"] >= since:
                    steps[step["k"]] = step
    penta = [0] * 5
    faults = {"plus": {}, "minus": {}}
    for step in steps.values():
        for i, n in enumerate(step["penta"]):
            penta[i] += n
        for side, key in (("plus", "faults"), ("minus", "minus_faults")):
            for kind, n in step.get(key, {}).items():
                faults[side][kind] = faults[side].get(kind, 0) + n
    pairs = sum(s["pairs"] for s in steps.values())
    first = min(steps, default=since)
    out(f"pairs {first}-{first + pairs - 1} ({len(steps)} steps, {2 * pairs} games); plus "
        f"against minus {penta}; faults plus {faults['plus'] or 'none'}, minus "
        f"{faults['minus'] or 'none'}")
    if steps:
        secs = sum(s["seconds"] for s in steps.values()) / len(steps)
        out(f"mean step {secs:.1f} s")
    moves = sorted(((abs(t - r.start) / r.c_end, r.name, r.start, t)
                    for r, t in zip(run.rows, run.theta)), reverse=True)
    out("theta from the start, in c_end: " + "; ".join(
        f"{name} {start} -> {t:.2f} ({m:.2f})" for m, name, start, t in moves[:3]))


async def play_steps(run, args):
    """Play the run's steps, ``args.concurrency`` at once (each one game at a time), until the
    run is done, ``args.steps`` steps were issued, Ctrl-C or a match that cannot start; save
    the state and log after every step. Returns None when it ended by itself, else why it
    stopped (str: "interrupted" or the match's error)."""
    running, issued, stopped = set(), [0], [None]

    def stop(reason):
        if stopped[0] is None:
            stopped[0] = reason
        for t in list(running):
            t.stop("interrupted")

    def save(line=None):
        _write_json(args.state, run.state())
        if line is not None:
            with open(args.log, "a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")

    async def play(step, keep):
        """The step's match (match_summary's dict), its engines from the worker's ``keep``;
        its Tournament is in ``running`` while it plays, so that Ctrl-C stops it."""
        cfg = parse_args(match_argv(args.engine, step, step.pairs, args.tc, 1, args.book,
                                    args.seed * 1_000_003 + step.k, args.maxmoves,
                                    args.pgnout))
        mine = []

        def started(t):
            mine.append(t)
            running.add(t)
            if stopped[0] is not None:          # stopped while this match was being set up
                t.stop("interrupted")
        try:
            return match_summary(await run_match(cfg, out=lambda line: None, sigint=False,
                                                 on_start=started, keep=keep))
        finally:
            running.difference_update(mine)

    async def worker():
        keep = EngineKeeper()               # the worker's two engines run on from step to step
        try:
            await steps(keep)
        finally:
            await keep.close()

    async def steps(keep):
        while stopped[0] is None and (args.steps is None or issued[0] < args.steps):
            step = run.issue(args.pairs)
            if step is None:
                return
            issued[0] += 1
            t0 = time.time()
            try:
                res = await play(step, keep)
            except (ArgError, RuntimeError) as e:   # no such engine, or one that cannot start
                run.abandon(step)
                save()
                stop(str(e))
                return
            played = (res["wins"] + res["losses"] + res["draws"]) // 2
            if res["stopped"] or played < step.pairs:
                run.abandon(step)
                save()
                print(f"step at pair {step.k}: only {played} of {step.pairs} pairs finished; "
                      f"it is played again", file=sys.stderr)
                if res["stopped"]:
                    return
                continue
            result = res["wins"] - res["losses"]
            theta = run.update(step, result)
            save({"k": step.k, "pairs": step.pairs, "flip": step.flip.tolist(),
                  "plus": step.plus, "minus": step.minus, "result": result,
                  "penta": res["penta"], "faults": res["faults"],
                  "minus_faults": res["opponent_faults"],
                  "seconds": round(time.time() - t0, 1),
                  "theta": [round(t, 3) for t in theta]})
            print(f"pairs {run.k}/{run.num_iter}: result {result:+d}, faults "
                  f"plus {res['faults'] or 'none'}, minus {res['opponent_faults'] or 'none'}",
                  flush=True)

    with on_sigint(lambda: stop("interrupted")):
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    return stopped[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games of the whole run")
    ap.add_argument("--tc", default=DEFAULT_TC, help="time control (3+0.03)")
    ap.add_argument("--pairs", type=int, default=DEFAULT_PAIRS, help="game pairs a step (2)")
    ap.add_argument("--concurrency", type=int, default=2,
                    help="steps played side by side, one game at a time each (2)")
    ap.add_argument("--params", default="", help="comma-separated names (default: all)")
    ap.add_argument("--r-end", type=float, default=spsa.R_END)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", default=DEFAULT_ENGINE, help="engine command (with --tune)")
    ap.add_argument("--book", default=DEFAULT_BOOK)
    ap.add_argument("--state", default=os.path.join("tune", "spsa_state.json"))
    ap.add_argument("--log", default=os.path.join("tune", "spsa_log.jsonl"))
    ap.add_argument("--steps", type=int, default=None, help="stop after this many steps")
    ap.add_argument("--pgnout", default=None,
                    help="append every game to this PGN (with each move's clock comment)")
    ap.add_argument("--maxmoves", type=int, default=None, help="adjudicate a draw (smoke tests)")
    ap.add_argument("--show", action="store_true", help="print the saved run and exit")
    ap.add_argument("--since", type=int, default=None, metavar="PAIR",
                    help="with --show: also sum the log's steps from this pair on (a slice)")
    ap.add_argument("--options", action="store_true",
                    help="print the saved run's values that differ from its start values as "
                         "our runner's option.NAME=VALUE arguments, on one line, and exit")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.params.split(",") if n.strip()]
    if args.pairs < 1 or args.concurrency < 1:
        print("error: --pairs and --concurrency must be at least 1", file=sys.stderr)
        return 2
    if args.show or args.options:
        return _main(args, names)
    lock = lock_state(args.state)
    if lock is None:
        print(f"error: another tune_search run is playing {args.state}: stop it first (two "
              "runs on one state would overwrite each other's steps)", file=sys.stderr)
        return 2
    with lock:
        return _main(args, names)


def _main(args, names):
    """The run of :func:`main`'s parsed ``args`` (its exit status)."""
    try:
        if (args.show or args.options) and os.path.exists(args.state):
            # reading a run needs only its state: its rows and start values are saved there,
            # so it stays readable after its values become the table's defaults
            with open(args.state, encoding="utf-8") as f:
                run = spsa.Spsa.from_state(json.load(f))
        else:
            run = spsa.Spsa(rows_for(names, args.r_end), args.games, seed=args.seed,
                            extra={"tc": args.tc})
            if os.path.exists(args.state):
                with open(args.state, encoding="utf-8") as f:
                    run.restore(json.load(f))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError) as e:
        print(f"error: {args.state} is not an SPSA state ({e!r})", file=sys.stderr)
        return 2
    if args.options:
        print(shlex.join(option_args(changed_values(run))))
        return 0
    if args.show:
        report(run, args.engine)
        if args.since is not None:
            try:
                slice_summary(run, args.log, args.since)
            except (OSError, ValueError, KeyError) as e:
                print(f"error: the log {args.log}: {e!r}", file=sys.stderr)
                return 2
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.state)), exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.log)), exist_ok=True)
    quiet_engine_logs()
    stopped = asyncio.run(play_steps(run, args))
    if stopped is not None:
        print(f"{stopped}: the same command resumes the run", file=sys.stderr)
    report(run, args.engine)
    return 0 if stopped in (None, "interrupted") else 1


if __name__ == "__main__":
    sys.exit(main())
