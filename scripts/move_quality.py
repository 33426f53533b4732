#!/usr/bin/env python3
"""How much each doubling of search effort improves an engine's moves, measured against an
oracle instead of in games: a diagnostic of how a search scales (issue 43: our build gains less
Elo from a doubling of time than Ethereal 12, docs/campaign.md rows 192-193), and a cheap way to
pick which search change earns a long-time-control SPRT. Games decide (docs/strength.md); this
only ranks candidates.

Positions are drawn from match PGNs (a seeded sample of plies ``--plies A-B`` of each game, at
most ``--per-game`` a game). A strong engine (``--oracle``, Debian's Stockfish 15.1 by default,
``Threads=1``) searches each position to ``--oracle-nodes`` nodes; positions it scores beyond
``--max-cp`` centipawns either way are dropped (decided games say little about a move), and the
first ``--positions`` that remain are kept. Then every engine (``--engine``, repeatable) plays
one move in each position at each effort: ``go nodes N`` for ``--nodes`` (load-independent, so
builds can be compared beside other work; Ethereal 12 ignores ``go nodes``) or ``go movetime``
for ``--movetime`` (milliseconds: quiet cores only). Each search starts from ``ucinewgame``.

A move's **loss** is ``E(best) - E(move)``, at least 0, where ``E`` is the oracle's expected
score (0..1, the side to move's view) under python-chess's Stockfish 15.1 WDL model at the
position's ply: ``E(best)`` from the oracle's own search, ``E(move)`` from a search of the same
size restricted to that move (``searchmoves``), and 0 when the engine played the oracle's move.
The oracle's results are cached in ``--cache`` (JSON, keyed by FEN, move and node count), so a
second run with new engines re-searches only the moves not seen before.

Prints, per engine and effort: positions, mean loss (expected score in percent, with its
standard error), and the share of moves equal to the oracle's; then, per engine, the loss
ratio between consecutive efforts (below 1: the doubling helped) and, for every engine after
the first, its paired loss difference from the first engine at each effort (negative: better).

Engine specs are parsed by the match runner's own ``parse_engine_spec``
(``uci_engine/tools/args.py``) and take four of its keys, ``name``, ``cmd``, ``arg`` and
``option.NAME`` (no time control: the efforts set it): ``--engine "name=gen10c
cmd=.venv/bin/uci-engine option.EvalFile=NET"``; ``cmd`` is shell-split and may carry arguments
(``cmd=".venv/bin/uci-engine --tune" option.NMP_DEPTH_DIV=6``).

Usage::

    python scripts/move_quality.py GAMES.pgn [MORE.pgn ...] --engine SPEC [--engine SPEC ...]
        (--nodes 50000,100000,200000 | --movetime 100,200,400) [--positions 300]
        [--oracle /usr/games/stockfish] [--oracle-nodes 1000000] [--max-cp 300]
        [--plies 16-100] [--per-game 2] [--seed 1] [--jobs 2] [--cache FILE]

Errors: a malformed ``--engine`` or effort list exits with a message; an engine that dies is
reported with its name (python-chess's ``EngineTerminatedError``).
"""
import argparse
import json
import math
import os
import random
import shlex
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import chess
import chess.engine

from uci_engine.tools.args import parse_engine_spec
from uci_engine.tools.pgnfiles import read_games

#: python-chess's name of the WDL model of Debian's Stockfish 15.1, the default oracle
WDL_MODEL = "sf15.1"
#: the oracle's hash (MiB): enough for a million-node search
ORACLE_HASH_MB = 64


#: the match runner's engine keys this script honours (``option.NAME`` always passes)
ENGINE_KEYS = frozenset({"name", "cmd", "arg"})


def parse_engine(text):
    """``(name, argv, options)`` from a spec such as ``name=x cmd="prog --flag"
    option.Hash=16``, parsed by the match runner's own ``parse_engine_spec``. Raises
    ValueError (the runner's ``ArgError``) on a token without ``=``, a key outside
    ``ENGINE_KEYS``, a missing ``cmd`` or a command that does not exist."""
    try:
        tokens = shlex.split(text)
    except ValueError as err:
        raise ValueError(f"--engine {text!r}: {err}") from None
    spec = parse_engine_spec(tokens, "--engine", keys=ENGINE_KEYS)
    return spec.display_name(), spec.command(), dict(spec.options)


def parse_efforts(text):
    """A comma-separated list of positive integers, e.g. ``50000,100000``."""
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"expected integers separated by commas, got {text!r}") from None
    if not vals or min(vals) <= 0:
        raise ValueError(f"expected positive integers, got {text!r}")
    return vals


def sample_positions(paths, plies, per_game, seed):
    """FENs (list of str) drawn from the games of ``paths``: up to ``per_game`` positions a
    game among plies ``plies[0]..plies[1]`` (inclusive) that are not over, shuffled by
    ``seed``; a FEN is kept once."""
    rng = random.Random(seed)
    out, seen = [], set()
    for game in read_games(paths):
        board = game.board()
        cands = []
        for ply, move in enumerate(game.mainline_moves()):
            if plies[0] <= ply <= plies[1] and not board.is_game_over():
                cands.append(board.fen())
            board.push(move)
        for fen in rng.sample(cands, min(per_game, len(cands))):
            if fen not in seen:
                seen.add(fen)
                out.append(fen)
    rng.shuffle(out)
    return out


class Oracle:
    """The oracle's searches with a JSON cache: ``best(fen)`` -> (uci, expected score, cp or
    None for a mate) and ``value(fen, uci)`` -> expected score of that move. Thread-safe: one
    engine process per thread, one cache."""

    def __init__(self, argv, nodes, cache_path):
        self.argv, self.nodes, self.cache_path = argv, nodes, cache_path
        self.lock = threading.Lock()
        self.local = threading.local()
        self.engines = []
        self.cache = {}
        if cache_path and os.path.exists(cache_path):
            with open(cache_path) as f:
                self.cache = json.load(f)

    def _engine(self):
        eng = getattr(self.local, "engine", None)
        if eng is None:
            eng = chess.engine.SimpleEngine.popen_uci(self.argv)
            eng.configure({k: v for k, v in (("Threads", 1), ("Hash", ORACLE_HASH_MB))
                           if k in eng.options})
            self.local.engine = eng
            with self.lock:
                self.engines.append(eng)
        return eng

    def _search(self, fen, uci):
        key = f"{fen}|{uci or 'best'}|{self.nodes}"
        with self.lock:
            hit = self.cache.get(key)
        if hit is not None:
            return hit
        board = chess.Board(fen)
        moves = [chess.Move.from_uci(uci)] if uci else None
        info = self._engine().analyse(board, chess.engine.Limit(nodes=self.nodes),
                                      root_moves=moves, game=object())
        pov = info["score"].pov(board.turn)
        best = info["pv"][0].uci() if info.get("pv") else uci
        hit = [best, pov.wdl(model=WDL_MODEL, ply=board.ply()).expectation(), pov.score()]
        with self.lock:
            self.cache[key] = hit
        return hit

    def best(self, fen):
        return self._search(fen, None)

    def value(self, fen, uci):
        return self._search(fen, uci)[1]

    def save(self):
        if self.cache_path:
            tmp = self.cache_path + ".tmp"
            with self.lock, open(tmp, "w") as f:
                json.dump(self.cache, f)
            os.replace(tmp, self.cache_path)

    def close(self):
        for eng in self.engines:
            eng.quit()


def play_all(spec, fens, limits, jobs):
    """The engine's move (uci) in each position at each limit: dict (limit index, position
    index) -> uci. ``limits`` are python-chess ``Limit`` objects; ``jobs`` engine processes
    share the positions."""
    name, argv, options = spec
    out = {}
    lock = threading.Lock()

    def worker(part):
        eng = chess.engine.SimpleEngine.popen_uci(argv)
        try:
            eng.configure(options)
            for i in part:
                board = chess.Board(fens[i])
                for j, limit in enumerate(limits):
                    move = eng.play(board, limit, game=object()).move
                    with lock:
                        out[j, i] = move.uci()
        finally:
            eng.quit()

    parts = [range(k, len(fens), jobs) for k in range(jobs)]
    with ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(worker, p) for p in parts]:
            f.result()
    return out


def mean_se(xs):
    """(mean, standard error) of a list of floats."""
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return statistics.fmean(xs), se


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--engine", action="append", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--nodes")
    g.add_argument("--movetime")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--oracle", default="/usr/games/stockfish")
    ap.add_argument("--oracle-nodes", type=int, default=1_000_000)
    ap.add_argument("--max-cp", type=int, default=300)
    ap.add_argument("--plies", default="16-100")
    ap.add_argument("--per-game", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache")
    a = ap.parse_args(argv)
    try:
        specs = [parse_engine(e) for e in a.engine]
        efforts = parse_efforts(a.nodes or a.movetime)
        lo, hi = (int(v) for v in a.plies.split("-"))
    except ValueError as err:
        ap.error(str(err))
    unit = "nodes" if a.nodes else "ms"
    limits = [chess.engine.Limit(nodes=e) if a.nodes else chess.engine.Limit(time=e / 1000)
              for e in efforts]

    oracle = Oracle(shlex.split(a.oracle), a.oracle_nodes, a.cache)
    # one pool for all the oracle's searches: its threads keep their engine processes
    pool = ThreadPoolExecutor(a.jobs)
    try:
        fens = []
        cands = sample_positions(a.pgn, (lo, hi), a.per_game, a.seed)
        # the oracle's best in sampled order, a batch at a time, until enough qualify
        k = 0
        while len(fens) < a.positions and k < len(cands):
            batch = cands[k:k + 4 * a.jobs]
            k += len(batch)
            for fen, (_, _, cp) in zip(batch, pool.map(oracle.best, batch)):
                if cp is not None and abs(cp) <= a.max_cp and len(fens) < a.positions:
                    fens.append(fen)
        oracle.save()
        print(f"{len(fens)} positions (of {k} sampled from {len(cands)}), oracle "
              f"{a.oracle} at {a.oracle_nodes:,} nodes, |cp| <= {a.max_cp}")

        losses = {}
        for spec in specs:
            moves = play_all(spec, fens, limits, a.jobs)
            todo = sorted({(fens[i], u) for (j, i), u in moves.items()
                           if u != oracle.best(fens[i])[0]})
            list(pool.map(lambda fm: oracle.value(*fm), todo))
            oracle.save()
            for j in range(len(efforts)):
                row = []
                for i, fen in enumerate(fens):
                    best_uci, e_best, _ = oracle.best(fen)
                    u = moves[j, i]
                    row.append((0.0 if u == best_uci else max(0.0, e_best - oracle.value(fen, u)),
                                u == best_uci))
                losses[spec[0], j] = row
    finally:
        pool.shutdown()
        oracle.close()

    # (mean loss, its standard error) of each engine at each effort
    summary = {key: mean_se([x for x, _ in row]) for key, row in losses.items()}
    print(f"\n{'engine':<16} {unit:>10} {'n':>5} {'loss %':>8} {'±SE':>6} {'same %':>7}")
    for name, _, _ in specs:
        for j, e in enumerate(efforts):
            row = losses[name, j]
            m, se = summary[name, j]
            same = 100 * sum(s for _, s in row) / len(row)
            print(f"{name:<16} {e:>10} {len(row):>5} {100 * m:>8.3f} {100 * se:>6.3f} "
                  f"{same:>7.1f}")
    print("\nloss ratio from one effort to the next (below 1: the extra effort helped)")
    for name, _, _ in specs:
        means = [summary[name, j][0] for j in range(len(efforts))]
        ratios = [f"{means[j + 1] / means[j]:.3f}" if means[j] else "-"
                  for j in range(len(efforts) - 1)]
        print(f"{name:<16} " + " ".join(ratios))
    if len(specs) > 1:
        base = specs[0][0]
        print(f"\npaired loss difference from {base} (percent; negative: fewer points lost)")
        for name, _, _ in specs[1:]:
            cells = []
            for j in range(len(efforts)):
                d = [x - y for (x, _), (y, _) in zip(losses[name, j], losses[base, j])]
                m, se = mean_se(d)
                cells.append(f"{100 * m:+.3f} ± {100 * se:.3f}")
            print(f"{name:<16} " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
