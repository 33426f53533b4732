#!/usr/bin/env python3
"""Play uci_engine against reference opponents and check it plays clean games.

Default: 20 games at 10+0.1 against Debian's ``stockfish`` (UCI_LimitStrength=true,
UCI_Elo=1320, clamped to the engine's minimum if it allows no less: Stockfish 15.1's is 1350)
and 20 games against ``fairymax`` (xboard protocol), openings from
``tests/data/openings/noob_2moves.epd``, each opening played twice with colours swapped,
``--concurrency 2`` games at a time. Every game starts fresh engine processes.

The clocks are kept here (wall time around each ``play`` call, as a GUI measures it); a move
that arrives after the clock ran out (plus ``--timemargin`` ms) loses on time, an engine that
says nothing until ``remaining + --stall`` seconds is a time loss too. Illegal moves, engine
errors and dead processes lose the game. Draws: checkmate/stalemate, threefold repetition,
fifty-move rule and insufficient material end the game as the rules (and cutechess) do; nothing
is adjudicated. Prints each game, the score against each opponent and the termination counts,
and exits 1 if uci_engine lost any game by illegal move, time or crash.

Usage: python scripts/play.py [--games 20] [--tc 10+0.1] [--concurrency 2]
           [--opponents stockfish,fairymax] [--seed 1] [--pgn games.pgn]
"""
import argparse
import asyncio
import collections
import logging
import os
import random
import shlex
import shutil
import sys
import time

import chess
import chess.engine
import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OPENINGS = os.path.join(HERE, os.pardir, "tests", "data", "openings", "noob_2moves.epd")
OURS = "uci_engine"

# name -> (command, protocol, options)
OPPONENTS = {
    "stockfish": ("stockfish", "uci", {"Threads": 1, "Hash": 16,
                                       "UCI_LimitStrength": True, "UCI_Elo": 1320}),
    "fairymax": ("shim:fairymax", "xboard", {}),
}


def xboard_shim(cmd):
    """Run the xboard engine ``cmd`` and pass its I/O through, announcing ``setboard=1``.

    python-chess refuses xboard engines that declare ``setboard=0`` (fairymax does), although
    it only sends ``setboard`` for games that do not start from the initial position; our
    games always start there and replay the opening moves, so the claim is never exercised."""
    import subprocess
    import threading
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             bufsize=1)

    def pump_in():
        try:
            for line in sys.stdin:
                child.stdin.write(line)
                child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        try:
            child.stdin.close()
        except OSError:
            pass

    threading.Thread(target=pump_in, daemon=True).start()
    for line in child.stdout:
        if line.startswith("feature ") and "setboard=0" in line:
            line = line.replace("setboard=0", "setboard=1")
        sys.stdout.write(line)
        sys.stdout.flush()
    return child.wait()


def find_cmd(cmd):
    """Absolute path for ``cmd`` (also looks in /usr/games, which is not always on PATH);
    ``shim:CMD`` runs CMD through :func:`xboard_shim`."""
    if cmd.startswith("shim:"):
        return [sys.executable, os.path.abspath(__file__), "--shim"] + find_cmd(cmd[5:])
    parts = shlex.split(cmd)
    exe = shutil.which(parts[0]) or shutil.which(parts[0], path="/usr/games")
    if exe is None:
        raise SystemExit(f"play.py: engine {parts[0]!r} not found (apt-get install -y {parts[0]})")
    return [exe] + parts[1:]


def parse_tc(text):
    base, _, inc = text.partition("+")
    return float(base), float(inc or 0)


class Side:
    """One engine process in one game."""

    def __init__(self, name, cmd, proto, options):
        self.name, self.cmd, self.proto, self.options = name, cmd, proto, options
        self.transport = self.engine = None

    async def start(self):
        popen = chess.engine.popen_uci if self.proto == "uci" else chess.engine.popen_xboard
        self.transport, self.engine = await asyncio.wait_for(popen(self.cmd), 120)
        opts = {}
        for k, v in self.options.items():
            opt = self.engine.options.get(k)
            if opt is None:
                continue
            if opt.type == "spin" and opt.min is not None and isinstance(v, int) and v < opt.min:
                v = opt.min                           # e.g. UCI_Elo 1320 -> 1350 on SF 15.1
            opts[k] = v
        if opts:
            await self.engine.configure(opts)
        self.effective_options = opts
        # like cutechess: the clock starts only once the engine is ready (our engine loads or
        # compiles its kernels in the background and answers isready when done)
        await asyncio.wait_for(self.engine.ping(), 600)

    async def close(self):
        if self.engine is None:
            return
        try:
            await asyncio.wait_for(self.engine.quit(), 5)
        except Exception:
            pass
        try:
            self.transport.kill()
        except Exception:
            pass


async def play_game(number, opening, ours_white, opponent, tc, args):
    """Play one game from ``opening`` = (fen, moves from the start that reach it); returns a
    dict with result, termination, the side at fault (if any) and the PGN."""
    fen, opening_moves = opening
    base, inc = tc
    opp_cmd, opp_proto, opp_opts = OPPONENTS[opponent]
    ours = Side(OURS, shlex.split(args.engine), "uci", {"Hash": 16})
    opp = Side(opponent, find_cmd(opp_cmd), opp_proto, dict(opp_opts))
    if opponent == "stockfish":
        opp.options["UCI_Elo"] = args.elo
    sides = {chess.WHITE: ours if ours_white else opp, chess.BLACK: opp if ours_white else ours}
    board = chess.Board()
    for mv in opening_moves:
        board.push(mv)
    clock = {chess.WHITE: base, chess.BLACK: base}
    result = termination = fault_by = None
    low_clock = {OURS: base, opponent: base}
    move_times = {OURS: [], opponent: []}
    for s in (ours, opp):
        try:
            await s.start()
        except Exception as exc:
            fault_by = s.name
            termination = f"crash at start: {type(exc).__name__}: {exc}"
            break
    game_id = object()
    while termination is None:
        outcome = board.outcome()
        if outcome is None and board.is_repetition(3):
            outcome = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
        if outcome is None and board.halfmove_clock >= 100:
            outcome = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
        if outcome is not None:
            result = outcome.result()
            termination = outcome.termination.name.lower()
            break
        stm = board.turn
        side = sides[stm]
        limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        t0 = time.monotonic()
        try:
            play = side.engine.play(board, limit, game=game_id, ponder=False)
            res = await asyncio.wait_for(play, clock[stm] + args.stall)
            move = res.move
        except asyncio.TimeoutError:
            fault_by, termination = side.name, "time forfeit (no move)"
            break
        except chess.engine.EngineTerminatedError as exc:
            fault_by, termination = side.name, f"crash: {exc}"
            break
        except chess.engine.EngineError as exc:
            text = str(exc)
            kind = "illegal move" if "illegal" in text.lower() or "invalid" in text.lower() \
                else "engine error"
            fault_by, termination = side.name, f"{kind}: {text}"
            break
        elapsed = time.monotonic() - t0
        move_times[side.name].append(elapsed)
        clock[stm] -= elapsed
        low_clock[side.name] = min(low_clock[side.name], clock[stm])
        if move is None or move not in board.legal_moves:
            fault_by, termination = side.name, f"illegal move {move}"
            break
        if clock[stm] < -args.timemargin / 1000.0:
            fault_by = side.name
            termination = f"time forfeit ({clock[stm] * 1000:.0f} ms)"
            break
        clock[stm] += inc
        board.push(move)
    if fault_by is not None:
        ours_lost = fault_by == OURS
        white_lost = (ours_white and ours_lost) or (not ours_white and not ours_lost)
        result = "0-1" if white_lost else "1-0"
    effective = getattr(opp, "effective_options", {})
    for s in (ours, opp):
        await s.close()

    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = "uci_engine play.py"
    game.headers["Round"] = str(number)
    game.headers["White"] = sides[chess.WHITE].name
    game.headers["Black"] = sides[chess.BLACK].name
    game.headers["Result"] = result
    game.headers["Opening"] = fen
    game.headers["TimeControl"] = f"{tc[0]:g}+{tc[1]:g}"
    game.headers["Termination"] = termination
    if result == "1-0":
        ours_pts = 1.0 if ours_white else 0.0
    elif result == "0-1":
        ours_pts = 0.0 if ours_white else 1.0
    else:
        ours_pts = 0.5
    return {"number": number, "opponent": opponent, "ours_white": ours_white, "fen": fen,
            "result": result, "termination": termination, "fault_by": fault_by,
            "ours_points": ours_pts, "plies": len(board.move_stack),
            "low_clock": low_clock, "move_times": move_times, "pgn": str(game),
            "opp_options": effective}


def moves_to(fen, plies=4):
    """A move list from the standard start that reaches ``fen`` (EPD fields compared), or None.

    xboard engines without ``feature setboard`` (fairymax) can only start from the initial
    position, so every game starts there and replays the opening moves. Depth-first over
    ``plies`` plies, never moving a piece off a square that already matches the target."""
    target = chess.Board(fen)
    board = chess.Board()

    def dfs(depth):
        if depth == 0:
            return board.epd() == target.epd()
        for mv in list(board.legal_moves):
            if board.piece_at(mv.from_square) == target.piece_at(mv.from_square):
                continue
            board.push(mv)
            if dfs(depth - 1):
                return True
            board.pop()
        return False

    return list(board.move_stack) if dfs(plies) else None


def pick_openings(path, n, seed):
    """``n`` random openings from an EPD file as (fen, moves from the start position)."""
    with open(path) as f:
        fens = [ln.split(";")[0].strip() for ln in f if ln.strip()]
    rng = random.Random(seed)
    rng.shuffle(fens)
    out = []
    for fen in fens:
        moves = moves_to(fen)
        if moves is not None:
            out.append((fen, moves))
        if len(out) == n:
            break
    return out


def snapshot_engine():
    """Copy the working tree's ``uci_engine`` package to a temporary directory and return a
    command running that copy, so edits made while a long match runs do not change the engine
    between games. The copy compiles its own Numba cache once (``warmup``)."""
    import subprocess
    import tempfile
    src = os.path.join(HERE, os.pardir, "uci_engine")
    dst = tempfile.mkdtemp(prefix="uci_engine_snapshot_")
    shutil.copytree(src, os.path.join(dst, "uci_engine"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    env = dict(os.environ, PYTHONPATH=dst)
    cache = os.path.join(dst, "numba_cache")
    env["NUMBA_CACHE_DIR"] = cache
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "uci_engine", "warmup"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    print(f"engine snapshot in {dst} (warmup {time.monotonic() - t:.0f} s)", flush=True)
    return f"env PYTHONPATH={dst} NUMBA_CACHE_DIR={cache} {sys.executable} -m uci_engine"


async def run(args):
    tc = parse_tc(args.tc)
    if args.snapshot:
        args.engine = snapshot_engine()
    else:
        import subprocess
        subprocess.run(shlex.split(args.engine) + ["warmup"], stdout=subprocess.DEVNULL)
    opponents = [o for o in args.opponents.split(",") if o]
    for o in opponents:
        if o not in OPPONENTS:
            raise SystemExit(f"play.py: unknown opponent {o!r}; known: {', '.join(OPPONENTS)}")
        find_cmd(OPPONENTS[o][0])
    print(f"uci_engine vs {', '.join(opponents)}: {args.games} games each at {args.tc}, "
          f"concurrency {args.concurrency}", flush=True)
    pairs = (args.games + 1) // 2
    schedule = []
    for o in opponents:
        for opening in pick_openings(args.openings, pairs, args.seed):
            schedule.append((o, opening, True))
            schedule.append((o, opening, False))
    schedule = [(i + 1,) + s for i, s in enumerate(schedule)]
    sem = asyncio.Semaphore(args.concurrency)
    results = []
    t_start = time.monotonic()

    async def one(number, opponent, opening, ours_white):
        async with sem:
            r = await play_game(number, opening, ours_white, opponent, tc, args)
        results.append(r)
        w, b = (OURS, opponent) if ours_white else (opponent, OURS)
        mt = r["move_times"][OURS]
        print(f"Game {number:3d}/{len(schedule)} {w} vs {b}: {r['result']} "
              f"{{{r['termination']}}} plies {r['plies']}, {OURS} min clock "
              f"{r['low_clock'][OURS]:.2f} s, avg move {sum(mt) / max(1, len(mt)):.3f} s "
              f"[{time.monotonic() - t_start:.0f} s]", flush=True)
        return r

    await asyncio.gather(*(one(*s) for s in schedule))
    results.sort(key=lambda r: r["number"])
    if args.pgn:
        with open(args.pgn, "w") as f:
            for r in results:
                f.write(r["pgn"] + "\n\n")

    bad = 0
    print()
    for o in opponents:
        rs = [r for r in results if r["opponent"] == o]
        w = sum(r["ours_points"] == 1.0 for r in rs)
        l_ = sum(r["ours_points"] == 0.0 for r in rs)
        d = sum(r["ours_points"] == 0.5 for r in rs)
        pts = sum(r["ours_points"] for r in rs)
        opts = next((r["opp_options"] for r in rs if r["opp_options"]), {})
        print(f"Score of {OURS} vs {o} {opts or ''}: {w} - {l_} - {d}  [{pts:g}/{len(rs)}]")
        terms = collections.Counter()
        for r in rs:
            t = r["termination"]
            if r["fault_by"]:
                t = f"{t.split(':')[0].split(' (')[0]} by {r['fault_by']}"
            terms[t] += 1
        for t, n in sorted(terms.items()):
            print(f"    {t}: {n}")
        ours_faults = [r for r in rs if r["fault_by"] == OURS]
        bad += len(ours_faults)
        for r in ours_faults:
            print(f"    FAULT game {r['number']}: {r['termination']}  opening {r['fen']}")
        lows = [r["low_clock"][OURS] for r in rs]
        print(f"    {OURS} lowest clock left: {min(lows):.2f} s")
    print(f"Illegal moves / time losses / crashes by {OURS}: {bad}")
    print(f"Total time: {time.monotonic() - t_start:.0f} s")
    return 1 if bad else 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--shim"]:
        return xboard_shim(argv[1:])
    ap = argparse.ArgumentParser(description="uci_engine vs stockfish (limited) and fairymax")
    ap.add_argument("--games", type=int, default=20, help="games per opponent (20, even)")
    ap.add_argument("--tc", default="10+0.1", help="seconds+increment (10+0.1)")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--opponents", default="stockfish,fairymax")
    ap.add_argument("--elo", type=int, default=1320, help="stockfish UCI_Elo (1320)")
    ap.add_argument("--openings", default=DEFAULT_OPENINGS)
    ap.add_argument("--seed", type=int, default=1, help="opening selection seed")
    ap.add_argument("--engine", default="uci-engine", help="our engine's command line")
    ap.add_argument("--timemargin", type=int, default=0, help="ms allowed past zero (0)")
    ap.add_argument("--stall", type=float, default=5.0,
                    help="seconds past the clock before a silent engine forfeits (5)")
    ap.add_argument("--pgn", default=None, help="write the games to this PGN file")
    ap.add_argument("--snapshot", action="store_true",
                    help="play a frozen copy of the current uci_engine package")
    args = ap.parse_args(argv)
    # python-chess warns about ``info string`` lines outside a search (our engine announces
    # its slider backend on the first isready); keep the log readable
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
